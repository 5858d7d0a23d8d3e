// How long the runtime may gather I/O wake-ups under load (the root
// directive wakeup_coalesce_us), and applying it at start and reload.
#pragma once

#include "app/config/config.hpp"
#include "core/clock.hpp"

namespace srs {

// wakeup_coalesce_us, or 0 while any vhost has min_latency on: a realtime
// vhost's messages never wait for a batch.
utime_t wakeup_coalesce_us(const Config& config);

// Hands it to the runtime and says so in the log (start and reload).
void apply_wakeup_coalesce(const Config& config);

}  // namespace srs
