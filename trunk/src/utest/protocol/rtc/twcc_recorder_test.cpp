// Tests of protocol/rtc/twcc_recorder: every feedback is parsed back with
// rtcp_parse_compound + rtcp_parse_twcc and must give the same arrivals
// (sequence, received or not, times at 250 us) across gaps, reordering and
// the 65535 wrap; late packets, duplicates, the pending cap, splits (time,
// span, size) and the feedback count.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "kernel/rtp/rtcp.hpp"
#include "protocol/rtc/twcc_recorder.hpp"

using namespace srs;

namespace {

constexpr uint32_t kSender = 0x01020304;
constexpr uint32_t kMedia = 0x0A0B0C0D;
constexpr utime_t kMs = 1000;

std::vector<RtcpTwcc> parse(const std::string& out, std::vector<size_t>* sizes = nullptr) {
    std::vector<RtcpPacketRef> refs;
    Error err = rtcp_parse_compound(reinterpret_cast<const uint8_t*>(out.data()), out.size(), &refs);
    EXPECT_TRUE(err.ok()) << err.describe();
    std::vector<RtcpTwcc> v;
    for (const RtcpPacketRef& r : refs) {
        EXPECT_EQ(kRtcpRtpfb, r.type);
        EXPECT_EQ(kRtcpFmtTwcc, r.count);
        RtcpTwcc t;
        Error e = rtcp_parse_twcc(r, &t);
        EXPECT_TRUE(e.ok()) << e.describe();
        EXPECT_EQ(kSender, t.sender_ssrc);
        EXPECT_EQ(kMedia, t.media_ssrc);
        v.push_back(t);
        if (sizes) sizes->push_back(r.size);
    }
    return v;
}

// (seq, arrival us) of the received packets a feedback reports, the arrival
// rebuilt from the reference time and the deltas.
std::vector<std::pair<uint16_t, int64_t>> arrivals(const RtcpTwcc& t) {
    std::vector<std::pair<uint16_t, int64_t>> v;
    int64_t at = static_cast<int64_t>(t.reference_time) * 64000;
    for (const RtcpTwccStatus& s : t.packets) {
        if (s.symbol == kTwccNotReceived) continue;
        at += static_cast<int64_t>(s.delta) * 250;
        v.emplace_back(s.seq, at);
    }
    return v;
}

std::string build(TwccRecorder* r) {
    std::string out;
    Error err = r->build(kSender, kMedia, &out);
    EXPECT_TRUE(err.ok()) << err.describe();
    return out;
}

}  // namespace

TEST(TwccRecorderTest, NothingArrivedNothingBuilt) {
    TwccRecorder r;
    EXPECT_FALSE(r.feedback_due(kUsPerSecond));
    EXPECT_TRUE(build(&r).empty());
    EXPECT_EQ(0u, r.pending());
    EXPECT_EQ(0u, r.stats().feedbacks);
}

TEST(TwccRecorderTest, ParsesBackToTheArrivals) {
    TwccRecorder r;
    std::vector<std::pair<uint16_t, int64_t>> sent;
    for (uint16_t q = 10; q < 15; ++q) {
        int64_t at = kUsPerSecond + (q - 10) * kMs;
        r.on_packet(q, at);
        sent.emplace_back(q, at);
    }
    EXPECT_EQ(5u, r.pending());
    std::vector<RtcpTwcc> fb = parse(build(&r));
    EXPECT_EQ(0u, r.pending());
    ASSERT_EQ(1u, fb.size());
    EXPECT_EQ(10, fb[0].base_seq);
    EXPECT_EQ(5, fb[0].status_count);
    EXPECT_EQ(15, fb[0].reference_time);  // 1 s in 64 ms units: 960 ms
    EXPECT_EQ(0, fb[0].fb_count);
    // 1000 ms - 960 ms = 40 ms = 160 ticks, then 1 ms = 4 ticks each.
    ASSERT_EQ(5u, fb[0].packets.size());
    EXPECT_EQ(160, fb[0].packets[0].delta);
    EXPECT_EQ(kTwccSmallDelta, fb[0].packets[0].symbol);
    for (int i = 1; i < 5; ++i) EXPECT_EQ(4, fb[0].packets[i].delta);
    EXPECT_EQ(sent, arrivals(fb[0]));
}

TEST(TwccRecorderTest, GapsReportedAsNotReceived) {
    TwccRecorder r;
    r.on_packet(1, 500 * kMs);
    r.on_packet(2, 501 * kMs);
    r.on_packet(5, 600 * kMs);  // 99 ms later: a 2-byte delta
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(1u, fb.size());
    ASSERT_EQ(5u, fb[0].packets.size());
    EXPECT_EQ(1, fb[0].base_seq);
    uint8_t want[] = {kTwccSmallDelta, kTwccSmallDelta, kTwccNotReceived, kTwccNotReceived, kTwccLargeDelta};
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(want[i], fb[0].packets[i].symbol) << i;
        EXPECT_EQ(1 + i, fb[0].packets[i].seq);
    }
    EXPECT_EQ(396, fb[0].packets[4].delta);
    std::vector<std::pair<uint16_t, int64_t>> want_at = {{1, 500 * kMs}, {2, 501 * kMs}, {5, 600 * kMs}};
    EXPECT_EQ(want_at, arrivals(fb[0]));
}

TEST(TwccRecorderTest, WrapAndReordering) {
    TwccRecorder r;
    r.on_packet(65534, 10 * kMs);
    r.on_packet(0, 12 * kMs);  // before 65535: reordered
    r.on_packet(65535, 13 * kMs);
    r.on_packet(1, 13 * kMs + 250);
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(1u, fb.size());
    EXPECT_EQ(65534, fb[0].base_seq);
    EXPECT_EQ(4, fb[0].status_count);
    std::vector<std::pair<uint16_t, int64_t>> want = {
        {65534, 10 * kMs}, {65535, 13 * kMs}, {0, 12 * kMs}, {1, 13 * kMs + 250}};
    EXPECT_EQ(want, arrivals(fb[0]));
    EXPECT_EQ(-4, fb[0].packets[2].delta);  // 0 came 1 ms before 65535
    EXPECT_EQ(kTwccLargeDelta, fb[0].packets[2].symbol);

    // The next feedback opens with the last arrival reported (1), so 2 is
    // reported as not received.
    r.on_packet(3, 20 * kMs);
    fb = parse(build(&r));
    ASSERT_EQ(1u, fb.size());
    EXPECT_EQ(1, fb[0].base_seq);
    EXPECT_EQ(3, fb[0].status_count);
    EXPECT_EQ(kTwccNotReceived, fb[0].packets[1].symbol);
    EXPECT_EQ(1, fb[0].fb_count);
    want = {{1, 13 * kMs + 250}, {3, 20 * kMs}};
    EXPECT_EQ(want, arrivals(fb[0]));
}

TEST(TwccRecorderTest, LatePacketDropped) {
    TwccRecorder r;
    for (uint16_t q = 1; q <= 5; ++q) {
        if (q != 4) r.on_packet(q, q * kMs);
    }
    EXPECT_EQ(1u, parse(build(&r)).size());
    r.on_packet(4, 9 * kMs);  // already reported as lost
    r.on_packet(5, 9 * kMs);
    EXPECT_EQ(2u, r.stats().late);
    EXPECT_EQ(0u, r.pending());
    EXPECT_FALSE(r.feedback_due(kUsPerSecond));
    EXPECT_TRUE(build(&r).empty());
    r.on_packet(6, 10 * kMs);
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(1u, fb.size());
    EXPECT_EQ(5, fb[0].base_seq);  // the anchor: 5 at its first arrival
    EXPECT_EQ(2, fb[0].status_count);
    std::vector<std::pair<uint16_t, int64_t>> want = {{5, 5 * kMs}, {6, 10 * kMs}};
    EXPECT_EQ(want, arrivals(fb[0]));
}

TEST(TwccRecorderTest, DuplicateKeepsFirstArrival) {
    TwccRecorder r;
    r.on_packet(7, 10 * kMs);
    r.on_packet(7, 30 * kMs);
    EXPECT_EQ(1u, r.pending());
    EXPECT_EQ(1u, r.stats().duplicates);
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(1u, fb.size());
    std::vector<std::pair<uint16_t, int64_t>> want = {{7, 10 * kMs}};
    EXPECT_EQ(want, arrivals(fb[0]));
}

TEST(TwccRecorderTest, FeedbackDueByTimeOrCount) {
    TwccRecorder r;
    utime_t t = 5 * kUsPerSecond;
    r.on_packet(1, t);
    EXPECT_FALSE(r.feedback_due(t + 49 * kMs));
    EXPECT_TRUE(r.feedback_due(t + 50 * kMs));
    build(&r);
    EXPECT_FALSE(r.feedback_due(t + 100 * kMs));
    for (uint16_t q = 2; q < 101; ++q) r.on_packet(q, t + 60 * kMs);
    EXPECT_FALSE(r.feedback_due(t + 60 * kMs));  // 99 waiting
    r.on_packet(101, t + 60 * kMs);
    EXPECT_TRUE(r.feedback_due(t + 60 * kMs));  // 100 waiting

    TwccOptions o;
    o.interval = 10 * kMs;
    o.max_packets = 3;
    TwccRecorder q(o);
    q.on_packet(1, t);
    q.on_packet(2, t);
    EXPECT_FALSE(q.feedback_due(t + 9 * kMs));
    EXPECT_TRUE(q.feedback_due(t + 10 * kMs));
    q.on_packet(3, t);
    EXPECT_TRUE(q.feedback_due(t));
}

TEST(TwccRecorderTest, TimeGapSplits) {
    TwccRecorder r;
    r.on_packet(1, 0);
    r.on_packet(2, 9 * kUsPerSecond);  // 36000 ticks: over a 16-bit delta
    r.on_packet(3, 9 * kUsPerSecond + kMs);
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(2u, fb.size());
    EXPECT_EQ(1, fb[0].base_seq);
    EXPECT_EQ(1, fb[0].status_count);
    EXPECT_EQ(2, fb[1].base_seq);
    EXPECT_EQ(2, fb[1].status_count);
    EXPECT_EQ(0, fb[0].fb_count);
    EXPECT_EQ(1, fb[1].fb_count);
    std::vector<std::pair<uint16_t, int64_t>> want = {{2, 9 * kUsPerSecond}, {3, 9 * kUsPerSecond + kMs}};
    EXPECT_EQ(want, arrivals(fb[1]));
    EXPECT_EQ(2u, r.stats().feedbacks);
    EXPECT_EQ(2, r.feedback_count());
}

TEST(TwccRecorderTest, SpanSplits) {
    TwccOptions o;
    o.max_span = 100;
    TwccRecorder r(o);
    r.on_packet(1, 0);
    r.on_packet(100, kMs);  // span 100: fits
    r.on_packet(101, 2 * kMs);
    r.on_packet(300, 3 * kMs);
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(3u, fb.size());
    EXPECT_EQ(1, fb[0].base_seq);
    EXPECT_EQ(100, fb[0].status_count);
    EXPECT_EQ(100, fb[1].base_seq);  // opened by 100 again
    EXPECT_EQ(2, fb[1].status_count);
    EXPECT_EQ(300, fb[2].base_seq);  // 101..300 is over the span: 102..299 not reported
    EXPECT_EQ(1, fb[2].status_count);

    // With the default span a big hole is one packet of runs of "not received".
    TwccRecorder d;
    d.on_packet(1, 0);
    d.on_packet(30001, kMs);
    fb = parse(build(&d));
    ASSERT_EQ(1u, fb.size());
    EXPECT_EQ(30001, fb[0].status_count);
}

TEST(TwccRecorderTest, SizeSplitsAt1200Bytes) {
    TwccRecorder r;
    // 1000 packets 100 ms apart, every other number lost: a 2-byte delta each
    // (2000 bytes of deltas), so the feedback needs at least two packets.
    std::vector<std::pair<uint16_t, int64_t>> sent;
    for (int i = 0; i < 1000; ++i) {
        uint16_t q = static_cast<uint16_t>(65000 + 2 * i);
        int64_t at = kUsPerSecond + i * 100 * kMs;
        r.on_packet(q, at);
        sent.emplace_back(q, at);
    }
    std::vector<size_t> sizes;
    std::vector<RtcpTwcc> fb = parse(build(&r), &sizes);
    ASSERT_GE(fb.size(), 2u);
    EXPECT_LE(fb.size(), 4u);
    std::vector<std::pair<uint16_t, int64_t>> got;
    for (size_t i = 0; i < fb.size(); ++i) {
        EXPECT_LE(sizes[i], 1200u);
        EXPECT_EQ(static_cast<uint8_t>(i), fb[i].fb_count);
        std::vector<std::pair<uint16_t, int64_t>> a = arrivals(fb[i]);
        ASSERT_FALSE(a.empty());
        if (i > 0) {  // each opens with the last arrival of the previous
            const RtcpTwcc& prev = fb[i - 1];
            EXPECT_EQ(static_cast<uint16_t>(prev.base_seq + prev.status_count - 1), fb[i].base_seq);
            EXPECT_EQ(got.back(), a.front());
            a.erase(a.begin());
        }
        got.insert(got.end(), a.begin(), a.end());
    }
    EXPECT_EQ(sent, got);
}

TEST(TwccRecorderTest, BurstLossAcrossFeedbacksReported) {
    TwccRecorder r;
    r.on_packet(1, 0);
    r.on_packet(2, kMs);
    EXPECT_EQ(1u, parse(build(&r)).size());
    EXPECT_TRUE(build(&r).empty());  // an outage: nothing arrives
    r.on_packet(7, 300 * kMs);
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(1u, fb.size());
    EXPECT_EQ(2, fb[0].base_seq);
    ASSERT_EQ(6u, fb[0].packets.size());
    for (int i = 1; i <= 4; ++i) EXPECT_EQ(kTwccNotReceived, fb[0].packets[i].symbol) << i;
    std::vector<std::pair<uint16_t, int64_t>> want = {{2, kMs}, {7, 300 * kMs}};
    EXPECT_EQ(want, arrivals(fb[0]));
    EXPECT_EQ(1, fb[0].fb_count);
}

TEST(TwccRecorderTest, PendingCapDropsOldest) {
    TwccOptions o;
    o.max_pending = 10;
    TwccRecorder r(o);
    for (uint16_t q = 0; q < 15; ++q) r.on_packet(q, q * kMs);
    EXPECT_EQ(10u, r.pending());
    EXPECT_EQ(5u, r.stats().overflow);
    r.on_packet(3, 20 * kMs);  // dropped already: late
    EXPECT_EQ(1u, r.stats().late);
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(1u, fb.size());
    EXPECT_EQ(5, fb[0].base_seq);
    EXPECT_EQ(10, fb[0].status_count);
}

TEST(TwccRecorderTest, RestartFarBehind) {
    TwccRecorder r;
    r.on_packet(40000, 0);
    EXPECT_EQ(1u, parse(build(&r)).size());
    r.on_packet(40001, kMs);
    r.on_packet(20000, 2 * kMs);  // 20001 behind: a restart, not a late packet
    EXPECT_EQ(1u, r.stats().restarts);
    EXPECT_EQ(0u, r.stats().late);
    EXPECT_EQ(1u, r.stats().overflow);  // 40001 was waiting
    r.on_packet(20001, 3 * kMs);
    std::vector<RtcpTwcc> fb = parse(build(&r));
    ASSERT_EQ(1u, fb.size());
    EXPECT_EQ(20000, fb[0].base_seq);  // no anchor from the old numbering
    EXPECT_EQ(2, fb[0].status_count);
    // 16384 behind is still a late packet.
    r.on_packet(static_cast<uint16_t>(20001 - 0x4000), 4 * kMs);
    EXPECT_EQ(1u, r.stats().late);
    EXPECT_EQ(1u, r.stats().restarts);
}
