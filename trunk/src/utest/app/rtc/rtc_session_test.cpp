// Sessions end to end in memory: a client RtcPeer publishes through a
// publisher session, the source fans out to a player session, whose client
// RtcPeer decrypts what it gets (harness: rtc_session_harness.hpp).
#include "utest/app/rtc/rtc_session_harness.hpp"

using namespace srs;
using namespace srs::rtc_session_test;

TEST_F(RtcSessionTest, PublishFanOutNackPliAndKeyframeGate) {
    Pair pub(true, 5001, &source_, &live_, server_cert_);
    ASSERT_TRUE(pub.session->start(pub.now).ok());
    ASSERT_TRUE(pub.client->start(pub.now).ok());
    pub.pump();
    ASSERT_TRUE(pub.client_events.connected);
    // The stream is published on the protocol-neutral source too.
    LiveSource* live = live_.find("__defaultVhost__", "live", "s");
    ASSERT_NE(live, nullptr);
    EXPECT_TRUE(live->publishing());
    EXPECT_EQ(live->publisher_cid(), "cid5001");

    Pair play(false, 5002, &source_, &live_, server_cert_);
    ASSERT_TRUE(play.session->start(play.now).ok());
    ASSERT_TRUE(play.client->start(play.now).ok());
    play.pump();
    ASSERT_TRUE(play.client_events.connected);
    EXPECT_EQ(live->attached_players(), 1u);

    // The player's join asked the publisher for a keyframe: PLI on the next timer.
    pub.now += 30 * kUsPerMs;
    pub.session->on_timer(pub.now);
    pub.pump(2);
    bool pli = false;
    for (size_t i = 0; i < pub.client_events.rtcp_types.size(); i++) {
        pli = pli || (pub.client_events.rtcp_types[i] == kRtcpPsfb && pub.client_events.rtcp_fmts[i] == kRtcpFmtPli);
    }
    EXPECT_TRUE(pli) << "no PLI reached the publisher";

    // A P-frame before any keyframe is held back from the player; audio is not.
    const uint32_t vssrc = 0x1000, assrc = 0x2000;
    pub.send_rtp(102, 100, 9000, vssrc, {0x41, 0x9a, 0x01});
    pub.send_rtp(111, 500, 960, assrc, {0xfc, 0x01});
    play.pump(2);
    ASSERT_EQ(play.client_events.rtp.size(), 1u);
    EXPECT_EQ(static_cast<uint8_t>(play.client_events.rtp[0][1]) & 0x7f, 111);

    // The keyframe, then a P-frame: both arrive, with the player's payload
    // type and the stream's SSRC.
    pub.send_rtp(102, 101, 12000, vssrc, {0x65, 0x88, 0x80});
    pub.send_rtp(102, 102, 15000, vssrc, {0x41, 0x9a, 0x02});
    play.pump(2);
    ASSERT_EQ(play.client_events.rtp.size(), 3u);
    const std::string& key = play.client_events.rtp[1];
    EXPECT_EQ(static_cast<uint8_t>(key[1]) & 0x7f, 106);
    EXPECT_EQ(load_be32(reinterpret_cast<const uint8_t*>(key.data()) + 8), source_.track(RtcMediaKind::kVideo).ssrc());
    EXPECT_EQ(static_cast<uint8_t>(key[12]), 0x65);

    // The network loses the next packet on its way to the player; its NACK is
    // answered from the ring: the same packet again, now delivered.
    pub.send_rtp(102, 106, 16000, vssrc, {0x41, 0x9a, 0x06});
    ASSERT_EQ(play.to_client.size(), 1u);
    std::string lost = play.to_client.front();
    play.to_client.clear();
    uint16_t lost_seq = static_cast<uint16_t>(load_be16(reinterpret_cast<const uint8_t*>(key.data()) + 2) + 5);
    std::string nack;
    rtcp_build_nack(1, source_.track(RtcMediaKind::kVideo).ssrc(), {lost_seq}, &nack);
    play.send_rtcp(nack);
    ASSERT_EQ(play.client_events.rtp.size(), 4u);
    EXPECT_EQ(load_be16(reinterpret_cast<const uint8_t*>(play.client_events.rtp[3].data()) + 2), lost_seq);
    EXPECT_EQ(static_cast<uint8_t>(play.client_events.rtp[3][14]), 0x06);
    EXPECT_EQ(play.session->counters().retransmits, 1u);
    // A NACK for what the ring no longer (or never) had is ignored.
    std::string stale;
    rtcp_build_nack(1, source_.track(RtcMediaKind::kVideo).ssrc(), {static_cast<uint16_t>(lost_seq + 1000)}, &stale);
    play.send_rtcp(stale);
    EXPECT_EQ(play.session->counters().retransmits, 1u);

    // The publisher lost seq 104 (103 and 105 arrived): the session NACKs it.
    pub.send_rtp(102, 103, 18000, vssrc, {0x41, 0x03});
    pub.send_rtp(102, 105, 24000, vssrc, {0x41, 0x05});
    size_t before = pub.client_events.rtcp_types.size();
    for (int i = 0; i < 5; i++) {
        pub.now += 25 * kUsPerMs;
        pub.session->on_timer(pub.now);
        pub.pump(1);
    }
    bool nacked = false;
    for (size_t i = before; i < pub.client_events.rtcp_types.size(); i++) {
        nacked = nacked || (pub.client_events.rtcp_types[i] == kRtcpRtpfb && pub.client_events.rtcp_fmts[i] == kRtcpFmtNack);
    }
    EXPECT_TRUE(nacked) << "no NACK reached the publisher";

    // BYE from the player ends its session; the source forgets it.
    std::string bye;
    rtcp_build_bye(RtcpBye{{1}, ""}, &bye);
    play.send_rtcp(bye);
    EXPECT_TRUE(play.session->dead());
    play.session->detach();
    EXPECT_EQ(source_.player_count(), 0u);
    EXPECT_EQ(live->attached_players(), 0u);

    // The publisher's session ends: the stream is unpublished everywhere.
    pub.session->close(pub.now, SRS_ERR(kErrorRtcSessionClosed, "test"));
    EXPECT_TRUE(pub.session->dead());
    EXPECT_FALSE(pub.session->failed());
    pub.session->detach();
    EXPECT_FALSE(source_.has_publisher());
    EXPECT_FALSE(live->publishing());
}

TEST_F(RtcSessionTest, KickedSessionEndsOnItsNextTimer) {
    Pair p(false, 5021, &source_, &live_, server_cert_);
    ASSERT_TRUE(p.session->start(p.now).ok());
    EXPECT_EQ(p.session->info().kind, ClientKind::kRtcPlay);
    p.session->expire();
    EXPECT_FALSE(p.session->dead());
    p.session->on_timer(p.now + kUsPerMs);
    EXPECT_TRUE(p.session->dead());
    EXPECT_FALSE(p.session->failed());
}

// A session draws no SSRC and reads no wall clock itself: the publisher's RR
// is sent from the SSRC its deps drew, the player's SR carries the NTP time
// its deps' wall clock gives for the timer's `now`.
TEST_F(RtcSessionTest, SsrcAndWallClockComeFromTheDeps) {
    Pair pub(true, 5051, &source_, &live_, server_cert_);
    ASSERT_TRUE(pub.session->start(pub.now).ok());
    ASSERT_TRUE(pub.client->start(pub.now).ok());
    pub.pump();
    Pair play(false, 5052, &source_, &live_, server_cert_);
    ASSERT_TRUE(play.session->start(play.now).ok());
    ASSERT_TRUE(play.client->start(play.now).ok());
    play.pump();
    ASSERT_TRUE(play.client_events.connected);
    pub.send_rtp(102, 1, 0, 0x1000, {0x65, 0x88});
    play.pump(2);
    ASSERT_EQ(play.client_events.rtp.size(), 1u);

    pub.now += kUsPerSecond;
    pub.session->on_timer(pub.now);
    pub.pump(1);
    std::vector<RtcpPacketRef> rrs = rtcp_of_type(pub.client_events.rtcp, kRtcpRr);
    ASSERT_FALSE(rrs.empty());
    RtcpReceiverReport rr;
    ASSERT_TRUE(rtcp_parse_rr(rrs[0], &rr).ok());
    EXPECT_EQ(rr.ssrc, kSessionSsrc);

    play.now += kUsPerSecond;
    const utime_t at = play.now;
    play.session->on_timer(at);
    play.pump(1);
    std::vector<RtcpPacketRef> srs = rtcp_of_type(play.client_events.rtcp, kRtcpSr);
    ASSERT_EQ(srs.size(), 1u);
    RtcpSenderReport sr;
    ASSERT_TRUE(rtcp_parse_sr(srs[0], &sr).ok());
    EXPECT_EQ(sr.ssrc, source_.track(RtcMediaKind::kVideo).ssrc());
    EXPECT_EQ(sr.ntp, ntp_from_unix_us(kWallAtZero + at));
    for (Pair* p : {&pub, &play}) p->session->detach();
}
