// Tests of protocol/rtc/player_feedback under a fake clock: the SRs a
// player's session sends, the RTT from the player's RRs, its NACKs answered
// within the budget, its PLI/FIR handed on. RTCP in is real bytes, built by
// rtcp_build_* and split by rtcp_parse_compound as the peer does.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/rtp/rtcp.hpp"
#include "protocol/rtc/keyframe_limiter.hpp"
#include "protocol/rtc/player_feedback.hpp"

using namespace srs;

namespace {

constexpr uint32_t kAudio = 0x0000a0d1;
constexpr uint32_t kVideo = 0x00000f1d;
constexpr utime_t kMs = 1000;
constexpr utime_t kT0 = 7 * kUsPerSecond;
constexpr int64_t kWall0 = 1800000000LL * kUsPerSecond;  // the wall clock at kT0

// Keeps seqs 0..999 of each track; passes keyframe requests through a
// limiter, as the stream's source does for all its players.
struct FakeSink : RtcPlayerFeedback::Sink {
    std::vector<std::pair<int, uint16_t>> resent;
    int keyframe_requests = 0;
    KeyframeRequestLimiter limiter{300 * kMs};
    int keyframes_asked = 0;  // what passed the limiter
    bool resend(int track, uint16_t seq) override {
        if (seq >= 1000) return false;
        resent.emplace_back(track, seq);
        return true;
    }
    void on_keyframe_request(utime_t now) override {
        keyframe_requests++;
        if (limiter.allow(now)) keyframes_asked++;
    }
};

// Feeds every packet of a compound to the chain.
void feed(RtcPlayerFeedback* f, const std::string& compound, utime_t now, int64_t wall, FakeSink* sink) {
    std::vector<RtcpPacketRef> refs;
    ASSERT_TRUE(rtcp_parse_compound(reinterpret_cast<const uint8_t*>(compound.data()), compound.size(), &refs).ok());
    for (const RtcpPacketRef& p : refs) f->on_rtcp(p, now, wall, sink);
}

RtcPlayerFeedback two_tracks(RtcPlayerFeedbackOptions o = RtcPlayerFeedbackOptions()) {
    RtcPlayerFeedback f(o);
    f.add_track(kRtcAudioTrack, kAudio, 48000, true);
    f.add_track(kRtcVideoTrack, kVideo, 90000, true);
    f.start(kT0);
    return f;
}

}  // namespace

// One SR per sending track per second: NTP of the wall clock given, the RTP
// time moved on from the last packet by the clock rate, payload counts.
TEST(RtcPlayerFeedbackTest, SenderReportEverySecond) {
    RtcPlayerFeedback f(RtcPlayerFeedbackOptions{});
    f.add_track(kRtcAudioTrack, kAudio, 48000, false);  // not negotiated: no SR
    f.add_track(kRtcVideoTrack, kVideo, 90000, true);
    f.start(kT0);
    f.on_rtp_sent(kRtcVideoTrack, 90000, 1000, kT0 + 100 * kMs);
    f.on_rtp_sent(kRtcVideoTrack, 93000, 500, kT0 + 200 * kMs);
    f.on_rtp_sent(kRtcAudioTrack, 960, 100, kT0 + 200 * kMs);

    RtcFeedbackOutput out;
    EXPECT_FALSE(f.timer_due(kT0 + 999 * kMs));
    EXPECT_TRUE(f.timer_due(kT0 + 1000 * kMs));
    f.on_timer(kT0 + 999 * kMs, kWall0 + 999 * kMs, &out);
    EXPECT_EQ(out.size(), 0u);
    f.on_timer(kT0 + 1000 * kMs, kWall0 + 1000 * kMs, &out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out.kind(0), RtcFeedbackKind::kSenderReport);
    const std::string& rtcp = out.rtcp(0);
    // SR (200), no report blocks: 6 words after the header word.
    ASSERT_EQ(rtcp.size(), 28u);
    EXPECT_EQ(static_cast<uint8_t>(rtcp[0]), 0x80);
    EXPECT_EQ(static_cast<uint8_t>(rtcp[1]), 200);
    std::vector<RtcpPacketRef> refs;
    ASSERT_TRUE(rtcp_parse_compound(reinterpret_cast<const uint8_t*>(rtcp.data()), rtcp.size(), &refs).ok());
    RtcpSenderReport sr;
    ASSERT_TRUE(rtcp_parse_sr(refs[0], &sr).ok());
    EXPECT_EQ(sr.ssrc, kVideo);
    EXPECT_EQ(sr.ntp, ntp_from_unix_us(kWall0 + 1000 * kMs));
    EXPECT_EQ(sr.rtp_timestamp, 93000u + 72000u);  // 800 ms at 90 kHz after the last packet
    EXPECT_EQ(sr.packet_count, 2u);
    EXPECT_EQ(sr.octet_count, 1500u);

    out.clear();
    f.on_timer(kT0 + 1500 * kMs, kWall0 + 1500 * kMs, &out);
    EXPECT_EQ(out.size(), 0u);
    f.on_timer(kT0 + 2000 * kMs, kWall0 + 2000 * kMs, &out);
    EXPECT_EQ(out.size(), 1u);
}

// The player's RR about our SR: RTT = arrival - LSR - DLSR.
TEST(RtcPlayerFeedbackTest, ReceiverReportGivesTheRtt) {
    RtcPlayerFeedback f = two_tracks();
    FakeSink sink;
    RtcpReceiverReport rr;
    rr.ssrc = 0x5151;
    RtcpReportBlock b;
    b.ssrc = kVideo;
    b.fraction_lost = 12;
    b.cumulative_lost = 34;
    b.lsr = ntp_middle32(ntp_from_unix_us(kWall0));  // our SR at kWall0
    b.dlsr = 65536 / 10;                             // held 100 ms by the player
    rr.reports.push_back(b);
    std::string compound;
    rtcp_build_rr(rr, &compound);
    feed(&f, compound, kT0 + 150 * kMs, kWall0 + 150 * kMs, &sink);
    const RtpSendStats* video = f.send_stats(kRtcVideoTrack);
    EXPECT_NEAR(static_cast<double>(video->rtt()), 50.0 * kMs, 100);  // 1/65536 s rounding
    EXPECT_EQ(video->fraction_lost(), 12);
    EXPECT_EQ(video->cumulative_lost(), 34);
    EXPECT_EQ(f.send_stats(kRtcAudioTrack)->rtt(), 0);
}

// NACKs are answered per track by the SSRC they name; a storm is cut at the
// per-second budget; a NACK for another SSRC, or with NACK off, is ignored.
TEST(RtcPlayerFeedbackTest, NacksAnsweredWithinTheBudget) {
    RtcPlayerFeedback f = two_tracks();
    FakeSink sink;
    std::string audio_nack;
    rtcp_build_nack(1, kAudio, {10, 12}, &audio_nack);
    feed(&f, audio_nack, kT0, kWall0, &sink);
    ASSERT_EQ(sink.resent.size(), 2u);
    EXPECT_EQ(sink.resent[0], std::make_pair(kRtcAudioTrack, static_cast<uint16_t>(10)));
    EXPECT_EQ(sink.resent[1], std::make_pair(kRtcAudioTrack, static_cast<uint16_t>(12)));

    std::string other;
    rtcp_build_nack(1, 0x9999, {1}, &other);
    feed(&f, other, kT0, kWall0, &sink);
    EXPECT_EQ(sink.resent.size(), 2u);
    EXPECT_EQ(f.stats().nacks, 2u);

    // 20 NACKs of 64 video packets within a second: 998 more answered (1000 in all).
    std::vector<uint16_t> all;
    for (uint16_t s = 100; s < 164; s++) all.push_back(s);
    std::string storm;
    rtcp_build_nack(1, kVideo, all, &storm);
    for (int i = 0; i < 20; i++) feed(&f, storm, kT0 + i * 10 * kMs, kWall0, &sink);
    EXPECT_EQ(sink.resent.size(), 1000u);
    EXPECT_EQ(f.responder_stats().retransmits, 1000u);
    EXPECT_EQ(f.responder_stats().refused, 1280u - 998u);
    EXPECT_EQ(sink.resent.back().first, kRtcVideoTrack);
    // The next second answers again.
    feed(&f, storm, kT0 + kUsPerSecond, kWall0, &sink);
    EXPECT_EQ(sink.resent.size(), 1064u);

    RtcPlayerFeedbackOptions off;
    off.nack = false;
    RtcPlayerFeedback quiet = two_tracks(off);
    FakeSink none;
    feed(&quiet, storm, kT0, kWall0, &none);
    EXPECT_TRUE(none.resent.empty());
    EXPECT_EQ(quiet.stats().nacks, 0u);
}

// A track whose offer had no a=rtcp-fb nack gets no retransmission, even if
// the player NACKs it anyway; the other track is still answered.
TEST(RtcPlayerFeedbackTest, NacksOfATrackWithoutNackAreNotAnswered) {
    RtcPlayerFeedback f{RtcPlayerFeedbackOptions()};
    f.add_track(kRtcAudioTrack, kAudio, 48000, true, true);
    f.add_track(kRtcVideoTrack, kVideo, 90000, true, false);
    f.start(kT0);
    FakeSink sink;
    std::string video_nack, audio_nack;
    rtcp_build_nack(1, kVideo, {10, 11}, &video_nack);
    rtcp_build_nack(1, kAudio, {20}, &audio_nack);
    feed(&f, video_nack, kT0, kWall0, &sink);
    EXPECT_TRUE(sink.resent.empty());
    feed(&f, audio_nack, kT0, kWall0, &sink);
    ASSERT_EQ(sink.resent.size(), 1u);
    EXPECT_EQ(sink.resent[0], std::make_pair(kRtcAudioTrack, static_cast<uint16_t>(20)));
}

// A burst of PLIs and FIRs is handed on one by one; the stream's limiter
// turns them into one keyframe request per window.
TEST(RtcPlayerFeedbackTest, PliBurstCollapsesIntoOneRequestPerWindow) {
    RtcPlayerFeedback f = two_tracks();
    FakeSink sink;
    std::string pli, fir;
    rtcp_build_pli(1, kVideo, &pli);
    rtcp_build_fir(1, {RtcpFirEntry{kVideo, 1}}, &fir);
    for (int i = 0; i < 10; i++) feed(&f, i % 2 ? fir : pli, kT0 + i * 20 * kMs, kWall0, &sink);  // 0..180 ms
    EXPECT_EQ(sink.keyframe_requests, 10);
    EXPECT_EQ(sink.keyframes_asked, 1);
    EXPECT_EQ(f.stats().keyframe_requests, 10u);
    // The window (300 ms) is over: the next burst asks once more.
    for (int i = 0; i < 5; i++) feed(&f, pli, kT0 + 300 * kMs + i * 10 * kMs, kWall0, &sink);
    EXPECT_EQ(sink.keyframes_asked, 2);
    EXPECT_EQ(sink.limiter.suppressed(), 13u);
}
