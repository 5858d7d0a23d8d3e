// Tests of protocol/rtc/nack_responder: which asks of a NACK are answered,
// under a fake clock.
#include <gtest/gtest.h>

#include <vector>

#include "protocol/rtc/nack_responder.hpp"

using namespace srs;

namespace {

std::vector<uint16_t> range(uint16_t first, size_t n) {
    std::vector<uint16_t> v;
    for (size_t i = 0; i < n; i++) v.push_back(static_cast<uint16_t>(first + i));
    return v;
}

}  // namespace

TEST(NackResponderTest, AnswersInOrderAndSkipsWhatIsNotKept) {
    NackResponder r;
    std::vector<uint16_t> sent;
    r.answer({5, 6, 7, 8}, 1 * kUsPerSecond, [&](uint16_t seq) {
        if (seq == 6) return false;  // no longer kept
        sent.push_back(seq);
        return true;
    });
    EXPECT_EQ(sent, (std::vector<uint16_t>{5, 7, 8}));
    EXPECT_EQ(r.stats().retransmits, 3u);
    EXPECT_EQ(r.stats().not_kept, 1u);
    EXPECT_EQ(r.stats().refused, 0u);
}

TEST(NackResponderTest, AtMostMaxPerNackNumbersLookedAt) {
    NackResponder r;  // 64 per NACK
    size_t calls = 0;
    r.answer(range(0, 100), kUsPerSecond, [&](uint16_t) {
        calls++;
        return false;  // not kept still counts as looked at
    });
    EXPECT_EQ(calls, 64u);
}

// 1280 asks in one second: 1000 answered, 280 refused; the next second has
// a budget again.
TEST(NackResponderTest, PerSecondBudget) {
    NackResponder r;
    const utime_t t0 = 3 * kUsPerSecond;
    auto sent = [](uint16_t) { return true; };
    for (int i = 0; i < 20; i++) r.answer(range(0, 64), t0 + i * 10 * 1000, sent);
    EXPECT_EQ(r.stats().retransmits, 1000u);
    EXPECT_EQ(r.stats().refused, 280u);
    // Still the same window 999 ms after its start.
    r.answer(range(0, 1), t0 + kUsPerSecond - 1, sent);
    EXPECT_EQ(r.stats().refused, 281u);
    // A second after its start: a new window.
    r.answer(range(0, 64), t0 + kUsPerSecond, sent);
    EXPECT_EQ(r.stats().retransmits, 1064u);
}

TEST(NackResponderTest, OnlyWhatWasSentCountsAgainstTheBudget) {
    NackResponderOptions o;
    o.max_per_second = 2;
    NackResponder r(o);
    r.answer({1, 2, 3, 4}, kUsPerSecond, [](uint16_t seq) { return seq % 2 == 0; });
    EXPECT_EQ(r.stats().retransmits, 2u);
    EXPECT_EQ(r.stats().not_kept, 2u);
    EXPECT_EQ(r.stats().refused, 0u);
    r.answer({6}, kUsPerSecond, [](uint16_t) { return true; });
    EXPECT_EQ(r.stats().refused, 1u);
}
