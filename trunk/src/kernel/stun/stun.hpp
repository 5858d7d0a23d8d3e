// STUN messages as ICE needs them (RFC 5389, RFC 8445 section 7): decode a
// datagram, verify its MESSAGE-INTEGRITY and FINGERPRINT, encode a binding
// success response, a binding error response and a binding request. Sans-IO: bytes in, bytes out.
//
// The wire format (RFC 5389 section 6), all fields big-endian:
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |0 0|     STUN Message Type     |         Message Length        |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |                    Magic Cookie (0x2112A442)                  |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |                  Transaction ID (96 bits)                     |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |  Attribute Type               |  Attribute Length (unpadded)  |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |  Value, padded with 0..3 bytes to a multiple of 4   ...  (repeated)
//
// Guarantees:
// - StunMessage::decode reads only data[0, size), allocates nothing, and fails
//   with a specific code (core/error.hpp, 5100s) on: fewer than 20 bytes, the
//   top two bits set, a wrong cookie, a length not a multiple of 4 or not equal
//   to size - 20 (one datagram holds exactly one message), an attribute whose
//   header or padded value runs past the end, a known attribute of a bad size
//   or value, anything but FINGERPRINT after MESSAGE-INTEGRITY, anything after
//   FINGERPRINT. Unknown attributes are skipped (the first comprehension-required
//   one is recorded so a server can answer 420).
// - The decoded message points into the caller's bytes (username, software,
//   reason): it is valid as long as they are.
// - The encoders write into the caller's buffer, allocate nothing, and fail
//   with kErrorStunBufferTooSmall without writing past `capacity`.
// - Padding is written as zero bytes unless asked otherwise (RFC 5389 lets
//   padding be anything; the RFC 5769 vectors use spaces).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace srs {

constexpr uint32_t kStunMagicCookie = 0x2112A442;
constexpr uint32_t kStunFingerprintXor = 0x5354554e;  // "STUN"
constexpr size_t kStunHeaderSize = 20;
constexpr size_t kStunTransactionIdSize = 12;
constexpr size_t kStunIntegritySize = 20;  // HMAC-SHA1
constexpr size_t kStunMaxUsername = 512;   // RFC 5389 15.3: less than 513 bytes
constexpr size_t kStunMaxSoftware = 763;   // RFC 5389 15.10
constexpr size_t kStunMaxReason = 763;     // RFC 5389 15.6

// Message types (method and class folded together, RFC 5389 section 6).
enum StunMessageType : uint16_t {
    kStunBindingRequest = 0x0001,
    kStunBindingIndication = 0x0011,
    kStunBindingSuccess = 0x0101,
    kStunBindingError = 0x0111,
};

enum StunAttributeType : uint16_t {
    kStunAttrMappedAddress = 0x0001,
    kStunAttrUsername = 0x0006,
    kStunAttrMessageIntegrity = 0x0008,
    kStunAttrErrorCode = 0x0009,
    kStunAttrUnknownAttributes = 0x000A,
    kStunAttrXorMappedAddress = 0x0020,
    kStunAttrPriority = 0x0024,      // RFC 8445
    kStunAttrUseCandidate = 0x0025,  // RFC 8445
    kStunAttrSoftware = 0x8022,
    kStunAttrFingerprint = 0x8028,
    kStunAttrIceControlled = 0x8029,   // RFC 8445
    kStunAttrIceControlling = 0x802A,  // RFC 8445
};

// The method (12 bits) and class (0 request, 1 indication, 2 success, 3 error)
// interleaved in a message type.
constexpr uint16_t stun_method(uint16_t type) {
    return static_cast<uint16_t>((type & 0x000F) | ((type >> 1) & 0x0070) | ((type >> 2) & 0x0F80));
}
constexpr int stun_class(uint16_t type) { return ((type >> 4) & 1) | ((type >> 7) & 2); }

// A transport address as XOR-MAPPED-ADDRESS carries it, un-XORed.
struct StunAddress {
    enum Family : uint8_t { kNone = 0, kIpv4 = 1, kIpv6 = 2 };  // the wire values
    Family family = kNone;
    uint8_t ip[16] = {};  // network byte order; IPv4 in ip[0..4)
    uint16_t port = 0;

    static StunAddress ipv4(uint32_t host_order_ip, uint16_t port);
    static StunAddress ipv6(const uint8_t ip[16], uint16_t port);
    // "192.0.2.1:32853", "[2001:db8::1]:32853", "" for kNone.
    std::string to_string() const;
    bool operator==(const StunAddress& o) const;
};

// One decoded message. Fields of attributes that were absent keep their
// defaults; the has_* flags say which were present (the first of repeated
// attributes wins, RFC 5389 15).
struct StunMessage {
    uint16_t type = 0;
    uint16_t length = 0;  // of the attributes, as in the header
    uint8_t transaction_id[kStunTransactionIdSize] = {};

    bool has_username = false;
    std::string_view username;  // ICE: "<ufrag of the receiver>:<ufrag of the sender>"
    bool has_software = false;
    std::string_view software;
    bool has_priority = false;
    uint32_t priority = 0;
    bool use_candidate = false;
    bool has_ice_controlling = false;
    uint64_t ice_controlling = 0;  // tie breaker
    bool has_ice_controlled = false;
    uint64_t ice_controlled = 0;  // tie breaker
    bool has_xor_mapped_address = false;
    StunAddress xor_mapped_address;
    bool has_error_code = false;
    int error_code = 0;  // 300..699
    std::string_view error_reason;

    // Where MESSAGE-INTEGRITY and FINGERPRINT start (their attribute header),
    // as offsets from the start of the message; 0 when absent.
    size_t integrity_offset = 0;
    size_t fingerprint_offset = 0;

    // The first comprehension-required (type < 0x8000) attribute not understood; 0 if none.
    uint16_t unknown_required = 0;

    // Decodes one message from a whole datagram. On failure the message is
    // left in an unspecified (but destructible) state.
    Error decode(const uint8_t* data, size_t size);

    bool is_binding_request() const { return type == kStunBindingRequest; }
    bool has_integrity() const { return integrity_offset != 0; }
    bool has_fingerprint() const { return fingerprint_offset != 0; }
};

// RFC 5389 15.4: HMAC-SHA1 keyed with `key` (ICE: the short-term password, the
// ice-pwd of the side that receives the request) over the message up to
// MESSAGE-INTEGRITY, with the header length counting up to and including it.
// kErrorStunNoIntegrity if absent, kErrorStunIntegrityMismatch if it differs.
Error stun_verify_integrity(const uint8_t* data, size_t size, std::string_view key);
// The same for a message already decoded from these bytes (no second walk).
Error stun_verify_integrity(const StunMessage& msg, const uint8_t* data, std::string_view key);

// RFC 5389 15.5: CRC-32 of the message up to FINGERPRINT, XOR 0x5354554e.
// kErrorStunNoFingerprint if absent, kErrorStunFingerprintMismatch if it differs.
Error stun_verify_fingerprint(const uint8_t* data, size_t size);
Error stun_verify_fingerprint(const StunMessage& msg, const uint8_t* data);

// CRC-32 as zlib and PNG compute it (reflected, polynomial 0xEDB88320,
// initial and final XOR 0xFFFFFFFF): "123456789" -> 0xCBF43926.
uint32_t stun_crc32(const uint8_t* data, size_t size);

// A binding success response: [SOFTWARE], XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY,
// FINGERPRINT.
struct StunBindingResponse {
    uint8_t transaction_id[kStunTransactionIdSize] = {};  // the request's
    StunAddress mapped;                                   // where the request came from
    std::string_view password;                            // our ice-pwd
    std::string_view software;                            // empty: no SOFTWARE
    uint8_t padding = 0;
};

// A binding request (an ICE connectivity check): [SOFTWARE], PRIORITY,
// ICE-CONTROLLING or ICE-CONTROLLED, [USE-CANDIDATE], USERNAME,
// MESSAGE-INTEGRITY, FINGERPRINT. The order is the one of RFC 5769 2.1.
struct StunBindingRequest {
    uint8_t transaction_id[kStunTransactionIdSize] = {};
    std::string_view username;  // "<remote ufrag>:<local ufrag>"
    std::string_view password;  // the remote ice-pwd
    uint32_t priority = 0;
    bool controlling = true;   // ICE-CONTROLLING, else ICE-CONTROLLED
    uint64_t tie_breaker = 0;
    bool use_candidate = false;
    std::string_view software;  // empty: no SOFTWARE
    uint8_t padding = 0;
};

// A binding error response (RFC 5389 7.3.1, 15.6): [SOFTWARE], ERROR-CODE,
// MESSAGE-INTEGRITY, FINGERPRINT. ICE sends 487 Role Conflict with it (RFC
// 8445 7.3.1.1), keyed like a success response.
struct StunBindingErrorResponse {
    uint8_t transaction_id[kStunTransactionIdSize] = {};  // the request's
    int code = 0;                                         // 300..699
    std::string_view reason;                              // UTF-8, at most kStunMaxReason bytes
    std::string_view password;                            // our ice-pwd
    std::string_view software;                            // empty: no SOFTWARE
    uint8_t padding = 0;
};
constexpr int kStunErrorRoleConflict = 487;

// The exact number of bytes the encoders below write.
size_t stun_encoded_size(const StunBindingResponse& r);
size_t stun_encoded_size(const StunBindingRequest& r);
size_t stun_encoded_size(const StunBindingErrorResponse& r);

// Encode into buf[0, capacity); *written is the message size on success.
// kErrorStunBufferTooSmall when it does not fit (nothing written past
// capacity), kErrorStunBadArgument for a mapped address of no family or a
// username/software too long for the wire.
Error stun_encode(const StunBindingResponse& r, uint8_t* buf, size_t capacity, size_t* written);
Error stun_encode(const StunBindingRequest& r, uint8_t* buf, size_t capacity, size_t* written);
// Also kErrorStunBadArgument for a code outside 300..699.
Error stun_encode(const StunBindingErrorResponse& r, uint8_t* buf, size_t capacity, size_t* written);

}  // namespace srs
