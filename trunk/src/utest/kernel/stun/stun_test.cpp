// Tests for kernel/stun and kernel/demux.hpp: the RFC 5769 vectors decoded,
// verified and re-encoded byte for byte; every truncation and every flipped
// byte of them; malformed headers and attributes; encode -> decode round
// trips; every decode made right before a PROT_NONE page.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel/demux.hpp"
#include "kernel/stun/stun.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

// RFC 5769 2.1: a binding request with SOFTWARE "STUN test client", PRIORITY,
// ICE-CONTROLLED, USERNAME "evtj:h6vY" (padded with spaces), MESSAGE-INTEGRITY
// keyed with "VOkJxbRl1RmTxUk/WvJxBt", FINGERPRINT.
const char* const kRfcRequest =
    "000100582112a442b7e7a701bc34d686fa87dfae"
    "80220010" "5354554e207465737420636c69656e74"
    "00240004" "6e0001ff"
    "80290008" "932ff9b151263b36"
    "00060009" "6576746a3a68367659202020"
    "00080014" "9aeaa70cbfd8cb56781ef2b5b2d3f249c1b571a2"
    "80280004" "e57a3bcf";

// RFC 5769 2.2: a binding success response, SOFTWARE "test vector",
// XOR-MAPPED-ADDRESS 192.0.2.1:32853, same password.
const char* const kRfcResponseV4 =
    "0101003c2112a442b7e7a701bc34d686fa87dfae"
    "8022000b" "7465737420766563746f7220"
    "00200008" "0001a147e112a643"
    "00080014" "2b91f599fd9e90c38c7489f92af9ba53f06be7d7"
    "80280004" "c07d4c96";

// RFC 5769 2.3: the same with XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853.
const char* const kRfcResponseV6 =
    "010100482112a442b7e7a701bc34d686fa87dfae"
    "8022000b" "7465737420766563746f7220"
    "00200014" "0002a1470113a9faa5d3f179bc25f4b5bed2b9d9"
    "00080014" "a382954e4be67bf11784c97c8292c275bfe3ed41"
    "80280004" "c8fb0b4c";

const char* const kRfcPassword = "VOkJxbRl1RmTxUk/WvJxBt";
const uint8_t kRfcTid[12] = {0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae};
const uint8_t kRfcIpv6[16] = {0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34, 0x56, 0x78,
                              0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};

// Decodes bytes placed right before a guard page. The page is shared, so the
// message's views stay valid until the next call.
int decode_guarded(const std::vector<uint8_t>& bytes, StunMessage* msg) {
    static GuardPage g(8192);
    const uint8_t* p = g.place(bytes);
    return code(msg->decode(p, bytes.size()));
}

// Header + attributes written by hand (type, value) with zero padding; the
// header length is the attributes' size unless `length` says otherwise.
std::vector<uint8_t> build(uint16_t type, const std::vector<std::pair<uint16_t, std::string>>& attrs, int length = -1) {
    std::vector<uint8_t> out(20);
    out[0] = type >> 8;
    out[1] = type & 0xff;
    out[4] = 0x21, out[5] = 0x12, out[6] = 0xa4, out[7] = 0x42;
    memcpy(&out[8], kRfcTid, 12);
    for (auto& [t, v] : attrs) {
        out.push_back(t >> 8);
        out.push_back(t & 0xff);
        out.push_back(v.size() >> 8);
        out.push_back(v.size() & 0xff);
        out.insert(out.end(), v.begin(), v.end());
        while (out.size() % 4) out.push_back(0);
    }
    size_t len = length >= 0 ? static_cast<size_t>(length) : out.size() - 20;
    out[2] = len >> 8;
    out[3] = len & 0xff;
    return out;
}

}  // namespace

TEST(KernelStunDemux, FirstByteRanges) {
    for (int b = 0; b < 256; b++) {
        uint8_t v = static_cast<uint8_t>(b);
        DatagramKind k = classify_datagram(v);
        if (b <= 3) EXPECT_EQ(k, DatagramKind::kStun) << b;
        else if (b >= 20 && b <= 63) EXPECT_EQ(k, DatagramKind::kDtls) << b;
        else if (b >= 128 && b <= 191) EXPECT_EQ(k, DatagramKind::kRtp) << b;
        else EXPECT_EQ(k, DatagramKind::kUnknown) << b;
        EXPECT_EQ(is_stun(v), k == DatagramKind::kStun);
        EXPECT_EQ(is_dtls(v), k == DatagramKind::kDtls);
        EXPECT_EQ(is_rtp_or_rtcp(v), k == DatagramKind::kRtp);
    }
}

TEST(KernelStunCrc32, CheckValue) {
    const char* s = "123456789";
    EXPECT_EQ(stun_crc32(reinterpret_cast<const uint8_t*>(s), 9), 0xCBF43926u);
    EXPECT_EQ(stun_crc32(nullptr, 0), 0u);
}

TEST(KernelStunType, MethodAndClass) {
    EXPECT_EQ(stun_method(kStunBindingRequest), 1);
    EXPECT_EQ(stun_class(kStunBindingRequest), 0);
    EXPECT_EQ(stun_class(kStunBindingIndication), 1);
    EXPECT_EQ(stun_class(kStunBindingSuccess), 2);
    EXPECT_EQ(stun_class(kStunBindingError), 3);
    EXPECT_EQ(stun_method(kStunBindingError), 1);
    EXPECT_EQ(stun_method(0x3EEF), 0xFFF);  // every method bit, class bits clear
}

TEST(KernelStunRfc5769, SampleRequest) {
    std::vector<uint8_t> b = unhex(kRfcRequest);
    ASSERT_EQ(b.size(), 108u);
    StunMessage m;
    ASSERT_EQ(decode_guarded(b, &m), 0);
    EXPECT_EQ(m.type, kStunBindingRequest);
    EXPECT_TRUE(m.is_binding_request());
    EXPECT_EQ(m.length, 0x58);
    EXPECT_EQ(memcmp(m.transaction_id, kRfcTid, 12), 0);
    EXPECT_TRUE(m.has_software);
    EXPECT_EQ(m.software, "STUN test client");
    EXPECT_TRUE(m.has_priority);
    EXPECT_EQ(m.priority, 0x6e0001ffu);
    EXPECT_TRUE(m.has_ice_controlled);
    EXPECT_EQ(m.ice_controlled, 0x932ff9b151263b36ull);
    EXPECT_FALSE(m.has_ice_controlling);
    EXPECT_FALSE(m.use_candidate);
    EXPECT_TRUE(m.has_username);
    EXPECT_EQ(m.username, "evtj:h6vY");
    EXPECT_EQ(m.integrity_offset, 108u - 32);
    EXPECT_EQ(m.fingerprint_offset, 108u - 8);
    EXPECT_EQ(m.unknown_required, 0);

    EXPECT_EQ(code(stun_verify_integrity(b.data(), b.size(), kRfcPassword)), 0);
    EXPECT_EQ(code(stun_verify_integrity(m, b.data(), kRfcPassword)), 0);
    EXPECT_EQ(code(stun_verify_integrity(b.data(), b.size(), "VOkJxbRl1RmTxUk/WvJxBT")), kErrorStunIntegrityMismatch);
    EXPECT_EQ(code(stun_verify_integrity(b.data(), b.size(), "")), kErrorStunIntegrityMismatch);
    EXPECT_EQ(code(stun_verify_fingerprint(b.data(), b.size())), 0);
    EXPECT_EQ(code(stun_verify_fingerprint(m, b.data())), 0);
}

TEST(KernelStunRfc5769, Ipv4Response) {
    std::vector<uint8_t> b = unhex(kRfcResponseV4);
    ASSERT_EQ(b.size(), 80u);
    StunMessage m;
    ASSERT_EQ(decode_guarded(b, &m), 0);
    EXPECT_EQ(m.type, kStunBindingSuccess);
    EXPECT_EQ(m.software, "test vector");
    ASSERT_TRUE(m.has_xor_mapped_address);
    EXPECT_EQ(m.xor_mapped_address.family, StunAddress::kIpv4);
    EXPECT_EQ(m.xor_mapped_address.to_string(), "192.0.2.1:32853");
    EXPECT_TRUE(m.xor_mapped_address == StunAddress::ipv4(0xC0000201, 32853));
    EXPECT_FALSE(m.has_username);
    EXPECT_EQ(code(stun_verify_integrity(b.data(), b.size(), kRfcPassword)), 0);
    EXPECT_EQ(code(stun_verify_fingerprint(b.data(), b.size())), 0);
}

TEST(KernelStunRfc5769, Ipv6Response) {
    std::vector<uint8_t> b = unhex(kRfcResponseV6);
    ASSERT_EQ(b.size(), 92u);
    StunMessage m;
    ASSERT_EQ(decode_guarded(b, &m), 0);
    ASSERT_TRUE(m.has_xor_mapped_address);
    EXPECT_EQ(m.xor_mapped_address.family, StunAddress::kIpv6);
    EXPECT_EQ(m.xor_mapped_address.to_string(), "[2001:db8:1234:5678:11:2233:4455:6677]:32853");
    EXPECT_TRUE(m.xor_mapped_address == StunAddress::ipv6(kRfcIpv6, 32853));
    EXPECT_EQ(code(stun_verify_integrity(b.data(), b.size(), kRfcPassword)), 0);
    EXPECT_EQ(code(stun_verify_fingerprint(b.data(), b.size())), 0);
}

// Our encoders, given the RFC's transaction id, attributes and space padding,
// write the vectors byte for byte (their attribute order is the RFC's).
TEST(KernelStunRfc5769, EncoderReproducesVectors) {
    uint8_t buf[256];
    size_t n = 0;

    StunBindingRequest req;
    memcpy(req.transaction_id, kRfcTid, 12);
    req.software = "STUN test client";
    req.priority = 0x6e0001ff;
    req.controlling = false;
    req.tie_breaker = 0x932ff9b151263b36ull;
    req.username = "evtj:h6vY";
    req.password = kRfcPassword;
    req.padding = ' ';
    ASSERT_EQ(code(stun_encode(req, buf, sizeof(buf), &n)), 0);
    EXPECT_EQ(n, stun_encoded_size(req));
    EXPECT_EQ(std::vector<uint8_t>(buf, buf + n), unhex(kRfcRequest));

    StunBindingResponse res;
    memcpy(res.transaction_id, kRfcTid, 12);
    res.software = "test vector";
    res.mapped = StunAddress::ipv4(0xC0000201, 32853);
    res.password = kRfcPassword;
    res.padding = ' ';
    ASSERT_EQ(code(stun_encode(res, buf, sizeof(buf), &n)), 0);
    EXPECT_EQ(n, stun_encoded_size(res));
    EXPECT_EQ(std::vector<uint8_t>(buf, buf + n), unhex(kRfcResponseV4));

    res.mapped = StunAddress::ipv6(kRfcIpv6, 32853);
    ASSERT_EQ(code(stun_encode(res, buf, sizeof(buf), &n)), 0);
    EXPECT_EQ(n, stun_encoded_size(res));
    EXPECT_EQ(std::vector<uint8_t>(buf, buf + n), unhex(kRfcResponseV6));
}

// Every proper prefix of each vector fails to decode (and reads nothing past it).
TEST(KernelStunBroken, EveryTruncation) {
    for (const char* hex : {kRfcRequest, kRfcResponseV4, kRfcResponseV6}) {
        std::vector<uint8_t> b = unhex(hex);
        GuardPage g(b.size());
        for (size_t n = 0; n < b.size(); n++) {
            const uint8_t* p = g.place(b.data(), n);
            StunMessage m;
            int c = code(m.decode(p, n));
            if (n < 20) EXPECT_EQ(c, kErrorStunTruncated) << n;
            else EXPECT_EQ(c, kErrorStunBadLength) << n;
            EXPECT_NE(code(stun_verify_integrity(p, n, kRfcPassword)), 0) << n;
            EXPECT_NE(code(stun_verify_fingerprint(p, n)), 0) << n;
        }
    }
}

// Truncations whose header length is patched to match: the attribute walk
// itself must catch a cut inside an attribute; a cut between attributes
// decodes, without FINGERPRINT.
TEST(KernelStunBroken, TruncationWithPatchedLength) {
    std::vector<uint8_t> b = unhex(kRfcRequest);
    GuardPage g(b.size());
    for (size_t n = 20; n < b.size(); n += 4) {
        std::vector<uint8_t> cut(b.begin(), b.begin() + n);
        cut[2] = (n - 20) >> 8;
        cut[3] = (n - 20) & 0xff;
        const uint8_t* p = g.place(cut);
        StunMessage m;
        Error err = m.decode(p, n);
        if (err.ok()) {
            EXPECT_FALSE(m.has_fingerprint()) << n;
            EXPECT_NE(code(stun_verify_fingerprint(m, p)), 0) << n;
            // Cut right after MESSAGE-INTEGRITY: the header then has the length the
            // sender computed the HMAC with, so the shorter message still verifies.
            if (m.has_integrity()) {
                EXPECT_EQ(code(stun_verify_integrity(m, p, kRfcPassword)), 0) << n;
            }
        } else {
            EXPECT_EQ(err.code(), kErrorStunAttributeOverrun) << n;
            err.ignore();
        }
    }
}

// Flipping any byte of a vector makes it undecodable or fails a check: bytes
// before MESSAGE-INTEGRITY fail it, every byte before FINGERPRINT's value fails it.
TEST(KernelStunBroken, EveryFlippedByte) {
    for (const char* hex : {kRfcRequest, kRfcResponseV4, kRfcResponseV6}) {
        std::vector<uint8_t> good = unhex(hex);
        for (size_t i = 0; i < good.size(); i++) {
            for (uint8_t mask : {0x01, 0x80, 0xff}) {
                std::vector<uint8_t> b = good;
                b[i] ^= mask;
                StunMessage m;
                if (decode_guarded(b, &m) != 0) continue;
                int fi = code(stun_verify_fingerprint(m, b.data()));
                int mi = code(stun_verify_integrity(m, b.data(), kRfcPassword));
                EXPECT_TRUE(fi != 0 || mi != 0) << i;
                if (m.has_integrity() && i < m.integrity_offset + 24) {
                    EXPECT_NE(mi, 0) << i;
                }
                EXPECT_NE(fi, 0) << i;
            }
        }
    }
}

TEST(KernelStunBroken, Header) {
    std::vector<uint8_t> b = unhex(kRfcResponseV4);
    StunMessage m;
    {
        auto x = b;
        x[0] |= 0x40;
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunNotStun);
    }
    {
        auto x = b;
        x[4] = 0x22;
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunBadCookie);
    }
    {
        auto x = b;
        x[3] += 1;  // not a multiple of 4
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunBadLength);
        x[3] += 3;  // past the datagram
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunBadLength);
        x[3] -= 8;  // short of the datagram (trailing bytes)
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunBadLength);
        x[2] = 0xff, x[3] = 0xfc;
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunBadLength);
    }
    {
        auto x = b;
        x.push_back(0), x.push_back(0), x.push_back(0), x.push_back(0);
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunBadLength);
    }
    // A header alone is a valid (empty) message.
    std::vector<uint8_t> empty = build(kStunBindingRequest, {});
    EXPECT_EQ(decode_guarded(empty, &m), 0);
    EXPECT_EQ(code(stun_verify_integrity(empty.data(), empty.size(), "x")), kErrorStunNoIntegrity);
    EXPECT_EQ(code(stun_verify_fingerprint(empty.data(), empty.size())), kErrorStunNoFingerprint);
}

TEST(KernelStunBroken, Attributes) {
    StunMessage m;
    std::string mi(20, 'm'), fp(4, 'f');
    // An attribute whose value runs past the end (header length adjusted to the datagram).
    {
        std::vector<uint8_t> x = build(kStunBindingRequest, {{kStunAttrUsername, "abcd"}});
        x[22] = 0, x[23] = 5;  // 5 bytes, padded to 8, only 4 there
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunAttributeOverrun);
        x[23] = 0xff;
        EXPECT_EQ(decode_guarded(x, &m), kErrorStunAttributeOverrun);
    }
    // Wrong sizes of fixed-size attributes.
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrPriority, "abc"}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrPriority, "abcdefgh"}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrIceControlling, "abcd"}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrIceControlled, "abcd"}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrUseCandidate, "x"}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrMessageIntegrity, std::string(19, 'm')}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrFingerprint, "abc"}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrUsername, std::string(513, 'u')}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrUsername, std::string(512, 'u')}}), &m), 0);
    EXPECT_EQ(m.username.size(), 512u);
    // XOR-MAPPED-ADDRESS: unknown family, sizes that do not match the family.
    EXPECT_EQ(decode_guarded(build(0x101, {{kStunAttrXorMappedAddress, std::string("\0\3\0\0\0\0\0\0", 8)}}), &m),
              kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(0x101, {{kStunAttrXorMappedAddress, std::string("\0\1\0\0\0\0\0\0\0\0\0\0", 12)}}), &m),
              kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(0x101, {{kStunAttrXorMappedAddress, std::string("\0\2\0\0\0\0\0\0", 8)}}), &m),
              kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(0x101, {{kStunAttrXorMappedAddress, std::string("\0", 1)}}), &m),
              kErrorStunBadAttribute);
    // Order: only FINGERPRINT after MESSAGE-INTEGRITY, nothing after FINGERPRINT.
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrMessageIntegrity, mi}, {kStunAttrUsername, "a"}}), &m),
              kErrorStunIntegrityNotLast);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrMessageIntegrity, mi}, {kStunAttrMessageIntegrity, mi}}), &m),
              kErrorStunIntegrityNotLast);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrMessageIntegrity, mi}, {0x8030, "x"}}), &m), kErrorStunIntegrityNotLast);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrFingerprint, fp}, {kStunAttrUsername, "a"}}), &m),
              kErrorStunFingerprintNotLast);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrFingerprint, fp}, {kStunAttrMessageIntegrity, mi}}), &m),
              kErrorStunFingerprintNotLast);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrMessageIntegrity, mi}, {kStunAttrFingerprint, fp}}), &m), 0);
    EXPECT_EQ(decode_guarded(build(1, {{kStunAttrFingerprint, fp}}), &m), 0);
    EXPECT_EQ(code(stun_verify_fingerprint(m, build(1, {{kStunAttrFingerprint, fp}}).data())),
              kErrorStunFingerprintMismatch);
}

TEST(KernelStunDecode, UnknownAttributesSkipped) {
    StunMessage m;
    auto x = build(1, {{0x8030, "optional"}, {0x0030, "required"}, {0x0031, "second"}, {kStunAttrUsername, "a:b"},
                       {kStunAttrUseCandidate, ""}, {kStunAttrUsername, "ignored:repeat"}});
    ASSERT_EQ(decode_guarded(x, &m), 0);
    EXPECT_EQ(m.unknown_required, 0x0030);
    EXPECT_EQ(m.username, "a:b");
    EXPECT_TRUE(m.use_candidate);
    EXPECT_FALSE(m.has_integrity());
}

TEST(KernelStunDecode, ErrorCode) {
    StunMessage m;
    // 487 Role Conflict.
    ASSERT_EQ(decode_guarded(build(kStunBindingError, {{kStunAttrErrorCode, std::string("\0\0\4\x57", 4) + "Role Conflict"}}), &m), 0);
    EXPECT_EQ(m.type, kStunBindingError);
    EXPECT_TRUE(m.has_error_code);
    EXPECT_EQ(m.error_code, 487);
    EXPECT_EQ(m.error_reason, "Role Conflict");
    // No reason at all is fine; class 2, class 7, number 100 and a short value are not.
    ASSERT_EQ(decode_guarded(build(kStunBindingError, {{kStunAttrErrorCode, std::string("\0\0\4\0", 4)}}), &m), 0);
    EXPECT_EQ(m.error_code, 400);
    EXPECT_EQ(decode_guarded(build(0x111, {{kStunAttrErrorCode, std::string("\0\0\2\0", 4)}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(0x111, {{kStunAttrErrorCode, std::string("\0\0\7\0", 4)}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(0x111, {{kStunAttrErrorCode, std::string("\0\0\4\x64", 4)}}), &m), kErrorStunBadAttribute);
    EXPECT_EQ(decode_guarded(build(0x111, {{kStunAttrErrorCode, std::string("\0\0\4", 3)}}), &m), kErrorStunBadAttribute);
}

TEST(KernelStunRoundTrip, Responses) {
    std::mt19937_64 rng(7);
    uint8_t buf[128];
    for (int i = 0; i < 200; i++) {
        StunBindingResponse r;
        for (auto& b : r.transaction_id) b = static_cast<uint8_t>(rng());
        uint8_t ip6[16];
        for (auto& b : ip6) b = static_cast<uint8_t>(rng());
        uint16_t port = static_cast<uint16_t>(rng());
        r.mapped = (i % 2) ? StunAddress::ipv6(ip6, port) : StunAddress::ipv4(static_cast<uint32_t>(rng()), port);
        std::string pwd(22 + i % 11, 'p');
        for (auto& c : pwd) c = static_cast<char>('A' + rng() % 26);
        r.password = pwd;
        std::string sw(i % 7, 's');
        r.software = sw;
        size_t n = 0;
        ASSERT_EQ(code(stun_encode(r, buf, sizeof(buf), &n)), 0);
        ASSERT_EQ(n, stun_encoded_size(r));
        std::vector<uint8_t> v(buf, buf + n);
        StunMessage m;
        ASSERT_EQ(decode_guarded(v, &m), 0);
        EXPECT_EQ(m.type, kStunBindingSuccess);
        EXPECT_EQ(memcmp(m.transaction_id, r.transaction_id, 12), 0);
        EXPECT_TRUE(m.xor_mapped_address == r.mapped) << m.xor_mapped_address.to_string();
        EXPECT_EQ(m.has_software, !sw.empty());
        EXPECT_EQ(m.software, sw);
        EXPECT_EQ(code(stun_verify_integrity(m, v.data(), pwd)), 0);
        EXPECT_EQ(code(stun_verify_integrity(m, v.data(), pwd + "x")), kErrorStunIntegrityMismatch);
        EXPECT_EQ(code(stun_verify_fingerprint(m, v.data())), 0);
    }
}

TEST(KernelStunRoundTrip, Requests) {
    uint8_t buf[700];
    for (int i = 0; i < 64; i++) {
        StunBindingRequest r;
        for (int k = 0; k < 12; k++) r.transaction_id[k] = static_cast<uint8_t>(i * 13 + k);
        std::string user = std::string(1 + i % 9, 'r') + ":" + std::string(4 + i % 5, 'l');
        r.username = user;
        r.password = "remote-password-22chars";
        r.priority = 0x7e0000ff - i;
        r.controlling = i % 2 == 0;
        r.tie_breaker = 0x0102030405060708ull * (i + 1);
        r.use_candidate = i % 3 == 0;
        size_t n = 0;
        ASSERT_EQ(code(stun_encode(r, buf, sizeof(buf), &n)), 0);
        ASSERT_EQ(n, stun_encoded_size(r));
        ASSERT_EQ(n % 4, 0u);
        std::vector<uint8_t> v(buf, buf + n);
        StunMessage m;
        ASSERT_EQ(decode_guarded(v, &m), 0);
        EXPECT_TRUE(m.is_binding_request());
        EXPECT_EQ(m.username, user);
        EXPECT_EQ(m.priority, r.priority);
        EXPECT_EQ(m.has_ice_controlling, r.controlling);
        EXPECT_EQ(m.has_ice_controlled, !r.controlling);
        EXPECT_EQ(r.controlling ? m.ice_controlling : m.ice_controlled, r.tie_breaker);
        EXPECT_EQ(m.use_candidate, r.use_candidate);
        EXPECT_FALSE(m.has_software);
        EXPECT_EQ(code(stun_verify_integrity(v.data(), v.size(), "remote-password-22chars")), 0);
        EXPECT_EQ(code(stun_verify_fingerprint(v.data(), v.size())), 0);
    }
    // Longest username the wire allows.
    StunBindingRequest r;
    std::string user(kStunMaxUsername, 'u');
    r.username = user;
    size_t n = 0;
    ASSERT_EQ(code(stun_encode(r, buf, sizeof(buf), &n)), 0);
    std::vector<uint8_t> v(buf, buf + n);
    StunMessage m;
    ASSERT_EQ(decode_guarded(v, &m), 0);
    EXPECT_EQ(m.username, user);
    user.push_back('u');
    r.username = user;
    EXPECT_EQ(code(stun_encode(r, buf, sizeof(buf), &n)), kErrorStunBadArgument);
}

// The encoders never write past the capacity they are given.
TEST(KernelStunEncode, BufferTooSmall) {
    StunBindingResponse r;
    r.mapped = StunAddress::ipv6(kRfcIpv6, 1);
    r.password = "pwd";
    r.software = "x";
    size_t need = stun_encoded_size(r);
    std::vector<uint8_t> buf(need + 16, 0xAA);
    for (size_t cap = 0; cap < need; cap++) {
        size_t n = 0;
        EXPECT_EQ(code(stun_encode(r, buf.data(), cap, &n)), kErrorStunBufferTooSmall) << cap;
        for (size_t k = cap; k < buf.size(); k++) ASSERT_EQ(buf[k], 0xAA) << cap;
    }
    size_t n = 0;
    EXPECT_EQ(code(stun_encode(r, buf.data(), need, &n)), 0);
    EXPECT_EQ(n, need);
    for (size_t k = need; k < buf.size(); k++) EXPECT_EQ(buf[k], 0xAA);

    StunBindingRequest q;
    q.username = "a:b";
    q.use_candidate = true;
    size_t qneed = stun_encoded_size(q);
    for (size_t cap = 0; cap < qneed; cap++)
        EXPECT_EQ(code(stun_encode(q, buf.data(), cap, &n)), kErrorStunBufferTooSmall) << cap;
    EXPECT_EQ(code(stun_encode(q, buf.data(), qneed, &n)), 0);

    StunBindingResponse none;
    EXPECT_EQ(code(stun_encode(none, buf.data(), buf.size(), &n)), kErrorStunBadArgument);
}

TEST(KernelStun, EncodesABindingErrorResponse) {
    StunBindingErrorResponse r;
    for (size_t i = 0; i < kStunTransactionIdSize; ++i) r.transaction_id[i] = static_cast<uint8_t>(0x30 + i);
    r.code = kStunErrorRoleConflict;
    r.reason = "Role Conflict";  // 13 bytes: the attribute is padded
    r.password = "local-password";
    r.software = "sb";
    std::string out(stun_encoded_size(r), '\0');
    size_t n = 0;
    ASSERT_TRUE(stun_encode(r, reinterpret_cast<uint8_t*>(&out[0]), out.size(), &n).ok());
    ASSERT_EQ(n, out.size());
    const uint8_t* p = reinterpret_cast<const uint8_t*>(out.data());
    StunMessage m;
    ASSERT_TRUE(m.decode(p, n).ok());
    EXPECT_EQ(m.type, kStunBindingError);
    EXPECT_EQ(stun_class(m.type), 3);
    EXPECT_EQ(m.transaction_id[11], 0x3b);
    ASSERT_TRUE(m.has_error_code);
    EXPECT_EQ(m.error_code, 487);
    EXPECT_EQ(m.error_reason, "Role Conflict");
    EXPECT_EQ(m.software, "sb");
    EXPECT_TRUE(stun_verify_integrity(m, p, "local-password").ok());
    EXPECT_TRUE(stun_verify_fingerprint(m, p).ok());
    // ERROR-CODE after the header and SOFTWARE (4 + 4 bytes): type 0x0009, length 4 + 13, class 4, number 87.
    const uint8_t* ec = p + kStunHeaderSize + 8;
    EXPECT_EQ(ec[0], 0x00);
    EXPECT_EQ(ec[1], 0x09);
    EXPECT_EQ(ec[3], 17);
    EXPECT_EQ(ec[6], 4);
    EXPECT_EQ(ec[7], 87);

    Error err = stun_encode(r, reinterpret_cast<uint8_t*>(&out[0]), out.size() - 1, &n);
    EXPECT_EQ(err.code(), kErrorStunBufferTooSmall);
    err.ignore();
    r.code = 700;
    err = stun_encode(r, reinterpret_cast<uint8_t*>(&out[0]), out.size(), &n);
    EXPECT_EQ(err.code(), kErrorStunBadArgument);
    err.ignore();
}
