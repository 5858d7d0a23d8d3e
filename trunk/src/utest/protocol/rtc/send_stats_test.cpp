// Tests of protocol/rtc/send_stats: NTP conversion, the SR fields (counts,
// the RTP timestamp extrapolated to the report time, across the 32-bit wrap)
// and the RTT from a report block, all worked out by hand.
#include <gtest/gtest.h>

#include "protocol/rtc/send_stats.hpp"

using namespace srs;

namespace {

constexpr uint32_t kSsrc = 0xCAFEBABE;
constexpr utime_t kMs = 1000;

}  // namespace

TEST(RtpSendStatsTest, NtpFromUnix) {
    EXPECT_EQ(2208988800ULL << 32, ntp_from_unix_us(0));
    EXPECT_EQ((2208988801ULL << 32) | 0x80000000ULL, ntp_from_unix_us(1500 * kMs));
    // 2023-11-14T22:13:20.25Z: seconds 1700000000 + 2208988800 = 0xE8FE6F80.
    EXPECT_EQ(0xE8FE6F8040000000ULL, ntp_from_unix_us(1700000000LL * kUsPerSecond + 250 * kMs));
    // Before 1970 the fraction stays in [0, 1): -0.25 s is 2208988799.75.
    EXPECT_EQ((2208988799ULL << 32) | 0xC0000000ULL, ntp_from_unix_us(-250 * kMs));
    EXPECT_EQ(0x456789ABu, ntp_middle32(0x0123456789ABCDEFULL));
}

TEST(RtpSendStatsTest, SenderReportFields) {
    RtpSendStats s(kSsrc, 90000);
    RtcpSenderReport sr;
    EXPECT_FALSE(s.build_sr(0, 0, &sr));
    s.on_packet(1000, 100, 10 * kUsPerSecond);
    s.on_packet(2800, 200, 10 * kUsPerSecond + 20 * kMs);
    EXPECT_EQ(2u, s.packets());
    EXPECT_EQ(300u, s.octets());

    RtcpReportBlock rb;
    rb.ssrc = 7;
    sr.reports.push_back(rb);  // kept: the caller adds its own blocks
    int64_t wall = 1700000000LL * kUsPerSecond + 250 * kMs;
    ASSERT_TRUE(s.build_sr(wall, 10 * kUsPerSecond + 120 * kMs, &sr));
    EXPECT_EQ(kSsrc, sr.ssrc);
    EXPECT_EQ(0xE8FE6F8040000000ULL, sr.ntp);
    EXPECT_EQ(2800u + 9000u, sr.rtp_timestamp);  // 100 ms after the last packet at 90 kHz
    EXPECT_EQ(2u, sr.packet_count);
    EXPECT_EQ(300u, sr.octet_count);
    ASSERT_EQ(1u, sr.reports.size());

    // Built at the very time of the last packet: its timestamp as is.
    ASSERT_TRUE(s.build_sr(wall, 10 * kUsPerSecond + 20 * kMs, &sr));
    EXPECT_EQ(2800u, sr.rtp_timestamp);
}

TEST(RtpSendStatsTest, TimestampWrapsAndCountsTruncate) {
    RtpSendStats s(kSsrc, 48000);
    s.on_packet(0xFFFFFF00u, 5000000000ULL, 0);  // > 2^32 octets
    RtcpSenderReport sr;
    ASSERT_TRUE(s.build_sr(0, 10 * kMs, &sr));
    EXPECT_EQ(480u - 256u, sr.rtp_timestamp);  // 0xFFFFFF00 + 480 wraps
    EXPECT_EQ(static_cast<uint32_t>(5000000000ULL), sr.octet_count);
    EXPECT_EQ(5000000000ULL, s.octets());
    // Ten hours later (no overflow in the extrapolation): 36000 s * 48000.
    ASSERT_TRUE(s.build_sr(0, 36000LL * kUsPerSecond, &sr));
    EXPECT_EQ(static_cast<uint32_t>(0xFFFFFF00ULL + 36000ULL * 48000ULL), sr.rtp_timestamp);
}

TEST(RtpSendStatsTest, RttFromReportBlock) {
    RtpSendStats s(kSsrc, 90000);
    EXPECT_EQ(0, s.rtt());
    int64_t wall = 1000LL * kUsPerSecond;  // whole seconds: exact in 1/65536 s
    RtcpReportBlock b;
    b.ssrc = kSsrc;
    b.fraction_lost = 12;
    b.cumulative_lost = 34;
    // LSR is ours from 0.5 s ago (32768 units); the peer held it 0.25 s (16384).
    b.lsr = ntp_middle32(ntp_from_unix_us(wall - 500 * kMs));
    b.dlsr = 16384;
    s.on_report_block(b, wall);
    EXPECT_EQ(250 * kMs, s.rtt());  // 16384 / 65536 s
    EXPECT_EQ(12, s.fraction_lost());
    EXPECT_EQ(34, s.cumulative_lost());

    RtcpReportBlock other = b;  // about another SSRC: ignored
    other.ssrc = kSsrc + 1;
    other.dlsr = 0;
    s.on_report_block(other, wall);
    EXPECT_EQ(250 * kMs, s.rtt());

    RtcpReportBlock no_sr = b;  // the peer got no SR yet
    no_sr.lsr = 0;
    no_sr.dlsr = 0;
    s.on_report_block(no_sr, wall);
    EXPECT_EQ(250 * kMs, s.rtt());

    RtcpReportBlock skewed = b;  // DLSR longer than the elapsed time: ignored
    skewed.dlsr = 40000;
    s.on_report_block(skewed, wall);
    EXPECT_EQ(250 * kMs, s.rtt());

    RtcpReportBlock fast = b;  // A - LSR - DLSR = 1 unit: 15 us (floor of 15.26)
    fast.dlsr = 32767;
    s.on_report_block(fast, wall);
    EXPECT_EQ(15, s.rtt());
    fast.dlsr = 32768;  // zero: reported as 1 us so rtt() stays "known"
    s.on_report_block(fast, wall);
    EXPECT_EQ(1, s.rtt());
}
