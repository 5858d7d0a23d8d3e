#include <gtest/gtest.h>

#include "app/ffmpeg/restart_backoff.hpp"

using namespace srs;

TEST(RestartBackoff, DoublesToThirtySecondsAndResetsAfterAStableMinute) {
    RestartBackoff b;
    EXPECT_EQ(1 * kUsPerSecond, b.next_delay(0));
    EXPECT_EQ(2 * kUsPerSecond, b.next_delay(100));
    EXPECT_EQ(4 * kUsPerSecond, b.next_delay(5 * kUsPerSecond));
    EXPECT_EQ(8 * kUsPerSecond, b.next_delay(0));
    EXPECT_EQ(16 * kUsPerSecond, b.next_delay(0));
    EXPECT_EQ(30 * kUsPerSecond, b.next_delay(0));
    EXPECT_EQ(30 * kUsPerSecond, b.next_delay(59 * kUsPerSecond));
    // A minute of running: healthy, the next crash waits 1 s again.
    EXPECT_EQ(1 * kUsPerSecond, b.next_delay(60 * kUsPerSecond));
    EXPECT_EQ(2 * kUsPerSecond, b.next_delay(0));
    b.reset();
    EXPECT_EQ(1 * kUsPerSecond, b.next_delay(0));
}

TEST(RestartBackoff, ACleanEndAfterTenSecondsIsHealthy) {
    RestartBackoff b;
    EXPECT_EQ(1 * kUsPerSecond, b.next_delay(0));
    EXPECT_EQ(2 * kUsPerSecond, b.next_delay(0));
    // A 20 s file ingested to its end: back in 1 s, every time.
    EXPECT_EQ(1 * kUsPerSecond, b.next_delay(20 * kUsPerSecond, true));
    EXPECT_EQ(1 * kUsPerSecond, b.next_delay(20 * kUsPerSecond, true));
    // A clean but quick end, or a failing long one, still backs off.
    EXPECT_EQ(2 * kUsPerSecond, b.next_delay(2 * kUsPerSecond, true));
    EXPECT_EQ(4 * kUsPerSecond, b.next_delay(20 * kUsPerSecond, false));
}
