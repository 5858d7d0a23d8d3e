// Tests of protocol/rtc/srtp: a "client" and a "server" session keyed from one
// RFC 5764 keying block (mirrored keys) round-trip RTP and RTCP with both
// profiles; altered bytes, replays, wrong keys and a mismatched profile fail;
// protect never writes past cap; key, salt and profile checks.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "protocol/rtc/srtp.hpp"

using namespace srs;

namespace {

const SrtpProfile kProfiles[] = {SrtpProfile::kAes128CmSha1_80, SrtpProfile::kAeadAes128Gcm};

// An exporter output: 2 * (key + salt) bytes, byte i = seed + i.
std::vector<uint8_t> material(SrtpProfile p, uint8_t seed = 1) {
    std::vector<uint8_t> m(2 * (srtp_key_length(p) + srtp_salt_length(p)));
    for (size_t i = 0; i < m.size(); i++) m[i] = static_cast<uint8_t>(seed + i);
    return m;
}

// Initializes `s` as the DTLS client or server of `m`.
void init(SrtpSession* s, SrtpProfile p, const std::vector<uint8_t>& m, bool is_client) {
    ASSERT_TRUE(srtp_library_init().ok());
    SrtpKeys local, remote;
    Error err = srtp_split_keying_material(p, m.data(), m.size(), is_client, &local, &remote);
    ASSERT_TRUE(err.ok()) << err.describe();
    err = s->initialize(p, local, remote);
    ASSERT_TRUE(err.ok()) << err.describe();
}

// V=2 PT=96 seq, ts 1000, SSRC 0x11223344, then `payload` bytes 0xa0 + i.
std::vector<uint8_t> rtp(uint16_t seq, size_t payload = 1200, uint32_t ssrc = 0x11223344) {
    std::vector<uint8_t> v = {0x80, 0x60, uint8_t(seq >> 8), uint8_t(seq), 0, 0, 0x03, 0xe8,
                              uint8_t(ssrc >> 24), uint8_t(ssrc >> 16), uint8_t(ssrc >> 8), uint8_t(ssrc)};
    for (size_t i = 0; i < payload; i++) v.push_back(static_cast<uint8_t>(0xa0 + i));
    return v;
}

// A receiver report (no blocks) from SSRC 0x55667788 and a PLI, compound.
std::vector<uint8_t> rtcp() {
    return {0x80, 0xc9, 0x00, 0x01, 0x55, 0x66, 0x77, 0x88,                          // RR
            0x81, 0xce, 0x00, 0x02, 0x55, 0x66, 0x77, 0x88, 0x11, 0x22, 0x33, 0x44};  // PLI
}

// Protects `plain` with `s` into a buffer of exactly the size needed.
std::vector<uint8_t> protect(SrtpSession* s, const std::vector<uint8_t>& plain, bool is_rtcp) {
    size_t trailer = is_rtcp ? srtp_rtcp_trailer(s->profile()) : srtp_rtp_trailer(s->profile());
    std::vector<uint8_t> buf(plain.size() + trailer);
    memcpy(buf.data(), plain.data(), plain.size());
    size_t n = 0;
    Error err = is_rtcp ? s->protect_rtcp(buf.data(), plain.size(), buf.size(), &n)
                        : s->protect_rtp(buf.data(), plain.size(), buf.size(), &n);
    EXPECT_TRUE(err.ok()) << err.describe();
    EXPECT_EQ(buf.size(), n);
    buf.resize(n);
    return buf;
}

// Unprotects a copy of `cipher`; the plain packet in *out.
Error unprotect(SrtpSession* s, const std::vector<uint8_t>& cipher, bool is_rtcp, std::vector<uint8_t>* out) {
    std::vector<uint8_t> buf = cipher;
    size_t n = 0;
    Error err = is_rtcp ? s->unprotect_rtcp(buf.data(), buf.size(), &n) : s->unprotect_rtp(buf.data(), buf.size(), &n);
    if (err.ok()) {
        buf.resize(n);
        *out = buf;
    }
    return err;
}

}  // namespace

TEST(ProtocolSrtpTest, LibraryInitIsIdempotent) {
    EXPECT_TRUE(srtp_library_init().ok());
    EXPECT_TRUE(srtp_library_init().ok());
}

TEST(ProtocolSrtpTest, ProfileTable) {
    EXPECT_EQ(16u, srtp_key_length(SrtpProfile::kAes128CmSha1_80));
    EXPECT_EQ(14u, srtp_salt_length(SrtpProfile::kAes128CmSha1_80));
    EXPECT_EQ(10u, srtp_rtp_trailer(SrtpProfile::kAes128CmSha1_80));
    EXPECT_EQ(14u, srtp_rtcp_trailer(SrtpProfile::kAes128CmSha1_80));
    EXPECT_EQ(16u, srtp_key_length(SrtpProfile::kAeadAes128Gcm));
    EXPECT_EQ(12u, srtp_salt_length(SrtpProfile::kAeadAes128Gcm));
    EXPECT_EQ(16u, srtp_rtp_trailer(SrtpProfile::kAeadAes128Gcm));
    EXPECT_EQ(20u, srtp_rtcp_trailer(SrtpProfile::kAeadAes128Gcm));
    EXPECT_LE(srtp_rtcp_trailer(SrtpProfile::kAeadAes128Gcm), kSrtpMaxTrailer);

    SrtpProfile p = SrtpProfile::kAeadAes128Gcm;
    EXPECT_TRUE(srtp_profile_from_id(0x0001, &p).ok());
    EXPECT_EQ(SrtpProfile::kAes128CmSha1_80, p);
    EXPECT_TRUE(srtp_profile_from_id(0x0007, &p).ok());
    EXPECT_EQ(SrtpProfile::kAeadAes128Gcm, p);
    Error err = srtp_profile_from_id(0x0002, &p);  // AES_CM_128_HMAC_SHA1_32: not offered
    EXPECT_EQ(kErrorSrtpProfile, err.code());
    EXPECT_STREQ("SRTP_AES128_CM_SHA1_80", srtp_profile_name(SrtpProfile::kAes128CmSha1_80));
    EXPECT_STREQ("SRTP_AEAD_AES_128_GCM", srtp_profile_name(SrtpProfile::kAeadAes128Gcm));
    EXPECT_STREQ("srtp_err_status_auth_fail", srtp_status_name(7));
    EXPECT_STREQ("srtp_err_status_unknown", srtp_status_name(999));
}

// RFC 5764 4.2: client_write_key | server_write_key | client_write_salt | server_write_salt.
TEST(ProtocolSrtpTest, SplitKeyingMaterial) {
    for (SrtpProfile p : kProfiles) {
        std::vector<uint8_t> m = material(p);
        size_t k = srtp_key_length(p), s = srtp_salt_length(p);
        SrtpKeys local, remote;
        ASSERT_TRUE(srtp_split_keying_material(p, m.data(), m.size(), true, &local, &remote).ok());
        EXPECT_EQ(m.data(), local.key);
        EXPECT_EQ(m.data() + k, remote.key);
        EXPECT_EQ(m.data() + 2 * k, local.salt);
        EXPECT_EQ(m.data() + 2 * k + s, remote.salt);
        EXPECT_EQ(k, local.key_len);
        EXPECT_EQ(s, remote.salt_len);
        SrtpKeys slocal, sremote;
        ASSERT_TRUE(srtp_split_keying_material(p, m.data(), m.size(), false, &slocal, &sremote).ok());
        EXPECT_EQ(remote.key, slocal.key);
        EXPECT_EQ(remote.salt, slocal.salt);
        EXPECT_EQ(local.key, sremote.key);
        EXPECT_EQ(local.salt, sremote.salt);

        Error err = srtp_split_keying_material(p, m.data(), m.size() - 1, true, &local, &remote);
        EXPECT_EQ(kErrorSrtpKeyLength, err.code());
        err = srtp_split_keying_material(p, nullptr, m.size(), true, &local, &remote);
        EXPECT_EQ(kErrorSrtpKeyLength, err.code());
    }
    // 60 bytes (AES-CM) is not a GCM block (56), and the other way round.
    std::vector<uint8_t> cm = material(SrtpProfile::kAes128CmSha1_80);
    SrtpKeys l, r;
    EXPECT_NE(kSuccess, srtp_split_keying_material(SrtpProfile::kAeadAes128Gcm, cm.data(), cm.size(), true, &l, &r).code());
}

TEST(ProtocolSrtpTest, RtpRoundTripBothWays) {
    for (SrtpProfile p : kProfiles) {
        SCOPED_TRACE(srtp_profile_name(p));
        std::vector<uint8_t> m = material(p);
        SrtpSession client, server;
        init(&client, p, m, true);
        init(&server, p, m, false);
        for (uint16_t seq = 65530; seq != 10; seq++) {  // across the wrap
            std::vector<uint8_t> plain = rtp(seq), out;
            std::vector<uint8_t> c = protect(&server, plain, false);
            EXPECT_EQ(0, memcmp(c.data(), plain.data(), 12));  // the header stays clear
            EXPECT_NE(0, memcmp(c.data() + 12, plain.data() + 12, plain.size() - 12));
            Error err = unprotect(&client, c, false, &out);
            ASSERT_TRUE(err.ok()) << err.describe();
            EXPECT_EQ(plain, out);

            c = protect(&client, plain, false);  // and the other direction
            err = unprotect(&server, c, false, &out);
            ASSERT_TRUE(err.ok()) << err.describe();
            EXPECT_EQ(plain, out);
        }
        // A second SSRC on the same session (audio and video).
        std::vector<uint8_t> audio = rtp(7, 160, 0xaabbccdd), out;
        ASSERT_TRUE(unprotect(&client, protect(&server, audio, false), false, &out).ok());
        EXPECT_EQ(audio, out);
        // A packet of a header only.
        std::vector<uint8_t> empty = rtp(8, 0, 0xaabbccdd);
        ASSERT_TRUE(unprotect(&client, protect(&server, empty, false), false, &out).ok());
        EXPECT_EQ(empty, out);
    }
}

TEST(ProtocolSrtpTest, RtcpRoundTripBothWays) {
    for (SrtpProfile p : kProfiles) {
        SCOPED_TRACE(srtp_profile_name(p));
        std::vector<uint8_t> m = material(p);
        SrtpSession client, server;
        init(&client, p, m, true);
        init(&server, p, m, false);
        std::vector<uint8_t> plain = rtcp(), out;
        for (int i = 0; i < 5; i++) {
            std::vector<uint8_t> c = protect(&client, plain, true);
            EXPECT_EQ(plain.size() + srtp_rtcp_trailer(p), c.size());
            EXPECT_EQ(0, memcmp(c.data(), plain.data(), 8));  // first header and SSRC stay clear
            Error err = unprotect(&server, c, true, &out);
            ASSERT_TRUE(err.ok()) << err.describe();
            EXPECT_EQ(plain, out);
            c = protect(&server, plain, true);
            err = unprotect(&client, c, true, &out);
            ASSERT_TRUE(err.ok()) << err.describe();
            EXPECT_EQ(plain, out);
        }
    }
}

// Two sessions with the same keys are deterministic and the profiles differ:
// the cross-check that stands in for a known-answer test (RFC 3711 B.2 and
// RFC 7714 16 give cipher/session-key vectors, not master-key ones).
TEST(ProtocolSrtpTest, DeterministicAndProfilesDiffer) {
    std::vector<uint8_t> plain = rtp(1000);
    std::vector<uint8_t> outs[2];
    for (int i = 0; i < 2; i++) {
        SrtpProfile p = kProfiles[i];
        SrtpSession a, b;
        init(&a, p, material(p), false);
        init(&b, p, material(p), false);
        outs[i] = protect(&a, plain, false);
        EXPECT_EQ(outs[i], protect(&b, plain, false));
        EXPECT_EQ(plain.size() + srtp_rtp_trailer(p), outs[i].size());
    }
    EXPECT_NE(0, memcmp(outs[0].data() + 12, outs[1].data() + 12, plain.size() - 12));
}

TEST(ProtocolSrtpTest, AlteredBytesFail) {
    for (SrtpProfile p : kProfiles) {
        SCOPED_TRACE(srtp_profile_name(p));
        std::vector<uint8_t> m = material(p);
        SrtpSession client, server;
        init(&client, p, m, true);
        init(&server, p, m, false);
        std::vector<uint8_t> c = protect(&server, rtp(1), false);
        // Header (the SSRC is kept: a new SSRC makes a new context), payload, tag.
        for (size_t at : {size_t(1), size_t(3), size_t(20), c.size() / 2, c.size() - 1}) {
            std::vector<uint8_t> bad = c, out;
            bad[at] ^= 0x01;
            Error err = unprotect(&client, bad, false, &out);
            EXPECT_EQ(kErrorSrtpUnprotect, err.code()) << at;
            EXPECT_NE(std::string::npos, err.describe().find("srtp_err_status_auth_fail")) << err.describe();
        }
        std::vector<uint8_t> out;
        EXPECT_NE(kSuccess, unprotect(&client, std::vector<uint8_t>(c.begin(), c.end() - 1), false, &out).code());
        EXPECT_NE(kSuccess, unprotect(&client, std::vector<uint8_t>(c.begin(), c.begin() + 11), false, &out).code());
        // The untouched packet still passes after the failures.
        ASSERT_TRUE(unprotect(&client, c, false, &out).ok());

        std::vector<uint8_t> rc = protect(&server, rtcp(), true);
        for (size_t at : {size_t(9), rc.size() - 1, rc.size() - srtp_rtcp_trailer(p)}) {
            std::vector<uint8_t> bad = rc;
            bad[at] ^= 0x80;
            EXPECT_EQ(kErrorSrtpUnprotect, unprotect(&client, bad, true, &out).code()) << at;
        }
        ASSERT_TRUE(unprotect(&client, rc, true, &out).ok());
    }
}

TEST(ProtocolSrtpTest, ReplayRejectedInboundRepeatAllowedOutbound) {
    for (SrtpProfile p : kProfiles) {
        SCOPED_TRACE(srtp_profile_name(p));
        std::vector<uint8_t> m = material(p);
        SrtpSession client, server;
        init(&client, p, m, true);
        init(&server, p, m, false);
        std::vector<uint8_t> plain = rtp(42), out;
        std::vector<uint8_t> c = protect(&server, plain, false);
        // A NACK answer: the same packet again; outbound allows it, bytes identical.
        EXPECT_EQ(c, protect(&server, plain, false));
        ASSERT_TRUE(unprotect(&client, c, false, &out).ok());
        Error err = unprotect(&client, c, false, &out);
        EXPECT_EQ(kErrorSrtpUnprotect, err.code());
        EXPECT_NE(std::string::npos, err.describe().find("srtp_err_status_replay_fail")) << err.describe();
        // Reordered packets inside the window pass once each.
        std::vector<uint8_t> c44 = protect(&server, rtp(44), false);
        std::vector<uint8_t> c43 = protect(&server, rtp(43), false);
        EXPECT_TRUE(unprotect(&client, c44, false, &out).ok());
        EXPECT_TRUE(unprotect(&client, c43, false, &out).ok());
        EXPECT_NE(kSuccess, unprotect(&client, c43, false, &out).code());

        std::vector<uint8_t> rc = protect(&server, rtcp(), true);
        ASSERT_TRUE(unprotect(&client, rc, true, &out).ok());
        EXPECT_EQ(kErrorSrtpUnprotect, unprotect(&client, rc, true, &out).code());
    }
}

TEST(ProtocolSrtpTest, WrongKeyOrProfileFails) {
    for (SrtpProfile p : kProfiles) {
        SCOPED_TRACE(srtp_profile_name(p));
        SrtpSession client, server;
        init(&client, p, material(p, 1), true);
        init(&server, p, material(p, 2), false);
        std::vector<uint8_t> out;
        EXPECT_EQ(kErrorSrtpUnprotect, unprotect(&client, protect(&server, rtp(1), false), false, &out).code());
        EXPECT_EQ(kErrorSrtpUnprotect, unprotect(&client, protect(&server, rtcp(), true), true, &out).code());
        // Both sides as client: each decrypts with its own sending key's mirror.
        SrtpSession a, b;
        init(&a, p, material(p), true);
        init(&b, p, material(p), true);
        EXPECT_NE(kSuccess, unprotect(&b, protect(&a, rtp(1), false), false, &out).code());
    }
    // Same key bytes, other profile.
    std::vector<uint8_t> m(60, 0x33);
    SrtpKeys cm_local{m.data(), 16, m.data() + 32, 14}, cm_remote{m.data() + 16, 16, m.data() + 46, 14};
    SrtpKeys gcm_local{m.data(), 16, m.data() + 32, 12}, gcm_remote{m.data() + 16, 16, m.data() + 46, 12};
    SrtpSession cm, gcm;
    ASSERT_TRUE(srtp_library_init().ok());
    ASSERT_TRUE(cm.initialize(SrtpProfile::kAes128CmSha1_80, cm_local, cm_remote).ok());
    ASSERT_TRUE(gcm.initialize(SrtpProfile::kAeadAes128Gcm, gcm_remote, gcm_local).ok());
    std::vector<uint8_t> out;
    EXPECT_NE(kSuccess, unprotect(&gcm, protect(&cm, rtp(5), false), false, &out).code());
}

TEST(ProtocolSrtpTest, BufferTooSmallWritesNothingPastCap) {
    for (SrtpProfile p : kProfiles) {
        SCOPED_TRACE(srtp_profile_name(p));
        SrtpSession s;
        init(&s, p, material(p), false);
        for (bool is_rtcp : {false, true}) {
            std::vector<uint8_t> plain = is_rtcp ? rtcp() : rtp(9, 100);
            size_t trailer = is_rtcp ? srtp_rtcp_trailer(p) : srtp_rtp_trailer(p);
            for (size_t cap : {plain.size(), plain.size() + trailer - 1}) {
                std::vector<uint8_t> buf(plain.size() + trailer + 32, 0xee);
                memcpy(buf.data(), plain.data(), plain.size());
                std::vector<uint8_t> before = buf;
                size_t n = 12345;
                Error err = is_rtcp ? s.protect_rtcp(buf.data(), plain.size(), cap, &n)
                                    : s.protect_rtp(buf.data(), plain.size(), cap, &n);
                EXPECT_EQ(kErrorSrtpBufferTooSmall, err.code());
                EXPECT_EQ(before, buf);  // not even the packet was encrypted
                EXPECT_EQ(12345u, n);
            }
        }
        // Exactly enough room (ASAN sees any write past the vector).
        protect(&s, rtp(10, 100), false);
        protect(&s, rtcp(), true);
    }
}

TEST(ProtocolSrtpTest, KeyLengthsPerProfile) {
    ASSERT_TRUE(srtp_library_init().ok());
    uint8_t key[32] = {1}, salt[16] = {2};
    struct Case {
        SrtpProfile p;
        size_t key_len, salt_len;
        bool ok;
    } cases[] = {
        {SrtpProfile::kAes128CmSha1_80, 16, 14, true},  {SrtpProfile::kAes128CmSha1_80, 16, 12, false},
        {SrtpProfile::kAes128CmSha1_80, 15, 14, false}, {SrtpProfile::kAes128CmSha1_80, 32, 14, false},
        {SrtpProfile::kAeadAes128Gcm, 16, 12, true},    {SrtpProfile::kAeadAes128Gcm, 16, 14, false},
        {SrtpProfile::kAeadAes128Gcm, 24, 12, false},   {SrtpProfile::kAeadAes128Gcm, 16, 0, false},
    };
    for (const Case& c : cases) {
        SrtpKeys good{key, 16, salt, srtp_salt_length(c.p)};
        SrtpKeys k{key, c.key_len, salt, c.salt_len};
        SrtpSession as_local, as_remote;
        Error e1 = as_local.initialize(c.p, k, good);
        Error e2 = as_remote.initialize(c.p, good, k);
        EXPECT_EQ(c.ok, e1.ok()) << c.key_len << "/" << c.salt_len;
        EXPECT_EQ(c.ok, e2.ok()) << c.key_len << "/" << c.salt_len;
        if (!c.ok) {
            EXPECT_EQ(kErrorSrtpKeyLength, e1.code());
            EXPECT_EQ(kErrorSrtpKeyLength, e2.code());
            EXPECT_FALSE(as_local.initialized());
        }
    }
    SrtpSession s;
    EXPECT_EQ(kErrorSrtpKeyLength, s.initialize(SrtpProfile::kAeadAes128Gcm, SrtpKeys{}, SrtpKeys{}).code());
}

TEST(ProtocolSrtpTest, StateErrors) {
    SrtpSession s;
    uint8_t buf[64] = {0x80};
    size_t n = 0;
    EXPECT_EQ(kErrorSrtpState, s.protect_rtp(buf, 20, sizeof(buf), &n).code());
    EXPECT_EQ(kErrorSrtpState, s.unprotect_rtp(buf, 30, &n).code());
    EXPECT_EQ(kErrorSrtpState, s.protect_rtcp(buf, 8, sizeof(buf), &n).code());
    EXPECT_EQ(kErrorSrtpState, s.unprotect_rtcp(buf, 30, &n).code());
    SrtpProfile p = SrtpProfile::kAeadAes128Gcm;
    std::vector<uint8_t> m = material(p);
    init(&s, p, m, true);
    SrtpKeys local, remote;
    ASSERT_TRUE(srtp_split_keying_material(p, m.data(), m.size(), true, &local, &remote).ok());
    EXPECT_EQ(kErrorSrtpState, s.initialize(p, local, remote).code());
    // Too short to be a packet.
    EXPECT_EQ(kErrorSrtpProtect, s.protect_rtp(buf, 11, sizeof(buf), &n).code());
    EXPECT_EQ(kErrorSrtpProtect, s.protect_rtcp(buf, 7, sizeof(buf), &n).code());
    EXPECT_EQ(kErrorSrtpUnprotect, s.unprotect_rtcp(buf, 7, &n).code());
}
