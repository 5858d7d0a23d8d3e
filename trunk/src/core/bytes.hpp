// Fixed-width integer loads and stores in network (big-endian) byte order, and
// the two little-endian ones RTMP needs (the chunk stream id of a 3-byte basic
// header and the message stream id).
//
// Contract: `p` points at no fewer bytes than the width; nothing is checked
// (callers have checked the length already: this is the innermost step of a
// parser). Loads assemble bytes with shifts, so they work at any alignment and
// on any host byte order. A 24-bit store writes the low 24 bits of `v`.
//
// The uint8_t* versions are constexpr; the char* overloads exist for the many
// buffers kept as std::string / char[] and only cast.
#pragma once

#include <cstdint>

namespace srs {

// ---- big-endian loads ----
constexpr uint16_t load_be16(const uint8_t* p) { return static_cast<uint16_t>((uint32_t(p[0]) << 8) | p[1]); }
constexpr uint32_t load_be24(const uint8_t* p) { return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2]; }
constexpr uint32_t load_be32(const uint8_t* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
constexpr uint64_t load_be64(const uint8_t* p) { return (uint64_t(load_be32(p)) << 32) | load_be32(p + 4); }

// ---- little-endian loads ----
constexpr uint16_t load_le16(const uint8_t* p) { return static_cast<uint16_t>((uint32_t(p[1]) << 8) | p[0]); }
constexpr uint32_t load_le32(const uint8_t* p) {
    return (uint32_t(p[3]) << 24) | (uint32_t(p[2]) << 16) | (uint32_t(p[1]) << 8) | p[0];
}

// ---- big-endian stores ----
constexpr void store_be16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}
constexpr void store_be24(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 16);
    p[1] = static_cast<uint8_t>(v >> 8);
    p[2] = static_cast<uint8_t>(v);
}
constexpr void store_be32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}
constexpr void store_be64(uint8_t* p, uint64_t v) {
    store_be32(p, static_cast<uint32_t>(v >> 32));
    store_be32(p + 4, static_cast<uint32_t>(v));
}

// ---- little-endian stores ----
constexpr void store_le16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v);
    p[1] = static_cast<uint8_t>(v >> 8);
}
constexpr void store_le32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v);
    p[1] = static_cast<uint8_t>(v >> 8);
    p[2] = static_cast<uint8_t>(v >> 16);
    p[3] = static_cast<uint8_t>(v >> 24);
}

// ---- char* overloads (std::string data, char arrays) ----
inline const uint8_t* as_bytes(const char* p) { return reinterpret_cast<const uint8_t*>(p); }
inline uint8_t* as_bytes(char* p) { return reinterpret_cast<uint8_t*>(p); }

inline uint16_t load_be16(const char* p) { return load_be16(as_bytes(p)); }
inline uint32_t load_be24(const char* p) { return load_be24(as_bytes(p)); }
inline uint32_t load_be32(const char* p) { return load_be32(as_bytes(p)); }
inline uint64_t load_be64(const char* p) { return load_be64(as_bytes(p)); }
inline uint16_t load_le16(const char* p) { return load_le16(as_bytes(p)); }
inline uint32_t load_le32(const char* p) { return load_le32(as_bytes(p)); }
inline void store_be16(char* p, uint16_t v) { store_be16(as_bytes(p), v); }
inline void store_be24(char* p, uint32_t v) { store_be24(as_bytes(p), v); }
inline void store_be32(char* p, uint32_t v) { store_be32(as_bytes(p), v); }
inline void store_be64(char* p, uint64_t v) { store_be64(as_bytes(p), v); }
inline void store_le16(char* p, uint16_t v) { store_le16(as_bytes(p), v); }
inline void store_le32(char* p, uint32_t v) { store_le32(as_bytes(p), v); }

}  // namespace srs
