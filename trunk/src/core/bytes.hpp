// Fixed-width integer loads and stores in network (big-endian) byte order, and
// the two little-endian ones RTMP needs (the chunk stream id of a 3-byte basic
// header and the message stream id).
//
// Contract: `p` points at no fewer bytes than the width; nothing is checked
// (callers have checked the length already: this is the innermost step of a
// parser). Loads assemble bytes with shifts, so they work at any alignment and
// on any host byte order. A 24-bit store writes the low 24 bits of `v`.
//
// Each takes uint8_t*, char* or signed char* (buffers kept as std::string or
// char[] need no cast) and is constexpr, so tables and FourCCs can be built
// at compile time.
#pragma once

#include <cstdint>
#include <type_traits>

namespace srs {

namespace bytes_detail {
// Byte buffers come as uint8_t (unsigned char), char or signed char; nothing else.
template <typename B>
using IfByte = std::enable_if_t<
    std::is_same_v<B, unsigned char> || std::is_same_v<B, char> || std::is_same_v<B, signed char>, int>;
// The byte at p[i] as an unsigned value (no sign extension of a char >= 0x80).
template <typename B>
constexpr uint32_t at(const B* p, int i) {
    return static_cast<uint8_t>(p[i]);
}
}  // namespace bytes_detail

// ---- big-endian loads ----
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr uint16_t load_be16(const B* p) {
    using bytes_detail::at;
    return static_cast<uint16_t>(at(p, 0) << 8 | at(p, 1));
}
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr uint32_t load_be24(const B* p) {
    using bytes_detail::at;
    return at(p, 0) << 16 | at(p, 1) << 8 | at(p, 2);
}
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr uint32_t load_be32(const B* p) {
    using bytes_detail::at;
    return at(p, 0) << 24 | at(p, 1) << 16 | at(p, 2) << 8 | at(p, 3);
}
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr uint64_t load_be64(const B* p) {
    return static_cast<uint64_t>(load_be32(p)) << 32 | load_be32(p + 4);
}

// ---- little-endian loads ----
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr uint16_t load_le16(const B* p) {
    using bytes_detail::at;
    return static_cast<uint16_t>(at(p, 1) << 8 | at(p, 0));
}
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr uint32_t load_le32(const B* p) {
    using bytes_detail::at;
    return at(p, 3) << 24 | at(p, 2) << 16 | at(p, 1) << 8 | at(p, 0);
}

// ---- big-endian stores ----
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr void store_be16(B* p, uint16_t v) {
    p[0] = static_cast<B>(v >> 8);
    p[1] = static_cast<B>(v);
}
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr void store_be24(B* p, uint32_t v) {
    p[0] = static_cast<B>(v >> 16);
    p[1] = static_cast<B>(v >> 8);
    p[2] = static_cast<B>(v);
}
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr void store_be32(B* p, uint32_t v) {
    p[0] = static_cast<B>(v >> 24);
    p[1] = static_cast<B>(v >> 16);
    p[2] = static_cast<B>(v >> 8);
    p[3] = static_cast<B>(v);
}
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr void store_be64(B* p, uint64_t v) {
    store_be32(p, static_cast<uint32_t>(v >> 32));
    store_be32(p + 4, static_cast<uint32_t>(v));
}

// ---- little-endian stores ----
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr void store_le16(B* p, uint16_t v) {
    p[0] = static_cast<B>(v);
    p[1] = static_cast<B>(v >> 8);
}
template <typename B, bytes_detail::IfByte<B> = 0>
constexpr void store_le32(B* p, uint32_t v) {
    p[0] = static_cast<B>(v);
    p[1] = static_cast<B>(v >> 8);
    p[2] = static_cast<B>(v >> 16);
    p[3] = static_cast<B>(v >> 24);
}

}  // namespace srs
