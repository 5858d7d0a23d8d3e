// Random identifiers for WebRTC sessions (ICE credentials, SSRCs, tokens)
// from OpenSSL's generator: they are credentials, so not std::rand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace srs {

// n characters of [a-z0-9] (ICE ufrag/pwd are ice-chars, RFC 8839).
std::string rtc_random_string(size_t n);
// Non-zero.
uint32_t rtc_random_u32();

}  // namespace srs
