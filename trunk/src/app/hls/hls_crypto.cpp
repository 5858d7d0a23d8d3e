#include "app/hls/hls_crypto.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <memory>

namespace srs {

Error hls_new_key(HlsKey* out) {
    unsigned char buf[32];
    if (RAND_bytes(buf, sizeof(buf)) != 1) return SRS_ERR(kErrorNotSupported, "RAND_bytes failed");
    out->key.assign(reinterpret_cast<char*>(buf), 16);
    out->iv.assign(reinterpret_cast<char*>(buf) + 16, 16);
    return Error();
}

std::string hls_iv_hex(const std::string& iv) {
    static const char kHex[] = "0123456789abcdef";
    std::string s;
    for (unsigned char c : iv) {
        s += kHex[c >> 4];
        s += kHex[c & 15];
    }
    return s;
}

Error hls_encrypt_segment(const HlsKey& key, const std::string& plain, std::string* out) {
    if (key.key.size() != 16 || key.iv.size() != 16) return SRS_ERR(kErrorNotSupported, "bad AES-128 key or IV");
    std::unique_ptr<EVP_CIPHER_CTX, void (*)(EVP_CIPHER_CTX*)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    if (!ctx) return SRS_ERR(kErrorNotSupported, "EVP_CIPHER_CTX_new failed");
    const auto* k = reinterpret_cast<const unsigned char*>(key.key.data());
    const auto* iv = reinterpret_cast<const unsigned char*>(key.iv.data());
    if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_128_cbc(), nullptr, k, iv) != 1) {
        return SRS_ERR(kErrorNotSupported, "EVP_EncryptInit_ex failed");
    }
    out->resize(plain.size() + 16);
    int n = 0, tail = 0;
    auto* dst = reinterpret_cast<unsigned char*>(&(*out)[0]);
    if (EVP_EncryptUpdate(ctx.get(), dst, &n, reinterpret_cast<const unsigned char*>(plain.data()),
                          static_cast<int>(plain.size())) != 1 ||
        EVP_EncryptFinal_ex(ctx.get(), dst + n, &tail) != 1) {
        return SRS_ERR(kErrorNotSupported, "AES-128-CBC failed");
    }
    out->resize(static_cast<size_t>(n + tail));
    return Error();
}

}  // namespace srs
