// Which protocol a UDP datagram on the WebRTC port carries, from its first byte
// (RFC 7983 section 7, the ranges RFC 5764 section 5.1.2 started):
//
//   0..3      STUN                  (the two top bits of the message type are 0)
//   16..19    ZRTP                  (not used here)
//   20..63    DTLS                  (the content type of a record)
//   64..79    TURN channel          (not used here)
//   128..191  RTP or RTCP           (version 2 in the two top bits)
//
// Anything else is dropped. An empty datagram is none of them: callers check
// the size before reading the first byte. A STUN message of a method >= 0x100
// starts with 4..63 and is not STUN by this rule (RFC 7983 assumes no such
// method is in use on a media port); ICE only uses Binding (method 1).
#pragma once

#include <cstdint>

namespace srs {

constexpr bool is_stun(uint8_t first_byte) { return first_byte <= 3; }
constexpr bool is_dtls(uint8_t first_byte) { return first_byte >= 20 && first_byte <= 63; }
constexpr bool is_rtp_or_rtcp(uint8_t first_byte) { return first_byte >= 128 && first_byte <= 191; }

enum class DatagramKind : uint8_t { kUnknown, kStun, kDtls, kRtp };

constexpr DatagramKind classify_datagram(uint8_t first_byte) {
    if (is_stun(first_byte)) return DatagramKind::kStun;
    if (is_dtls(first_byte)) return DatagramKind::kDtls;
    if (is_rtp_or_rtcp(first_byte)) return DatagramKind::kRtp;
    return DatagramKind::kUnknown;
}

}  // namespace srs
