// SRTP and SRTCP with AEAD_AES_128_GCM (RFC 7714) on OpenSSL's AES-GCM: the
// whole GCM profile of an SrtpSession without any libsrtp context.
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
//   SRTCP (RFC 7714 9): keys with labels 0x03 (key) and 0x05 (salt);
//   IV  = (00 00 || SSRC || 00 00 || 0 || index31) XOR session salt
//   AAD = first 8 octets || E||index; out = 8 octets || GCM(rest) || tag || E||index
//
// The sender keeps the rollover counter per SSRC from the sequence numbers sent
// (a retransmission of an older number uses the ROC of its time) and the SRTCP
// index per sender SSRC (1, 2, ... as libsrtp). Its output is byte for byte what
// libsrtp's protect gives (tested). The receiver estimates the ROC per SSRC from
// the highest index authenticated (RFC 3711 3.3.1, with libsrtp's start at
// index 0), checks the tag, and accepts each index once within a replay window
// per SSRC (allocated once per SSRC, after the first packet authenticates).
// Nothing is allocated per packet. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.hpp"

struct evp_cipher_ctx_st;

namespace srs {

// One AES-128-GCM session key with its 12-byte salt, derived for one use
// (RTP or RTCP) and one direction.
class SrtpGcmKey {
  public:
    SrtpGcmKey() = default;
    ~SrtpGcmKey();
    SrtpGcmKey(const SrtpGcmKey&) = delete;
    SrtpGcmKey& operator=(const SrtpGcmKey&) = delete;

    // Derives key (label_key) and salt (label_salt) from the master key and
    // salt; `encrypt` picks the direction of the OpenSSL context.
    Error initialize(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt, size_t salt_len,
                     uint8_t label_key, uint8_t label_salt, bool encrypt);
    bool initialized() const { return ctx_ != nullptr; }
    // Asks the CPU for the OpenSSL context's first line (see SrtpGcmSender::prefetch_state).
    void prefetch() const { __builtin_prefetch(ctx_); }
    // iv = (00 00 || a(4) || b(4) || c(2)) XOR salt.
    void make_iv(uint32_t a, uint32_t b, uint16_t c, uint8_t iv[12]) const;
    // Encrypts in[0, len) into out[0, len) (in == out: in place), or decrypts
    // and verifies data[0, len) in place, with aad1 and aad2 as additional
    // data; the tag is written to (or read from) tag.
    bool seal(const uint8_t iv[12], const uint8_t* aad1, size_t aad1_len, const uint8_t* aad2, size_t aad2_len,
              const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag);
    bool open(const uint8_t iv[12], const uint8_t* aad1, size_t aad1_len, const uint8_t* aad2, size_t aad2_len,
              uint8_t* data, size_t len, const uint8_t* tag);

  private:
    evp_cipher_ctx_st* ctx_ = nullptr;
    uint8_t salt_[12] = {};
};

// A sliding replay window over 64-bit indexes (RFC 3711 3.3.2): the highest
// index seen and one bit for each of the `size` indexes up to it. Starts at
// index 0 with nothing seen, as libsrtp's.
class SrtpReplayWindow {
  public:
    enum Verdict { kNew, kReplay, kTooOld };
    explicit SrtpReplayWindow(size_t size);  // size: a multiple of 64
    Verdict check(uint64_t index) const;
    void add(uint64_t index);  // after check() said kNew and the packet authenticated
    uint64_t highest() const { return highest_; }

  private:
    bool bit(uint64_t index) const;
    size_t size_;
    uint64_t highest_ = 0;
    std::unique_ptr<uint64_t[]> bits_;
};

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
    bool initialized() const { return rtp_.initialized(); }
    // A fan-out protects one packet for each of many senders in turn, and
    // each sender's state is cold by then: these ask for it ahead (the SSRC
    // states and the key, then the key's OpenSSL context once that is in).
    void prefetch_state() const {
        __builtin_prefetch(&ssrcs_[0]);
        __builtin_prefetch(&rtp_);
    }
    void prefetch_key() const { rtp_.prefetch(); }

    // buf[0, len) is an RTP packet (a parsable header), cap the room; on
    // success buf[0, *out_len) is the SRTP packet (len + 16).
    // kErrorSrtpBufferTooSmall, kErrorSrtpProtect (a header that does not parse,
    // more SSRCs than kMaxSsrcs, OpenSSL failing).
    Error protect_rtp(uint8_t* buf, size_t len, size_t cap, size_t* out_len);
    // Out of place, for a packet shared by many sessions: src[0, len) is the
    // RTP packet, dst[0, header) the header as it goes out (a copy of src's,
    // payload type or sequence number changed, header = src's header length,
    // else kErrorSrtpProtect); the encrypted payload and the tag are written
    // after it (dst[0, *out_len), len + 16). src is only read.
    Error protect_rtp_from(uint8_t* dst, size_t cap, const uint8_t* src, size_t header, size_t len,
                           size_t* out_len);
    // buf[0, len) is an RTCP compound packet (len >= 8); on success
    // buf[0, *out_len) is the SRTCP packet (len + 16 + 4), index per sender SSRC.
    Error protect_rtcp(uint8_t* buf, size_t len, size_t cap, size_t* out_len);

  private:
    struct SsrcState {
        uint32_t ssrc = 0;
        uint16_t highest = 0;
        uint32_t roc = 0;
        bool used = false;
    };
    struct RtcpState {
        uint32_t ssrc = 0;
        uint32_t index = 0;  // the last one sent
        bool used = false;
    };
    uint32_t roc_for(uint32_t ssrc, uint16_t seq, bool* ok);

    SrtpGcmKey rtp_;
    SrtpGcmKey rtcp_;
    SsrcState ssrcs_[kMaxSsrcs];
    RtcpState rtcp_ssrcs_[kMaxSsrcs];
};

class SrtpGcmReceiver {
  public:
    static constexpr size_t kMaxSsrcs = 32;       // SSRCs a peer sends (with simulcast and RTX)
    static constexpr size_t kRtcpWindow = 128;    // SRTCP replay window, as libsrtp's

    // rtp_window: the SRTP replay window in packets (a multiple of 64).
    explicit SrtpGcmReceiver(size_t rtp_window) : rtp_window_(rtp_window) {}
    ~SrtpGcmReceiver() = default;
    SrtpGcmReceiver(const SrtpGcmReceiver&) = delete;
    SrtpGcmReceiver& operator=(const SrtpGcmReceiver&) = delete;

    Error initialize(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt, size_t salt_len);
    bool initialized() const { return rtp_.initialized(); }

    // SRTP / SRTCP in, RTP / RTCP out in place (*out_len < len).
    // kErrorSrtpUnprotect with "srtp_err_status_auth_fail" (bad tag: altered
    // or wrong key), "srtp_err_status_replay_fail" (seen),
    // "srtp_err_status_replay_old" (before the window), or a malformed packet.
    Error unprotect_rtp(uint8_t* buf, size_t len, size_t* out_len);
    Error unprotect_rtcp(uint8_t* buf, size_t len, size_t* out_len);

  private:
    struct Stream {
        Stream(uint32_t s, size_t window) : ssrc(s), replay(window) {}
        uint32_t ssrc;
        SrtpReplayWindow replay;
    };
    static Stream* find(std::vector<Stream>& v, uint32_t ssrc);

    size_t rtp_window_;
    SrtpGcmKey rtp_;
    SrtpGcmKey rtcp_;
    std::vector<Stream> rtp_streams_;
    std::vector<Stream> rtcp_streams_;
};

// The RFC 3711 AES-CM PRF with index DIV kdr = 0: `out_len` bytes of keying
// material for `label` (0x00 RTP cipher key, 0x01 RTP auth key, 0x02 RTP salt,
// 0x03..0x05 the RTCP ones). master_salt is 14 bytes (AES-CM) or 12 (GCM: taken
// times 2^16, i.e. zero-padded). Exposed for tests (RFC 3711 B.3 vectors).
Error srtp_kdf_aes_cm(const uint8_t* master_key, size_t key_len, const uint8_t* master_salt, size_t salt_len,
                      uint8_t label, uint8_t* out, size_t out_len);

}  // namespace srs
