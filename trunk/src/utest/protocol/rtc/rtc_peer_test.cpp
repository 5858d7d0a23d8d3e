// RtcPeer in memory: a controlling client and an ICE-lite server, each with its
// own certificate, wired by a fake network (addresses, loss, reordering) and a
// fake clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "protocol/rtc/rtc_peer.hpp"
#include "utest/openssl_wall_clock.hpp"

using namespace srs;

namespace {

int code_of(Error e) {
    int c = e.ok() ? 0 : e.code();
    e.ignore();
    return c;
}

std::shared_ptr<DtlsCertificate> make_cert() {
    std::shared_ptr<DtlsCertificate> c;
    Error err = DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &c);
    EXPECT_TRUE(err.ok()) << err.describe();
    return c;
}

struct Recorder : RtcPeerListener {
    std::vector<StunAddress> addresses;
    int connected = 0;
    std::vector<std::string> rtp;
    std::vector<uint16_t> rtp_seq;
    std::vector<std::string> rtcp;
    std::vector<uint8_t> rtcp_types;
    int closed = 0;
    int closed_code = 0;

    void on_peer_address(const StunAddress& addr) override { addresses.push_back(addr); }
    void on_peer_connected() override { ++connected; }
    void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& h, utime_t) override {
        rtp.emplace_back(reinterpret_cast<const char*>(data), size);
        rtp_seq.push_back(h.sequence);
    }
    void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets, utime_t) override {
        rtcp.emplace_back(reinterpret_cast<const char*>(data), size);
        for (const auto& p : packets) rtcp_types.push_back(p.type);
    }
    void on_peer_closed(const Error& reason) override {
        ++closed;
        closed_code = reason.code();
    }
};

const char kServerUfrag[] = "srvU";
const char kServerPwd[] = "server-password-0123456789";
const char kClientUfrag[] = "cliU";
const char kClientPwd[] = "client-password-0123456789";

// An RTP packet: 12-byte header (PT 96, seq, SSRC), payload, `room` spare bytes.
std::vector<uint8_t> rtp_packet(uint16_t seq, size_t payload, size_t room) {
    std::vector<uint8_t> p(12 + payload + room, 0);
    p[0] = 0x80;
    p[1] = 96;
    p[2] = seq >> 8;
    p[3] = seq & 0xff;
    p[8] = 0x11, p[9] = 0x22, p[10] = 0x33, p[11] = 0x44;
    for (size_t i = 0; i < payload; ++i) p[12 + i] = static_cast<uint8_t>(i * 7 + seq);
    return p;
}

// A receiver report with no blocks (PT 201, length 1 word, SSRC).
const std::string kEmptyRr("\x80\xC9\x00\x01\x11\x22\x33\x44", 8);

enum class Dir { kToServer, kToClient };

struct Net {
    std::shared_ptr<DtlsCertificate> ccert = make_cert(), scert = make_cert();
    StunAddress caddr = StunAddress::ipv4(0x0A000001, 50000);
    StunAddress saddr = StunAddress::ipv4(0x0A000002, 8000);
    Recorder cl, sl;
    std::unique_ptr<RtcPeer> client, server;
    utime_t now = 100 * kUsPerSecond;
    FakeWallClock wall{now};  // OpenSSL's DTLS timer follows `now`
    // Returns false to drop a datagram; sees every one in order.
    std::function<bool(Dir, const std::string&)> keep;
    bool reverse_batches = false;
    int delivered_errors = 0;
    // A full-ICE remote in front of the server (FullIceRemote): it sees what
    // reaches the server first (true: taken or dropped there), adds to and
    // filters what the server sends, and has its own timer.
    std::function<bool(const std::string&)> server_inbox;
    std::function<void(std::vector<std::string>*)> server_outbox;
    std::function<utime_t(utime_t)> remote_tick;  // runs due work; the next due time

    RtcPeerOptions server_options() {
        RtcPeerOptions o;
        o.ice_controlling = false;
        o.local_ufrag = kServerUfrag, o.local_pwd = kServerPwd;
        o.remote_ufrag = kClientUfrag, o.remote_pwd = kClientPwd;
        o.certificate = scert;
        o.dtls_role = DtlsRole::kServer;
        o.remote_fingerprint = ccert->fingerprint();
        o.software = "srs-test";
        return o;
    }
    RtcPeerOptions client_options() {
        RtcPeerOptions o;
        o.ice_controlling = true;
        o.local_ufrag = kClientUfrag, o.local_pwd = kClientPwd;
        o.remote_ufrag = kServerUfrag, o.remote_pwd = kServerPwd;
        o.certificate = ccert;
        o.dtls_role = DtlsRole::kClient;
        o.remote_fingerprint = scert->fingerprint();
        o.remote_candidate = saddr;
        return o;
    }
    void make(RtcPeerOptions c, RtcPeerOptions s) {
        client.reset(new RtcPeer(std::move(c), &cl));
        server.reset(new RtcPeer(std::move(s), &sl));
    }
    void start() {
        ASSERT_TRUE(server->start(now).ok());
        ASSERT_TRUE(client->start(now).ok());
    }

    Error deliver(RtcPeer* to, const std::string& d, const StunAddress& from) {
        std::vector<uint8_t> buf(d.begin(), d.end());
        return to->handle_datagram(buf.data(), buf.size(), from, now);
    }

    // Moves what each side queued to the other; false when nothing was queued.
    bool exchange() {
        bool moved = false;
        for (Dir dir : {Dir::kToServer, Dir::kToClient}) {
            RtcPeer* from = dir == Dir::kToServer ? client.get() : server.get();
            RtcPeer* to = dir == Dir::kToServer ? server.get() : client.get();
            const StunAddress& src = dir == Dir::kToServer ? caddr : saddr;
            const StunAddress& dst = dir == Dir::kToServer ? saddr : caddr;
            std::vector<std::string> batch;
            RtcTransmit t;
            while (from->pop_transmit(&t)) {
                moved = true;
                EXPECT_TRUE(t.to == dst) << t.to.to_string();
                if (!keep || keep(dir, t.data)) batch.push_back(t.data);
            }
            if (dir == Dir::kToClient && server_outbox) {
                const size_t before = batch.size();
                server_outbox(&batch);
                moved = moved || batch.size() != before;
            }
            if (reverse_batches) std::reverse(batch.begin(), batch.end());
            for (const auto& d : batch) {
                if (dir == Dir::kToServer && server_inbox && server_inbox(d)) continue;
                if (deliver(to, d, src).failed()) ++delivered_errors;
            }
        }
        return moved;
    }

    // Runs the network and the clock until `done` or `limit` of fake time passed.
    void run(std::function<bool()> done, utime_t limit = 60 * kUsPerSecond) {
        utime_t end = now + limit;
        while (!done() && now < end) {
            utime_t remote_due = remote_tick ? remote_tick(now) : kRtcNoTimeout;
            if (exchange()) continue;
            utime_t next = std::min({client->next_timeout(), server->next_timeout(), remote_due});
            if (next == kRtcNoTimeout) break;
            at(std::max(now, std::min(next, end)));
            EXPECT_TRUE(client->handle_timeout(now).ok());
            EXPECT_TRUE(server->handle_timeout(now).ok());
        }
    }
    void at(utime_t t) {
        now = t;
        wall.set(t);
    }
    bool both_connected() const {
        return client->state() == RtcPeerState::kConnected && server->state() == RtcPeerState::kConnected;
    }
    void connect() {
        start();
        run([this] { return both_connected(); });
        exchange();  // the last flight and its answers settle
    }
};

bool is_dtls_datagram(const std::string& d) { return !d.empty() && d[0] >= 20 && d[0] <= 63; }
bool is_stun_datagram(const std::string& d) { return !d.empty() && static_cast<uint8_t>(d[0]) <= 3; }

// A binding request as a browser sends it to the server, with knobs to break it.
std::string binding_request(const std::string& username, const std::string& pwd, uint8_t tid_seed = 1,
                            bool use_candidate = true) {
    StunBindingRequest r;
    for (size_t i = 0; i < kStunTransactionIdSize; ++i) r.transaction_id[i] = static_cast<uint8_t>(tid_seed + i);
    r.username = username;
    r.password = pwd;
    r.priority = 0x6E7F1EFF;
    r.controlling = true;
    r.tie_breaker = 0x0102030405060708ull;
    r.use_candidate = use_candidate;
    std::string out(stun_encoded_size(r), '\0');
    size_t n = 0;
    EXPECT_TRUE(stun_encode(r, reinterpret_cast<uint8_t*>(&out[0]), out.size(), &n).ok());
    out.resize(n);
    return out;
}

// Sends RTP from one side to the other through protect_rtp; returns the wire bytes.
std::string protect(RtcPeer* p, uint16_t seq, size_t payload) {
    std::vector<uint8_t> b = rtp_packet(seq, payload, kSrtpMaxTrailer);
    size_t n = 0;
    Error err = p->protect_rtp(b.data(), 12 + payload, b.size(), &n);
    EXPECT_TRUE(err.ok()) << err.describe();
    return std::string(b.begin(), b.begin() + n);
}

std::string plain(uint16_t seq, size_t payload) {
    std::vector<uint8_t> b = rtp_packet(seq, payload, 0);
    return std::string(b.begin(), b.end());
}

void expect_media_both_ways(Net& net, bool encrypt) {
    // RTP client -> server and back.
    for (uint16_t seq = 65533; seq != 3; ++seq) {
        std::string wire = protect(net.client.get(), seq, 300);
        EXPECT_EQ(encrypt, wire != plain(seq, 300));
        ASSERT_TRUE(net.deliver(net.server.get(), wire, net.caddr).ok());
        ASSERT_FALSE(net.sl.rtp.empty());
        EXPECT_EQ(net.sl.rtp.back(), plain(seq, 300));
        EXPECT_EQ(net.sl.rtp_seq.back(), seq);

        std::string back = protect(net.server.get(), seq, 80);
        ASSERT_TRUE(net.deliver(net.client.get(), back, net.saddr).ok());
        EXPECT_EQ(net.cl.rtp.back(), plain(seq, 80));
    }
    EXPECT_EQ(net.sl.rtp.size(), 6u);
    EXPECT_EQ(net.server->stats().rtp_in, 6u);

    // RTCP both ways through send_rtcp.
    ASSERT_TRUE(net.client->send_rtcp(kEmptyRr).ok());
    ASSERT_TRUE(net.server->send_rtcp(kEmptyRr).ok());
    RtcTransmit t;
    ASSERT_TRUE(net.client->pop_transmit(&t));
    EXPECT_TRUE(t.to == net.saddr);
    EXPECT_EQ(encrypt, t.data != kEmptyRr);
    ASSERT_TRUE(net.deliver(net.server.get(), t.data, net.caddr).ok());
    ASSERT_TRUE(net.server->pop_transmit(&t));
    EXPECT_TRUE(t.to == net.caddr);
    ASSERT_TRUE(net.deliver(net.client.get(), t.data, net.saddr).ok());
    ASSERT_EQ(net.sl.rtcp.size(), 1u);
    EXPECT_EQ(net.sl.rtcp[0], kEmptyRr);
    ASSERT_EQ(net.sl.rtcp_types.size(), 1u);
    EXPECT_EQ(net.sl.rtcp_types[0], 201);
    ASSERT_EQ(net.cl.rtcp.size(), 1u);
    EXPECT_EQ(net.cl.rtcp[0], kEmptyRr);
}

}  // namespace

TEST(ProtocolRtcPeer, StunLocalUfrag) {
    StunMessage m;
    std::string_view u;
    EXPECT_FALSE(stun_local_ufrag(m, &u));
    std::string req = binding_request("abcd:efgh", "pw");
    ASSERT_TRUE(m.decode(reinterpret_cast<const uint8_t*>(req.data()), req.size()).ok());
    ASSERT_TRUE(stun_local_ufrag(m, &u));
    EXPECT_EQ(u, "abcd");
    std::string no_colon = binding_request("abcdefgh", "pw");
    ASSERT_TRUE(m.decode(reinterpret_cast<const uint8_t*>(no_colon.data()), no_colon.size()).ok());
    EXPECT_FALSE(stun_local_ufrag(m, &u));
    std::string empty_ours = binding_request(":efgh", "pw");
    ASSERT_TRUE(m.decode(reinterpret_cast<const uint8_t*>(empty_ours.data()), empty_ours.size()).ok());
    EXPECT_FALSE(stun_local_ufrag(m, &u));
}

TEST(ProtocolRtcPeer, ConnectsAndCarriesSrtpBothWays) {
    Net net;
    net.make(net.client_options(), net.server_options());
    EXPECT_EQ(code_of(net.client->protect_rtp(nullptr, 0, 0, nullptr)), kErrorRtcPeerState);
    net.connect();
    ASSERT_TRUE(net.both_connected()) << net.client->milestones() << " | " << net.server->milestones();
    EXPECT_EQ(net.cl.connected, 1);
    EXPECT_EQ(net.sl.connected, 1);
    ASSERT_EQ(net.sl.addresses.size(), 1u);
    EXPECT_TRUE(net.sl.addresses[0] == net.caddr);
    ASSERT_EQ(net.cl.addresses.size(), 1u);
    EXPECT_TRUE(net.cl.addresses[0] == net.saddr);
    EXPECT_TRUE(net.server->remote_address() == net.caddr);
    EXPECT_EQ(net.server->srtp_profile(), SrtpProfile::kAeadAes128Gcm);
    EXPECT_EQ(net.client->srtp_profile(), SrtpProfile::kAeadAes128Gcm);
    EXPECT_NE(net.server->milestones().find("srtp:SRTP_AEAD_AES_128_GCM"), std::string::npos)
        << net.server->milestones();
    EXPECT_NE(net.server->milestones().find("connected"), std::string::npos);
    EXPECT_GE(net.server->stats().stun_ok, 1u);
    EXPECT_GE(net.server->stats().dtls_in, 2u);
    EXPECT_EQ(net.delivered_errors, 0);
    expect_media_both_ways(net, true);

    // Consent checks keep the server alive well past its stun timeout.
    net.run([] { return false; }, 40 * kUsPerSecond);
    EXPECT_TRUE(net.both_connected());
    EXPECT_EQ(net.sl.closed, 0);
    EXPECT_GT(net.server->stats().stun_ok, 10u);
}

TEST(ProtocolRtcPeer, ServerAsDtlsClient) {
    Net net;
    RtcPeerOptions c = net.client_options(), s = net.server_options();
    c.dtls_role = DtlsRole::kServer;  // the offer said a=setup:passive
    s.dtls_role = DtlsRole::kClient;
    net.make(std::move(c), std::move(s));
    net.connect();
    ASSERT_TRUE(net.both_connected()) << net.client->milestones() << " | " << net.server->milestones();
    expect_media_both_ways(net, true);
}

TEST(ProtocolRtcPeer, EncryptOffSendsMediaInTheClear) {
    Net net;
    RtcPeerOptions c = net.client_options(), s = net.server_options();
    c.encrypt = false;
    s.encrypt = false;
    net.make(std::move(c), std::move(s));
    net.connect();
    ASSERT_TRUE(net.both_connected());
    EXPECT_NE(net.server->milestones().find("srtp:off"), std::string::npos) << net.server->milestones();
    expect_media_both_ways(net, false);
    // A truncated RTP packet (no SRTP to catch it) fails the header parser.
    std::string t = plain(9, 0).substr(0, 7);
    EXPECT_EQ(code_of(net.deliver(net.server.get(), t, net.caddr)), kErrorRtpTooShort);
    EXPECT_EQ(net.sl.rtp.size(), 6u);
}

TEST(ProtocolRtcPeer, ConnectsDespiteLossAndReordering) {
    Net net;
    net.make(net.client_options(), net.server_options());
    int stun_to_server = 0, dtls_to_server = 0, dtls_to_client = 0, stun_to_client = 0;
    net.keep = [&](Dir dir, const std::string& d) {
        if (is_stun_datagram(d)) {
            int& n = dir == Dir::kToServer ? stun_to_server : stun_to_client;
            return ++n > 2;  // the first two checks, then the first two answers, are lost
        }
        if (is_dtls_datagram(d)) {
            int& n = dir == Dir::kToServer ? dtls_to_server : dtls_to_client;
            ++n;
            return n != 1 && n != 3;  // the ClientHello and a later record of each way
        }
        return true;
    };
    net.reverse_batches = true;
    net.connect();
    ASSERT_TRUE(net.both_connected()) << net.client->milestones() << " | " << net.server->milestones();
    EXPECT_GT(net.client->dtls().retransmits() + net.server->dtls().retransmits(), 0);
    expect_media_both_ways(net, true);
}

TEST(ProtocolRtcPeer, RejectsBadStunAndSendsNothing) {
    Net net;
    net.make(net.client_options(), net.server_options());
    ASSERT_TRUE(net.server->start(net.now).ok());
    RtcPeer* s = net.server.get();
    const std::string good_user = std::string(kServerUfrag) + ":" + kClientUfrag;

    EXPECT_EQ(code_of(net.deliver(s, binding_request(good_user, "wrong-password"), net.caddr)),
              kErrorStunIntegrityMismatch);
    EXPECT_EQ(code_of(net.deliver(s, binding_request(std::string(kServerUfrag) + ":other", kServerPwd), net.caddr)),
              kErrorRtcPeerStunUsername);
    EXPECT_EQ(code_of(net.deliver(s, binding_request(std::string("zzzz:") + kClientUfrag, kServerPwd), net.caddr)),
              kErrorRtcPeerStunUsername);
    std::string broken = binding_request(good_user, kServerPwd);
    broken.back() ^= 0x01;  // the CRC
    EXPECT_EQ(code_of(net.deliver(s, broken, net.caddr)), kErrorStunFingerprintMismatch);
    std::string truncated = binding_request(good_user, kServerPwd).substr(0, 30);
    EXPECT_NE(code_of(net.deliver(s, truncated, net.caddr)), 0);
    // DTLS before any verified check, even from the right address.
    std::string hello("\x16\xfe\xfd\x00\x00", 5);
    EXPECT_EQ(code_of(net.deliver(s, hello, net.caddr)), kErrorRtcPeerAddress);

    RtcTransmit t;
    EXPECT_FALSE(s->pop_transmit(&t));
    EXPECT_EQ(s->state(), RtcPeerState::kChecking);
    EXPECT_TRUE(net.sl.addresses.empty());
    EXPECT_FALSE(s->has_remote_address());
    EXPECT_EQ(s->stats().stun_bad, 5u);
    EXPECT_EQ(s->stats().stun_ok, 0u);
    EXPECT_EQ(s->stats().dropped, 6u);

    // The right request is answered to where it came from, verifiably.
    net.at(net.now + kUsPerSecond);
    ASSERT_TRUE(net.deliver(s, binding_request(good_user, kServerPwd, 9), net.caddr).ok());
    ASSERT_TRUE(s->pop_transmit(&t));
    EXPECT_TRUE(t.to == net.caddr);
    StunMessage m;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.data.data());
    ASSERT_TRUE(m.decode(p, t.data.size()).ok());
    EXPECT_EQ(m.type, kStunBindingSuccess);
    EXPECT_EQ(m.transaction_id[0], 9);
    EXPECT_TRUE(m.has_xor_mapped_address && m.xor_mapped_address == net.caddr);
    EXPECT_TRUE(stun_verify_integrity(m, p, kServerPwd).ok());
    EXPECT_TRUE(stun_verify_fingerprint(m, p).ok());
    EXPECT_EQ(m.software, "srs-test");
    EXPECT_EQ(s->state(), RtcPeerState::kDtls);
    EXPECT_EQ(s->last_stun_us(), net.now);
    ASSERT_EQ(net.sl.addresses.size(), 1u);
    EXPECT_FALSE(s->pop_transmit(&t));  // DTLS server: waits for the ClientHello

    // A binding response (ours, echoed back) is not for the ice-lite side.
    EXPECT_EQ(code_of(net.deliver(s, t.data, net.caddr)), kErrorRtcPeerStun);
}

TEST(ProtocolRtcPeer, ClientRejectsBadResponses) {
    Net net;
    net.make(net.client_options(), net.server_options());
    net.start();
    RtcTransmit check;
    ASSERT_TRUE(net.client->pop_transmit(&check));
    StunMessage m;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(check.data.data());
    ASSERT_TRUE(m.decode(p, check.data.size()).ok());
    EXPECT_EQ(m.type, kStunBindingRequest);
    EXPECT_TRUE(m.use_candidate);
    EXPECT_TRUE(m.has_ice_controlling);
    EXPECT_TRUE(m.has_priority);
    EXPECT_EQ(m.username, std::string(kServerUfrag) + ":" + kClientUfrag);
    EXPECT_TRUE(stun_verify_integrity(m, p, kServerPwd).ok());

    auto answer = [&](const uint8_t* tid, const char* pwd) {
        StunBindingResponse r;
        memcpy(r.transaction_id, tid, kStunTransactionIdSize);
        r.mapped = net.caddr;
        r.password = pwd;
        std::string out(stun_encoded_size(r), '\0');
        size_t n = 0;
        EXPECT_TRUE(stun_encode(r, reinterpret_cast<uint8_t*>(&out[0]), out.size(), &n).ok());
        return out;
    };
    uint8_t other[kStunTransactionIdSize] = {1, 2, 3};
    EXPECT_EQ(code_of(net.deliver(net.client.get(), answer(other, kServerPwd), net.saddr)),
              kErrorRtcPeerStunTransaction);
    EXPECT_EQ(code_of(net.deliver(net.client.get(), answer(m.transaction_id, "bad"), net.saddr)),
              kErrorStunIntegrityMismatch);
    EXPECT_EQ(code_of(net.deliver(net.client.get(), answer(m.transaction_id, kServerPwd), net.caddr)),
              kErrorRtcPeerAddress);
    EXPECT_EQ(net.client->state(), RtcPeerState::kChecking);
    EXPECT_TRUE(net.cl.addresses.empty());
    ASSERT_TRUE(net.deliver(net.client.get(), answer(m.transaction_id, kServerPwd), net.saddr).ok());
    EXPECT_EQ(net.client->state(), RtcPeerState::kDtls);
    ASSERT_EQ(net.cl.addresses.size(), 1u);
    RtcTransmit hello;
    ASSERT_TRUE(net.client->pop_transmit(&hello));
    EXPECT_TRUE(is_dtls_datagram(hello.data));
    EXPECT_TRUE(hello.to == net.saddr);
    // Answered once: the same response again matches nothing.
    EXPECT_EQ(code_of(net.deliver(net.client.get(), answer(m.transaction_id, kServerPwd), net.saddr)),
              kErrorRtcPeerStunTransaction);
}

TEST(ProtocolRtcPeer, NatRebindingMovesThePeer) {
    Net net;
    net.make(net.client_options(), net.server_options());
    net.connect();
    ASSERT_TRUE(net.both_connected());
    StunAddress moved = StunAddress::ipv4(0x0A000001, 50001);
    const std::string user = std::string(kServerUfrag) + ":" + kClientUfrag;
    ASSERT_TRUE(net.deliver(net.server.get(), binding_request(user, kServerPwd, 40), moved).ok());
    ASSERT_EQ(net.sl.addresses.size(), 2u);
    EXPECT_TRUE(net.sl.addresses[1] == moved);
    EXPECT_TRUE(net.server->remote_address() == moved);
    EXPECT_EQ(net.server->state(), RtcPeerState::kConnected);
    RtcTransmit t;
    ASSERT_TRUE(net.server->pop_transmit(&t));
    EXPECT_TRUE(t.to == moved);

    std::string wire = protect(net.client.get(), 100, 50);
    EXPECT_EQ(code_of(net.deliver(net.server.get(), wire, net.caddr)), kErrorRtcPeerAddress);
    EXPECT_TRUE(net.sl.rtp.empty());
    ASSERT_TRUE(net.deliver(net.server.get(), wire, moved).ok());
    ASSERT_EQ(net.sl.rtp.size(), 1u);
    // RTCP the server sends now goes to the new address.
    ASSERT_TRUE(net.server->send_rtcp(kEmptyRr).ok());
    ASSERT_TRUE(net.server->pop_transmit(&t));
    EXPECT_TRUE(t.to == moved);
    // The same request again from the same address is answered without a move.
    ASSERT_TRUE(net.deliver(net.server.get(), binding_request(user, kServerPwd, 41), moved).ok());
    EXPECT_EQ(net.sl.addresses.size(), 2u);
}

// A browser checks its other candidate pairs too: those checks are answered
// but do not pull media away from a live address; without USE-CANDIDATE a new
// address wins only once the selected one has been quiet (a NAT rebinding).
TEST(ProtocolRtcPeer, ChecksOnOtherPairsDoNotMoveALiveAddress) {
    Net net;
    net.make(net.client_options(), net.server_options());
    net.connect();
    ASSERT_TRUE(net.both_connected());
    const std::string user = std::string(kServerUfrag) + ":" + kClientUfrag;
    StunAddress other = StunAddress::ipv4(0x0A000002, 50002);
    // Media just arrived on the selected address.
    ASSERT_TRUE(net.deliver(net.server.get(), protect(net.client.get(), 200, 10), net.caddr).ok());
    size_t moves = net.sl.addresses.size();
    ASSERT_TRUE(net.deliver(net.server.get(), binding_request(user, kServerPwd, 60, false), other).ok());
    EXPECT_EQ(net.sl.addresses.size(), moves);
    EXPECT_TRUE(net.server->remote_address() == net.caddr);
    RtcTransmit t;
    ASSERT_TRUE(net.server->pop_transmit(&t));
    EXPECT_TRUE(t.to == other);  // answered where it came from
    // The selected address goes quiet for a second: the next check moves the peer.
    net.at(net.now + kRtcRebindQuiet);
    ASSERT_TRUE(net.deliver(net.server.get(), binding_request(user, kServerPwd, 61, false), other).ok());
    EXPECT_EQ(net.sl.addresses.size(), moves + 1);
    EXPECT_TRUE(net.server->remote_address() == other);
}

TEST(ProtocolRtcPeer, ServerStunTimeoutClosesOnce) {
    Net net;
    net.make(net.client_options(), net.server_options());
    ASSERT_TRUE(net.server->start(net.now).ok());
    utime_t t0 = net.now;
    EXPECT_EQ(net.server->next_timeout(), t0 + 30 * kUsPerSecond);
    ASSERT_TRUE(net.server->handle_timeout(t0 + 30 * kUsPerSecond - 1).ok());
    EXPECT_EQ(net.server->state(), RtcPeerState::kChecking);
    EXPECT_EQ(net.sl.closed, 0);
    ASSERT_TRUE(net.server->handle_timeout(t0 + 30 * kUsPerSecond).ok());
    EXPECT_EQ(net.server->state(), RtcPeerState::kClosed);
    EXPECT_EQ(net.sl.closed, 1);
    EXPECT_EQ(net.sl.closed_code, kErrorRtcPeerStunTimeout);
    EXPECT_EQ(net.server->next_timeout(), kRtcNoTimeout);
    ASSERT_TRUE(net.server->handle_timeout(t0 + 60 * kUsPerSecond).ok());
    net.server->close(net.now, SRS_ERR(kErrorRtcPeerState, "again"));
    EXPECT_EQ(net.sl.closed, 1);
    const std::string user = std::string(kServerUfrag) + ":" + kClientUfrag;
    EXPECT_EQ(code_of(net.deliver(net.server.get(), binding_request(user, kServerPwd), net.caddr)),
              kErrorRtcPeerState);
}

TEST(ProtocolRtcPeer, ConnectedServerTimesOutWithoutConsent) {
    Net net;
    net.make(net.client_options(), net.server_options());
    net.connect();
    ASSERT_TRUE(net.both_connected());
    net.keep = [](Dir dir, const std::string&) { return dir != Dir::kToServer; };  // the client went away
    net.run([&] { return net.sl.closed > 0; }, 40 * kUsPerSecond);
    EXPECT_EQ(net.server->state(), RtcPeerState::kClosed);
    EXPECT_EQ(net.sl.closed, 1);
    EXPECT_EQ(net.sl.closed_code, kErrorRtcPeerStunTimeout);
}

TEST(ProtocolRtcPeer, ClientGivesUpWithoutAnswers) {
    Net net;
    net.make(net.client_options(), net.server_options());
    ASSERT_TRUE(net.client->start(net.now).ok());
    utime_t t0 = net.now;
    int checks = 0;
    RtcTransmit t;
    while (net.client->state() == RtcPeerState::kChecking && net.now < t0 + 40 * kUsPerSecond) {
        while (net.client->pop_transmit(&t)) ++checks;
        net.at(net.client->next_timeout());
        ASSERT_TRUE(net.client->handle_timeout(net.now).ok());
    }
    EXPECT_EQ(net.client->state(), RtcPeerState::kClosed);
    EXPECT_EQ(net.now, t0 + 30 * kUsPerSecond);
    EXPECT_EQ(checks, 300);  // every 100 ms
    EXPECT_EQ(net.cl.closed, 1);
    EXPECT_EQ(net.cl.closed_code, kErrorRtcPeerStunTimeout);
}

TEST(ProtocolRtcPeer, CloseNotifyClosesTheOtherSide) {
    Net net;
    net.make(net.client_options(), net.server_options());
    net.connect();
    ASSERT_TRUE(net.both_connected());
    net.client->close(net.now, SRS_ERR(kErrorRtcPeerState, "user hung up"));
    EXPECT_EQ(net.client->state(), RtcPeerState::kClosed);
    EXPECT_EQ(net.cl.closed, 1);
    EXPECT_EQ(code_of(net.client->protect_rtp(nullptr, 0, 0, nullptr)), kErrorRtcPeerState);
    net.exchange();
    EXPECT_EQ(net.server->state(), RtcPeerState::kClosed);
    EXPECT_EQ(net.sl.closed, 1);
    EXPECT_EQ(net.sl.closed_code, kErrorRtcPeerClosedByPeer);
    EXPECT_EQ(net.cl.closed, 1);
}

TEST(ProtocolRtcPeer, FingerprintMismatchFails) {
    Net net;
    RtcPeerOptions s = net.server_options();
    s.remote_fingerprint = make_cert()->fingerprint();  // not the client's
    net.make(net.client_options(), std::move(s));
    net.start();
    net.run([&] { return net.sl.closed && net.cl.closed; });
    EXPECT_EQ(net.server->state(), RtcPeerState::kFailed);
    EXPECT_EQ(net.sl.closed, 1);
    EXPECT_EQ(net.sl.closed_code, kErrorDtlsFingerprint);
    EXPECT_EQ(net.cl.closed, 1);
    EXPECT_NE(net.client->state(), RtcPeerState::kConnected);
    EXPECT_EQ(net.sl.connected, 0);
    EXPECT_EQ(net.cl.connected, 0);
}

TEST(ProtocolRtcPeer, GarbageIsDroppedAndThePeerLivesOn) {
    Net net;
    net.make(net.client_options(), net.server_options());
    net.connect();
    ASSERT_TRUE(net.both_connected());
    RtcPeer* s = net.server.get();
    for (int first : {4, 19, 64, 79, 100, 127, 192, 223, 255}) {
        std::string d(40, '\x55');
        d[0] = static_cast<char>(first);
        EXPECT_EQ(code_of(net.deliver(s, d, net.caddr)), kErrorRtcPeerDemux) << first;
    }
    EXPECT_EQ(code_of(s->handle_datagram(nullptr, 0, net.caddr, net.now)), kErrorRtcPeerDemux);
    // Truncated SRTP, and SRTP with a flipped byte, fail authentication.
    std::string wire = protect(net.client.get(), 1, 200);
    EXPECT_EQ(code_of(net.deliver(s, wire.substr(0, 8), net.caddr)), kErrorSrtpUnprotect);
    std::string flipped = wire;
    flipped[100] ^= 0x20;
    EXPECT_EQ(code_of(net.deliver(s, flipped, net.caddr)), kErrorSrtpUnprotect);
    // SRTCP with a flipped byte too.
    ASSERT_TRUE(net.client->send_rtcp(kEmptyRr).ok());
    RtcTransmit t;
    ASSERT_TRUE(net.client->pop_transmit(&t));
    std::string bad_rtcp = t.data;
    bad_rtcp[5] ^= 1;
    EXPECT_EQ(code_of(net.deliver(s, bad_rtcp, net.caddr)), kErrorSrtpUnprotect);
    // A STUN-looking byte string that does not decode.
    EXPECT_NE(code_of(net.deliver(s, std::string("\x00\x01\x00\x00garbage", 11), net.caddr)), 0);
    EXPECT_TRUE(net.sl.rtp.empty());
    EXPECT_TRUE(net.sl.rtcp.empty());
    EXPECT_EQ(s->stats().srtp_errors, 3u);
    EXPECT_EQ(s->state(), RtcPeerState::kConnected);
    EXPECT_EQ(net.sl.closed, 0);

    // The untouched packets still go through.
    ASSERT_TRUE(net.deliver(s, wire, net.caddr).ok());
    ASSERT_EQ(net.sl.rtp.size(), 1u);
    EXPECT_EQ(net.sl.rtp[0], plain(1, 200));
    ASSERT_TRUE(net.deliver(s, t.data, net.caddr).ok());
    EXPECT_EQ(net.sl.rtcp.size(), 1u);
    // A replay is dropped.
    EXPECT_EQ(code_of(net.deliver(s, wire, net.caddr)), kErrorSrtpUnprotect);
    EXPECT_EQ(net.sl.rtp.size(), 1u);
}

TEST(ProtocolRtcPeer, StartChecksOptions) {
    Recorder r;
    RtcPeerOptions o;
    RtcPeer p(o, &r);
    EXPECT_EQ(code_of(p.start(0)), kErrorRtcPeerOptions);
    EXPECT_EQ(p.state(), RtcPeerState::kNew);
    uint8_t d[4] = {0, 1, 0, 0};
    EXPECT_EQ(code_of(p.handle_datagram(d, sizeof(d), StunAddress::ipv4(1, 1), 0)), kErrorRtcPeerState);
    EXPECT_EQ(p.next_timeout(), kRtcNoTimeout);
    EXPECT_STREQ(rtc_peer_state_name(RtcPeerState::kDtls), "dtls");
}

TEST(ProtocolRtcPeer, DtlsWithoutAnswersFails) {
    Net net;
    net.make(net.client_options(), net.server_options());
    net.keep = [](Dir, const std::string& d) { return !is_dtls_datagram(d); };  // ICE works, DTLS is blackholed
    net.start();
    net.run([&] { return net.cl.closed > 0; }, 60 * kUsPerSecond);
    EXPECT_EQ(net.client->state(), RtcPeerState::kFailed);
    EXPECT_EQ(net.cl.closed, 1);
    EXPECT_EQ(net.cl.closed_code, kErrorDtlsTimeout);
    EXPECT_EQ(net.cl.connected, 0);
    EXPECT_EQ(net.client->dtls().retransmits(), kDtlsMaxRetransmits);
    // The server answered checks all along, so it is still waiting, not timed out.
    EXPECT_EQ(net.server->state(), RtcPeerState::kDtls);
    EXPECT_EQ(net.sl.closed, 0);
}

// ---- the client as a full ICE agent (issue 23) ----

namespace {

std::string from_hex(const char* hex) {
    std::string out;
    for (size_t i = 0; hex[i] && hex[i + 1]; i += 2) {
        auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
        out += static_cast<char>(nib(hex[i]) << 4 | nib(hex[i + 1]));
    }
    return out;
}

// Encoded by pion/stun v4.0.1 with the attributes in the order pion/ice
// v4.4.8's controlled agent pings with (USERNAME "cliU:pionUfrag",
// ICE-CONTROLLED, PRIORITY, MESSAGE-INTEGRITY keyed with kClientPwd,
// FINGERPRINT).
const char kPionCheckHex[] =
    "000100482112a442b7e7a701bc34d686fa87dfae0006000e636c69553a70696f6e55667261670000802900081122334455667788"
    "002400046e7f1eff00080014dd0a73186461d37939d702b08b4e10ae1ba4c2f08028000477fda85f";
// Chromium's layout as the controlled side: USERNAME "cliU:chrm",
// GOOG-NETWORK-INFO (0xC057, comprehension-optional), ICE-CONTROLLED,
// PRIORITY, MESSAGE-INTEGRITY (kClientPwd), FINGERPRINT.
const char kChromiumCheckHex[] =
    "0001004c2112a4424a31725a6b2f5133774e682b00060009636c69553a6368726d000000c05700040001000a8029000888776655"
    "44332211002400046e001eff000800147b13aec853cf90114669ea8fbbef9d2c54741662802800041d6ae7b2";
// A peer that also thinks it controls: USE-CANDIDATE, ICE-CONTROLLING
// (pion/stun, same credentials as kPionCheckHex).
const char kControllingCheckHex[] =
    "0001004c2112a442b7e7a701bc34d686fa87dfae0006000e636c69553a70696f6e5566726167000000250000802a0008010203"
    "0405060708002400046e7f1eff0008001444657eb83c981fb7ef58c580830182773e20ec2780280004158094ba";

// A started client whose remote is `remote_ufrag`, its first check popped.
void start_client(Net& net, const char* remote_ufrag) {
    RtcPeerOptions c = net.client_options();
    c.remote_ufrag = remote_ufrag;
    net.make(std::move(c), net.server_options());
    ASSERT_TRUE(net.client->start(net.now).ok());
    RtcTransmit first;
    ASSERT_TRUE(net.client->pop_transmit(&first));
}

// Decodes what the client queued in answer to `check`: the message type, the
// check's transaction id, verified with the client's own password; a success
// maps the sender's address, an error is 487.
void expect_answer(Net& net, const std::string& check, uint16_t type) {
    RtcTransmit t;
    ASSERT_TRUE(net.client->pop_transmit(&t));
    EXPECT_TRUE(t.to == net.saddr);
    StunMessage m;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.data.data());
    ASSERT_TRUE(m.decode(p, t.data.size()).ok());
    EXPECT_EQ(m.type, type);
    EXPECT_EQ(memcmp(m.transaction_id, check.data() + 8, kStunTransactionIdSize), 0);
    EXPECT_TRUE(stun_verify_integrity(m, p, kClientPwd).ok());
    EXPECT_TRUE(stun_verify_fingerprint(m, p).ok());
    if (type == kStunBindingSuccess) {
        EXPECT_TRUE(m.has_xor_mapped_address && m.xor_mapped_address == net.saddr);
    } else {
        EXPECT_EQ(m.error_code, kStunErrorRoleConflict);
    }
}

// A full-ICE remote in front of the ICE-lite server peer, as Pion is one: it
// sends its own checks (ICE-CONTROLLED) every 50 ms until one gets a verified
// response, and until then neither takes nor sends DTLS (a full agent does
// not use a pair it has not validated).
struct FullIceRemote {
    Net& net;
    bool validated = false;
    int checks_sent = 0, responses = 0;
    utime_t next_check = 0;
    std::vector<std::array<uint8_t, kStunTransactionIdSize>> tids;
    std::vector<std::string> pending;

    explicit FullIceRemote(Net& n) : net(n) {
        net.remote_tick = [this](utime_t now) { return tick(now); };
        net.server_inbox = [this](const std::string& d) { return to_server(d); };
        net.server_outbox = [this](std::vector<std::string>* batch) {
            if (!validated) {
                batch->erase(std::remove_if(batch->begin(), batch->end(), is_dtls_datagram), batch->end());
            }
            batch->insert(batch->end(), pending.begin(), pending.end());
            pending.clear();
        };
    }
    utime_t tick(utime_t now) {
        if (validated) return kRtcNoTimeout;
        if (now >= next_check) {
            StunBindingRequest r;
            std::array<uint8_t, kStunTransactionIdSize> tid{};
            for (size_t i = 0; i < tid.size(); ++i) tid[i] = static_cast<uint8_t>(0xa0 + checks_sent + i);
            memcpy(r.transaction_id, tid.data(), tid.size());
            std::string username = std::string(kClientUfrag) + ":" + kServerUfrag;
            r.username = username;
            r.password = kClientPwd;
            r.priority = 0x6E001EFF;
            r.controlling = false;
            r.tie_breaker = 0x5555;
            std::string out(stun_encoded_size(r), '\0');
            size_t n = 0;
            EXPECT_TRUE(stun_encode(r, reinterpret_cast<uint8_t*>(&out[0]), out.size(), &n).ok());
            out.resize(n);
            pending.push_back(out);
            tids.push_back(tid);
            ++checks_sent;
            next_check = now + 50 * kUsPerMs;
        }
        return next_check;
    }
    bool to_server(const std::string& d) {
        if (is_dtls_datagram(d)) return !validated;
        if (!is_stun_datagram(d)) return false;
        StunMessage m;
        const uint8_t* p = reinterpret_cast<const uint8_t*>(d.data());
        if (m.decode(p, d.size()).failed() || m.type != kStunBindingSuccess) return false;  // the server's business
        bool ours = false;
        for (const auto& t : tids) ours = ours || memcmp(t.data(), m.transaction_id, t.size()) == 0;
        if (!ours) return false;
        EXPECT_TRUE(stun_verify_integrity(m, p, kClientPwd).ok());
        EXPECT_TRUE(m.has_xor_mapped_address && m.xor_mapped_address == net.saddr);
        ++responses;
        validated = true;
        return true;
    }
};

}  // namespace

TEST(ProtocolRtcPeer, ClientAnswersAPionCheck) {
    Net net;
    start_client(net, "pionUfrag");
    const std::string check = from_hex(kPionCheckHex);
    ASSERT_TRUE(net.deliver(net.client.get(), check, net.saddr).ok());
    expect_answer(net, check, kStunBindingSuccess);
    // A triggered check on the same pair follows; the address waits for its response.
    RtcTransmit t;
    ASSERT_TRUE(net.client->pop_transmit(&t));
    StunMessage m;
    ASSERT_TRUE(m.decode(reinterpret_cast<const uint8_t*>(t.data.data()), t.data.size()).ok());
    EXPECT_EQ(m.type, kStunBindingRequest);
    EXPECT_TRUE(m.use_candidate && m.has_ice_controlling);
    EXPECT_EQ(net.client->state(), RtcPeerState::kChecking);
    EXPECT_FALSE(net.client->has_remote_address());
    EXPECT_TRUE(net.cl.addresses.empty());
    EXPECT_EQ(net.client->stats().checks_answered, 1u);
    EXPECT_NE(net.client->milestones().find("answered:1"), std::string::npos) << net.client->milestones();
}

TEST(ProtocolRtcPeer, ClientAnswersAChromiumCheck) {
    Net net;
    start_client(net, "chrm");
    const std::string check = from_hex(kChromiumCheckHex);
    // From another of the remote's candidates: answered, no triggered check there.
    StunAddress other = StunAddress::ipv4(0x0A000002, 8001);
    ASSERT_TRUE(net.deliver(net.client.get(), check, other).ok());
    RtcTransmit t;
    ASSERT_TRUE(net.client->pop_transmit(&t));
    EXPECT_TRUE(t.to == other);
    EXPECT_FALSE(net.client->pop_transmit(&t));
    ASSERT_TRUE(net.deliver(net.client.get(), check, net.saddr).ok());
    expect_answer(net, check, kStunBindingSuccess);
    EXPECT_EQ(net.client->stats().checks_answered, 2u);
}

TEST(ProtocolRtcPeer, ClientRefusesBrokenChecks) {
    Net net;
    start_client(net, "pionUfrag");
    const std::string check = from_hex(kPionCheckHex);
    std::string altered = check;
    altered[40] ^= 0x01;  // a byte of the tie breaker: MESSAGE-INTEGRITY no longer matches
    EXPECT_EQ(code_of(net.deliver(net.client.get(), altered, net.saddr)), kErrorStunIntegrityMismatch);
    std::string crc = check;
    crc.back() ^= 0x01;
    EXPECT_EQ(code_of(net.deliver(net.client.get(), crc, net.saddr)), kErrorStunFingerprintMismatch);
    EXPECT_NE(code_of(net.deliver(net.client.get(), check.substr(0, 44), net.saddr)), 0);
    // Checks for another session: the Chromium one names "cliU:chrm".
    EXPECT_EQ(code_of(net.deliver(net.client.get(), from_hex(kChromiumCheckHex), net.saddr)),
              kErrorRtcPeerStunUsername);
    // Our own check echoed back names the server's ufrag first.
    EXPECT_EQ(code_of(net.deliver(net.client.get(), binding_request(std::string(kServerUfrag) + ":" + kClientUfrag,
                                                                     kServerPwd),
                                  net.saddr)),
              kErrorRtcPeerStunUsername);
    RtcTransmit t;
    EXPECT_FALSE(net.client->pop_transmit(&t));
    EXPECT_EQ(net.client->stats().stun_bad, 5u);
    EXPECT_EQ(net.client->stats().checks_answered, 0u);
    EXPECT_EQ(net.client->state(), RtcPeerState::kChecking);
}

TEST(ProtocolRtcPeer, ClientAnswersARoleConflictWith487) {
    Net net;
    start_client(net, "pionUfrag");
    const std::string check = from_hex(kControllingCheckHex);
    ASSERT_TRUE(net.deliver(net.client.get(), check, net.saddr).ok());
    expect_answer(net, check, kStunBindingError);
    RtcTransmit t;
    EXPECT_FALSE(net.client->pop_transmit(&t));  // no triggered check: the remote must change its role first
    EXPECT_EQ(net.client->stats().role_conflicts, 1u);
    EXPECT_EQ(net.client->stats().checks_answered, 0u);
    EXPECT_EQ(net.client->state(), RtcPeerState::kChecking);
}

TEST(ProtocolRtcPeer, ConnectsToAFullIceRemote) {
    Net net;
    net.make(net.client_options(), net.server_options());
    FullIceRemote remote(net);
    net.connect();
    ASSERT_TRUE(net.both_connected()) << net.client->milestones() << " | " << net.server->milestones();
    EXPECT_TRUE(remote.validated);
    EXPECT_GE(net.client->stats().checks_answered, 1u);
    EXPECT_EQ(net.client->stats().role_conflicts, 0u);
    EXPECT_EQ(net.delivered_errors, 0);
    expect_media_both_ways(net, true);
}

// Pion answers a=setup:active: it is the DTLS client and only says hello
// once its own check has a response. Here the client's first checks are lost,
// so the remote's check arrives first; the client answers it, and still
// moves on only with the response to its (triggered) check.
TEST(ProtocolRtcPeer, ConnectsToAFullIceRemoteWhoseCheckComesFirst) {
    Net net;
    RtcPeerOptions c = net.client_options(), s = net.server_options();
    c.dtls_role = DtlsRole::kServer;
    s.dtls_role = DtlsRole::kClient;
    net.make(std::move(c), std::move(s));
    FullIceRemote remote(net);
    int lost = 0;
    net.keep = [&lost](Dir dir, const std::string& d) {
        if (dir == Dir::kToServer && is_stun_datagram(d) && d[1] == 0x01 && lost < 2) {  // our first two checks
            ++lost;
            return false;
        }
        return true;
    };
    net.start();
    net.run([&net] { return net.client->stats().checks_answered > 0; });
    EXPECT_EQ(net.client->state(), RtcPeerState::kChecking);
    net.run([&net] { return net.both_connected(); });
    net.exchange();
    ASSERT_TRUE(net.both_connected()) << net.client->milestones() << " | " << net.server->milestones();
    EXPECT_EQ(lost, 2);
    EXPECT_TRUE(remote.validated);
    ASSERT_EQ(net.cl.addresses.size(), 1u);
    EXPECT_TRUE(net.cl.addresses[0] == net.saddr);
    expect_media_both_ways(net, true);
}
