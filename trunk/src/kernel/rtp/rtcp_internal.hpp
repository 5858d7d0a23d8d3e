// Byte-level helpers shared by the RTCP builders (rtcp.cpp, rtcp_twcc.cpp).
// Not part of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace srs::rtcp_internal {

// Appends a common header with V=2, the count/FMT and type, length 0; returns
// where the packet starts.
size_t begin_packet(std::string* out, uint8_t count, uint8_t type);
// Pads the packet from `start` to 32 bits (zero bytes, or RFC 3550 padding
// with the P bit and a count when pad_with_p) and fills in its length.
void end_packet(std::string* out, size_t start, bool pad_with_p);
void put32(std::string* out, uint32_t v);
void put16(std::string* out, uint16_t v);

}  // namespace srs::rtcp_internal
