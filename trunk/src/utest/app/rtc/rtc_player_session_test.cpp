// A player session: NACKs answered within the budget, B-frames skipped for
// a Baseline player, a late player starting at the ring's keyframe
// (harness: rtc_session_harness.hpp).
#include "utest/app/rtc/rtc_session_harness.hpp"

using namespace srs;
using namespace srs::rtc_session_test;

// A NACK storm costs a bounded number of retransmissions per second.
TEST_F(RtcSessionTest, NackStormIsBudgeted) {
    Pair pub(true, 5031, &source_, &live_, server_cert_);
    ASSERT_TRUE(pub.session->start(pub.now).ok());
    ASSERT_TRUE(pub.client->start(pub.now).ok());
    pub.pump();
    Pair play(false, 5032, &source_, &live_, server_cert_);
    ASSERT_TRUE(play.session->start(play.now).ok());
    ASSERT_TRUE(play.client->start(play.now).ok());
    play.pump();
    ASSERT_TRUE(play.client_events.connected);
    pub.send_rtp(102, 1, 0, 0x1000, {0x65, 0x88});
    for (uint16_t s = 2; s < 66; s++) pub.send_rtp(102, s, 3000u * s, 0x1000, {0x41, 0x01});
    play.pump(2);
    uint16_t first = load_be16(reinterpret_cast<const uint8_t*>(play.client_events.rtp[0].data()) + 2);
    std::vector<uint16_t> all;
    for (uint16_t i = 0; i < 64; i++) all.push_back(static_cast<uint16_t>(first + i));
    std::string nack;
    rtcp_build_nack(1, source_.track(RtcMediaKind::kVideo).ssrc(), all, &nack);
    for (int i = 0; i < 20; i++) play.send_rtcp(nack);  // 1280 asks within one second
    EXPECT_EQ(play.session->counters().retransmits, 1000u);
    EXPECT_EQ(play.session->counters().retransmits_refused, 280u);
}

namespace {
struct FakeBridge : RtcPublisherControl {
    int keyframes = 0;
    void request_keyframe(utime_t) override { keyframes++; }
};
void store(RtcSource* s, uint16_t seq, uint32_t ts, const std::vector<uint8_t>& payload, bool disposable) {
    RtpHeader h;
    h.sequence = seq;
    h.timestamp = ts;
    h.marker = true;
    h.payload_type = 106;
    h.header_size = 0;
    h.payload_size = payload.size();
    s->on_publisher_rtp(RtcMediaKind::kVideo, payload.data(), payload.size(), h, 0, disposable);
}
uint16_t seq_of(const std::string& p) { return load_be16(reinterpret_cast<const uint8_t*>(p.data()) + 2); }
}  // namespace

TEST_F(RtcSessionTest, BaselinePlayersSkipBFramesAndLatePlayersStartAtTheRingsKeyframe) {
    FakeBridge bridge;
    RtcTrackCodec audio, video;
    video.present = true;
    video.name = "H264";
    video.clock_rate = 90000;
    video.fmtp = "packetization-mode=1;profile-level-id=640c1f";
    source_.set_publisher(&bridge, audio, video);

    Pair baseline(false, 5041, &source_, &live_, server_cert_, "packetization-mode=1;profile-level-id=42e01f");
    Pair main(false, 5042, &source_, &live_, server_cert_, "packetization-mode=1;profile-level-id=4d001f");
    for (Pair* p : {&baseline, &main}) {
        ASSERT_TRUE(p->session->start(p->now).ok());
        ASSERT_TRUE(p->client->start(p->now).ok());
        p->pump();
        ASSERT_TRUE(p->client_events.connected);
    }
    // I P B P: the B-frame is flagged disposable by the bridge.
    store(&source_, 10, 0, {0x65, 0x88, 0x01}, false);
    store(&source_, 11, 9000, {0x41, 0x9a, 0x02}, false);
    store(&source_, 12, 3000, {0x01, 0x9e, 0x03}, true);
    baseline.pump(2);
    store(&source_, 13, 6000, {0x41, 0x9a, 0x04}, false);
    main.pump(2);
    ASSERT_EQ(main.client_events.rtp.size(), 4u);
    ASSERT_EQ(baseline.client_events.rtp.size(), 2u);
    // The network loses the baseline player's copy of the last P-frame.
    ASSERT_EQ(baseline.to_client.size(), 1u);
    baseline.to_client.clear();
    const auto& b = baseline.client_events.rtp;
    EXPECT_EQ(seq_of(b[1]), static_cast<uint16_t>(seq_of(b[0]) + 1));
    // Its NACK names its own numbering (no hole where the B-frame was): the
    // P-frame comes, renumbered so.
    uint16_t want = static_cast<uint16_t>(seq_of(b[1]) + 1);
    std::string nack;
    rtcp_build_nack(1, source_.track(RtcMediaKind::kVideo).ssrc(), {want}, &nack);
    baseline.send_rtcp(nack);
    ASSERT_EQ(baseline.client_events.rtp.size(), 3u);
    EXPECT_EQ(seq_of(b[2]), want);
    EXPECT_EQ(static_cast<uint8_t>(b[2][12]), 0x41);
    EXPECT_EQ(static_cast<uint8_t>(b[2][14]), 0x04);
    EXPECT_EQ(baseline.session->counters().retransmits, 1u);

    // A late player starts with the ring's keyframe and what followed, at once.
    Pair late(false, 5043, &source_, &live_, server_cert_, "packetization-mode=1;profile-level-id=4d001f");
    ASSERT_TRUE(late.session->start(late.now).ok());
    ASSERT_TRUE(late.client->start(late.now).ok());
    late.pump();
    ASSERT_TRUE(late.client_events.connected);
    ASSERT_EQ(late.client_events.rtp.size(), 4u);
    EXPECT_EQ(static_cast<uint8_t>(late.client_events.rtp[0][12]), 0x65);
    EXPECT_EQ(late.client_events.rtp[0], main.client_events.rtp[0]);
    for (Pair* p : {&baseline, &main, &late}) p->session->detach();
    source_.clear_publisher(&bridge);
}
