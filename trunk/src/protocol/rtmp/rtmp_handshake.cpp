// The RTMP handshake, both sides, without I/O (see rtmp_handshake.hpp).
//
// Guarantees: feed() copies at most the bytes that belong to the handshake and
// never reads past data + size; all digest arithmetic stays inside one
// 1536-byte block whatever the offset bytes hold (the moduli below bound it).
#include "protocol/rtmp/rtmp_handshake.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/bytes.hpp"

namespace srs {

namespace rtmp_handshake_detail {

// The 32 bytes that follow the text of both well-known keys.
#define SRS_RTMP_KEY_TAIL                                                                                  \
    0xF0, 0xEE, 0xC2, 0x4A, 0x80, 0x68, 0xBE, 0xE8, 0x2E, 0x00, 0xD0, 0xD1, 0x02, 0x9E, 0x7E, 0x57, 0x6E, \
        0xEC, 0x5D, 0x2D, 0x29, 0x80, 0x6F, 0xAB, 0x93, 0xB8, 0xE6, 0x36, 0xCF, 0xEB, 0x31, 0xAE

const uint8_t kFlashPlayerKey[kFlashPlayerKeySize] = {
    'G', 'e', 'n', 'u', 'i', 'n', 'e', ' ', 'A', 'd', 'o', 'b', 'e', ' ', 'F',
    'l', 'a', 's', 'h', ' ', 'P', 'l', 'a', 'y', 'e', 'r', ' ', '0', '0', '1',
    SRS_RTMP_KEY_TAIL};

const uint8_t kFlashMediaServerKey[kFlashMediaServerKeySize] = {
    'G', 'e', 'n', 'u', 'i', 'n', 'e', ' ', 'A', 'd', 'o', 'b', 'e', ' ', 'F', 'l', 'a', 's',
    'h', ' ', 'M', 'e', 'd', 'i', 'a', ' ', 'S', 'e', 'r', 'v', 'e', 'r', ' ', '0', '0', '1',
    SRS_RTMP_KEY_TAIL};

#undef SRS_RTMP_KEY_TAIL

// C1 / S1 of the complex handshake, 1536 bytes:
//
//    0        4        8                          772                         1536
//    +--------+--------+---------------------------+---------------------------+
//    |  time  | version|     first block (764)     |    second block (764)     |
//    +--------+--------+---------------------------+---------------------------+
//    schema 0: first = key block,    second = digest block
//    schema 1: first = digest block, second = key block
//
// Digest block, 764 bytes; o = (b0 + b1 + b2 + b3) % 728 of its first 4 bytes:
//
//    +----------+--------------+-------------+-------------------------------+
//    | b0..b3   | random (o)   | digest (32) | random (764 - 4 - o - 32)     |
//    +----------+--------------+-------------+-------------------------------+
//
// Key block, 764 bytes; o = (b0 + b1 + b2 + b3) % 632 of its LAST 4 bytes:
//
//    +--------------+-------------+-----------------------------+----------+
//    | random (o)   | key (128)   | random (764 - o - 128 - 4)  | b0..b3   |
//    +--------------+-------------+-----------------------------+----------+
//
// The digest is HMAC-SHA256 over the 1504 other bytes of C1/S1, keyed with the
// open part of the Flash Player (C1) or Flash Media Server (S1) key. The key
// block holds the Diffie-Hellman public key for RTMPE only.
namespace {
constexpr size_t kFirstBlock = 8;
constexpr size_t kSecondBlock = 8 + 764;
constexpr size_t kBlockSize = 764;
constexpr size_t kDigestModulo = 728;  // 764 - 4 - 32
constexpr size_t kKeyModulo = 632;     // 764 - 4 - 128
constexpr size_t kSignedSize = kRtmpHandshakeBlockSize - kDigestSize;  // 1504

size_t byte_sum4(const uint8_t* p) { return static_cast<size_t>(p[0]) + p[1] + p[2] + p[3]; }
}  // namespace

size_t digest_offset(const uint8_t* block, Schema schema) {
    size_t base = schema == Schema::kDigestFirst ? kFirstBlock : kSecondBlock;
    return base + 4 + byte_sum4(block + base) % kDigestModulo;
}

size_t key_offset(const uint8_t* block, Schema schema) {
    size_t base = schema == Schema::kKeyFirst ? kFirstBlock : kSecondBlock;
    return base + byte_sum4(block + base + kBlockSize - 4) % kKeyModulo;
}

bool hmac_sha256(const void* key, size_t key_size, const void* data, size_t size, uint8_t out[kDigestSize]) {
    unsigned int out_size = 0;
    if (!HMAC(EVP_sha256(), key, static_cast<int>(key_size), static_cast<const unsigned char*>(data), size, out,
              &out_size)) {
        return false;
    }
    return out_size == kDigestSize;
}

bool block_digest(const uint8_t* block, size_t digest_pos, const uint8_t* key, size_t key_size,
                  uint8_t out[kDigestSize]) {
    if (digest_pos > kSignedSize) return false;
    uint8_t joined[kSignedSize];
    memcpy(joined, block, digest_pos);
    memcpy(joined + digest_pos, block + digest_pos + kDigestSize, kSignedSize - digest_pos);
    return hmac_sha256(key, key_size, joined, sizeof(joined), out);
}

bool has_valid_digest(const uint8_t* block, Schema schema, const uint8_t* key, size_t key_size) {
    size_t pos = digest_offset(block, schema);
    uint8_t expected[kDigestSize];
    if (!block_digest(block, pos, key, key_size, expected)) return false;
    return memcmp(expected, block + pos, kDigestSize) == 0;
}

bool find_digest(const uint8_t* block, const uint8_t* key, size_t key_size, Schema* schema) {
    for (Schema s : {Schema::kDigestFirst, Schema::kKeyFirst}) {
        if (has_valid_digest(block, s, key, key_size)) {
            *schema = s;
            return true;
        }
    }
    return false;
}

bool write_digest(uint8_t* block, Schema schema, const uint8_t* key, size_t key_size) {
    size_t pos = digest_offset(block, schema);
    uint8_t digest[kDigestSize];
    if (!block_digest(block, pos, key, key_size, digest)) return false;
    memcpy(block + pos, digest, kDigestSize);
    return true;
}

bool make_response(const uint8_t peer_digest[kDigestSize], const uint8_t* key, size_t key_size, uint8_t* block) {
    uint8_t temp_key[kDigestSize];
    if (!hmac_sha256(key, key_size, peer_digest, kDigestSize, temp_key)) return false;
    fill_random(block, kSignedSize);
    return hmac_sha256(temp_key, sizeof(temp_key), block, kSignedSize, block + kSignedSize);
}

bool verify_response(const uint8_t* block, const uint8_t peer_digest[kDigestSize], const uint8_t* key,
                     size_t key_size) {
    uint8_t temp_key[kDigestSize], expected[kDigestSize];
    if (!hmac_sha256(key, key_size, peer_digest, kDigestSize, temp_key)) return false;
    if (!hmac_sha256(temp_key, sizeof(temp_key), block, kSignedSize, expected)) return false;
    return memcmp(expected, block + kSignedSize, kDigestSize) == 0;
}

// xoshiro256** (Blackman and Vigna, public domain algorithm), seeded once per
// thread. RAND_bytes does not block once OpenSSL's DRBG is seeded; should it
// fail, the clock and an address still give distinct streams.
namespace {
struct Prng {
    uint64_t s[4];
    Prng() {
        if (RAND_bytes(reinterpret_cast<unsigned char*>(s), sizeof(s)) != 1 || (s[0] | s[1] | s[2] | s[3]) == 0) {
            uint64_t x = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                         reinterpret_cast<uintptr_t>(this);
            for (uint64_t& v : s) {  // splitmix64
                x += 0x9E3779B97F4A7C15ull;
                uint64_t z = x;
                z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
                z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
                v = z ^ (z >> 31);
            }
        }
    }
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t next() {
        uint64_t result = rotl(s[1] * 5, 7) * 9;
        uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
    }
};
}  // namespace

void fill_random(uint8_t* p, size_t n) {
    thread_local Prng prng;
    while (n >= 8) {
        uint64_t v = prng.next();
        memcpy(p, &v, 8);
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t v = prng.next();
        memcpy(p, &v, n);
    }
}

}  // namespace rtmp_handshake_detail

namespace hs = rtmp_handshake_detail;

namespace {
// The version we put in S1: nonzero and a major of 3 or more, which is what
// ffmpeg requires before it checks the S1 digest and S2 signature.
constexpr uint32_t kServerVersion = 0x04050001;
// The version a complex C1 carries (a Flash Player style 128.0.7.2).
constexpr uint32_t kClientVersion = 0x80000702;

// Appends up to `want - buf->size()` bytes of data to buf; returns how many.
size_t append_upto(std::string* buf, size_t want, const uint8_t* data, size_t size) {
    size_t n = std::min(size, want - buf->size());
    if (n > 0) buf->append(reinterpret_cast<const char*>(data), n);
    return n;
}

// Takes up to `want - *have` bytes without keeping them; returns how many.
size_t skip_upto(size_t* have, size_t want, size_t size) {
    size_t n = std::min(size, want - *have);
    *have += n;
    return n;
}

uint8_t* bytes_of(std::string* s) { return reinterpret_cast<uint8_t*>(&(*s)[0]); }
}  // namespace

// ---------------------------------------------------------------- server

Error RtmpHandshakeServer::feed(const uint8_t* data, size_t size, size_t* consumed) {
    *consumed = 0;
    if (state_ == State::kFailed) return SRS_ERR(kErrorRtmpHandshakeState, "rtmp handshake already failed");

    if (state_ == State::kC0C1) {
        if (c0c1_.empty() && size > 0 && data[0] != kRtmpHandshakeVersion) {
            state_ = State::kFailed;
            *consumed = 1;
            return SRS_ERR(kErrorRtmpHandshakeVersion, "rtmp C0 version %u, want %u", data[0],
                           kRtmpHandshakeVersion);
        }
        if (c0c1_.empty()) c0c1_.reserve(kRtmpC0C1Size);
        size_t n = append_upto(&c0c1_, kRtmpC0C1Size, data, size);
        *consumed += n;
        if (c0c1_.size() < kRtmpC0C1Size) return Error();
        if (Error err = answer_c0c1(); err.failed()) {
            state_ = State::kFailed;
            return SRS_WRAP(err, "answer rtmp C0C1");
        }
        std::string().swap(c0c1_);
        state_ = State::kC2;
    }

    if (state_ == State::kC2) {
        *consumed += skip_upto(&c2_received_, kRtmpHandshakeBlockSize, size - *consumed);
        if (c2_received_ == kRtmpHandshakeBlockSize) state_ = State::kDone;
    }
    return Error();
}

Error RtmpHandshakeServer::answer_c0c1() {
    const uint8_t* c1 = reinterpret_cast<const uint8_t*>(c0c1_.data()) + 1;
    client_version_ = load_be32(c1 + 4);

    hs::Schema schema = hs::Schema::kDigestFirst;
    complex_ = client_version_ != 0 &&
               hs::find_digest(c1, hs::kFlashPlayerKey, hs::kFlashPlayerKeyPrefix, &schema);

    output_.assign(kRtmpS0S1S2Size, '\0');
    uint8_t* s0 = bytes_of(&output_);
    uint8_t* s1 = s0 + 1;
    uint8_t* s2 = s1 + kRtmpHandshakeBlockSize;
    s0[0] = kRtmpHandshakeVersion;
    store_be32(s1, time_);
    hs::fill_random(s1 + 8, kRtmpHandshakeBlockSize - 8);

    if (!complex_) {
        store_be32(s1 + 4, 0);
        memcpy(s2, c1, kRtmpHandshakeBlockSize);
        return Error();
    }

    // Answer in the client's schema; the key block stays random (no RTMPE).
    store_be32(s1 + 4, kServerVersion);
    if (!hs::write_digest(s1, schema, hs::kFlashMediaServerKey, hs::kFlashMediaServerKeyPrefix)) {
        output_.clear();
        return SRS_ERR(kErrorRtmpHandshakeCrypto, "sign S1");
    }
    const uint8_t* c1_digest = c1 + hs::digest_offset(c1, schema);
    if (!hs::make_response(c1_digest, hs::kFlashMediaServerKey, hs::kFlashMediaServerKeySize, s2)) {
        output_.clear();
        return SRS_ERR(kErrorRtmpHandshakeCrypto, "sign S2");
    }
    return Error();
}

std::string RtmpHandshakeServer::take_output() {
    std::string out;
    out.swap(output_);
    return out;
}

// ---------------------------------------------------------------- client

std::string RtmpHandshakeClient::start(bool complex) {
    std::string c0c1(kRtmpC0C1Size, '\0');
    uint8_t* c1 = bytes_of(&c0c1) + 1;
    c0c1[0] = static_cast<char>(kRtmpHandshakeVersion);
    store_be32(c1, time_);
    hs::fill_random(c1 + 8, kRtmpHandshakeBlockSize - 8);

    offered_complex_ = false;
    if (complex) {
        store_be32(c1 + 4, kClientVersion);
        offered_complex_ =
            hs::write_digest(c1, hs::Schema::kDigestFirst, hs::kFlashPlayerKey, hs::kFlashPlayerKeyPrefix);
    }
    if (!offered_complex_) store_be32(c1 + 4, 0);  // simple, or signing failed: say so

    state_ = State::kS0S1;
    s0s1_.clear();
    s2_received_ = 0;
    output_.clear();
    complex_ = false;
    return c0c1;
}

Error RtmpHandshakeClient::feed(const uint8_t* data, size_t size, size_t* consumed) {
    *consumed = 0;
    if (state_ == State::kFailed) return SRS_ERR(kErrorRtmpHandshakeState, "rtmp handshake already failed");
    if (state_ == State::kIdle) return SRS_ERR(kErrorRtmpHandshakeState, "rtmp handshake fed before start()");

    if (state_ == State::kS0S1) {
        if (s0s1_.empty() && size > 0 && data[0] != kRtmpHandshakeVersion) {
            state_ = State::kFailed;
            *consumed = 1;
            return SRS_ERR(kErrorRtmpHandshakeVersion, "rtmp S0 version %u, want %u", data[0],
                           kRtmpHandshakeVersion);
        }
        if (s0s1_.empty()) s0s1_.reserve(kRtmpC0C1Size);
        *consumed += append_upto(&s0s1_, kRtmpC0C1Size, data, size);
        if (s0s1_.size() < kRtmpC0C1Size) return Error();
        if (Error err = answer_s0s1(); err.failed()) {
            state_ = State::kFailed;
            return SRS_WRAP(err, "answer rtmp S0S1");
        }
        std::string().swap(s0s1_);
        state_ = State::kS2;
    }

    if (state_ == State::kS2) {
        *consumed += skip_upto(&s2_received_, kRtmpHandshakeBlockSize, size - *consumed);
        if (s2_received_ == kRtmpHandshakeBlockSize) state_ = State::kDone;
    }
    return Error();
}

Error RtmpHandshakeClient::answer_s0s1() {
    const uint8_t* s1 = reinterpret_cast<const uint8_t*>(s0s1_.data()) + 1;
    server_version_ = load_be32(s1 + 4);

    hs::Schema schema = hs::Schema::kDigestFirst;
    complex_ = offered_complex_ && server_version_ != 0 &&
               hs::find_digest(s1, hs::kFlashMediaServerKey, hs::kFlashMediaServerKeyPrefix, &schema);

    output_.assign(kRtmpHandshakeBlockSize, '\0');
    uint8_t* c2 = bytes_of(&output_);
    if (!complex_) {
        memcpy(c2, s1, kRtmpHandshakeBlockSize);  // lenient: a server without a digest gets the simple answer
        return Error();
    }
    const uint8_t* s1_digest = s1 + hs::digest_offset(s1, schema);
    if (!hs::make_response(s1_digest, hs::kFlashPlayerKey, hs::kFlashPlayerKeySize, c2)) {
        output_.clear();
        return SRS_ERR(kErrorRtmpHandshakeCrypto, "sign C2");
    }
    return Error();
}

std::string RtmpHandshakeClient::take_output() {
    std::string out;
    out.swap(output_);
    return out;
}

}  // namespace srs
