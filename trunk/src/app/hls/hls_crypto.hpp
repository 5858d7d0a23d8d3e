// hls_keys: AES-128-CBC of whole segments (RFC 8216 4.3.2.4: PKCS7 padding,
// the IV given in EXT-X-KEY), with keys and IVs from OpenSSL's CSPRNG.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace srs {

struct HlsKey {
    std::string key;  // 16 bytes
    std::string iv;   // 16 bytes
};

Error hls_new_key(HlsKey* out);
// 32 lower-case hex digits of the IV, as EXT-X-KEY's IV=0x... takes them.
std::string hls_iv_hex(const std::string& iv);
// The ciphertext of plain (a whole segment), PKCS7 padded.
Error hls_encrypt_segment(const HlsKey& key, const std::string& plain, std::string* out);

}  // namespace srs
