#include "io/blocking_worker.hpp"

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "st/st.h"

namespace srs {

BlockingWorker::~BlockingWorker() { stop(); }

Error BlockingWorker::start() {
    if (running_) return Error();
    event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (event_fd_ < 0) return SRS_ERR(kErrorThreadStart, "eventfd: %s", strerror(errno));
    st_netfd_t nfd = st_netfd_open(event_fd_);
    if (!nfd) {
        ::close(event_fd_);
        event_fd_ = -1;
        return SRS_ERR(kErrorThreadStart, "open eventfd netfd: %s", strerror(errno));
    }
    event_netfd_ = nfd;
    quit_ = false;
    thread_ = std::thread([this] { thread_main(); });
    dispatcher_.reset(new Coroutine("blocking-worker", this));
    if (Error err = dispatcher_->start(); !err.ok()) {
        stop();
        return SRS_WRAP(err, "blocking worker dispatcher");
    }
    running_ = true;
    return Error();
}

void BlockingWorker::stop() {
    if (thread_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(mu_);
            quit_ = true;
        }
        cv_.notify_one();
        thread_.join();  // runs what is queued first: no caller is left waiting
    }
    if (dispatcher_) {
        dispatcher_->stop();
        dispatcher_.reset();
    }
    wake_finished();
    if (event_netfd_) st_netfd_close(static_cast<st_netfd_t>(event_netfd_));  // closes event_fd_
    event_netfd_ = nullptr;
    event_fd_ = -1;
    running_ = false;
}

Error BlockingWorker::run(std::function<void()> job) {
    if (!running_) return SRS_ERR(kErrorThreadStart, "blocking worker not running");
    Job j;
    j.fn = std::move(job);
    {
        std::lock_guard<std::mutex> lock(mu_);
        queue_.push_back(&j);
    }
    cv_.notify_one();
    // Not even an interrupt ends this wait: the helper thread may be using
    // j and the caller's buffers right now.
    while (!j.done) j.cond.wait(-1);
    return Error();
}

void BlockingWorker::thread_main() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
        cv_.wait(lock, [this] { return quit_ || !queue_.empty(); });
        if (queue_.empty()) return;  // quit, and nothing left to do
        Job* j = queue_.front();
        queue_.pop_front();
        lock.unlock();
        j->fn();
        lock.lock();
        finished_.push_back(j);
        uint64_t one = 1;
        ssize_t n = ::write(event_fd_, &one, sizeof(one));
        (void)n;  // only fails when the counter would overflow: it is read long before
    }
}

void BlockingWorker::wake_finished() {
    std::vector<Job*> done;
    {
        std::lock_guard<std::mutex> lock(mu_);
        done.swap(finished_);
    }
    for (Job* j : done) {
        j->done = true;
        jobs_done_++;
        j->cond.signal();
    }
}

Error BlockingWorker::cycle() {
    while (true) {
        if (Error err = dispatcher_->pull(); !err.ok()) return Error();
        uint64_t count = 0;
        ssize_t n = st_read(static_cast<st_netfd_t>(event_netfd_), &count, sizeof(count), ST_UTIME_NO_TIMEOUT);
        if (n < 0 && errno == EINTR) return Error();
        if (n != sizeof(count)) return SRS_ERR(kErrorThreadTerminated, "read eventfd: %s", strerror(errno));
        wake_finished();
    }
}

}  // namespace srs
