// SRTP and SRTCP (RFC 3711, RFC 7714 for AES-GCM) keyed by the outcome of a
// DTLS-SRTP handshake (RFC 5764): AES-CM-80 on libsrtp2, AEAD_AES_128_GCM on
// OpenSSL (srtp_gcm.hpp) with no libsrtp context at all.
//
// One SrtpSession per peer: an outbound context for what we send (any SSRC,
// retransmissions of the same sequence number allowed, so a NACK answer can
// resend a packet as it was) and an inbound context for what the peer sends
// (any SSRC, replay window). Packets are processed in place in a buffer the
// caller owns: protect needs room after the packet for the trailer
// (srtp_rtp_trailer / srtp_rtcp_trailer bytes) and never writes past `cap`.
// Nothing is allocated per packet (libsrtp allocates once per new SSRC).
//
// Call srtp_library_init() once before the first session (idempotent).
// Not thread-safe; the server uses it from its one thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "protocol/rtc/srtp_gcm.hpp"

struct srtp_ctx_t_;  // libsrtp's session (srtp_t), kept out of this header

namespace srs {

// The DTLS-SRTP protection profiles the server negotiates.
enum class SrtpProfile {
    kAes128CmSha1_80,  // SRTP_AES128_CM_HMAC_SHA1_80, RFC 5764 id 0x0001
    kAeadAes128Gcm,    // SRTP_AEAD_AES_128_GCM, RFC 7714 id 0x0007
};

// Master key and salt lengths: 16 + 14 for AES-CM, 16 + 12 for AES-GCM.
size_t srtp_key_length(SrtpProfile profile);
size_t srtp_salt_length(SrtpProfile profile);
// Bytes protect adds: the auth tag (10 for AES-CM-80, 16 for GCM); SRTCP
// adds 4 more (E flag and index).
size_t srtp_rtp_trailer(SrtpProfile profile);
size_t srtp_rtcp_trailer(SrtpProfile profile);
// The name OpenSSL uses for the profile (SSL_get_selected_srtp_profile()->name).
const char* srtp_profile_name(SrtpProfile profile);
// The profile for an RFC 5764 / RFC 7714 id (SRTP_PROTECTION_PROFILE::id):
// kErrorSrtpProfile for others.
Error srtp_profile_from_id(unsigned long id, SrtpProfile* profile);

// The largest trailer of any profile: size per-packet buffers with it.
constexpr size_t kSrtpMaxTrailer = 16 + 4;

// srtp_init(), once per process; later calls do nothing.
Error srtp_library_init();

// The keys of one side (local or remote) as two spans into memory the caller
// owns; only read during SrtpSession::initialize.
struct SrtpKeys {
    const uint8_t* key = nullptr;
    size_t key_len = 0;
    const uint8_t* salt = nullptr;
    size_t salt_len = 0;
};

// Splits the exporter output of RFC 5764 section 4.2 (label
// "EXTRACTOR-dtls_srtp", 2 * (key + salt) bytes laid out client key, server
// key, client salt, server salt) into the local and remote keys of the side
// that is (is_client) or is not the DTLS client. The spans point into
// `material`. kErrorSrtpKeyLength if len is not 2 * (key + salt).
Error srtp_split_keying_material(SrtpProfile profile, const uint8_t* material, size_t len, bool is_client,
                                 SrtpKeys* local, SrtpKeys* remote);

class SrtpSession {
  public:
    // Replay window of the inbound context, in packets per SSRC: reordering
    // and late retransmissions within it are accepted, once each. 1 KB of
    // bitmap per inbound SSRC; about 4 s of a 2000 packet/s video stream.
    static constexpr unsigned long kReplayWindow = 8192;

    SrtpSession() = default;
    ~SrtpSession();
    SrtpSession(const SrtpSession&) = delete;
    SrtpSession& operator=(const SrtpSession&) = delete;

    // Creates both contexts. Key and salt lengths must match the profile
    // (kErrorSrtpKeyLength); calling it twice is kErrorSrtpState. Needs
    // srtp_library_init(). libsrtp keeps only the keys it derives.
    Error initialize(SrtpProfile profile, const SrtpKeys& local, const SrtpKeys& remote);

    // RTP: buf holds a packet of len bytes and has room for cap bytes; on
    // success buf holds the SRTP packet of *out_len bytes (len + trailer).
    // cap < len + srtp_rtp_trailer() is kErrorSrtpBufferTooSmall, nothing written.
    Error protect_rtp(uint8_t* buf, size_t len, size_t cap, size_t* out_len);
    // The same out of place: dst[0, header) holds the header as it goes out
    // (src's, payload type or sequence number changed), src[header, len) is
    // the payload, only read (with GCM it is encrypted straight into dst;
    // libsrtp's profiles copy it first).
    Error protect_rtp_from(uint8_t* dst, size_t cap, const uint8_t* src, size_t header, size_t len,
                           size_t* out_len);
    // SRTP in, RTP out in place (*out_len <= len). Altered bytes fail with
    // kErrorSrtpUnprotect (status srtp_err_status_auth_fail), a replay with
    // srtp_err_status_replay_fail or _replay_old in the message.
    Error unprotect_rtp(uint8_t* buf, size_t len, size_t* out_len);
    // The same for RTCP (compound packets as one unit).
    Error protect_rtcp(uint8_t* buf, size_t len, size_t cap, size_t* out_len);
    Error unprotect_rtcp(uint8_t* buf, size_t len, size_t* out_len);

    bool initialized() const { return send_ != nullptr || gcm_; }
    // The GCM sender's state ahead of a protect (SrtpGcmSender::prefetch_state,
    // then prefetch_key; nothing of libsrtp's AES-CM). The first reads no
    // member, so that asking costs no wait on a cold line.
    void prefetch_send_state() const {
        __builtin_prefetch(&gcm_);
        gcm_send_.prefetch_state();
    }
    void prefetch_send_key() const {
        if (gcm_) gcm_send_.prefetch_key();
    }
    SrtpProfile profile() const { return profile_; }

    // With AEAD_AES_128_GCM, everything is done by SrtpGcmSender and
    // SrtpGcmReceiver (OpenSSL) unless this is called before initialize(),
    // which makes the session use libsrtp for all four operations: the same
    // bytes, a fraction of the cost and memory of Debian's NSS-based libsrtp.
    // Tests compare the two.
    void protect_rtp_with_libsrtp() { libsrtp_rtp_ = true; }

  private:
    SrtpProfile profile_ = SrtpProfile::kAes128CmSha1_80;
    srtp_ctx_t_* send_ = nullptr;  // libsrtp outbound: ssrc_any_outbound, local keys
    srtp_ctx_t_* recv_ = nullptr;  // libsrtp inbound: ssrc_any_inbound, remote keys
    bool libsrtp_rtp_ = false;
    bool gcm_ = false;                         // both GCM objects are ready
    SrtpGcmSender gcm_send_;                   // GCM: local keys (instead of send_)
    SrtpGcmReceiver gcm_recv_{kReplayWindow};  // GCM: remote keys (instead of recv_)
};

// libsrtp's name for a srtp_err_status_t value ("srtp_err_status_auth_fail").
const char* srtp_status_name(int status);

}  // namespace srs
