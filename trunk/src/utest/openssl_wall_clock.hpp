// The wall clock OpenSSL reads, made to follow a test's fake clock.
//
// OpenSSL gates a DTLS resend on gettimeofday(), and DtlsEndpoint carries the
// time OpenSSL has left over onto the clock it is given. A test that moves a
// fake clock past a DTLS timer must move this one with it; while a
// FakeWallClock lives, gettimeofday() in this test binary returns its time.
// (srs_utest defines gettimeofday, so libssl's call resolves to it first.)
#pragma once

#include "core/clock.hpp"

namespace srs {

class FakeWallClock {
  public:
    explicit FakeWallClock(utime_t now);
    ~FakeWallClock();  // back to the real clock
    FakeWallClock(const FakeWallClock&) = delete;
    FakeWallClock& operator=(const FakeWallClock&) = delete;

    void set(utime_t now);
};

}  // namespace srs
