// Tests of protocol/rtc/receive_stats against values worked out by hand from
// RFC 3550 A.1 (sequence, wrap, restart), A.3 (fraction and cumulative loss)
// and A.8 (jitter), and LSR/DLSR from a known SR.
#include <gtest/gtest.h>

#include "protocol/rtc/receive_stats.hpp"

using namespace srs;

namespace {

constexpr uint32_t kSsrc = 0x11223344;
constexpr utime_t kMs = 1000;

// Packets seq from..to (inclusive, wrapping) 20 ms apart, 1800 ticks apart
// at 90 kHz: no jitter.
void feed(RtpReceiveStats* s, uint16_t from, uint16_t to, utime_t* t) {
    for (uint16_t q = from;; ++q) {
        s->on_packet(q, static_cast<uint32_t>(q) * 1800, *t);
        *t += 20 * kMs;
        if (q == to) break;
    }
}

}  // namespace

TEST(RtpReceiveStatsTest, NothingReceived) {
    RtpReceiveStats s(kSsrc, 90000);
    RtcpReportBlock b = s.report(0);
    EXPECT_EQ(kSsrc, b.ssrc);
    EXPECT_EQ(kSsrc, s.ssrc());
    EXPECT_EQ(0, b.fraction_lost);
    EXPECT_EQ(0, b.cumulative_lost);
    EXPECT_EQ(0u, b.highest_sequence);
    EXPECT_EQ(0u, b.jitter);
    EXPECT_EQ(0u, b.lsr);
    EXPECT_EQ(0u, b.dlsr);
    EXPECT_EQ(0u, s.packets());
}

TEST(RtpReceiveStatsTest, FractionAndCumulativeLoss) {
    RtpReceiveStats s(kSsrc, 90000);
    utime_t t = kUsPerSecond;
    for (uint16_t q = 0; q < 10; ++q) {
        if (q == 3 || q == 7) continue;
        s.on_packet(q, q * 1800u, t + q * 20 * kMs);
    }
    // expected 9 - 0 + 1 = 10, received 8: lost 2, fraction 2 * 256 / 10 = 51.
    RtcpReportBlock b = s.report(t);
    EXPECT_EQ(51, b.fraction_lost);
    EXPECT_EQ(2, b.cumulative_lost);
    EXPECT_EQ(9u, b.highest_sequence);
    EXPECT_EQ(8u, s.packets());

    t += kUsPerSecond;
    feed(&s, 10, 19, &t);
    b = s.report(t);
    EXPECT_EQ(0, b.fraction_lost);  // 10 expected, 10 received this interval
    EXPECT_EQ(2, b.cumulative_lost);
    EXPECT_EQ(19u, b.highest_sequence);

    feed(&s, 25, 29, &t);  // 20..24 lost
    b = s.report(t);
    EXPECT_EQ(128, b.fraction_lost);  // 5 of 10: 5 * 256 / 10
    EXPECT_EQ(7, b.cumulative_lost);  // 30 expected, 23 received

    // Duplicates and a late packet count as received (A.3): more came than
    // expected this interval, so the fraction is 0 and the total goes down.
    s.on_packet(29, 29 * 1800, t);
    s.on_packet(28, 28 * 1800, t);
    s.on_packet(3, 3 * 1800, t);
    b = s.report(t);
    EXPECT_EQ(0, b.fraction_lost);
    EXPECT_EQ(4, b.cumulative_lost);
    EXPECT_EQ(29u, b.highest_sequence);
    EXPECT_EQ(26u, s.packets());
}

TEST(RtpReceiveStatsTest, ExtendedHighestAcrossWrap) {
    RtpReceiveStats s(kSsrc, 90000);
    utime_t t = kUsPerSecond;
    feed(&s, 65530, 5, &t);  // 12 packets
    RtcpReportBlock b = s.report(t);
    EXPECT_EQ(0x10005u, b.highest_sequence);  // one cycle + 5
    EXPECT_EQ(0, b.cumulative_lost);
    EXPECT_EQ(0, b.fraction_lost);
    EXPECT_EQ(12u, s.packets());

    s.on_packet(65535, 0, t);  // a duplicate from before the wrap: late, not a new cycle
    feed(&s, 8, 9, &t);        // 6 and 7 lost
    b = s.report(t);
    EXPECT_EQ(0x10009u, b.highest_sequence);
    EXPECT_EQ(1, b.cumulative_lost);  // 16 expected, 15 received
    EXPECT_EQ(64, b.fraction_lost);   // (4 - 3) * 256 / 4
}

TEST(RtpReceiveStatsTest, BigJumpBelievedOnlyWhenFollowed) {
    RtpReceiveStats s(kSsrc, 90000);
    utime_t t = 0;
    feed(&s, 100, 109, &t);
    s.on_packet(5000, 0, t);  // 4891 ahead: over the 3000 dropout, not believed yet
    EXPECT_EQ(10u, s.packets());
    RtcpReportBlock b = s.report(t);
    EXPECT_EQ(109u, b.highest_sequence);
    EXPECT_EQ(0, b.cumulative_lost);
    s.on_packet(5001, 0, t);  // follows it: the sender restarted, counts start over
    b = s.report(t);
    EXPECT_EQ(5001u, b.highest_sequence);
    EXPECT_EQ(0, b.cumulative_lost);
    EXPECT_EQ(0, b.fraction_lost);
    s.on_packet(5004, 0, t);
    b = s.report(t);
    EXPECT_EQ(2, b.cumulative_lost);  // 5001..5004 expected, 2 received
    EXPECT_EQ(12u, s.packets());
}

TEST(RtpReceiveStatsTest, JitterFromKnownArrivals) {
    RtpReceiveStats s(kSsrc, 90000);  // 90 ticks per ms
    s.on_packet(0, 0, 1000 * kMs);
    EXPECT_DOUBLE_EQ(0.0, s.jitter());
    // 30 ms (2700 ticks) for 1800 ticks of media: D = 900, J = 900 / 16.
    s.on_packet(1, 1800, 1030 * kMs);
    EXPECT_DOUBLE_EQ(56.25, s.jitter());
    // 10 ms (900 ticks): D = -900, J = 56.25 + (900 - 56.25) / 16.
    s.on_packet(2, 3600, 1040 * kMs);
    EXPECT_DOUBLE_EQ(108.984375, s.jitter());
    // 20 ms: D = 0, J = 108.984375 * 15 / 16.
    s.on_packet(3, 5400, 1060 * kMs);
    EXPECT_DOUBLE_EQ(102.1728515625, s.jitter());
    EXPECT_EQ(102u, s.report(1060 * kMs).jitter);
    // A late packet (a retransmission) leaves the jitter alone.
    s.on_packet(1, 1800, 1500 * kMs);
    EXPECT_DOUBLE_EQ(102.1728515625, s.jitter());
    // The next in-order packet is compared with packet 3, not with the late one.
    s.on_packet(4, 7200, 1080 * kMs);
    EXPECT_DOUBLE_EQ(102.1728515625 * 15 / 16, s.jitter());
}

TEST(RtpReceiveStatsTest, JitterAcrossTimestampWrap) {
    RtpReceiveStats s(kSsrc, 48000);  // 48 ticks per ms
    s.on_packet(7, 0xFFFFFFFFu - 499, 50 * kMs);
    s.on_packet(8, 460, 70 * kMs);  // +960 ticks across the wrap, 20 ms later: D = 0
    EXPECT_DOUBLE_EQ(0.0, s.jitter());
    s.on_packet(9, 1420, 92 * kMs);  // 22 ms = 1056 ticks for 960: D = 96, J = 6
    EXPECT_DOUBLE_EQ(6.0, s.jitter());
    EXPECT_EQ(6u, s.report(92 * kMs).jitter);
}

TEST(RtpReceiveStatsTest, LsrAndDlsr) {
    RtpReceiveStats s(kSsrc, 90000);
    s.on_packet(1, 0, 0);
    RtcpReportBlock b = s.report(4 * kUsPerSecond);
    EXPECT_EQ(0u, b.lsr);
    EXPECT_EQ(0u, b.dlsr);
    // NTP seconds 0x83AA7E80 + 0.5: the middle 32 bits are 0x7E808000.
    s.on_sender_report(0x83AA7E8080000000ULL, 5 * kUsPerSecond);
    b = s.report(5 * kUsPerSecond + 500 * kMs);
    EXPECT_EQ(0x7E808000u, b.lsr);
    EXPECT_EQ(32768u, b.dlsr);  // 0.5 s in 1/65536 s
    b = s.report(7 * kUsPerSecond);
    EXPECT_EQ(2u * 65536u, b.dlsr);
}

// The report blocks sb_rtc_load sends (moved from utest/tools/rtc_player_test,
// where the tool computed them itself): the same packets, the same figures.
TEST(RtpReceiveStatsTest, ToolPlayerSequences) {
    RtpReceiveStats s(0xaabbccdd, 90000);
    utime_t t = kUsPerSecond;
    for (uint16_t q : {100, 101, 102, 105, 103, 105, 106}) s.on_packet(q, 0, t);
    // An SR whose NTP middle 32 bits are 0x12345678, 10 ms before the report.
    s.on_sender_report(0x0000123456780000ull, t);
    // 100..106 expected, 7 received (the duplicate counts, as in RFC 3550 A.3): no loss.
    RtcpReportBlock b = s.report(t + 10 * kMs);
    EXPECT_EQ(b.ssrc, 0xaabbccddu);
    EXPECT_EQ(b.highest_sequence, 106u);
    EXPECT_EQ(b.cumulative_lost, 0);
    EXPECT_EQ(b.fraction_lost, 0);
    EXPECT_EQ(b.lsr, 0x12345678u);
    EXPECT_EQ(b.dlsr, 655u);

    // Next span: 107..116 expected, 8 received.
    for (uint16_t q = 107; q <= 116; q++) {
        if (q != 110 && q != 111) s.on_packet(q, 0, t);
    }
    b = s.report(t);
    EXPECT_EQ(b.highest_sequence, 116u);
    EXPECT_EQ(b.cumulative_lost, 2);
    EXPECT_EQ(b.fraction_lost, (2 << 8) / 10);
    // Nothing new: no loss in the span.
    b = s.report(t);
    EXPECT_EQ(b.fraction_lost, 0);

    RtpReceiveStats w(1, 90000);
    for (uint16_t q : {65533, 65534, 65535, 0, 1, 65535, 4}) w.on_packet(q, 0, t);
    b = w.report(t);
    EXPECT_EQ(b.highest_sequence, 65536u + 4);
    EXPECT_EQ(b.cumulative_lost, 8 - 7);  // 65533..4 is 8 expected; 7 received (with the late one)
}
