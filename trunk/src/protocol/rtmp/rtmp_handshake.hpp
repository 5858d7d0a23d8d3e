// The RTMP handshake, both sides, without I/O.
//
// Guarantees:
// - feed() consumes only handshake bytes: C0C1 then C2 on the server, S0S1S2 on
//   the client. Bytes after the last handshake byte are left for the chunk
//   stream (*consumed stops exactly there). Input may arrive in any pieces; a
//   short input is buffered and answered with success ("need more").
// - feed() never reads past data + size, and reads nothing when size is 0.
// - A version byte other than 3 (C0 or S0) is an error as soon as that byte
//   arrives; every feed() after an error fails again.
// - The server answers the complex (digest) handshake when C1 carries a valid
//   Flash Player digest in either schema and a nonzero version, and the simple
//   one (S2 echoes C1) otherwise. C2 is consumed, not validated: Flash and ffmpeg
//   differ in what they put there.
// - The client offers the complex handshake on request and falls back to the
//   simple one (C2 echoes S1) when S1 carries no valid server digest.
// - No RTMPE (encrypted RTMP): the DH key block is filled with random bytes.
//
// Server use:
//   RtmpHandshakeServer hs;
//   size_t used = 0;
//   if (Error err = hs.feed(buf, len, &used); err.failed()) return SRS_WRAP(err, "handshake");
//   if (hs.has_output()) send(hs.take_output());   // S0S1S2, once
//   if (hs.done()) ...buf + used holds the first chunk bytes...
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace srs {

constexpr uint8_t kRtmpHandshakeVersion = 3;        // C0 and S0
constexpr size_t kRtmpHandshakeBlockSize = 1536;    // C1, C2, S1, S2
constexpr size_t kRtmpC0C1Size = 1 + kRtmpHandshakeBlockSize;
constexpr size_t kRtmpS0S1S2Size = 1 + 2 * kRtmpHandshakeBlockSize;

class RtmpHandshakeServer {
  public:
    RtmpHandshakeServer() = default;

    // The 4-byte time field written at the start of S1 (default 0).
    void set_time(uint32_t time) { time_ = time; }

    // Consumes up to the end of C2. On success *consumed is the number of bytes
    // taken from data (0..size); on failure the handshake is over and the
    // connection should be closed.
    Error feed(const uint8_t* data, size_t size, size_t* consumed);

    // S0S1S2, ready once C0C1 is complete. take_output() hands it over once.
    bool has_output() const { return !output_.empty(); }
    std::string take_output();

    // C0C1 answered and C2 consumed.
    bool done() const { return state_ == State::kDone; }
    // C1 carried a valid digest, so S1/S2 were signed (meaningful once answered).
    bool used_complex() const { return complex_; }
    // The version field of C1 (0 for the simple handshake, e.g. 0x09007c02).
    uint32_t client_version() const { return client_version_; }

  private:
    Error answer_c0c1();

    enum class State { kC0C1, kC2, kDone, kFailed };
    State state_ = State::kC0C1;
    std::string c0c1_;
    size_t c2_received_ = 0;
    std::string output_;
    uint32_t time_ = 0;
    uint32_t client_version_ = 0;
    bool complex_ = false;
};

class RtmpHandshakeClient {
  public:
    RtmpHandshakeClient() = default;

    // The 4-byte time field written at the start of C1 (default 0).
    void set_time(uint32_t time) { time_ = time; }

    // Returns C0C1: a signed C1 (schema 1, Flash Player key) when complex is
    // true, else time + zero + random. Call once, before feed().
    std::string start(bool complex);

    // Consumes up to the end of S0S1S2 and produces C2 as soon as S1 is
    // complete. Same consumption contract as the server's feed().
    Error feed(const uint8_t* data, size_t size, size_t* consumed);

    bool has_output() const { return !output_.empty(); }
    std::string take_output();

    // S0S1S2 consumed (C2 is then in the output, or already taken).
    bool done() const { return state_ == State::kDone; }
    // S1 carried a valid server digest and C2 was signed in answer.
    bool used_complex() const { return complex_; }
    // The version field of S1.
    uint32_t server_version() const { return server_version_; }

  private:
    Error answer_s0s1();

    enum class State { kIdle, kS0S1, kS2, kDone, kFailed };
    State state_ = State::kIdle;
    bool offered_complex_ = false;
    std::string s0s1_;
    size_t s2_received_ = 0;
    std::string output_;
    uint32_t time_ = 0;
    uint32_t server_version_ = 0;
    bool complex_ = false;
};

// Digest helpers, exposed for tests and tools. Every `block` is a whole
// 1536-byte C1/S1/C2/S2 (without the version byte).
namespace rtmp_handshake_detail {

constexpr size_t kDigestSize = 32;
constexpr size_t kKeySize = 128;

// "Genuine Adobe Flash Player 001" followed by 32 constant bytes: the first
// kFlashPlayerKeyPrefix bytes sign C1, the whole key derives the C2 key.
constexpr size_t kFlashPlayerKeySize = 62;
constexpr size_t kFlashPlayerKeyPrefix = 30;
extern const uint8_t kFlashPlayerKey[kFlashPlayerKeySize];

// "Genuine Adobe Flash Media Server 001" followed by the same 32 bytes: the
// first kFlashMediaServerKeyPrefix bytes sign S1, the whole key derives the S2 key.
constexpr size_t kFlashMediaServerKeySize = 68;
constexpr size_t kFlashMediaServerKeyPrefix = 36;
extern const uint8_t kFlashMediaServerKey[kFlashMediaServerKeySize];

// Where the two 764-byte blocks sit after time and version (see the .cpp).
enum class Schema {
    kKeyFirst = 0,     // schema 0: key block at 8, digest block at 772
    kDigestFirst = 1,  // schema 1: digest block at 8, key block at 772
};

// Byte offset of the 32-byte digest / 128-byte key inside block.
size_t digest_offset(const uint8_t* block, Schema schema);
size_t key_offset(const uint8_t* block, Schema schema);

// out = HMAC-SHA256(key, data). False only when OpenSSL fails.
bool hmac_sha256(const void* key, size_t key_size, const void* data, size_t size, uint8_t out[kDigestSize]);

// out = HMAC-SHA256(key, block without the 32 bytes at digest_pos).
bool block_digest(const uint8_t* block, size_t digest_pos, const uint8_t* key, size_t key_size,
                  uint8_t out[kDigestSize]);

// True when the digest at digest_offset(block, schema) is right for key.
bool has_valid_digest(const uint8_t* block, Schema schema, const uint8_t* key, size_t key_size);

// Tries schema 1, then schema 0. On success *schema names the one that matched.
bool find_digest(const uint8_t* block, const uint8_t* key, size_t key_size, Schema* schema);

// Writes the digest of block (for key) at digest_offset(block, schema).
bool write_digest(uint8_t* block, Schema schema, const uint8_t* key, size_t key_size);

// The answer to a signed C1/S1 (S2/C2): random bytes whose last 32 are
// HMAC-SHA256(HMAC-SHA256(key, peer_digest), first 1504 bytes).
bool make_response(const uint8_t peer_digest[kDigestSize], const uint8_t* key, size_t key_size, uint8_t* block);
bool verify_response(const uint8_t* block, const uint8_t peer_digest[kDigestSize], const uint8_t* key,
                     size_t key_size);

// Fast non-blocking random bytes (xoshiro256** seeded once per thread from
// RAND_bytes). Not for secrets: the handshake has none without RTMPE.
void fill_random(uint8_t* p, size_t n);

}  // namespace rtmp_handshake_detail

}  // namespace srs
