// A coroutine owned by an object: start() runs handler->cycle() in a new
// coroutine; stop() interrupts it and waits for it to end. The handler's
// loop calls pull() between steps, which fails once stop() or interrupt()
// was called, so the loop ends at its next blocking call or step.
#pragma once

#include <string>

#include "core/error.hpp"

namespace srs {

class CoroutineHandler {
  public:
    virtual ~CoroutineHandler() = default;
    // Runs in the coroutine. Its error is kept and returned by stop()/error().
    virtual Error cycle() = 0;
};

class Coroutine {
  public:
    // cid: the context id the coroutine logs with ("" makes a new one).
    Coroutine(std::string name, CoroutineHandler* handler, std::string cid = "");
    ~Coroutine();  // stops the coroutine if it still runs
    Coroutine(const Coroutine&) = delete;
    Coroutine& operator=(const Coroutine&) = delete;

    Error start();
    // Interrupts, then joins. Safe to call more than once and after the
    // coroutine ended by itself. Must not be called from the coroutine itself.
    void stop();
    // Asks the coroutine to end: blocked calls in it return EINTR.
    void interrupt();
    // Fails once the coroutine was asked to end (or its cycle ended).
    Error pull() const;
    bool running() const { return started_ && !finished_; }
    const std::string& cid() const { return cid_; }
    const std::string& name() const { return name_; }
    // The error cycle() returned, once it ended (success otherwise).
    Error take_error();

  private:
    static void* entry(void* arg);
    std::string name_;
    CoroutineHandler* handler_;
    std::string cid_;
    void* thread_ = nullptr;  // st_thread_t
    bool started_ = false;
    bool finished_ = false;
    bool interrupted_ = false;
    bool joined_ = false;
    Error error_;
};

// A condition variable for coroutines.
class CoCond {
  public:
    CoCond();
    ~CoCond();
    CoCond(const CoCond&) = delete;
    CoCond& operator=(const CoCond&) = delete;
    // Returns false on timeout or interrupt. timeout_us < 0: wait forever.
    bool wait(int64_t timeout_us = -1);
    void signal();
    void broadcast();

  private:
    void* cond_;  // st_cond_t
};

}  // namespace srs
