// Signals as events: the handler only writes the signal number into a pipe;
// a coroutine reads it and acts, so no server code runs in signal context.
#pragma once

#include <initializer_list>

#include "core/error.hpp"

namespace srs {

class SignalPipe {
  public:
    SignalPipe() = default;
    ~SignalPipe();
    SignalPipe(const SignalPipe&) = delete;
    SignalPipe& operator=(const SignalPipe&) = delete;

    // Creates the pipe and installs handlers for these signals.
    Error open(std::initializer_list<int> signals);
    // Waits for the next signal (timeout_us < 0: forever). *signo = 0 on timeout.
    Error wait(int* signo, int64_t timeout_us);

  private:
    int fds_[2] = {-1, -1};
    void* read_netfd_ = nullptr;
};

}  // namespace srs
