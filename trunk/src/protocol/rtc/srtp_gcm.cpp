#include "protocol/rtc/srtp_gcm.hpp"

#include <openssl/evp.h>

#include <cstring>

#include "core/bytes.hpp"

namespace srs {

namespace {

// The RTP header length (fixed part, CSRCs, extension) of a packet, or 0.
size_t rtp_header_length(const uint8_t* p, size_t len) {
    if (len < 12 || (p[0] >> 6) != 2) return 0;
    size_t n = 12 + 4 * static_cast<size_t>(p[0] & 0x0f);
    if (p[0] & 0x10) {
        if (n + 4 > len) return 0;
        n += 4 + 4 * static_cast<size_t>(load_be16(p + n + 2));
    }
    return n <= len ? n : 0;
}

void wipe(uint8_t* p, size_t n) {
    volatile uint8_t* v = p;
    for (size_t i = 0; i < n; i++) v[i] = 0;
}

}  // namespace

Error srtp_kdf_aes_cm(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt, size_t salt_len,
                      uint8_t label, uint8_t* out, size_t out_len) {
    if (key_len != 16 || salt_len > 14 || salt_len < 12) {
        return SRS_ERR(kErrorSrtpKeyLength, "KDF: key %zu bytes, salt %zu bytes", key_len, salt_len);
    }
    // x = (label || index DIV kdr) XOR master salt, the salt aligned to the
    // left of 14 bytes (a 12-byte salt is multiplied by 2^16); then AES-CM
    // keystream blocks AES_k(x * 2^16 + i).
    uint8_t iv[16] = {};
    memcpy(iv, master_salt, salt_len);
    iv[7] ^= label;
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    if (!c) return SRS_ERR(kErrorSrtpInit, "KDF: EVP_CIPHER_CTX_new");
    bool ok = EVP_EncryptInit_ex(c, EVP_aes_128_ctr(), nullptr, master_key, iv) == 1;
    uint8_t zeros[64] = {};
    size_t done = 0;
    while (ok && done < out_len) {
        int n = 0;
        int chunk = static_cast<int>(out_len - done < sizeof(zeros) ? out_len - done : sizeof(zeros));
        ok = EVP_EncryptUpdate(c, out + done, &n, zeros, chunk) == 1 && n == chunk;
        done += static_cast<size_t>(chunk);
    }
    EVP_CIPHER_CTX_free(c);
    if (!ok) return SRS_ERR(kErrorSrtpInit, "KDF: AES-CTR failed");
    return Error();
}

SrtpGcmSender::~SrtpGcmSender() {
    EVP_CIPHER_CTX_free(ctx_);
    wipe(salt_, sizeof(salt_));
}

Error SrtpGcmSender::initialize(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt,
                                size_t salt_len) {
    if (ctx_) return SRS_ERR(kErrorSrtpState, "GCM sender initialized twice");
    if (key_len != kKeyLength || salt_len != kSaltLength) {
        return SRS_ERR(kErrorSrtpKeyLength, "AEAD_AES_128_GCM needs a 16-byte key and a 12-byte salt, got %zu and %zu",
                       key_len, salt_len);
    }
    uint8_t key[kKeyLength];
    if (Error err = srtp_kdf_aes_cm(master_key, key_len, master_salt, salt_len, 0x00, key, sizeof(key)); err.failed()) {
        return err;
    }
    if (Error err = srtp_kdf_aes_cm(master_key, key_len, master_salt, salt_len, 0x02, salt_, sizeof(salt_));
        err.failed()) {
        wipe(key, sizeof(key));
        return err;
    }
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    bool ok = c && EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), nullptr, nullptr, nullptr) == 1 &&
              EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, nullptr) == 1 &&
              EVP_EncryptInit_ex(c, nullptr, nullptr, key, nullptr) == 1;
    wipe(key, sizeof(key));
    if (!ok) {
        EVP_CIPHER_CTX_free(c);
        return SRS_ERR(kErrorSrtpInit, "AES-128-GCM context");
    }
    ctx_ = c;
    return Error();
}

uint32_t SrtpGcmSender::roc_for(uint32_t ssrc, uint16_t seq, bool* ok) {
    SsrcState* s = nullptr;
    for (SsrcState& e : ssrcs_) {
        if (e.used && e.ssrc == ssrc) {
            s = &e;
            break;
        }
    }
    if (!s) {
        for (SsrcState& e : ssrcs_) {
            if (!e.used) {
                e.used = true;
                e.ssrc = ssrc;
                e.highest = seq;
                e.roc = 0;
                *ok = true;
                return 0;
            }
        }
        *ok = false;
        return 0;
    }
    *ok = true;
    int16_t d = static_cast<int16_t>(static_cast<uint16_t>(seq - s->highest));
    if (d > 0) {
        if (seq < s->highest) s->roc++;  // crossed 65535 -> 0
        s->highest = seq;
        return s->roc;
    }
    // An older number (a retransmission): the ROC of its time.
    if (seq > s->highest && s->roc > 0) return s->roc - 1;
    return s->roc;
}

Error SrtpGcmSender::protect_rtp(uint8_t* buf, size_t len, size_t cap, size_t* out_len) {
    if (!ctx_) return SRS_ERR(kErrorSrtpState, "GCM protect before initialize");
    size_t header = rtp_header_length(buf, len);
    if (header == 0) return SRS_ERR(kErrorSrtpProtect, "RTP packet of %zu bytes does not parse", len);
    if (cap < len + kTagLength) {
        return SRS_ERR(kErrorSrtpBufferTooSmall, "RTP %zu bytes + tag needs %zu, buffer %zu", len, len + kTagLength,
                       cap);
    }
    uint32_t ssrc = load_be32(buf + 8);
    uint16_t seq = load_be16(buf + 2);
    bool ok = false;
    uint32_t roc = roc_for(ssrc, seq, &ok);
    if (!ok) return SRS_ERR(kErrorSrtpProtect, "more than %d SSRCs on one session", kMaxSsrcs);
    uint8_t iv[12];
    iv[0] = iv[1] = 0;
    store_be32(iv + 2, ssrc);
    store_be32(iv + 6, roc);
    store_be16(iv + 10, seq);
    for (size_t i = 0; i < sizeof(iv); i++) iv[i] ^= salt_[i];
    int n = 0;
    int payload = static_cast<int>(len - header);
    bool good = EVP_EncryptInit_ex(ctx_, nullptr, nullptr, nullptr, iv) == 1 &&
                EVP_EncryptUpdate(ctx_, nullptr, &n, buf, static_cast<int>(header)) == 1 &&
                (payload == 0 || EVP_EncryptUpdate(ctx_, buf + header, &n, buf + header, payload) == 1) &&
                EVP_EncryptFinal_ex(ctx_, buf + len, &n) == 1 &&
                EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagLength), buf + len) == 1;
    if (!good) return SRS_ERR(kErrorSrtpProtect, "AES-GCM encrypt failed");
    *out_len = len + kTagLength;
    return Error();
}

}  // namespace srs
