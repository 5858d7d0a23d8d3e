// Tests of app/rtc/rtc_session_deps: what the server gives its sessions.
#include <gtest/gtest.h>

#include <set>

#include "app/rtc/rtc_session_deps.hpp"

using namespace srs;

TEST(RtcSessionDepsTest, SystemDepsDrawNonZeroSsrcsAndReadTheWallClock) {
    RtcSessionDeps d = rtc_system_session_deps();
    ASSERT_TRUE(d.random_ssrc);
    ASSERT_TRUE(d.wall_clock);
    std::set<uint32_t> seen;
    for (int i = 0; i < 64; i++) {
        uint32_t ssrc = d.random_ssrc();
        EXPECT_NE(ssrc, 0u);
        seen.insert(ssrc);
    }
    EXPECT_GT(seen.size(), 60u);  // 64 draws of 32 bits: a repeat is a broken generator
    // The system's wall clock, whatever monotonic time it is asked about.
    int64_t before = wall_us();
    int64_t got = d.wall_clock(0);
    int64_t after = wall_us();
    EXPECT_GE(got, before);
    EXPECT_LE(got, after);
}
