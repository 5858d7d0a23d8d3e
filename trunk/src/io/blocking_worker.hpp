// Blocking calls off the coroutine thread (docs/architecture.md, "Blocking calls": file reads
// of size, DNS, ...). One helper thread runs the jobs in order; when one is
// done it bumps an eventfd, and a coroutine of ours that reads it wakes the
// coroutine waiting for that job. Only the waiting coroutine waits: every
// other one keeps running.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/coroutine.hpp"

namespace srs {

class BlockingWorker : public CoroutineHandler {
  public:
    BlockingWorker() = default;
    ~BlockingWorker() override;  // stop()
    BlockingWorker(const BlockingWorker&) = delete;
    BlockingWorker& operator=(const BlockingWorker&) = delete;

    // The helper thread and the dispatcher coroutine. Call after init_runtime().
    Error start();
    // Lets queued jobs finish, wakes their callers, joins the thread.
    void stop();

    // Runs job on the helper thread and returns when it is done. The job
    // must not call st_* or log (it is not on the coroutine thread) and may
    // only touch memory the caller keeps alive: the caller waits for it even
    // when its coroutine is interrupted, so its stack is safe to use.
    Error run(std::function<void()> job);

    uint64_t jobs_done() const { return jobs_done_; }

  private:
    struct Job {
        std::function<void()> fn;
        bool done = false;  // set on the coroutine thread only
        CoCond cond;
    };
    Error cycle() override;  // the dispatcher
    void thread_main();
    void wake_finished();

    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Job*> queue_;      // guarded by mu_
    std::vector<Job*> finished_;  // guarded by mu_
    bool quit_ = false;           // guarded by mu_
    std::thread thread_;
    int event_fd_ = -1;
    void* event_netfd_ = nullptr;  // st_netfd_t of event_fd_
    std::unique_ptr<Coroutine> dispatcher_;
    bool running_ = false;
    uint64_t jobs_done_ = 0;
};

}  // namespace srs
