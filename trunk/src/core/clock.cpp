#include "core/clock.hpp"

#include <time.h>

namespace srs {

static utime_t read_clock(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return static_cast<utime_t>(ts.tv_sec) * kUsPerSecond + ts.tv_nsec / 1000;
}

utime_t monotonic_us() { return read_clock(CLOCK_MONOTONIC); }
utime_t wall_us() { return read_clock(CLOCK_REALTIME); }

void CachedClock::update() {
    now_us_ = monotonic_us();
    wall_us_ = srs::wall_us();
}

}  // namespace srs
