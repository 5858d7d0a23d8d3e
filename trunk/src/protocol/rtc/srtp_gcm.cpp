#include "protocol/rtc/srtp_gcm.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

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

SrtpGcmKey::~SrtpGcmKey() {
    EVP_CIPHER_CTX_free(ctx_);
    wipe(salt_, sizeof(salt_));
}

Error SrtpGcmKey::initialize(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt, size_t salt_len,
                             uint8_t label_key, uint8_t label_salt, bool encrypt) {
    if (ctx_) return SRS_ERR(kErrorSrtpState, "GCM key initialized twice");
    if (key_len != SrtpGcmSender::kKeyLength || salt_len != SrtpGcmSender::kSaltLength) {
        return SRS_ERR(kErrorSrtpKeyLength, "AEAD_AES_128_GCM needs a 16-byte key and a 12-byte salt, got %zu and %zu",
                       key_len, salt_len);
    }
    uint8_t key[SrtpGcmSender::kKeyLength];
    if (Error err = srtp_kdf_aes_cm(master_key, key_len, master_salt, salt_len, label_key, key, sizeof(key));
        err.failed()) {
        return err;
    }
    if (Error err = srtp_kdf_aes_cm(master_key, key_len, master_salt, salt_len, label_salt, salt_, sizeof(salt_));
        err.failed()) {
        wipe(key, sizeof(key));
        return err;
    }
    int enc = encrypt ? 1 : 0;
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    bool ok = c && EVP_CipherInit_ex(c, EVP_aes_128_gcm(), nullptr, nullptr, nullptr, enc) == 1 &&
              EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, nullptr) == 1 &&
              EVP_CipherInit_ex(c, nullptr, nullptr, key, nullptr, enc) == 1;
    wipe(key, sizeof(key));
    if (!ok) {
        EVP_CIPHER_CTX_free(c);
        return SRS_ERR(kErrorSrtpInit, "AES-128-GCM context");
    }
    ctx_ = c;
    return Error();
}

void SrtpGcmKey::make_iv(uint32_t a, uint32_t b, uint16_t c, uint8_t iv[12]) const {
    iv[0] = iv[1] = 0;
    store_be32(iv + 2, a);
    store_be32(iv + 6, b);
    store_be16(iv + 10, c);
    for (size_t i = 0; i < 12; i++) iv[i] ^= salt_[i];
}

namespace {

// Per packet, OpenSSL 3's EVP_CipherInit_ex(iv) asks the provider for the IV
// length through a parameter lookup by name, and EVP_CIPHER_CTX_ctrl's tag
// controls build a one-entry parameter array after a switch. The provider's
// parameters directly cost less: the whole IV as "tlsivfixed" with the
// length (size_t)-1 (the provider's documented-in-code way to restore a
// whole IV, as EVP_CTRL_GCM_SET_IV_FIXED with -1 does), and the tag.
OSSL_PARAM whole_iv(const uint8_t iv[12]) {
    OSSL_PARAM p = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED,
                                                     const_cast<uint8_t*>(iv), 0);
    p.data_size = static_cast<size_t>(-1);
    return p;
}

bool gcm_set_iv(EVP_CIPHER_CTX* ctx, const uint8_t iv[12]) {
    OSSL_PARAM p[2] = {whole_iv(iv), OSSL_PARAM_construct_end()};
    return EVP_CIPHER_CTX_set_params(ctx, p) == 1;
}

bool gcm_get_tag(EVP_CIPHER_CTX* ctx, uint8_t* tag) {
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag,
                                                         SrtpGcmSender::kTagLength),
                       OSSL_PARAM_construct_end()};
    return EVP_CIPHER_CTX_get_params(ctx, p) == 1;
}

// The IV and the expected tag in one call.
bool gcm_set_iv_and_tag(EVP_CIPHER_CTX* ctx, const uint8_t iv[12], uint8_t* tag) {
    OSSL_PARAM p[3] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag,
                                                         SrtpGcmSender::kTagLength),
                       whole_iv(iv), OSSL_PARAM_construct_end()};
    return EVP_CIPHER_CTX_set_params(ctx, p) == 1;
}

}  // namespace

bool SrtpGcmKey::seal(const uint8_t iv[12], const uint8_t* aad1, size_t aad1_len, const uint8_t* aad2,
                      size_t aad2_len, const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) {
    int n = 0;
    return gcm_set_iv(ctx_, iv) &&
           EVP_EncryptUpdate(ctx_, nullptr, &n, aad1, static_cast<int>(aad1_len)) == 1 &&
           (aad2_len == 0 || EVP_EncryptUpdate(ctx_, nullptr, &n, aad2, static_cast<int>(aad2_len)) == 1) &&
           (len == 0 || EVP_EncryptUpdate(ctx_, out, &n, in, static_cast<int>(len)) == 1) &&
           EVP_EncryptFinal_ex(ctx_, out + len, &n) == 1 &&
           gcm_get_tag(ctx_, tag);
}

bool SrtpGcmKey::open(const uint8_t iv[12], const uint8_t* aad1, size_t aad1_len, const uint8_t* aad2,
                      size_t aad2_len, uint8_t* data, size_t len, const uint8_t* tag) {
    int n = 0;
    uint8_t t[SrtpGcmSender::kTagLength];
    memcpy(t, tag, sizeof(t));  // OSSL_PARAM holds a non-const pointer
    return gcm_set_iv_and_tag(ctx_, iv, t) &&
           EVP_DecryptUpdate(ctx_, nullptr, &n, aad1, static_cast<int>(aad1_len)) == 1 &&
           (aad2_len == 0 || EVP_DecryptUpdate(ctx_, nullptr, &n, aad2, static_cast<int>(aad2_len)) == 1) &&
           (len == 0 || EVP_DecryptUpdate(ctx_, data, &n, data, static_cast<int>(len)) == 1) &&
           EVP_DecryptFinal_ex(ctx_, data + len, &n) == 1;  // fails on a tag mismatch
}

SrtpReplayWindow::SrtpReplayWindow(size_t size) : size_(size), bits_(new uint64_t[size / 64]()) {}

bool SrtpReplayWindow::bit(uint64_t index) const {
    uint64_t at = index % size_;
    return (bits_[at / 64] >> (at % 64)) & 1;
}

SrtpReplayWindow::Verdict SrtpReplayWindow::check(uint64_t index) const {
    if (index > highest_) return kNew;
    if (highest_ - index >= size_) return kTooOld;
    return bit(index) ? kReplay : kNew;
}

void SrtpReplayWindow::add(uint64_t index) {
    if (index > highest_) {
        // The slots of the indexes newly inside the window are free again.
        if (index - highest_ >= size_) {
            memset(bits_.get(), 0, size_ / 8);
        } else {
            for (uint64_t i = highest_ + 1; i <= index; i++) {
                uint64_t at = i % size_;
                bits_[at / 64] &= ~(uint64_t(1) << (at % 64));
            }
        }
        highest_ = index;
    }
    uint64_t at = index % size_;
    bits_[at / 64] |= uint64_t(1) << (at % 64);
}

SrtpGcmSender::~SrtpGcmSender() = default;

Error SrtpGcmSender::initialize(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt,
                                size_t salt_len) {
    if (rtp_.initialized()) return SRS_ERR(kErrorSrtpState, "GCM sender initialized twice");
    if (Error err = rtp_.initialize(master_key, key_len, master_salt, salt_len, 0x00, 0x02, true); err.failed()) {
        return err;
    }
    return rtcp_.initialize(master_key, key_len, master_salt, salt_len, 0x03, 0x05, true);
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
    return protect_rtp_from(buf, cap, buf, rtp_header_length(buf, len), len, out_len);
}

Error SrtpGcmSender::protect_rtp_from(uint8_t* dst, size_t cap, const uint8_t* src, size_t header, size_t len,
                                      size_t* out_len) {
    if (!rtp_.initialized()) return SRS_ERR(kErrorSrtpState, "GCM protect before initialize");
    size_t parsed = rtp_header_length(src, len);
    if (parsed == 0) return SRS_ERR(kErrorSrtpProtect, "RTP packet of %zu bytes does not parse", len);
    if (header != parsed) {
        return SRS_ERR(kErrorSrtpProtect, "RTP header given as %zu bytes, the packet's is %zu", header, parsed);
    }
    if (cap < len + kTagLength) {
        return SRS_ERR(kErrorSrtpBufferTooSmall, "RTP %zu bytes + tag needs %zu, buffer %zu", len, len + kTagLength,
                       cap);
    }
    // The header that goes out (dst's) is the one authenticated and numbered.
    uint32_t ssrc = load_be32(dst + 8);
    uint16_t seq = load_be16(dst + 2);
    bool ok = false;
    uint32_t roc = roc_for(ssrc, seq, &ok);
    if (!ok) return SRS_ERR(kErrorSrtpProtect, "more than %d SSRCs on one session", kMaxSsrcs);
    uint8_t iv[12];
    rtp_.make_iv(ssrc, roc, seq, iv);
    if (!rtp_.seal(iv, dst, header, nullptr, 0, src + header, dst + header, len - header, dst + len)) {
        return SRS_ERR(kErrorSrtpProtect, "AES-GCM encrypt failed");
    }
    *out_len = len + kTagLength;
    return Error();
}

Error SrtpGcmSender::protect_rtcp(uint8_t* buf, size_t len, size_t cap, size_t* out_len) {
    if (!rtcp_.initialized()) return SRS_ERR(kErrorSrtpState, "GCM protect before initialize");
    if (len < 8) return SRS_ERR(kErrorSrtpProtect, "RTCP packet of %zu bytes", len);
    if (cap < len + kTagLength + 4) {
        return SRS_ERR(kErrorSrtpBufferTooSmall, "RTCP %zu bytes + trailer needs %zu, buffer %zu", len,
                       len + kTagLength + 4, cap);
    }
    uint32_t ssrc = load_be32(buf + 4);
    RtcpState* s = nullptr;
    for (RtcpState& e : rtcp_ssrcs_) {
        if (e.used && e.ssrc == ssrc) {
            s = &e;
            break;
        }
    }
    for (size_t i = 0; !s && i < kMaxSsrcs; i++) {
        if (!rtcp_ssrcs_[i].used) {
            s = &rtcp_ssrcs_[i];
            s->used = true;
            s->ssrc = ssrc;
            s->index = 0;
        }
    }
    if (!s) return SRS_ERR(kErrorSrtpProtect, "more than %d RTCP SSRCs on one session", kMaxSsrcs);
    if (s->index >= 0x7fffffff) return SRS_ERR(kErrorSrtpProtect, "SRTCP index exhausted for SSRC %08x", ssrc);
    uint32_t index = s->index + 1;  // libsrtp's first index is 1
    uint8_t trailer[4];
    store_be32(trailer, 0x80000000u | index);  // E=1: encrypted
    uint8_t iv[12];
    rtcp_.make_iv(ssrc, index >> 16, static_cast<uint16_t>(index), iv);
    if (!rtcp_.seal(iv, buf, 8, trailer, 4, buf + 8, buf + 8, len - 8, buf + len)) {
        return SRS_ERR(kErrorSrtpProtect, "AES-GCM encrypt failed");
    }
    memcpy(buf + len + kTagLength, trailer, 4);
    s->index = index;
    *out_len = len + kTagLength + 4;
    return Error();
}

Error SrtpGcmReceiver::initialize(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt,
                                  size_t salt_len) {
    if (rtp_.initialized()) return SRS_ERR(kErrorSrtpState, "GCM receiver initialized twice");
    if (rtp_window_ == 0 || rtp_window_ % 64 != 0) {
        return SRS_ERR(kErrorSrtpInit, "replay window of %zu packets", rtp_window_);
    }
    if (Error err = rtp_.initialize(master_key, key_len, master_salt, salt_len, 0x00, 0x02, false); err.failed()) {
        return err;
    }
    return rtcp_.initialize(master_key, key_len, master_salt, salt_len, 0x03, 0x05, false);
}

SrtpGcmReceiver::Stream* SrtpGcmReceiver::find(std::vector<Stream>& v, uint32_t ssrc) {
    for (Stream& s : v) {
        if (s.ssrc == ssrc) return &s;
    }
    return nullptr;
}

namespace {

const char* verdict_name(SrtpReplayWindow::Verdict v) {
    return v == SrtpReplayWindow::kTooOld ? "srtp_err_status_replay_old" : "srtp_err_status_replay_fail";
}

// RFC 3711 3.3.1: the index of `seq` given the highest index authenticated,
// starting (as libsrtp) with ROC 0 while the highest index is in the first half.
uint64_t estimate_index(uint64_t highest, uint16_t seq) {
    constexpr uint32_t kMedian = 1u << 15;
    if (highest <= kMedian) return seq;
    uint32_t roc = static_cast<uint32_t>(highest >> 16);
    uint32_t local = static_cast<uint32_t>(highest & 0xffff);
    uint32_t guess = roc;
    if (local < kMedian) {
        if (seq > local && seq - local > kMedian) guess = roc - 1;
    } else {
        if (local - kMedian > seq) guess = roc + 1;
    }
    return (static_cast<uint64_t>(guess) << 16) | seq;
}

}  // namespace

Error SrtpGcmReceiver::unprotect_rtp(uint8_t* buf, size_t len, size_t* out_len) {
    if (!rtp_.initialized()) return SRS_ERR(kErrorSrtpState, "GCM unprotect before initialize");
    size_t header = rtp_header_length(buf, len);
    if (header == 0) return SRS_ERR(kErrorSrtpUnprotect, "SRTP packet of %zu bytes does not parse", len);
    if (len - header < SrtpGcmSender::kTagLength) {
        return SRS_ERR(kErrorSrtpUnprotect, "SRTP packet of %zu bytes: no room for the tag", len);
    }
    uint32_t ssrc = load_be32(buf + 8);
    uint16_t seq = load_be16(buf + 2);
    Stream* s = find(rtp_streams_, ssrc);
    uint64_t index = s ? estimate_index(s->replay.highest(), seq) : seq;
    if (s) {
        SrtpReplayWindow::Verdict v = s->replay.check(index);
        if (v != SrtpReplayWindow::kNew) {
            return SRS_ERR(kErrorSrtpUnprotect, "SSRC %08x seq %u: %s", ssrc, seq, verdict_name(v));
        }
    } else if (rtp_streams_.size() >= kMaxSsrcs) {
        return SRS_ERR(kErrorSrtpUnprotect, "more than %zu inbound SSRCs", kMaxSsrcs);
    }
    size_t payload = len - header - SrtpGcmSender::kTagLength;
    uint8_t iv[12];
    rtp_.make_iv(ssrc, static_cast<uint32_t>(index >> 16), seq, iv);
    if (!rtp_.open(iv, buf, header, nullptr, 0, buf + header, payload, buf + header + payload)) {
        return SRS_ERR(kErrorSrtpUnprotect, "SSRC %08x seq %u: srtp_err_status_auth_fail", ssrc, seq);
    }
    if (!s) {
        // Only authenticated SSRCs get a window: forged ones cost nothing.
        rtp_streams_.emplace_back(ssrc, rtp_window_);
        s = &rtp_streams_.back();
    }
    s->replay.add(index);
    *out_len = header + payload;
    return Error();
}

Error SrtpGcmReceiver::unprotect_rtcp(uint8_t* buf, size_t len, size_t* out_len) {
    if (!rtcp_.initialized()) return SRS_ERR(kErrorSrtpState, "GCM unprotect before initialize");
    if (len < 8 + SrtpGcmSender::kTagLength + 4) {
        return SRS_ERR(kErrorSrtpUnprotect, "SRTCP packet of %zu bytes", len);
    }
    uint32_t ssrc = load_be32(buf + 4);
    const uint8_t* trailer = buf + len - 4;
    uint32_t word = load_be32(trailer);
    bool encrypted = (word & 0x80000000u) != 0;
    uint32_t index = word & 0x7fffffff;
    Stream* s = find(rtcp_streams_, ssrc);
    if (s) {
        SrtpReplayWindow::Verdict v = s->replay.check(index);
        if (v != SrtpReplayWindow::kNew) {
            return SRS_ERR(kErrorSrtpUnprotect, "RTCP SSRC %08x index %u: %s", ssrc, index, verdict_name(v));
        }
    } else if (rtcp_streams_.size() >= kMaxSsrcs) {
        return SRS_ERR(kErrorSrtpUnprotect, "more than %zu inbound RTCP SSRCs", kMaxSsrcs);
    }
    size_t body = len - 4 - SrtpGcmSender::kTagLength;  // the header and what follows, before the tag
    uint8_t* tag = buf + body;
    uint8_t iv[12];
    rtcp_.make_iv(ssrc, index >> 16, static_cast<uint16_t>(index), iv);
    // E=0 (RFC 7714 9.3): nothing encrypted, the whole packet is authenticated.
    bool ok = encrypted ? rtcp_.open(iv, buf, 8, trailer, 4, buf + 8, body - 8, tag)
                        : rtcp_.open(iv, buf, body, trailer, 4, buf + body, 0, tag);
    if (!ok) return SRS_ERR(kErrorSrtpUnprotect, "RTCP SSRC %08x index %u: srtp_err_status_auth_fail", ssrc, index);
    if (!s) {
        rtcp_streams_.emplace_back(ssrc, kRtcpWindow);
        s = &rtcp_streams_.back();
    }
    s->replay.add(index);
    *out_len = body;
    return Error();
}

}  // namespace srs
