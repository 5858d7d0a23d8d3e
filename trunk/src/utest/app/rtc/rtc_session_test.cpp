// Sessions end to end in memory: a client RtcPeer publishes through a
// publisher session, the source fans out to a player session, whose client
// RtcPeer decrypts what it gets. Datagrams go through fake send paths and
// the clock is the test's, so ICE, DTLS, SRTP, NACK, PLI and the keyframe
// gate are checked without sockets.
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "app/live/source_manager.hpp"
#include "app/rtc/rtc_session.hpp"
#include "app/rtc/rtc_source.hpp"
#include "core/bytes.hpp"
#include "kernel/rtp/rtcp.hpp"
#include "protocol/rtc/send_stats.hpp"
#include "protocol/rtc/srtp.hpp"

using namespace srs;

namespace {

struct Wire {
    std::deque<std::string> to_client;
};

// A session's datagrams, collected for the test to deliver.
class FakePath : public RtcSendPath {
  public:
    explicit FakePath(std::deque<std::string>* out) : out_(out) {}
    uint8_t* slot() override { return buf_; }
    void commit(size_t len) override { out_->emplace_back(reinterpret_cast<char*>(buf_), len); }
    const char* transport() const override { return "udp"; }

  private:
    std::deque<std::string>* out_;
    uint8_t buf_[kRtcSlotSize];
};

struct ClientListener : RtcPeerListener {
    bool connected = false;
    bool closed = false;
    std::vector<std::string> rtp;           // decrypted packets
    std::vector<uint8_t> rtcp_types;        // PT of every RTCP packet received
    std::vector<uint8_t> rtcp_fmts;
    std::vector<std::string> rtcp;          // every compound received
    void on_peer_address(const StunAddress&) override {}
    void on_peer_connected() override { connected = true; }
    void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader&, utime_t) override {
        rtp.emplace_back(reinterpret_cast<char*>(data), size);
    }
    void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets, utime_t) override {
        rtcp.emplace_back(reinterpret_cast<const char*>(data), size);
        for (const auto& p : packets) {
            rtcp_types.push_back(p.type);
            rtcp_fmts.push_back(p.count);
        }
    }
    void on_peer_closed(const Error&) override { closed = true; }
};

std::shared_ptr<DtlsCertificate> cert() {
    std::shared_ptr<DtlsCertificate> c;
    EXPECT_TRUE(DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &c).ok());
    return c;
}

const StunAddress kServer = StunAddress::ipv4(0x7f000001, 8000);
// What the sessions' RtcSessionDeps give: the SSRC drawn, and the wall clock
// at monotonic time 0.
constexpr uint32_t kSessionSsrc = 0x5eed0001;
constexpr int64_t kWallAtZero = 1800000000LL * kUsPerSecond;

// The packets of type `type` in the compounds received.
std::vector<RtcpPacketRef> rtcp_of_type(const std::vector<std::string>& compounds, uint8_t type) {
    std::vector<RtcpPacketRef> out;
    for (const std::string& c : compounds) {
        std::vector<RtcpPacketRef> refs;
        if (rtcp_parse_compound(reinterpret_cast<const uint8_t*>(c.data()), c.size(), &refs).failed()) continue;
        for (const RtcpPacketRef& r : refs) {
            if (r.type == type) out.push_back(r);
        }
    }
    return out;
}

// One side: a client peer and the server session it talks to.
struct Pair {
    std::shared_ptr<DtlsCertificate> server_cert, client_cert;
    ClientListener client_events;
    std::unique_ptr<RtcPeer> client;
    std::unique_ptr<RtcSession> session;
    std::deque<std::string> to_client;
    StunAddress client_addr;
    utime_t now = 1000000;

    Pair(bool publisher, uint16_t port, RtcSource* source, SourceManager* live, std::shared_ptr<DtlsCertificate> sc,
         const std::string& video_fmtp = "")
        : server_cert(std::move(sc)), client_cert(cert()), client_addr(StunAddress::ipv4(0x7f000001, port)) {
        EXPECT_TRUE(srtp_library_init().ok());
        RtcPeerOptions c;
        c.ice_controlling = true;
        c.local_ufrag = "cli" + std::to_string(port);
        c.local_pwd = "clientpassword0123456789";
        c.remote_ufrag = "srv" + std::to_string(port);
        c.remote_pwd = "serverpassword0123456789";
        c.certificate = client_cert;
        c.dtls_role = DtlsRole::kClient;
        c.remote_fingerprint = server_cert->fingerprint();
        c.remote_candidate = kServer;
        client.reset(new RtcPeer(c, &client_events));

        RtcSessionParams p;
        p.publisher = publisher;
        p.vhost = "__defaultVhost__";
        p.app = "live";
        p.stream = "s";
        p.client_ip = "127.0.0.1";
        p.vhost_options.enabled = true;
        p.peer.local_ufrag = c.remote_ufrag;
        p.peer.local_pwd = c.remote_pwd;
        p.peer.remote_ufrag = c.local_ufrag;
        p.peer.remote_pwd = c.local_pwd;
        p.peer.certificate = server_cert;
        p.peer.dtls_role = DtlsRole::kServer;
        p.peer.remote_fingerprint = client_cert->fingerprint();
        p.audio.present = true;
        p.audio.pt = 111;
        p.audio.codec = "opus";
        p.audio.clock_rate = 48000;
        p.video.present = true;
        p.video.pt = publisher ? 102 : 106;  // the player negotiated another payload type
        p.video.codec = "H264";
        p.video.clock_rate = 90000;
        p.video.fmtp = video_fmtp;
        if (publisher) {
            p.audio.remote_ssrc = 0x2000;  // as the offer's a=ssrc lines say
            p.video.remote_ssrc = 0x1000;
        }
        RtcSessionDeps deps;
        deps.random_ssrc = [] { return kSessionSsrc; };
        deps.wall_clock = [](utime_t now) { return kWallAtZero + now; };
        session = make_rtc_session("cid" + std::to_string(port), p, source, live, std::move(deps));
        session->bind_send_path(std::unique_ptr<RtcSendPath>(new FakePath(&to_client)), nullptr);
    }

    // Moves datagrams both ways until nothing is left.
    void pump(int rounds = 20) {
        FakePath reply(&to_client);
        for (int i = 0; i < rounds; i++) {
            bool moved = false;
            RtcTransmit t;
            while (client->pop_transmit(&t)) {
                moved = true;
                std::string d = t.data;
                session->handle_datagram(reinterpret_cast<uint8_t*>(&d[0]), d.size(), client_addr, now, &reply)
                    .ignore();
            }
            while (!to_client.empty()) {
                moved = true;
                std::string d = to_client.front();
                to_client.pop_front();
                client->handle_datagram(reinterpret_cast<uint8_t*>(&d[0]), d.size(), kServer, now).ignore();
            }
            if (!moved) {
                now += 10 * kUsPerMs;
                client->handle_timeout(now).ignore();
                session->on_timer(now);
            }
        }
    }

    // The client sends one RTP packet (protected by its peer).
    void send_rtp(uint8_t pt, uint16_t seq, uint32_t ts, uint32_t ssrc, const std::vector<uint8_t>& payload) {
        uint8_t buf[1500];
        buf[0] = 0x80;
        buf[1] = pt;
        store_be16(buf + 2, seq);
        store_be32(buf + 4, ts);
        store_be32(buf + 8, ssrc);
        memcpy(buf + 12, payload.data(), payload.size());
        size_t out = 0;
        ASSERT_TRUE(client->protect_rtp(buf, 12 + payload.size(), sizeof(buf), &out).ok());
        FakePath reply(&to_client);
        Error err = session->handle_datagram(buf, out, client_addr, now, &reply);
        EXPECT_TRUE(err.ok()) << err.describe();
    }

    void send_rtcp(const std::string& compound) {
        ASSERT_TRUE(client->send_rtcp(compound).ok());
        pump(2);
    }
};

}  // namespace

class RtcSessionTest : public ::testing::Test {
  protected:
    SourceManager live_;
    RtcSource source_{"__defaultVhost__", "live", "s"};
    std::shared_ptr<DtlsCertificate> server_cert_ = cert();
};

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

TEST_F(RtcSessionTest, SecondPublisherIsBusyAndStunTimeoutEnds) {
    Pair a(true, 5011, &source_, &live_, server_cert_);
    ASSERT_TRUE(a.session->start(a.now).ok());
    Pair b(true, 5012, &source_, &live_, server_cert_);
    Error err = b.session->start(b.now);
    EXPECT_EQ(err.code(), kErrorRtcSourceBusy);
    b.session->detach();
    EXPECT_TRUE(source_.has_publisher());

    // No binding request for stun_timeout (30 s by default): the session ends.
    for (int i = 0; i < 40; i++) {
        a.now += kUsPerSecond;
        a.session->on_timer(a.now);
    }
    EXPECT_TRUE(a.session->dead());
    a.session->detach();
    EXPECT_FALSE(source_.has_publisher());
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

// What the RTMP bridge publishes: a player that negotiated Baseline skips the
// B-frames (packets flagged disposable) and sees its video numbered without
// holes, its NACKs mapped back to the ring; a Main/High player gets them all.
// A player that joins late starts at the ring's latest keyframe at once.
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
