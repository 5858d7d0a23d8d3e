// protocol/rtc/srtp_gcm: the OpenSSL AES-GCM sender gives libsrtp's bytes
// exactly (same keys, same packets: across the sequence wrap, a second SSRC,
// retransmissions of older numbers, headers with CSRCs and extensions, empty
// payloads), libsrtp's receiver takes them, and the KDF matches RFC 3711's
// test vectors (appendix B.3).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "protocol/rtc/srtp.hpp"
#include "protocol/rtc/srtp_gcm.hpp"

using namespace srs;

namespace {

std::vector<uint8_t> hex(const char* s) {
    std::vector<uint8_t> v;
    for (size_t i = 0; s[i] && s[i + 1]; i += 2) {
        unsigned x = 0;
        sscanf(s + i, "%2x", &x);
        v.push_back(static_cast<uint8_t>(x));
    }
    return v;
}

std::vector<uint8_t> material(uint8_t seed) {
    std::vector<uint8_t> m(2 * (16 + 12));
    for (size_t i = 0; i < m.size(); i++) m[i] = static_cast<uint8_t>(seed * 7 + i * 13);
    return m;
}

void init(SrtpSession* s, const std::vector<uint8_t>& m, bool is_client, bool libsrtp) {
    ASSERT_TRUE(srtp_library_init().ok());
    SrtpKeys local, remote;
    ASSERT_TRUE(srtp_split_keying_material(SrtpProfile::kAeadAes128Gcm, m.data(), m.size(), is_client, &local,
                                           &remote)
                    .ok());
    if (libsrtp) s->protect_rtp_with_libsrtp();
    Error err = s->initialize(SrtpProfile::kAeadAes128Gcm, local, remote);
    ASSERT_TRUE(err.ok()) << err.describe();
}

// A packet: optional CSRCs and a one-byte-form extension, payload bytes from seq.
std::vector<uint8_t> packet(uint16_t seq, uint32_t ssrc, size_t payload, int csrcs = 0, bool ext = false) {
    std::vector<uint8_t> p = {static_cast<uint8_t>(0x80 | (ext ? 0x10 : 0) | csrcs), 0x66,
                              static_cast<uint8_t>(seq >> 8), static_cast<uint8_t>(seq), 0, 1, 2, 3,
                              static_cast<uint8_t>(ssrc >> 24), static_cast<uint8_t>(ssrc >> 16),
                              static_cast<uint8_t>(ssrc >> 8), static_cast<uint8_t>(ssrc)};
    for (int i = 0; i < csrcs; i++) p.insert(p.end(), {0, 0, 0, static_cast<uint8_t>(i + 1)});
    if (ext) p.insert(p.end(), {0xBE, 0xDE, 0, 1, 0x10, 0xAB, 0, 0});
    for (size_t i = 0; i < payload; i++) p.push_back(static_cast<uint8_t>(seq * 3 + i));
    return p;
}

std::vector<uint8_t> protect(SrtpSession* s, std::vector<uint8_t> p) {
    size_t len = p.size(), n = 0;
    p.resize(len + kSrtpMaxTrailer);
    Error err = s->protect_rtp(p.data(), len, p.size(), &n);
    EXPECT_TRUE(err.ok()) << err.describe();
    p.resize(n);
    return p;
}

}  // namespace

TEST(ProtocolSrtpGcm, SameBytesAsLibsrtpAndLibsrtpTakesThem) {
    std::vector<uint8_t> m = material(3);
    SrtpSession ours, theirs, receiver;
    init(&ours, m, false, false);
    init(&theirs, m, false, true);
    init(&receiver, m, true, true);
    struct Step {
        uint16_t seq;
        uint32_t ssrc;
        size_t payload;
        int csrcs;
        bool ext;
    };
    std::vector<Step> steps;
    for (uint32_t s = 65500; s < 65536 + 40; s++) steps.push_back({static_cast<uint16_t>(s), 0x11111111, 1100, 0, false});
    steps.push_back({65534, 0x11111111, 900, 0, false});  // a retransmission from before the wrap
    steps.push_back({20, 0x11111111, 900, 0, false});     // and one after it
    for (uint16_t s = 100; s < 110; s++) steps.push_back({s, 0x22222222, 160, 2, true});  // audio, CSRCs, extension
    steps.push_back({110, 0x22222222, 0, 0, false});      // a header only
    for (const Step& st : steps) {
        SCOPED_TRACE(st.seq);
        std::vector<uint8_t> plain = packet(st.seq, st.ssrc, st.payload, st.csrcs, st.ext);
        std::vector<uint8_t> a = protect(&ours, plain);
        std::vector<uint8_t> b = protect(&theirs, plain);
        ASSERT_EQ(a, b);
        ASSERT_EQ(a.size(), plain.size() + 16);
        // Replays are refused by the receiver: only check first sightings.
        if (st.seq == 65534 || st.seq == 20) continue;
        std::vector<uint8_t> buf = a;
        size_t n = 0;
        Error err = receiver.unprotect_rtp(buf.data(), buf.size(), &n);
        ASSERT_TRUE(err.ok()) << err.describe();
        buf.resize(n);
        EXPECT_EQ(buf, plain);
    }
}

TEST(ProtocolSrtpGcm, KdfMatchesRfc3711Vectors) {
    // RFC 3711 appendix B.3.
    std::vector<uint8_t> key = hex("E1F97A0D3E018BE0D64FA32C06DE4139");
    std::vector<uint8_t> salt = hex("0EC675AD498AFEEBB6960B3AABE6");
    uint8_t out[20];
    ASSERT_TRUE(srtp_kdf_aes_cm(key.data(), key.size(), salt.data(), salt.size(), 0x00, out, 16).ok());
    EXPECT_EQ(std::vector<uint8_t>(out, out + 16), hex("C61E7A93744F39EE10734AFE3FF7A087"));
    ASSERT_TRUE(srtp_kdf_aes_cm(key.data(), key.size(), salt.data(), salt.size(), 0x02, out, 14).ok());
    EXPECT_EQ(std::vector<uint8_t>(out, out + 14), hex("30CBBC08863D8C85D49DB34A9AE1"));
    ASSERT_TRUE(srtp_kdf_aes_cm(key.data(), key.size(), salt.data(), salt.size(), 0x01, out, 20).ok());
    EXPECT_EQ(std::vector<uint8_t>(out, out + 20), hex("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"));
}

TEST(ProtocolSrtpGcm, RefusesWhatItCannotProtect) {
    SrtpGcmSender s;
    uint8_t buf[64] = {0x80, 0x60};
    size_t n = 0;
    EXPECT_EQ(s.protect_rtp(buf, 12, sizeof(buf), &n).code(), kErrorSrtpState);
    uint8_t key[16] = {1}, salt[12] = {2};
    EXPECT_EQ(s.initialize(key, 16, salt, 14).code(), kErrorSrtpKeyLength);
    ASSERT_TRUE(s.initialize(key, 16, salt, 12).ok());
    EXPECT_EQ(s.initialize(key, 16, salt, 12).code(), kErrorSrtpState);
    EXPECT_EQ(s.protect_rtp(buf, 12, 27, &n).code(), kErrorSrtpBufferTooSmall);  // no room for the tag
    EXPECT_EQ(s.protect_rtp(buf, 11, sizeof(buf), &n).code(), kErrorSrtpProtect);
    buf[0] = 0x40;  // version 1
    EXPECT_EQ(s.protect_rtp(buf, 12, sizeof(buf), &n).code(), kErrorSrtpProtect);
    buf[0] = 0x8f;  // 15 CSRCs announced, none there
    EXPECT_EQ(s.protect_rtp(buf, 20, sizeof(buf), &n).code(), kErrorSrtpProtect);
    buf[0] = 0x80;
    for (uint32_t ssrc = 1; ssrc <= SrtpGcmSender::kMaxSsrcs; ssrc++) {
        buf[11] = static_cast<uint8_t>(ssrc);
        ASSERT_TRUE(s.protect_rtp(buf, 12, sizeof(buf), &n).ok());
    }
    buf[11] = 0x77;
    EXPECT_EQ(s.protect_rtp(buf, 12, sizeof(buf), &n).code(), kErrorSrtpProtect);
}
