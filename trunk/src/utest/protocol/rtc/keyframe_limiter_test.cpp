// Tests of protocol/rtc/keyframe_limiter: one request per interval whatever
// the number of askers, the rest counted.
#include <gtest/gtest.h>

#include "protocol/rtc/keyframe_limiter.hpp"

using namespace srs;

TEST(KeyframeRequestLimiterTest, OnePerInterval) {
    KeyframeRequestLimiter l;  // 500 ms
    EXPECT_TRUE(l.allow(1000));
    EXPECT_FALSE(l.allow(1000));  // a second player at the same moment
    EXPECT_FALSE(l.allow(1000 + 100 * 1000));
    EXPECT_FALSE(l.allow(1000 + 500 * 1000 - 1));
    EXPECT_EQ(3u, l.suppressed());
    EXPECT_TRUE(l.allow(1000 + 500 * 1000));
    EXPECT_FALSE(l.allow(1000 + 600 * 1000));
    EXPECT_TRUE(l.allow(1000 + 5000 * 1000));
    EXPECT_EQ(4u, l.suppressed());
}

TEST(KeyframeRequestLimiterTest, FirstAllowedAtTimeZeroAndCustomInterval) {
    KeyframeRequestLimiter l(2 * kUsPerSecond);
    EXPECT_TRUE(l.allow(0));
    EXPECT_FALSE(l.allow(kUsPerSecond));
    EXPECT_TRUE(l.allow(2 * kUsPerSecond));
    EXPECT_EQ(1u, l.suppressed());
    // A clock read before the last grant (another coroutine's stale now).
    EXPECT_FALSE(l.allow(kUsPerSecond));
    EXPECT_EQ(2u, l.suppressed());
}

TEST(KeyframeRequestLimiterTest, ResetAllowsTheNextRequestAndKeepsTheCount) {
    KeyframeRequestLimiter l(kUsPerSecond);
    EXPECT_TRUE(l.allow(10));
    EXPECT_FALSE(l.allow(20));
    l.reset();  // a new publisher
    EXPECT_TRUE(l.allow(30));
    EXPECT_FALSE(l.allow(40));
    EXPECT_EQ(l.suppressed(), 2u);
}
