// gettimeofday() for the test binary: the real time, or a FakeWallClock's.
#include "utest/openssl_wall_clock.hpp"

#include <sys/time.h>
#include <time.h>

#include <atomic>

namespace {

// -1: the real clock. Tests run one at a time; atomic only to be well-defined.
std::atomic<long long> fake_wall_us{-1};

}  // namespace

extern "C" int gettimeofday(struct timeval* __restrict tv, void* __restrict) noexcept {
    long long fake = fake_wall_us.load(std::memory_order_relaxed);
    if (fake >= 0) {
        tv->tv_sec = static_cast<time_t>(fake / 1000000);
        tv->tv_usec = static_cast<suseconds_t>(fake % 1000000);
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = static_cast<suseconds_t>(ts.tv_nsec / 1000);
    return 0;
}

namespace srs {

// OpenSSL treats a zero timeval as "no timer", so the fake time starts past it.
FakeWallClock::FakeWallClock(utime_t now) { set(now); }

FakeWallClock::~FakeWallClock() { fake_wall_us.store(-1, std::memory_order_relaxed); }

void FakeWallClock::set(utime_t now) {
    fake_wall_us.store(static_cast<long long>(now) + 1000000LL, std::memory_order_relaxed);
}

}  // namespace srs
