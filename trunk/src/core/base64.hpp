// Base64 (RFC 4648 §4, the standard alphabet with '=' padding) on OpenSSL's
// EVP_EncodeBlock / EVP_DecodeBlock, which do the work but leave two things to
// the caller: EVP_DecodeBlock counts the bytes '=' stands for as zero bytes in
// its result, and it skips whitespace around its input. Here the padding is
// taken off the length and the input is checked first, so decoding is strict.
#pragma once

#include <string>
#include <string_view>

namespace srs {

// The encoding of `in`, padded to a multiple of 4 characters, no line breaks.
std::string base64_encode(std::string_view in);

// Decodes `in` into *out. False (and *out left as it was) unless `in` is a
// multiple of 4 characters from the alphabet, with '=' only as the last one or
// two characters. No whitespace, no line breaks, no URL-safe alphabet ("-_").
// Bits left over in the last character before '=' are ignored, as RFC 4648
// §3.5 allows.
[[nodiscard]] bool base64_decode(std::string_view in, std::string* out);

}  // namespace srs
