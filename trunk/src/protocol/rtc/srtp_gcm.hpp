// SRTP protection of RTP with AEAD_AES_128_GCM (RFC 7714) on OpenSSL's
// AES-GCM, for the fan-out path: the one SRTP operation per packet per player.
//
// Debian's libsrtp2 is built on NSS, whose PKCS#11 layer takes locks and
// allocates on every packet; a profile of 200 WebRTC players showed about 40%
// of the server's CPU there. This class does the same computation directly:
//
//   session key  = AES-CM PRF(master key, master salt * 2^16 XOR label 0x00)   (RFC 3711 4.3.1,
//   session salt = AES-CM PRF(master key, master salt * 2^16 XOR label 0x02)    RFC 7714 11 + errata 4938)
//   IV  = (00 00 || SSRC || ROC || SEQ) XOR session salt                        (RFC 7714 8.1)
//   out = RTP header (as AAD, unchanged) || GCM(payload) || 16-byte tag          (RFC 7714 7.1)
//
// The rollover counter is kept per SSRC from the sequence numbers sent (a
// retransmission of an older number uses the ROC of its time). Its output is
// byte for byte what libsrtp's protect gives (tested), so any receiver takes it.
// Nothing is allocated per packet. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"

struct evp_cipher_ctx_st;

namespace srs {

class SrtpGcmSender {
  public:
    static constexpr size_t kKeyLength = 16;
    static constexpr size_t kSaltLength = 12;
    static constexpr size_t kTagLength = 16;
    static constexpr int kMaxSsrcs = 8;  // SSRCs a session sends (audio, video, their RTX...)

    SrtpGcmSender() = default;
    ~SrtpGcmSender();
    SrtpGcmSender(const SrtpGcmSender&) = delete;
    SrtpGcmSender& operator=(const SrtpGcmSender&) = delete;

    // Derives the session key and salt from the master key (16) and salt (12).
    Error initialize(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt, size_t salt_len);
    bool initialized() const { return ctx_ != nullptr; }

    // buf[0, len) is an RTP packet (a parsable header), cap the room; on
    // success buf[0, *out_len) is the SRTP packet (len + 16).
    // kErrorSrtpBufferTooSmall, kErrorSrtpProtect (a header that does not parse,
    // more SSRCs than kMaxSsrcs, OpenSSL failing).
    Error protect_rtp(uint8_t* buf, size_t len, size_t cap, size_t* out_len);

  private:
    struct SsrcState {
        uint32_t ssrc = 0;
        uint16_t highest = 0;
        uint32_t roc = 0;
        bool used = false;
    };
    uint32_t roc_for(uint32_t ssrc, uint16_t seq, bool* ok);

    evp_cipher_ctx_st* ctx_ = nullptr;
    uint8_t salt_[kSaltLength] = {};
    SsrcState ssrcs_[kMaxSsrcs];
};

// The RFC 3711 AES-CM PRF with index DIV kdr = 0: `out_len` bytes of keying
// material for `label` (0x00 RTP cipher key, 0x01 RTP auth key, 0x02 RTP salt,
// 0x03..0x05 the RTCP ones). master_salt is 14 bytes (AES-CM) or 12 (GCM: taken
// times 2^16, i.e. zero-padded). Exposed for tests (RFC 3711 B.3 vectors).
Error srtp_kdf_aes_cm(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt, size_t salt_len,
                      uint8_t label, uint8_t* out, size_t out_len);

}  // namespace srs
