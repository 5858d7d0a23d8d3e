// Tests of protocol/rtc/rtp_reorder: in-order and reordered packets, loss
// skipped after max_wait (measured from the first packet after the gap),
// duplicates and late packets, the 65535 -> 0 wrap, a full window, jumps far
// ahead, a sender restarting its sequence backwards, and oversized packets.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/rtc/rtp_reorder.hpp"

using namespace srs;

namespace {

constexpr utime_t kWait = 20 * kUsPerMs;

// A payload that names its sequence number.
std::string payload(uint16_t seq) {
    return "packet " + std::to_string(seq);
}

void push(RtpReorderBuffer& b, uint16_t seq, utime_t now = 0) {
    std::string p = payload(seq);
    b.push(seq, reinterpret_cast<const uint8_t*>(p.data()), p.size(), now);
}

struct Out {
    uint16_t seq;
    int lost_before;
    bool operator==(const Out& o) const { return seq == o.seq && lost_before == o.lost_before; }
};

std::ostream& operator<<(std::ostream& os, const Out& o) {
    return os << "{" << o.seq << ", lost " << o.lost_before << "}";
}

// Everything pop() releases at `now`, checking each payload is the one pushed with that seq.
std::vector<Out> pop_all(RtpReorderBuffer& b, utime_t now = 0) {
    std::vector<Out> out;
    RtpReorderPacket p;
    while (b.pop(now, &p)) {
        EXPECT_EQ(payload(p.seq), std::string(reinterpret_cast<const char*>(p.data), p.size));
        out.push_back(Out{p.seq, p.lost_before});
    }
    return out;
}

}  // namespace

TEST(RtpReorderTest, CapacityIsAPowerOfTwo) {
    EXPECT_EQ(512u, RtpReorderBuffer(512, kWait).capacity());
    EXPECT_EQ(512u, RtpReorderBuffer(500, kWait).capacity());
    EXPECT_EQ(2u, RtpReorderBuffer(0, kWait).capacity());
    EXPECT_EQ(16384u, RtpReorderBuffer(100000, kWait).capacity());
}

TEST(RtpReorderTest, InOrderPassesStraightThroughAsCopies) {
    RtpReorderBuffer b(64, kWait);
    EXPECT_EQ(-1, b.next_timeout());
    RtpReorderPacket p;
    EXPECT_FALSE(b.pop(0, &p));
    for (uint16_t s = 1000; s < 1010; ++s) {
        std::string data = payload(s);
        b.push(s, reinterpret_cast<const uint8_t*>(data.data()), data.size(), 0);
        data.assign(data.size(), 'x');  // the buffer holds its own copy
        ASSERT_TRUE(b.pop(0, &p));
        EXPECT_EQ(s, p.seq);
        EXPECT_EQ(0, p.lost_before);
        EXPECT_EQ(payload(s), std::string(reinterpret_cast<const char*>(p.data), p.size));
        EXPECT_FALSE(b.pop(0, &p));
        EXPECT_EQ(-1, b.next_timeout());
    }
    EXPECT_EQ(0u, b.lost() + b.late() + b.duplicates());
}

TEST(RtpReorderTest, ReorderedPacketsComeOutInOrder) {
    RtpReorderBuffer b(64, kWait);
    push(b, 1);
    EXPECT_EQ((std::vector<Out>{{1, 0}}), pop_all(b));
    push(b, 4, 1000);
    push(b, 3, 2000);
    EXPECT_TRUE(pop_all(b, 3000).empty());  // waiting for 2
    EXPECT_EQ(1000 + kWait, b.next_timeout());
    EXPECT_EQ(2u, b.buffered());
    push(b, 2, 4000);
    EXPECT_EQ((std::vector<Out>{{2, 0}, {3, 0}, {4, 0}}), pop_all(b, 4000));
    EXPECT_EQ(-1, b.next_timeout());
    EXPECT_EQ(0u, b.lost());
}

TEST(RtpReorderTest, LossIsSkippedAfterMaxWait) {
    RtpReorderBuffer b(64, kWait);
    push(b, 1, 0);
    push(b, 3, 0);
    push(b, 4, 0);
    EXPECT_EQ((std::vector<Out>{{1, 0}}), pop_all(b, 0));
    EXPECT_EQ(kWait, b.next_timeout());
    EXPECT_TRUE(pop_all(b, kWait - 1).empty());
    EXPECT_EQ((std::vector<Out>{{3, 1}, {4, 0}}), pop_all(b, kWait));
    EXPECT_EQ(1u, b.lost());
    EXPECT_EQ(-1, b.next_timeout());
    // 2 arrives after it was given up: late.
    push(b, 2, kWait + 1);
    EXPECT_TRUE(pop_all(b, kWait + 1).empty());
    EXPECT_EQ(1u, b.late());
}

TEST(RtpReorderTest, WaitIsMeasuredFromTheFirstPacketAfterEachGap) {
    RtpReorderBuffer b(64, kWait);
    push(b, 10, 0);
    EXPECT_EQ(1u, pop_all(b, 0).size());
    push(b, 12, 0);              // gap 11 known at 0
    push(b, 15, 5 * kUsPerMs);   // gap 13-14 known at 5 ms
    EXPECT_EQ((std::vector<Out>{{12, 1}}), pop_all(b, kWait));
    EXPECT_EQ(5 * kUsPerMs + kWait, b.next_timeout());
    EXPECT_TRUE(pop_all(b, 5 * kUsPerMs + kWait - 1).empty());
    // A NACK brings 14 back but not 13: 13 is still waited for until the same deadline.
    push(b, 14, 6 * kUsPerMs);
    EXPECT_EQ(5 * kUsPerMs + kWait, b.next_timeout());
    EXPECT_EQ((std::vector<Out>{{14, 1}, {15, 0}}), pop_all(b, 5 * kUsPerMs + kWait));
    EXPECT_EQ(2u, b.lost());
}

TEST(RtpReorderTest, ZeroWaitSkipsAtOnce) {
    RtpReorderBuffer b(64, 0);
    push(b, 1);
    push(b, 5);
    EXPECT_EQ((std::vector<Out>{{1, 0}, {5, 3}}), pop_all(b, 0));
}

TEST(RtpReorderTest, DuplicatesAndLatePacketsAreDropped) {
    RtpReorderBuffer b(64, kWait);
    push(b, 100);
    push(b, 100);  // held twice
    EXPECT_EQ(1u, b.duplicates());
    EXPECT_EQ((std::vector<Out>{{100, 0}}), pop_all(b));
    push(b, 100);  // the last released one again
    EXPECT_EQ(2u, b.duplicates());
    push(b, 102);
    push(b, 102);  // a held one after a gap
    EXPECT_EQ(3u, b.duplicates());
    push(b, 99);   // older than the last released
    push(b, 50);
    EXPECT_EQ(2u, b.late());
    push(b, 101);
    EXPECT_EQ((std::vector<Out>{{101, 0}, {102, 0}}), pop_all(b));
    EXPECT_EQ(0u, b.lost());
}

TEST(RtpReorderTest, SequenceNumbersWrap) {
    RtpReorderBuffer b(64, kWait);
    push(b, 65533);
    push(b, 0);
    push(b, 65535);
    push(b, 65534);
    push(b, 2);
    EXPECT_EQ((std::vector<Out>{{65533, 0}, {65534, 0}, {65535, 0}, {0, 0}}), pop_all(b, 0));
    EXPECT_EQ((std::vector<Out>{{2, 1}}), pop_all(b, kWait));  // 1 lost across the wrap
    push(b, 65535);  // far in the past now
    EXPECT_EQ(1u, b.late());
}

TEST(RtpReorderTest, LossAcrossTheWrap) {
    RtpReorderBuffer b(64, kWait);
    push(b, 65534);
    push(b, 1);
    EXPECT_EQ((std::vector<Out>{{65534, 0}}), pop_all(b, 0));
    EXPECT_EQ((std::vector<Out>{{1, 2}}), pop_all(b, kWait));  // 65535 and 0
    EXPECT_EQ(2u, b.lost());
}

TEST(RtpReorderTest, AFullWindowReleasesWithoutWaiting) {
    RtpReorderBuffer b(8, kWait);
    push(b, 0);
    EXPECT_EQ(1u, pop_all(b).size());
    for (uint16_t s = 2; s <= 8; ++s) push(b, s);  // 1 missing: the window [1, 9) is full
    EXPECT_TRUE(pop_all(b, 0).empty());
    push(b, 9);  // does not fit: everything before it goes now
    EXPECT_EQ(0, b.next_timeout());
    std::vector<Out> want = {{2, 1}};
    for (uint16_t s = 3; s <= 9; ++s) want.push_back({s, 0});
    EXPECT_EQ(want, pop_all(b, 0));
    EXPECT_EQ(1u, b.lost());
    EXPECT_EQ(0u, b.buffered());
    push(b, 10);
    EXPECT_EQ((std::vector<Out>{{10, 0}}), pop_all(b, 0));
}

TEST(RtpReorderTest, JumpFarAheadResets) {
    RtpReorderBuffer b(512, kWait);
    push(b, 100);
    EXPECT_EQ(1u, pop_all(b).size());
    push(b, 102);  // held, waiting for 101
    push(b, 5000);
    EXPECT_EQ((std::vector<Out>{{102, 1}, {5000, 4897}}), pop_all(b, 0));
    EXPECT_EQ(4898u, b.lost());
    push(b, 5001);
    EXPECT_EQ((std::vector<Out>{{5001, 0}}), pop_all(b, 0));
}

TEST(RtpReorderTest, JumpPushedTwiceBeforePop) {
    RtpReorderBuffer b(8, kWait);
    push(b, 0);
    EXPECT_EQ(1u, pop_all(b).size());
    push(b, 2);   // held
    push(b, 20);  // beyond the window
    push(b, 21);  // before popping: 2 is given up
    EXPECT_EQ((std::vector<Out>{{20, 19}, {21, 0}}), pop_all(b, 0));
    EXPECT_EQ(19u, b.lost());
}

TEST(RtpReorderTest, SenderRestartingBackwards) {
    RtpReorderBuffer b(64, kWait);
    for (uint16_t s = 30000; s < 30005; ++s) push(b, s);
    EXPECT_EQ(5u, pop_all(b).size());
    push(b, 10000);  // far behind: late, once
    EXPECT_TRUE(pop_all(b).empty());
    EXPECT_EQ(1u, b.late());
    push(b, 10001);  // right after it: a restart
    push(b, 10002);
    EXPECT_EQ((std::vector<Out>{{10001, 1}, {10002, 0}}), pop_all(b));
    // A single late straggler is only late.
    push(b, 9000);
    push(b, 10003);
    EXPECT_EQ((std::vector<Out>{{10003, 0}}), pop_all(b));
    EXPECT_EQ(2u, b.late());
}

TEST(RtpReorderTest, OversizedPacketsAreDropped) {
    RtpReorderBuffer b(64, kWait);
    std::string big(kRtpReorderMaxPacket + 1, 'x');
    b.push(1, reinterpret_cast<const uint8_t*>(big.data()), big.size(), 0);
    EXPECT_EQ(1u, b.oversized());
    RtpReorderPacket p;
    EXPECT_FALSE(b.pop(0, &p));
    std::string max(kRtpReorderMaxPacket, 'y');
    b.push(1, reinterpret_cast<const uint8_t*>(max.data()), max.size(), 0);
    ASSERT_TRUE(b.pop(0, &p));
    EXPECT_EQ(max, std::string(reinterpret_cast<const char*>(p.data), p.size));
}

TEST(RtpReorderTest, RandomShuffleWithinTheWindowIsSorted) {
    RtpReorderBuffer b(64, kWait);
    // 2000 sequence numbers from 64000 (wrapping), swapped in pairs and triples.
    std::vector<uint16_t> order;
    for (int i = 0; i < 2000; ++i) order.push_back(static_cast<uint16_t>(64000 + i));
    uint32_t r = 12345;
    for (size_t i = 1; i + 2 < order.size(); i += 3) {
        r = r * 1103515245 + 12345;
        std::swap(order[i + (r >> 16) % 2], order[i + 2]);
    }
    std::vector<Out> got;
    for (uint16_t s : order) {
        push(b, s);
        for (const Out& o : pop_all(b)) got.push_back(o);
    }
    ASSERT_EQ(2000u, got.size());  // no time passed: nothing was skipped
    EXPECT_EQ(64000, got[0].seq);
    for (size_t i = 1; i < got.size(); ++i) {
        EXPECT_EQ(static_cast<uint16_t>(got[i - 1].seq + 1), got[i].seq);
        EXPECT_EQ(0, got[i].lost_before);
    }
    EXPECT_EQ(0u, b.lost());
}
