// The RTP packet header (RFC 3550 section 5.1) with RFC 8285 header
// extensions, sans-IO and without copies.
//
// rtp_parse_header() reads a packet the caller owns and records where things
// are (offsets into that packet): the payload, each extension element. It
// never reads outside [data, data + size) and allocates nothing.
// rtp_write_header() serializes a header into a caller buffer. The rtp_set_*
// helpers rewrite one field of a packet in place: the fan-out path builds a
// packet once and each player only rewrites SSRC, sequence, PT or timestamp.
//
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |V=2|P|X|  CC   |M|     PT      |       sequence number         |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |                           timestamp                           |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |           synchronization source (SSRC) identifier            |
//  +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
//  |       contributing source (CSRC) identifiers (CC of them)     |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  if X: |   defined by profile          |     length (32-bit words) |
//        |                  extension data (length words)            |
//  payload ..., then if P: padding, its last byte the padding count.
//
// Extension data (RFC 8285), profile 0xBEDE (one-byte form): elements of
// ID(4) L(4) and L+1 data bytes; a zero byte is padding, ID 15 ends parsing.
// Profile 0x100X (two-byte form, X: "appbits"): elements of ID(8) L(8) and L
// data bytes (L may be 0); a zero byte is padding. Other profiles are kept as
// one raw span.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/bytes.hpp"
#include "core/error.hpp"

namespace srs {

constexpr size_t kRtpFixedHeaderSize = 12;
constexpr int kRtpMaxCsrc = 15;
// Elements recorded per packet; a packet with more is rejected
// (kErrorRtpTooManyExtensions). Browsers send fewer than 10.
constexpr int kRtpMaxExtensions = 32;
constexpr uint16_t kRtpOneByteProfile = 0xBEDE;
constexpr uint16_t kRtpTwoByteProfile = 0x1000;  // top 12 bits 0x100, low 4 bits appbits
constexpr size_t kRtpOneByteMaxSize = 16;

enum class RtpExtensionForm : uint8_t { kNone, kOneByte, kTwoByte, kOther };

// One header extension element: its data is packet[offset, offset + size).
struct RtpExtensionElement {
    uint8_t id = 0;
    uint8_t size = 0;
    uint16_t offset = 0;
};

struct RtpHeader {
    bool padding = false;
    bool extension = false;
    bool marker = false;
    uint8_t csrc_count = 0;
    uint8_t payload_type = 0;
    uint16_t sequence = 0;
    uint32_t timestamp = 0;
    uint32_t ssrc = 0;
    uint32_t csrcs[kRtpMaxCsrc] = {};

    // Extension block (when `extension`): the profile word, and the data after
    // the 4-byte extension header: packet[extension_offset, + extension_size).
    RtpExtensionForm form = RtpExtensionForm::kNone;
    uint16_t extension_profile = 0;
    uint16_t extension_offset = 0;
    uint32_t extension_size = 0;
    int extension_count = 0;  // elements in extensions[] (one- and two-byte forms)
    RtpExtensionElement extensions[kRtpMaxExtensions];

    // packet[header_size, header_size + payload_size) is the payload;
    // padding_size bytes (count included) follow it.
    size_t header_size = 0;
    size_t payload_size = 0;
    uint8_t padding_size = 0;

    // The first element with this id, or nullptr.
    const RtpExtensionElement* find_extension(uint8_t id) const;
};

// Parses the header of the packet data[0, size). On success every offset in
// *h is inside the packet. Errors: kErrorRtpTooShort (also for a packet over
// 65535 bytes, the offsets being 16-bit), kErrorRtpVersion,
// kErrorRtpExtension, kErrorRtpPadding, kErrorRtpTooManyExtensions.
Error rtp_parse_header(const uint8_t* data, size_t size, RtpHeader* h);

// An element to write: `size` bytes at `data`.
struct RtpExtensionData {
    uint8_t id = 0;
    uint8_t size = 0;
    const uint8_t* data = nullptr;
};

// The extension form rtp_write_header() picks: none for n == 0, the one-byte
// form when every id is 1..14 and every size 1..16, else the two-byte form
// (ids 1..255, sizes 0..255). kErrorRtpWriteInvalid for an id 0.
Error rtp_extension_form_for(const RtpExtensionData* ext, size_t n, RtpExtensionForm* form);

// The size rtp_write_header() writes for these fields and elements (fixed
// header, CSRCs, extension header and elements padded to 32 bits).
size_t rtp_header_size(const RtpHeader& h, const RtpExtensionData* ext, size_t n);

// Writes the header fields of `h` (V=2, P=0, marker, PT, sequence, timestamp,
// SSRC, csrc_count CSRCs; the extension fields of h are ignored) and the
// elements `ext` into out[0, capacity); *written is the header size, the
// payload goes after it. Errors: kErrorRtpWriteInvalid (csrc_count > 15, PT >
// 127, bad id), kErrorRtpBufferTooSmall.
Error rtp_write_header(const RtpHeader& h, const RtpExtensionData* ext, size_t n, uint8_t* out, size_t capacity,
                       size_t* written);

// In-place rewrites of a packet that rtp_parse_header() accepted (so it has at
// least 12 bytes). Nothing else changes.
inline void rtp_set_sequence(uint8_t* packet, uint16_t seq) { store_be16(packet + 2, seq); }
inline void rtp_set_timestamp(uint8_t* packet, uint32_t ts) { store_be32(packet + 4, ts); }
inline void rtp_set_ssrc(uint8_t* packet, uint32_t ssrc) { store_be32(packet + 8, ssrc); }
// Keeps the marker bit.
inline void rtp_set_payload_type(uint8_t* packet, uint8_t pt) {
    packet[1] = static_cast<uint8_t>((packet[1] & 0x80) | (pt & 0x7f));
}
inline void rtp_set_marker(uint8_t* packet, bool marker) {
    packet[1] = static_cast<uint8_t>((packet[1] & 0x7f) | (marker ? 0x80 : 0));
}

// The data of the first element `id` of a parsed packet, writable in place
// (a player rewrites its own transport-wide sequence number), or nullptr.
// *size gets the element's size.
inline uint8_t* rtp_extension_data(uint8_t* packet, const RtpHeader& h, uint8_t id, uint8_t* size) {
    const RtpExtensionElement* e = h.find_extension(id);
    if (!e) return nullptr;
    *size = e->size;
    return packet + e->offset;
}

// ---- sequence numbers (16-bit, wrapping) ----

// to - from as the shortest signed step: seq_distance(65535, 1) == 2.
// A distance of exactly 32768 is reported as -32768.
inline int16_t seq_distance(uint16_t from, uint16_t to) { return static_cast<int16_t>(static_cast<uint16_t>(to - from)); }
// Whether a comes after b (a newer packet), wrap-aware.
inline bool seq_newer(uint16_t a, uint16_t b) { return seq_distance(b, a) > 0; }
inline bool seq_newer_or_equal(uint16_t a, uint16_t b) { return seq_distance(b, a) >= 0; }

// Extends 16-bit sequence numbers to 64 bits: each value is placed as the
// unwrapped number closest to the previous one. The first value is taken as
// is (0..65535); later values may go below it (reordering) and below zero.
class SeqUnwrapper {
  public:
    int64_t unwrap(uint16_t seq) {
        if (!started_) {
            started_ = true;
            last_ = seq;
            return last_;
        }
        last_ += seq_distance(static_cast<uint16_t>(last_), seq);
        return last_;
    }
    // The last value unwrap() returned (0 before the first).
    int64_t last() const { return last_; }

  private:
    bool started_ = false;
    int64_t last_ = 0;
};

}  // namespace srs
