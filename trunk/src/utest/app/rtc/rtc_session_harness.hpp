// The harness of the session tests (rtc_session_test, rtc_publisher_session_test,
// rtc_player_session_test): a client RtcPeer and the server session it talks
// to, in memory. Datagrams go through fake send paths and the clock is the
// test's, so ICE, DTLS, SRTP, NACK, PLI and the keyframe gate are checked
// without sockets.
#pragma once

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

namespace srs::rtc_session_test {

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

inline std::shared_ptr<DtlsCertificate> cert() {
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
inline std::vector<RtcpPacketRef> rtcp_of_type(const std::vector<std::string>& compounds, uint8_t type) {
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

}  // namespace srs::rtc_session_test

class RtcSessionTest : public ::testing::Test {
  protected:
    srs::SourceManager live_;
    srs::RtcSource source_{"__defaultVhost__", "live", "s"};
    std::shared_ptr<srs::DtlsCertificate> server_cert_ = srs::rtc_session_test::cert();
};
