#include "app/hls/hls_ts_floor.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "app/hls/hls_cut_rule.hpp"

using namespace srs;

namespace {

constexpr int64_t kFragmentMs = 2000;
constexpr int64_t kT0 = 1700000000000;  // ms; 850000000 fragments of 2 s

}  // namespace

TEST(HlsTsFloor, StartsOneBelowTheClockAndGoesUpByOne) {
    HlsTsFloor f(kFragmentMs);
    EXPECT_EQ(849999999, f.next(kT0));
    EXPECT_EQ(-1, f.deviation());
    EXPECT_EQ(-600, f.cut_slack_ms());  // 30 % of a fragment sooner
    // Segments of exactly one fragment: one up per segment, one behind the clock.
    for (int i = 1; i <= 5; i++) {
        EXPECT_EQ(849999999 + i, f.next(kT0 + i * kFragmentMs));
        EXPECT_EQ(-1, f.deviation());
        EXPECT_FALSE(f.jumped());
    }
}

TEST(HlsTsFloor, NumbersNeverRepeatWhenSegmentsAreShort) {
    // Segments of 0.5 s: the clock's number repeats, ours does not; the
    // deviation grows and lengthens the cut.
    HlsTsFloor f(kFragmentMs);
    std::set<int64_t> seen;
    int64_t previous = -1;
    for (int i = 0; i < 12; i++) {
        int64_t n = f.next(kT0 + i * 500);
        EXPECT_TRUE(seen.insert(n).second) << n;
        if (previous >= 0) {
            EXPECT_EQ(previous + 1, n);
        }
        previous = n;
    }
    EXPECT_EQ(849999999 + 11 - 850000002, f.deviation());  // 11 numbers up, 5.5 s of clock
    EXPECT_EQ(f.deviation() * 600, f.cut_slack_ms());
    EXPECT_GT(f.cut_slack_ms(), 0);
}

TEST(HlsTsFloor, SteeredSegmentsFollowTheClock) {
    // A stream with a keyframe every 0.5 s and hls_fragment 2: each segment
    // ends at the first keyframe past fragment + slack. The number stays
    // within a fragment or two of the clock for 10 minutes.
    HlsTsFloor f(kFragmentMs);
    HlsCutOptions o;
    o.fragment_s = 2;
    int64_t now = kT0, start = kT0;
    f.next(now);
    for (int frame = 1; frame < 10 * 60 * 2; frame++) {
        now = kT0 + frame * 500;
        o.slack_ms = f.cut_slack_ms();
        if (hls_video_cut_due(o, now - start, true)) {
            start = now;
            f.next(now);
            EXPECT_LE(f.deviation(), 1);
            EXPECT_GE(f.deviation(), -2);
            EXPECT_FALSE(f.jumped());
        }
    }
}

TEST(HlsTsFloor, RestartsFromTheClockAfterTwentyFragments) {
    HlsTsFloor f(kFragmentMs);
    f.next(kT0);
    // A stall of 60 s (30 fragments): behind by more than 20, numbering restarts.
    EXPECT_EQ(850000029, f.next(kT0 + 60000));
    EXPECT_TRUE(f.jumped());
    EXPECT_EQ(-1, f.deviation());
    // Ahead by more than 20 (21 segments within one fragment): back to the clock, as SRS.
    HlsTsFloor g(kFragmentMs);
    g.next(kT0);
    for (int i = 0; i < 21; i++) g.next(kT0 + i);
    EXPECT_EQ(20, g.deviation());
    EXPECT_FALSE(g.jumped());
    EXPECT_EQ(849999999, g.next(kT0 + 30));
    EXPECT_TRUE(g.jumped());
}

TEST(HlsTsFloor, ZeroFragmentIsNotADivisionByZero) {
    HlsTsFloor f(0);
    EXPECT_EQ(99, f.next(100));
}

TEST(HlsCutRule, SlackMovesBothCuts) {
    HlsCutOptions o;
    o.fragment_s = 2;
    o.slack_ms = -600;
    EXPECT_FALSE(hls_video_cut_due(o, 1399, true));
    EXPECT_TRUE(hls_video_cut_due(o, 1400, true));
    EXPECT_TRUE(hls_audio_cut_due(o, 4200 - 600));
    o.slack_ms = 1200;
    EXPECT_FALSE(hls_video_cut_due(o, 3199, true));
    EXPECT_TRUE(hls_video_cut_due(o, 3200, true));
    o.slack_ms = -100000;  // never below the 200 ms floor
    EXPECT_FALSE(hls_video_cut_due(o, 199, true));
}
