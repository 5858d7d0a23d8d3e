// Time. Durations use the monotonic clock (never jumps with NTP); wall time is
// only for display and the API. Both are microseconds in int64_t.
#pragma once

#include <cstdint>

namespace srs {

using utime_t = int64_t;  // microseconds
constexpr utime_t kUsPerMs = 1000;
constexpr utime_t kUsPerSecond = 1000 * 1000;

// Monotonic microseconds (CLOCK_MONOTONIC).
utime_t monotonic_us();
// Wall clock microseconds since the epoch.
utime_t wall_us();

// A clock read once per event-loop turn, so hot paths (one timestamp per
// message) do not pay a clock_gettime each. The io layer calls update().
class CachedClock {
  public:
    void update();
    utime_t now_us() const { return now_us_; }
    utime_t wall_us() const { return wall_us_; }

  private:
    utime_t now_us_ = 0;
    utime_t wall_us_ = 0;
};

}  // namespace srs
