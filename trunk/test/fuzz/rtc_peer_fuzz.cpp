// libFuzzer target for protocol/rtc/rtc_peer: a server RtcPeer fed fuzz bytes
// as datagrams. The first byte picks the setup: bit 0 connects a real client
// peer first (so DTLS/SRTP/RTP paths are live), bit 1 turns encryption off (so
// fuzz bytes reach the RTP and RTCP parsers), bit 2 makes the server the DTLS
// client. Then records: one flags byte (bit 7: from an unknown address, bit 6:
// advance the clock and run handle_timeout first), a 16-bit length, the bytes.
// Must not crash; the listener checks its own contract (closed at most once,
// media only while connected, pointers inside the datagram).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "protocol/rtc/rtc_peer.hpp"

using namespace srs;

namespace {

struct Checker : RtcPeerListener {
    RtcPeer* peer = nullptr;
    const uint8_t* begin = nullptr;
    const uint8_t* end = nullptr;
    int closed = 0;
    void on_peer_address(const StunAddress&) override {}
    void on_peer_connected() override {}
    void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& h, utime_t) override {
        if (peer && peer->state() != RtcPeerState::kConnected) abort();
        if (begin && (data < begin || data + size > end)) abort();
        if (h.header_size + h.payload_size + h.padding_size != size) abort();
    }
    void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                      utime_t) override {
        if (begin && (data < begin || data + size > end)) abort();
        for (const auto& p : packets) {
            if (p.data < data || p.data + p.size > data + size) abort();
        }
    }
    void on_peer_closed(const Error&) override {
        if (++closed > 1) abort();
    }
};

std::shared_ptr<DtlsCertificate> cert(int i) {
    static std::shared_ptr<DtlsCertificate> certs[2];
    if (!certs[i]) {
        Error err = DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &certs[i]);
        if (err.failed()) abort();
    }
    return certs[i];
}

void relay(RtcPeer* from, RtcPeer* to, const StunAddress& src, utime_t now) {
    RtcTransmit t;
    while (from->pop_transmit(&t)) {
        std::vector<uint8_t> b(t.data.begin(), t.data.end());
        to->handle_datagram(b.data(), b.size(), src, now).ignore();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    uint8_t mode = data[0];
    ++data, --size;
    const StunAddress caddr = StunAddress::ipv4(0x0A000001, 50000), saddr = StunAddress::ipv4(0x0A000002, 8000);
    const StunAddress other = StunAddress::ipv4(0x0A000003, 1234);

    RtcPeerOptions s;
    s.local_ufrag = "srvU", s.local_pwd = "server-password-0123456789";
    s.remote_ufrag = "cliU", s.remote_pwd = "client-password-0123456789";
    s.certificate = cert(0);
    s.remote_fingerprint = cert(1)->fingerprint();
    s.encrypt = !(mode & 2);
    s.dtls_role = (mode & 4) ? DtlsRole::kClient : DtlsRole::kServer;
    RtcPeerOptions c = s;
    c.ice_controlling = true;
    std::swap(c.local_ufrag, c.remote_ufrag);
    std::swap(c.local_pwd, c.remote_pwd);
    c.certificate = cert(1);
    c.remote_fingerprint = cert(0)->fingerprint();
    c.dtls_role = (mode & 4) ? DtlsRole::kServer : DtlsRole::kClient;
    c.remote_candidate = saddr;

    Checker sl, cl;
    RtcPeer server(s, &sl), client(c, &cl);
    sl.peer = &server;
    utime_t now = 1000 * kUsPerSecond;
    if (server.start(now).failed()) abort();
    if (mode & 1) {
        if (client.start(now).failed()) abort();
        for (int i = 0; i < 200 && server.state() != RtcPeerState::kConnected; ++i) {
            relay(&client, &server, caddr, now);
            relay(&server, &client, saddr, now);
            if (client.pending_transmits() == 0 && server.pending_transmits() == 0) {
                now += 100 * kUsPerMs;
                client.handle_timeout(now).ignore();
                server.handle_timeout(now).ignore();
            }
        }
    }

    std::vector<uint8_t> buf;
    while (size >= 3) {
        uint8_t flags = data[0];
        size_t len = (static_cast<size_t>(data[1]) << 8) | data[2];
        data += 3, size -= 3;
        if (len > size) len = size;
        if (flags & 0x40) {
            now += (flags & 0x3F) * 500 * kUsPerMs;
            server.handle_timeout(now).ignore();
        }
        // An exact-size copy, so any over-read past the datagram is caught.
        buf.assign(data, data + len);
        sl.begin = buf.data(), sl.end = buf.data() + buf.size();
        server.handle_datagram(buf.data(), buf.size(), (flags & 0x80) ? other : caddr, now).ignore();
        data += len, size -= len;
        RtcTransmit t;
        while (server.pop_transmit(&t)) {
            if (t.data.empty()) abort();
        }
        uint8_t rtp[64 + kSrtpMaxTrailer] = {0x80, 96};
        size_t n = 0;
        server.protect_rtp(rtp, 64, sizeof(rtp), &n).ignore();
    }
    server.close(now, Error());
    if (sl.closed != 1) abort();
    return 0;
}
