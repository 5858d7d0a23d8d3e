// Tests of protocol/rtc/nack_generator: what is NACKed when, retries with the
// interval (and the RTT), recovery, giving up by retries and by age, a huge
// jump or a restart behind, the missing limit, reordering and the 65535 wrap.
#include <gtest/gtest.h>

#include <vector>

#include "protocol/rtc/nack_generator.hpp"

using namespace srs;

namespace {

constexpr utime_t kMs = 1000;

std::vector<uint16_t> collect(NackGenerator* g, utime_t now) {
    std::vector<uint16_t> v;
    g->collect(now, &v);
    return v;
}

}  // namespace

TEST(NackGeneratorTest, GapOfThreeNackedOnceThenAfterInterval) {
    NackGenerator g;
    utime_t t = 10 * kUsPerSecond;
    EXPECT_FALSE(g.on_packet(100, t));
    EXPECT_TRUE(collect(&g, t).empty());
    EXPECT_FALSE(g.on_packet(104, t));
    EXPECT_EQ(3u, g.missing());
    EXPECT_EQ((std::vector<uint16_t>{101, 102, 103}), collect(&g, t));
    EXPECT_EQ(3u, g.stats().nacked);
    EXPECT_TRUE(collect(&g, t).empty());             // asked already
    EXPECT_TRUE(collect(&g, t + 19 * kMs).empty());  // min_interval 20 ms
    EXPECT_EQ((std::vector<uint16_t>{101, 102, 103}), collect(&g, t + 20 * kMs));
    EXPECT_EQ(6u, g.stats().nacked);
    EXPECT_FALSE(g.take_keyframe_needed());
}

TEST(NackGeneratorTest, RttStretchesTheInterval) {
    NackGenerator g;
    g.set_rtt(100 * kMs);
    g.on_packet(1, 0);
    g.on_packet(3, 0);
    EXPECT_EQ((std::vector<uint16_t>{2}), collect(&g, 0));
    EXPECT_TRUE(collect(&g, 20 * kMs).empty());
    EXPECT_TRUE(collect(&g, 99 * kMs).empty());
    EXPECT_EQ((std::vector<uint16_t>{2}), collect(&g, 100 * kMs));
    g.set_rtt(5 * kMs);  // below min_interval: min_interval rules
    EXPECT_TRUE(collect(&g, 119 * kMs).empty());
    EXPECT_EQ((std::vector<uint16_t>{2}), collect(&g, 120 * kMs));
}

TEST(NackGeneratorTest, RecoveredPacketCounted) {
    NackGenerator g;
    g.on_packet(100, 0);
    g.on_packet(104, 0);
    collect(&g, 0);
    EXPECT_TRUE(g.on_packet(102, 5 * kMs));  // the retransmission
    EXPECT_EQ(1u, g.stats().recovered);
    EXPECT_EQ(2u, g.missing());
    EXPECT_FALSE(g.on_packet(102, 6 * kMs));  // a duplicate of it
    EXPECT_FALSE(g.on_packet(104, 6 * kMs));  // a duplicate of the highest
    EXPECT_EQ(1u, g.stats().recovered);
    EXPECT_EQ((std::vector<uint16_t>{101, 103}), collect(&g, 20 * kMs));
}

TEST(NackGeneratorTest, GivenUpAfterMaxRetries) {
    NackOptions o;
    o.max_retries = 3;
    NackGenerator g(o);
    g.on_packet(7, 0);
    g.on_packet(9, 0);
    EXPECT_EQ((std::vector<uint16_t>{8}), collect(&g, 0));
    EXPECT_EQ((std::vector<uint16_t>{8}), collect(&g, 20 * kMs));
    EXPECT_EQ((std::vector<uint16_t>{8}), collect(&g, 40 * kMs));
    // The third NACK gets its interval to be answered before giving up.
    EXPECT_TRUE(collect(&g, 50 * kMs).empty());
    EXPECT_EQ(1u, g.missing());
    EXPECT_FALSE(g.take_keyframe_needed());
    EXPECT_TRUE(collect(&g, 60 * kMs).empty());
    EXPECT_EQ(0u, g.missing());
    EXPECT_EQ(3u, g.stats().nacked);
    EXPECT_EQ(1u, g.stats().given_up);
    EXPECT_TRUE(g.take_keyframe_needed());
    EXPECT_FALSE(g.take_keyframe_needed());  // once
    EXPECT_FALSE(g.on_packet(8, 70 * kMs));  // too late: not a recovery
    EXPECT_EQ(0u, g.stats().recovered);
}

TEST(NackGeneratorTest, GivenUpAfterMaxAge) {
    NackOptions o;
    o.max_age = 100 * kMs;
    o.min_interval = 60 * kMs;
    NackGenerator g(o);
    g.on_packet(1, 0);
    g.on_packet(3, 10 * kMs);  // 2 missing since 10 ms
    EXPECT_EQ((std::vector<uint16_t>{2}), collect(&g, 10 * kMs));
    EXPECT_EQ((std::vector<uint16_t>{2}), collect(&g, 70 * kMs));
    g.on_packet(5, 80 * kMs);  // 4 missing since 80 ms
    EXPECT_EQ((std::vector<uint16_t>{4}), collect(&g, 80 * kMs));
    EXPECT_TRUE(collect(&g, 110 * kMs).empty());  // 2 is 100 ms old: still kept
    EXPECT_EQ(2u, g.missing());
    EXPECT_EQ((std::vector<uint16_t>{4}), collect(&g, 140 * kMs));  // 2 is past max_age
    EXPECT_EQ(1u, g.missing());
    EXPECT_EQ(1u, g.stats().given_up);
    EXPECT_TRUE(g.take_keyframe_needed());
}

TEST(NackGeneratorTest, HugeJumpResetsAndAsksKeyframe) {
    NackOptions o;
    o.max_missing = 1000;
    o.max_per_collect = 1000;
    NackGenerator g(o);
    g.on_packet(10, 0);
    g.on_packet(12, 0);  // 11 missing
    g.on_packet(12 + 1001, 0);  // exactly 1000 more missing: kept
    EXPECT_EQ(1000u, g.missing());  // the oldest (11) gave way to the limit
    EXPECT_EQ(1u, g.stats().given_up);
    EXPECT_EQ(0u, g.stats().resets);
    EXPECT_TRUE(g.take_keyframe_needed());
    std::vector<uint16_t> v = collect(&g, 0);
    ASSERT_EQ(1000u, v.size());
    EXPECT_EQ(13, v.front());
    EXPECT_EQ(1012, v.back());

    g.on_packet(1013 + 1002, 0);  // 1001 missing: forget everything
    EXPECT_EQ(0u, g.missing());
    EXPECT_EQ(1u, g.stats().resets);
    EXPECT_EQ(1001u, g.stats().given_up);
    EXPECT_TRUE(g.take_keyframe_needed());
    EXPECT_TRUE(collect(&g, 0).empty());
    g.on_packet(1013 + 1004, 0);  // continues from the new highest
    EXPECT_EQ((std::vector<uint16_t>{1013 + 1003}), collect(&g, 0));
}

TEST(NackGeneratorTest, MissingLimitGivesUpOldest) {
    NackOptions o;
    o.max_missing = 5;
    NackGenerator g(o);
    g.on_packet(0, 0);
    g.on_packet(3, 0);  // 1 2
    g.on_packet(6, 0);  // 4 5
    EXPECT_FALSE(g.take_keyframe_needed());
    g.on_packet(9, 0);  // 7 8: six missing, 1 given up
    EXPECT_EQ(5u, g.missing());
    EXPECT_EQ(1u, g.stats().given_up);
    EXPECT_TRUE(g.take_keyframe_needed());
    EXPECT_EQ((std::vector<uint16_t>{2, 4, 5, 7, 8}), collect(&g, 0));
}

TEST(NackGeneratorTest, WrapAt65535InIncreasingOrder) {
    NackGenerator g;
    g.on_packet(65533, 0);
    g.on_packet(2, 0);
    EXPECT_EQ(4u, g.missing());
    EXPECT_EQ((std::vector<uint16_t>{65534, 65535, 0, 1}), collect(&g, 0));
    EXPECT_TRUE(g.on_packet(65535, 1 * kMs));
    EXPECT_TRUE(g.on_packet(0, 1 * kMs));
    EXPECT_EQ((std::vector<uint16_t>{65534, 1}), collect(&g, 20 * kMs));
}

TEST(NackGeneratorTest, ReorderingWithinTheWindow) {
    NackGenerator g;
    g.on_packet(500, 0);
    g.on_packet(502, 0);
    g.on_packet(501, 0);  // came late, before any NACK
    g.on_packet(505, 0);
    g.on_packet(503, 0);
    EXPECT_EQ(2u, g.stats().recovered);
    EXPECT_EQ((std::vector<uint16_t>{504}), collect(&g, 0));
    EXPECT_FALSE(g.on_packet(400, 0));  // old and not missing: ignored
    EXPECT_EQ(0u, g.stats().resets);
    EXPECT_EQ(1u, g.missing());
    EXPECT_FALSE(g.take_keyframe_needed());
}

TEST(NackGeneratorTest, CollectCapKeepsTheRestDue) {
    NackOptions o;
    o.max_per_collect = 3;
    o.max_age = 50 * kMs;
    NackGenerator g(o);
    g.on_packet(0, 0);
    g.on_packet(6, 0);  // 1..5
    EXPECT_EQ((std::vector<uint16_t>{1, 2, 3}), collect(&g, 0));
    EXPECT_EQ((std::vector<uint16_t>{4, 5}), collect(&g, 1 * kMs));  // the rest, not waiting the interval
    EXPECT_EQ((std::vector<uint16_t>{1, 2, 3}), collect(&g, 20 * kMs));
    EXPECT_EQ((std::vector<uint16_t>{4, 5}), collect(&g, 21 * kMs));
    // Given-up seqs do not take places under the cap.
    g.on_packet(8, 30 * kMs);  // 7, missing since 30 ms
    EXPECT_EQ((std::vector<uint16_t>{7}), collect(&g, 51 * kMs));  // 1..5 are 51 ms old
    EXPECT_EQ(5u, g.stats().given_up);
    EXPECT_EQ(1u, g.missing());
}

TEST(NackGeneratorTest, RestartFarBehindResets) {
    NackGenerator g;  // reset_behind 3000
    g.on_packet(20000, 0);
    g.on_packet(20002, 0);
    g.on_packet(16000, 0);  // 4002 behind: the sender restarted its numbers
    EXPECT_EQ(1u, g.stats().resets);
    EXPECT_EQ(0u, g.missing());
    EXPECT_TRUE(g.take_keyframe_needed());
    g.on_packet(16002, 0);  // tracked from the new numbers
    EXPECT_EQ((std::vector<uint16_t>{16001}), collect(&g, 0));
}
