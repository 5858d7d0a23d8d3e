// The coroutine runtime as the rest of the server sees it. io/ is the only
// layer that calls st_*; everything above uses these wrappers.
#pragma once

#include <string>

#include "core/clock.hpp"
#include "core/error.hpp"

namespace srs {

// Starts the runtime (epoll), makes main() a coroutine and installs the
// context-id hook for logs and errors. Call once, before any other io call.
Error init_runtime();

// Wake-up coalescing of the runtime (st_set_wakeup_coalesce): while I/O
// wakes the process more often than every interval/2, it wakes at most once
// per interval. 0 turns it off.
void set_wakeup_coalesce(utime_t interval_us);

// Sleeps the calling coroutine. Returns an error if it was interrupted.
Error sleep_us(utime_t us);
void yield_now();

// The per-coroutine context id that logs and errors carry (8 characters,
// [0-9a-z]), e.g. "k2j8x0ab". The primordial coroutine starts with one too.
std::string new_context_id();
const std::string& context_id();
void set_context_id(const std::string& cid);

}  // namespace srs
