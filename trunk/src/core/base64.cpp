// See base64.hpp for the contract.
#include "core/base64.hpp"

#include <openssl/evp.h>

#include <climits>
#include <cstdlib>

namespace srs {

namespace {

bool is_base64_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

}  // namespace

std::string base64_encode(std::string_view in) {
    if (in.empty()) return std::string();
    if (in.size() > static_cast<size_t>(INT_MAX / 4 * 3)) abort();  // cannot happen: > 1.5 GiB of credentials
    std::string out((in.size() + 2) / 3 * 4 + 1, '\0');  // + the NUL EVP_EncodeBlock writes
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return out;
}

bool base64_decode(std::string_view in, std::string* out) {
    if (in.size() % 4 != 0 || in.size() > static_cast<size_t>(INT_MAX)) return false;
    if (in.empty()) {
        out->clear();
        return true;
    }
    size_t padding = 0;
    if (in.back() == '=') padding = in[in.size() - 2] == '=' ? 2 : 1;
    for (size_t i = 0; i < in.size() - padding; i++) {
        if (!is_base64_char(in[i])) return false;
    }
    std::string decoded(in.size() / 4 * 3, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                            reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
    // n counts every group as 3 bytes, padded ones included.
    if (n < 0 || static_cast<size_t>(n) != decoded.size()) return false;
    decoded.resize(decoded.size() - padding);
    *out = std::move(decoded);
    return true;
}

}  // namespace srs
