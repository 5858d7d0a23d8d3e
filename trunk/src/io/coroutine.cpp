#include "io/coroutine.hpp"

#include <errno.h>
#include <string.h>

#include "core/log.hpp"
#include "io/runtime.hpp"
#include "st/st.h"

namespace srs {

Coroutine::Coroutine(std::string name, CoroutineHandler* handler, std::string cid)
    : name_(std::move(name)), handler_(handler), cid_(cid.empty() ? new_context_id() : std::move(cid)) {}

Coroutine::~Coroutine() {
    stop();
    error_.ignore();
}

Error Coroutine::start() {
    if (started_) return SRS_ERR(kErrorThreadStart, "coroutine %s started twice", name_.c_str());
    // Joinable, so stop() can wait for the end and the stack is freed by join.
    st_thread_t t = st_thread_create(entry, this, 1, 0);
    if (!t) return SRS_ERR(kErrorThreadStart, "create coroutine %s: %s", name_.c_str(), strerror(errno));
    thread_ = t;
    started_ = true;
    return Error();
}

void* Coroutine::entry(void* arg) {
    auto* self = static_cast<Coroutine*>(arg);
    set_context_id(self->cid_);
    self->error_ = self->handler_->cycle();
    self->finished_ = true;
    return nullptr;
}

void Coroutine::interrupt() {
    if (!started_ || finished_ || interrupted_) return;
    interrupted_ = true;
    st_thread_interrupt(static_cast<st_thread_t>(thread_));
}

void Coroutine::stop() {
    if (!started_ || joined_) return;
    interrupt();
    joined_ = true;
    st_thread_join(static_cast<st_thread_t>(thread_), nullptr);
}

Error Coroutine::pull() const {
    if (interrupted_) return SRS_ERR(kErrorThreadInterrupted, "coroutine %s interrupted", name_.c_str());
    if (finished_) return SRS_ERR(kErrorThreadTerminated, "coroutine %s terminated", name_.c_str());
    return Error();
}

Error Coroutine::take_error() { return std::move(error_); }

CoCond::CoCond() : cond_(st_cond_new()) {}
CoCond::~CoCond() { st_cond_destroy(static_cast<st_cond_t>(cond_)); }

bool CoCond::wait(int64_t timeout_us) {
    st_utime_t t = timeout_us < 0 ? ST_UTIME_NO_TIMEOUT : static_cast<st_utime_t>(timeout_us);
    return st_cond_timedwait(static_cast<st_cond_t>(cond_), t) == 0;
}

void CoCond::signal() { st_cond_signal(static_cast<st_cond_t>(cond_)); }
void CoCond::broadcast() { st_cond_broadcast(static_cast<st_cond_t>(cond_)); }

}  // namespace srs
