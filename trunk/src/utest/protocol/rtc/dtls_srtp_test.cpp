// DTLS-SRTP end to end in memory: two DtlsEndpoints shake hands, each side
// keys an SrtpSession from what its endpoint exported (RFC 5764: the client
// writes with the client key, the server with the server key), and media
// protected by one is read by the other. The join of the two tested pieces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/rtc/dtls.hpp"
#include "protocol/rtc/srtp.hpp"

using namespace srs;

namespace {

std::shared_ptr<DtlsCertificate> make_cert() {
    std::shared_ptr<DtlsCertificate> c;
    Error err = DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &c);
    EXPECT_TRUE(err.ok()) << err.describe();
    return c;
}

// Moves every queued datagram from one endpoint to the other.
bool relay(DtlsEndpoint* from, DtlsEndpoint* to, utime_t now) {
    bool moved = false;
    std::string d;
    while (from->pop_datagram(&d)) {
        to->handle_datagram(reinterpret_cast<const uint8_t*>(d.data()), d.size(), now).ignore();
        moved = true;
    }
    return moved;
}

SrtpKeys keys_of(const std::string& key, const std::string& salt) {
    SrtpKeys k;
    k.key = reinterpret_cast<const uint8_t*>(key.data());
    k.key_len = key.size();
    k.salt = reinterpret_cast<const uint8_t*>(salt.data());
    k.salt_len = salt.size();
    return k;
}

// An RTP packet: 12-byte header (PT 96, seq, SSRC) and a payload.
std::vector<uint8_t> rtp_packet(uint16_t seq, size_t payload, size_t room) {
    std::vector<uint8_t> p(12 + payload + room, 0);
    p[0] = 0x80;
    p[1] = 96;
    p[2] = seq >> 8;
    p[3] = seq & 0xff;
    p[8] = 0x11, p[9] = 0x22, p[10] = 0x33, p[11] = 0x44;
    for (size_t i = 0; i < payload; ++i) p[12 + i] = static_cast<uint8_t>(i * 7);
    return p;
}

}  // namespace

TEST(ProtocolDtlsSrtp, ExportedKeysCarryMediaBothWays) {
    ASSERT_TRUE(srtp_library_init().ok());
    auto cc = make_cert(), sc = make_cert();
    DtlsEndpoint client(cc, DtlsRole::kClient, sc->fingerprint());
    DtlsEndpoint server(sc, DtlsRole::kServer, cc->fingerprint());
    utime_t now = 10 * kUsPerSecond;
    ASSERT_TRUE(server.start(now).ok());
    ASSERT_TRUE(client.start(now).ok());
    for (int i = 0; i < 20 && (relay(&client, &server, now) | relay(&server, &client, now)); ++i) {
    }
    ASSERT_EQ(client.state(), DtlsState::kConnected);
    ASSERT_EQ(server.state(), DtlsState::kConnected);

    const DtlsSrtpKeys& ck = client.srtp_keys();
    const DtlsSrtpKeys& sk = server.srtp_keys();
    SrtpProfile profile;
    ASSERT_TRUE(srtp_profile_from_id(ck.profile_id, &profile).ok());
    EXPECT_EQ(profile, SrtpProfile::kAeadAes128Gcm);  // preferred when both offer it

    SrtpSession at_client, at_server;
    ASSERT_TRUE(at_client.initialize(profile, keys_of(ck.client_key, ck.client_salt),
                                     keys_of(ck.server_key, ck.server_salt)).ok());
    ASSERT_TRUE(at_server.initialize(profile, keys_of(sk.server_key, sk.server_salt),
                                     keys_of(sk.client_key, sk.client_salt)).ok());

    for (uint16_t seq = 65530; seq != 10; ++seq) {  // across the wrap
        std::vector<uint8_t> p = rtp_packet(seq, 1000, kSrtpMaxTrailer);
        const std::vector<uint8_t> plain(p.begin(), p.begin() + 1012);
        size_t len = 0;
        ASSERT_TRUE(at_client.protect_rtp(p.data(), 1012, p.size(), &len).ok());
        EXPECT_NE(0, memcmp(p.data() + 12, plain.data() + 12, 1000));
        size_t out = 0;
        ASSERT_TRUE(at_server.unprotect_rtp(p.data(), len, &out).ok());
        ASSERT_EQ(out, 1012u);
        EXPECT_EQ(0, memcmp(p.data(), plain.data(), out));

        // The other way: the server's key, read by the client.
        std::vector<uint8_t> q = rtp_packet(seq, 200, kSrtpMaxTrailer);
        ASSERT_TRUE(at_server.protect_rtp(q.data(), 212, q.size(), &len).ok());
        ASSERT_TRUE(at_client.unprotect_rtp(q.data(), len, &out).ok());
        EXPECT_EQ(out, 212u);
    }

    // A session keyed the wrong way round cannot read the client's media.
    SrtpSession wrong;
    ASSERT_TRUE(wrong.initialize(profile, keys_of(sk.client_key, sk.client_salt),
                                 keys_of(sk.server_key, sk.server_salt)).ok());
    std::vector<uint8_t> p = rtp_packet(7, 100, kSrtpMaxTrailer);
    size_t len = 0, out = 0;
    ASSERT_TRUE(at_client.protect_rtp(p.data(), 112, p.size(), &len).ok());
    Error refused = wrong.unprotect_rtp(p.data(), len, &out);
    EXPECT_EQ(refused.code(), kErrorSrtpUnprotect) << refused.describe();
}
