// Tests of protocol/rtc/publisher_feedback under a fake clock: what a
// publisher's session sends back (NACK, PLI, TWCC, RR), checked as RTCP bytes
// and as what rtcp_parse_* reads from them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/rtp/rtcp.hpp"
#include "protocol/rtc/publisher_feedback.hpp"

using namespace srs;

namespace {

constexpr uint32_t kLocal = 0x0a0b0c0d;
constexpr uint32_t kVideo = 0x00001000;
constexpr uint32_t kAudio = 0x00002000;
constexpr utime_t kMs = 1000;
constexpr utime_t kT0 = 5 * kUsPerSecond;

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// The packets of kind `kind` in out.
std::vector<std::string> of_kind(const RtcFeedbackOutput& out, RtcFeedbackKind kind) {
    std::vector<std::string> v;
    for (size_t i = 0; i < out.size(); i++) {
        if (out.kind(i) == kind) v.push_back(out.rtcp(i));
    }
    return v;
}

std::vector<std::string> tick(RtcPublisherFeedback* f, utime_t now, RtcFeedbackKind kind) {
    RtcFeedbackOutput out;
    f->on_timer(now, &out);
    return of_kind(out, kind);
}

RtcpReceiverReport parse_rr(const std::string& rtcp) {
    std::vector<RtcpPacketRef> refs;
    EXPECT_TRUE(rtcp_parse_compound(reinterpret_cast<const uint8_t*>(rtcp.data()), rtcp.size(), &refs).ok());
    RtcpReceiverReport rr;
    EXPECT_EQ(refs.size(), 1u);
    if (!refs.empty()) {
        EXPECT_TRUE(rtcp_parse_rr(refs[0], &rr).ok());
    }
    return rr;
}

}  // namespace

// A gap is NACKed on the next tick, again once min_interval (20 ms) passed,
// and no more once the packet came.
TEST(RtcPublisherFeedbackTest, GapIsNackedThenRetriedUntilThePacketArrives) {
    RtcPublisherFeedback f(kLocal, RtcPublisherFeedbackOptions());
    f.add_track(kRtcVideoTrack, kVideo, 90000);
    f.start(kT0);
    for (uint16_t seq : {100, 101, 103}) f.on_rtp(kRtcVideoTrack, seq, seq * 3000u, kT0);

    std::vector<std::string> nacks = tick(&f, kT0 + 1 * kMs, RtcFeedbackKind::kNack);
    ASSERT_EQ(nacks.size(), 1u);
    // RTPFB (205) FMT 1, length 3 words: sender, media, then PID 102 with BLP 0.
    const std::vector<uint8_t> want = {0x81, 0xcd, 0x00, 0x03, 0x0a, 0x0b, 0x0c, 0x0d,
                                       0x00, 0x00, 0x10, 0x00, 0x00, 0x66, 0x00, 0x00};
    EXPECT_EQ(bytes_of(nacks[0]), want);

    // Within the retry interval: nothing; at it: the same NACK again.
    EXPECT_TRUE(tick(&f, kT0 + 11 * kMs, RtcFeedbackKind::kNack).empty());
    nacks = tick(&f, kT0 + 21 * kMs, RtcFeedbackKind::kNack);
    ASSERT_EQ(nacks.size(), 1u);
    EXPECT_EQ(bytes_of(nacks[0]), want);

    // The retransmission arrives: no NACK after it.
    f.on_rtp(kRtcVideoTrack, 102, 102 * 3000u, kT0 + 30 * kMs);
    for (utime_t t = 41; t < 200; t += 20) EXPECT_TRUE(tick(&f, kT0 + t * kMs, RtcFeedbackKind::kNack).empty()) << t;
    EXPECT_EQ(f.nack_generator(kRtcVideoTrack)->stats().recovered, 1u);
    EXPECT_EQ(f.nack_generator(kRtcVideoTrack)->stats().nacked, 2u);
}

// A track whose offer had no a=rtcp-fb nack is sent no NACK; the other
// track of the same session still is.
TEST(RtcPublisherFeedbackTest, NoNacksForATrackThatTakesNone) {
    RtcPublisherFeedback f(kLocal, RtcPublisherFeedbackOptions());
    f.add_track(kRtcAudioTrack, kAudio, 48000, true);
    f.add_track(kRtcVideoTrack, kVideo, 90000, false);
    f.start(kT0);
    for (uint16_t seq : {100, 101, 103}) {
        f.on_rtp(kRtcVideoTrack, seq, seq * 3000u, kT0);
        f.on_rtp(kRtcAudioTrack, seq, seq * 960u, kT0);
    }
    std::vector<std::string> nacks = tick(&f, kT0 + 1 * kMs, RtcFeedbackKind::kNack);
    ASSERT_EQ(nacks.size(), 1u);
    EXPECT_EQ(f.nack_generator(kRtcVideoTrack), nullptr);
    std::vector<RtcpPacketRef> refs;
    ASSERT_TRUE(rtcp_parse_compound(reinterpret_cast<const uint8_t*>(nacks[0].data()), nacks[0].size(), &refs).ok());
    RtcpNack nack;
    ASSERT_TRUE(rtcp_parse_nack(refs[0], &nack).ok());
    EXPECT_EQ(nack.media_ssrc, kAudio);
    // Its losses still count in the receiver reports.
    std::vector<std::string> rrs = tick(&f, kT0 + kUsPerSecond, RtcFeedbackKind::kReceiverReport);
    ASSERT_EQ(rrs.size(), 1u);
    RtcpReceiverReport rr = parse_rr(rrs[0]);
    bool video_seen = false;
    for (const RtcpReportBlock& b : rr.reports) {
        if (b.ssrc != kVideo) continue;
        video_seen = true;
        EXPECT_EQ(b.cumulative_lost, 1);
    }
    EXPECT_TRUE(video_seen);
}

TEST(RtcPublisherFeedbackTest, NoNacksWhenDisabled) {
    RtcPublisherFeedbackOptions o;
    o.nack = false;
    RtcPublisherFeedback f(kLocal, o);
    f.add_track(kRtcVideoTrack, kVideo, 90000);
    f.start(kT0);
    for (uint16_t seq : {1, 2, 5}) f.on_rtp(kRtcVideoTrack, seq, 0, kT0);
    EXPECT_TRUE(tick(&f, kT0 + kMs, RtcFeedbackKind::kNack).empty());
    EXPECT_EQ(f.nack_generator(kRtcVideoTrack), nullptr);
}

// One RR per second with the figures of RFC 3550 A.3 and A.8 worked out by
// hand, and LSR/DLSR from an SR given at a known time.
TEST(RtcPublisherFeedbackTest, ReceiverReportEverySecond) {
    RtcPublisherFeedback f(kLocal, RtcPublisherFeedbackOptions());
    f.add_track(kRtcVideoTrack, kVideo, 90000);
    f.start(kT0);
    // 1000..1009 every 20 ms (1800 ticks at 90 kHz), 1003 lost, the last one
    // 10 ms late: D = 900 ticks once, so jitter = 900 / 16 = 56.25.
    for (uint16_t seq = 1000; seq <= 1009; seq++) {
        if (seq == 1003) continue;
        utime_t at = kT0 + (seq - 1000) * 20 * kMs + (seq == 1009 ? 10 * kMs : 0);
        f.on_rtp(kRtcVideoTrack, seq, (seq - 1000) * 1800u, at);
    }
    // An SR whose NTP middle 32 bits are 0x12345678, 250 ms before the RR.
    const uint64_t ntp = (0xabcd1234ull << 32) | 0x56780000u;
    f.on_sender_report(kRtcVideoTrack, ntp, kT0 + 750 * kMs);

    EXPECT_TRUE(tick(&f, kT0 + 999 * kMs, RtcFeedbackKind::kReceiverReport).empty());
    std::vector<std::string> rrs = tick(&f, kT0 + 1000 * kMs, RtcFeedbackKind::kReceiverReport);
    ASSERT_EQ(rrs.size(), 1u);
    // RR (201) with one block: 7 words after the header word.
    ASSERT_EQ(rrs[0].size(), 32u);
    EXPECT_EQ(bytes_of(rrs[0].substr(0, 8)), (std::vector<uint8_t>{0x81, 0xc9, 0x00, 0x07, 0x0a, 0x0b, 0x0c, 0x0d}));
    RtcpReceiverReport rr = parse_rr(rrs[0]);
    EXPECT_EQ(rr.ssrc, kLocal);
    ASSERT_EQ(rr.reports.size(), 1u);
    const RtcpReportBlock& b = rr.reports[0];
    EXPECT_EQ(b.ssrc, kVideo);
    EXPECT_EQ(b.fraction_lost, 256 / 10);  // 1 of 10
    EXPECT_EQ(b.cumulative_lost, 1);
    EXPECT_EQ(b.highest_sequence, 1009u);
    EXPECT_EQ(b.jitter, 56u);
    EXPECT_EQ(b.lsr, 0x12345678u);
    EXPECT_EQ(b.dlsr, 65536u / 4);  // 250 ms in 1/65536 s

    // The next second: 1010..1019 all came, no new loss; the next RR is a second later.
    for (uint16_t seq = 1010; seq <= 1019; seq++) {
        f.on_rtp(kRtcVideoTrack, seq, (seq - 1000) * 1800u, kT0 + 1000 * kMs + (seq - 1010) * 20 * kMs);
    }
    EXPECT_TRUE(tick(&f, kT0 + 1500 * kMs, RtcFeedbackKind::kReceiverReport).empty());
    rrs = tick(&f, kT0 + 2000 * kMs, RtcFeedbackKind::kReceiverReport);
    ASSERT_EQ(rrs.size(), 1u);
    rr = parse_rr(rrs[0]);
    ASSERT_EQ(rr.reports.size(), 1u);
    EXPECT_EQ(rr.reports[0].fraction_lost, 0);
    EXPECT_EQ(rr.reports[0].cumulative_lost, 1);
    EXPECT_EQ(rr.reports[0].highest_sequence, 1019u);
    EXPECT_EQ(rr.reports[0].dlsr, 65536u * 5 / 4);
}

TEST(RtcPublisherFeedbackTest, ReceiverReportCoversTracksThatReceived) {
    RtcPublisherFeedback f(kLocal, RtcPublisherFeedbackOptions());
    f.add_track(kRtcAudioTrack, kAudio, 48000);
    f.add_track(kRtcVideoTrack, kVideo, 90000);
    f.start(kT0);
    // Nothing received: no RR at all.
    EXPECT_TRUE(tick(&f, kT0 + kUsPerSecond, RtcFeedbackKind::kReceiverReport).empty());
    f.on_rtp(kRtcAudioTrack, 7, 960, kT0 + kUsPerSecond);
    std::vector<std::string> rrs = tick(&f, kT0 + 2 * kUsPerSecond, RtcFeedbackKind::kReceiverReport);
    ASSERT_EQ(rrs.size(), 1u);
    RtcpReceiverReport rr = parse_rr(rrs[0]);
    ASSERT_EQ(rr.reports.size(), 1u);
    EXPECT_EQ(rr.reports[0].ssrc, kAudio);
}

// A keyframe request waits for the video SSRC (learned from the first packet
// when the offer named none), then goes out as one PLI.
TEST(RtcPublisherFeedbackTest, PliWaitsForTheVideoSsrc) {
    RtcPublisherFeedback f(kLocal, RtcPublisherFeedbackOptions());
    f.add_track(kRtcVideoTrack, 0, 90000);
    f.start(kT0);
    f.request_keyframe();
    EXPECT_TRUE(tick(&f, kT0 + kMs, RtcFeedbackKind::kPli).empty());
    f.learn_ssrc(kRtcVideoTrack, kVideo);
    EXPECT_EQ(f.track_ssrc(kRtcVideoTrack), kVideo);
    std::vector<std::string> plis = tick(&f, kT0 + 2 * kMs, RtcFeedbackKind::kPli);
    ASSERT_EQ(plis.size(), 1u);
    // PSFB (206) FMT 1, 2 words: sender and media SSRC.
    EXPECT_EQ(bytes_of(plis[0]),
              (std::vector<uint8_t>{0x81, 0xce, 0x00, 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x10, 0x00}));
    // Once per request.
    EXPECT_TRUE(tick(&f, kT0 + 3 * kMs, RtcFeedbackKind::kPli).empty());
}

// Video losses given up (here a jump past max_missing) ask for a keyframe;
// audio ones do not.
TEST(RtcPublisherFeedbackTest, VideoLossGivenUpAsksForAKeyframe) {
    RtcPublisherFeedbackOptions o;
    o.nack_options.max_missing = 10;
    RtcPublisherFeedback f(kLocal, o);
    f.add_track(kRtcAudioTrack, kAudio, 48000);
    f.add_track(kRtcVideoTrack, kVideo, 90000);
    f.start(kT0);
    f.on_rtp(kRtcAudioTrack, 1, 0, kT0);
    f.on_rtp(kRtcAudioTrack, 100, 0, kT0);
    EXPECT_TRUE(tick(&f, kT0 + kMs, RtcFeedbackKind::kPli).empty());
    f.on_rtp(kRtcVideoTrack, 1, 0, kT0);
    f.on_rtp(kRtcVideoTrack, 100, 0, kT0);
    EXPECT_EQ(tick(&f, kT0 + 2 * kMs, RtcFeedbackKind::kPli).size(), 1u);
}

// TWCC feedback when due, about the transport-wide numbers received, only
// when negotiated.
TEST(RtcPublisherFeedbackTest, TwccWhenDue) {
    RtcPublisherFeedbackOptions o;
    o.twcc = true;
    RtcPublisherFeedback f(kLocal, o);
    f.add_track(kRtcVideoTrack, kVideo, 90000);
    f.start(kT0);
    for (uint16_t s = 10; s < 15; s++) f.on_transport_seq(s, kT0 + s * kMs);
    EXPECT_TRUE(tick(&f, kT0 + 20 * kMs, RtcFeedbackKind::kTwcc).empty());  // the oldest is 10 ms old
    std::vector<std::string> fb = tick(&f, kT0 + 60 * kMs, RtcFeedbackKind::kTwcc);
    ASSERT_EQ(fb.size(), 1u);
    std::vector<RtcpPacketRef> refs;
    ASSERT_TRUE(rtcp_parse_compound(reinterpret_cast<const uint8_t*>(fb[0].data()), fb[0].size(), &refs).ok());
    ASSERT_EQ(refs.size(), 1u);
    EXPECT_EQ(refs[0].type, kRtcpRtpfb);
    EXPECT_EQ(refs[0].count, kRtcpFmtTwcc);
    RtcpTwcc twcc;
    ASSERT_TRUE(rtcp_parse_twcc(refs[0], &twcc).ok());
    EXPECT_EQ(twcc.media_ssrc, kVideo);
    EXPECT_EQ(twcc.base_seq, 10);
    EXPECT_EQ(twcc.status_count, 5);

    RtcPublisherFeedback off(kLocal, RtcPublisherFeedbackOptions());
    off.add_track(kRtcVideoTrack, kVideo, 90000);
    off.on_transport_seq(1, kT0);
    EXPECT_TRUE(tick(&off, kT0 + kUsPerSecond, RtcFeedbackKind::kTwcc).empty());
}
