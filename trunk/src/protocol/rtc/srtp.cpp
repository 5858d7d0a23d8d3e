// SRTP/SRTCP contexts on libsrtp2; see srtp.hpp.
#include "protocol/rtc/srtp.hpp"

#include <srtp2/srtp.h>

#include <climits>
#include <cstring>

namespace srs {

namespace {

constexpr size_t kRtpMinHeader = 12;  // RFC 3550 fixed header
constexpr size_t kRtcpMinHeader = 8;  // common header + sender SSRC

// Lengths of the largest key and salt of any profile, for the key||salt
// buffer libsrtp reads.
constexpr size_t kMaxKeyAndSalt = 16 + 14;

bool g_srtp_initialized = false;

// Fills a policy for one direction. `key_salt` must hold key || salt.
void fill_policy(SrtpProfile profile, srtp_ssrc_type_t direction, unsigned char* key_salt,
                 srtp_policy_t* policy) {
    memset(policy, 0, sizeof(*policy));
    if (profile == SrtpProfile::kAeadAes128Gcm) {
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy->rtp);
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy->rtcp);
    } else {
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy->rtp);
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy->rtcp);
    }
    policy->ssrc.type = direction;
    policy->ssrc.value = 0;
    policy->key = key_salt;
    policy->next = nullptr;
    if (direction == ssrc_any_outbound) {
        // A NACK answer resends the stored packet with its sequence number.
        policy->allow_repeat_tx = 1;
        policy->window_size = 0;  // libsrtp's default; not used for sending
    } else {
        policy->allow_repeat_tx = 0;
        policy->window_size = SrtpSession::kReplayWindow;
    }
}

Error check_keys(SrtpProfile profile, const SrtpKeys& k, const char* side) {
    if (!k.key || k.key_len != srtp_key_length(profile) || !k.salt || k.salt_len != srtp_salt_length(profile)) {
        return SRS_ERR(kErrorSrtpKeyLength, "%s key %zu bytes, salt %zu bytes; %s needs %zu and %zu", side,
                       k.key_len, k.salt_len, srtp_profile_name(profile), srtp_key_length(profile),
                       srtp_salt_length(profile));
    }
    return Error();
}

Error create_context(SrtpProfile profile, srtp_ssrc_type_t direction, const SrtpKeys& k, srtp_t* out) {
    unsigned char key_salt[kMaxKeyAndSalt];
    memcpy(key_salt, k.key, k.key_len);
    memcpy(key_salt + k.key_len, k.salt, k.salt_len);
    srtp_policy_t policy;
    fill_policy(profile, direction, key_salt, &policy);
    srtp_err_status_t r = srtp_create(out, &policy);
    // libsrtp has derived its session keys; do not leave the master key on the stack.
    volatile unsigned char* p = key_salt;
    for (size_t i = 0; i < sizeof(key_salt); i++) p[i] = 0;
    if (r != srtp_err_status_ok) {
        *out = nullptr;
        return SRS_ERR(kErrorSrtpCreate, "srtp_create %s %s: %s",
                       direction == ssrc_any_outbound ? "outbound" : "inbound", srtp_profile_name(profile),
                       srtp_status_name(r));
    }
    return Error();
}

}  // namespace

size_t srtp_key_length(SrtpProfile) {
    return SRTP_AES_128_KEY_LEN;
}

size_t srtp_salt_length(SrtpProfile profile) {
    return profile == SrtpProfile::kAeadAes128Gcm ? SRTP_AEAD_SALT_LEN : SRTP_SALT_LEN;
}

size_t srtp_rtp_trailer(SrtpProfile profile) {
    return profile == SrtpProfile::kAeadAes128Gcm ? 16 : 10;
}

size_t srtp_rtcp_trailer(SrtpProfile profile) {
    return srtp_rtp_trailer(profile) + 4;
}

const char* srtp_profile_name(SrtpProfile profile) {
    return profile == SrtpProfile::kAeadAes128Gcm ? "SRTP_AEAD_AES_128_GCM" : "SRTP_AES128_CM_SHA1_80";
}

Error srtp_profile_from_id(unsigned long id, SrtpProfile* profile) {
    if (id == 0x0001) {
        *profile = SrtpProfile::kAes128CmSha1_80;
        return Error();
    }
    if (id == 0x0007) {
        *profile = SrtpProfile::kAeadAes128Gcm;
        return Error();
    }
    return SRS_ERR(kErrorSrtpProfile, "DTLS-SRTP profile 0x%04lx is not used", id);
}

const char* srtp_status_name(int status) {
    switch (status) {
    case srtp_err_status_ok: return "srtp_err_status_ok";
    case srtp_err_status_fail: return "srtp_err_status_fail";
    case srtp_err_status_bad_param: return "srtp_err_status_bad_param";
    case srtp_err_status_alloc_fail: return "srtp_err_status_alloc_fail";
    case srtp_err_status_dealloc_fail: return "srtp_err_status_dealloc_fail";
    case srtp_err_status_init_fail: return "srtp_err_status_init_fail";
    case srtp_err_status_terminus: return "srtp_err_status_terminus";
    case srtp_err_status_auth_fail: return "srtp_err_status_auth_fail";
    case srtp_err_status_cipher_fail: return "srtp_err_status_cipher_fail";
    case srtp_err_status_replay_fail: return "srtp_err_status_replay_fail";
    case srtp_err_status_replay_old: return "srtp_err_status_replay_old";
    case srtp_err_status_algo_fail: return "srtp_err_status_algo_fail";
    case srtp_err_status_no_such_op: return "srtp_err_status_no_such_op";
    case srtp_err_status_no_ctx: return "srtp_err_status_no_ctx";
    case srtp_err_status_cant_check: return "srtp_err_status_cant_check";
    case srtp_err_status_key_expired: return "srtp_err_status_key_expired";
    case srtp_err_status_socket_err: return "srtp_err_status_socket_err";
    case srtp_err_status_signal_err: return "srtp_err_status_signal_err";
    case srtp_err_status_nonce_bad: return "srtp_err_status_nonce_bad";
    case srtp_err_status_read_fail: return "srtp_err_status_read_fail";
    case srtp_err_status_write_fail: return "srtp_err_status_write_fail";
    case srtp_err_status_parse_err: return "srtp_err_status_parse_err";
    case srtp_err_status_encode_err: return "srtp_err_status_encode_err";
    case srtp_err_status_semaphore_err: return "srtp_err_status_semaphore_err";
    case srtp_err_status_pfkey_err: return "srtp_err_status_pfkey_err";
    case srtp_err_status_bad_mki: return "srtp_err_status_bad_mki";
    case srtp_err_status_pkt_idx_old: return "srtp_err_status_pkt_idx_old";
    case srtp_err_status_pkt_idx_adv: return "srtp_err_status_pkt_idx_adv";
    default: return "srtp_err_status_unknown";
    }
}

Error srtp_library_init() {
    if (g_srtp_initialized) return Error();
    srtp_err_status_t r = srtp_init();
    if (r != srtp_err_status_ok) return SRS_ERR(kErrorSrtpInit, "srtp_init: %s", srtp_status_name(r));
    g_srtp_initialized = true;
    return Error();
}

Error srtp_split_keying_material(SrtpProfile profile, const uint8_t* material, size_t len, bool is_client,
                                 SrtpKeys* local, SrtpKeys* remote) {
    size_t k = srtp_key_length(profile);
    size_t s = srtp_salt_length(profile);
    if (!material || len != 2 * (k + s)) {
        return SRS_ERR(kErrorSrtpKeyLength, "keying material %zu bytes; %s needs %zu", len,
                       srtp_profile_name(profile), 2 * (k + s));
    }
    SrtpKeys client{material, k, material + 2 * k, s};
    SrtpKeys server{material + k, k, material + 2 * k + s, s};
    *local = is_client ? client : server;
    *remote = is_client ? server : client;
    return Error();
}

SrtpSession::~SrtpSession() {
    if (send_) srtp_dealloc(send_);
    if (recv_) srtp_dealloc(recv_);
}

Error SrtpSession::initialize(SrtpProfile profile, const SrtpKeys& local, const SrtpKeys& remote) {
    if (initialized()) return SRS_ERR(kErrorSrtpState, "SRTP session initialized twice");
    if (!g_srtp_initialized) return SRS_ERR(kErrorSrtpState, "srtp_library_init() not called");
    if (Error err = check_keys(profile, local, "local"); err.failed()) return err;
    if (Error err = check_keys(profile, remote, "remote"); err.failed()) return err;
    if (profile == SrtpProfile::kAeadAes128Gcm && !libsrtp_rtp_) {
        // OpenSSL only. Keys were checked above: a failure here is OpenSSL's,
        // and leaves the session unusable (initialized() stays false).
        if (Error err = gcm_send_.initialize(local.key, local.key_len, local.salt, local.salt_len); err.failed()) {
            return err;
        }
        if (Error err = gcm_recv_.initialize(remote.key, remote.key_len, remote.salt, remote.salt_len);
            err.failed()) {
            return err;
        }
        profile_ = profile;
        gcm_ = true;
        return Error();
    }
    srtp_t send = nullptr;
    srtp_t recv = nullptr;
    if (Error err = create_context(profile, ssrc_any_outbound, local, &send); err.failed()) return err;
    if (Error err = create_context(profile, ssrc_any_inbound, remote, &recv); err.failed()) {
        srtp_dealloc(send);
        return err;
    }
    profile_ = profile;
    send_ = send;
    recv_ = recv;
    return Error();
}

Error SrtpSession::protect_rtp(uint8_t* buf, size_t len, size_t cap, size_t* out_len) {
    if (!initialized()) return SRS_ERR(kErrorSrtpState, "protect RTP before initialize");
    if (len < kRtpMinHeader) return SRS_ERR(kErrorSrtpProtect, "RTP packet of %zu bytes", len);
    size_t need = len + srtp_rtp_trailer(profile_);
    if (cap < need || need > INT_MAX) {
        return SRS_ERR(kErrorSrtpBufferTooSmall, "RTP %zu bytes + trailer needs %zu, buffer %zu", len, need, cap);
    }
    if (gcm_) return gcm_send_.protect_rtp(buf, len, cap, out_len);
    int n = static_cast<int>(len);
    srtp_err_status_t r = srtp_protect(send_, buf, &n);
    if (r != srtp_err_status_ok) return SRS_ERR(kErrorSrtpProtect, "srtp_protect: %s", srtp_status_name(r));
    *out_len = static_cast<size_t>(n);
    return Error();
}

Error SrtpSession::protect_rtp_from(uint8_t* dst, size_t cap, const uint8_t* src, size_t header, size_t len,
                                    size_t* out_len) {
    if (!initialized()) return SRS_ERR(kErrorSrtpState, "protect RTP before initialize");
    if (len < kRtpMinHeader || header < kRtpMinHeader || header > len) {
        return SRS_ERR(kErrorSrtpProtect, "RTP packet of %zu bytes, header %zu", len, header);
    }
    size_t need = len + srtp_rtp_trailer(profile_);
    if (cap < need || need > INT_MAX) {
        return SRS_ERR(kErrorSrtpBufferTooSmall, "RTP %zu bytes + trailer needs %zu, buffer %zu", len, need, cap);
    }
    if (gcm_) return gcm_send_.protect_rtp_from(dst, cap, src, header, len, out_len);
    // libsrtp encrypts in place only: the payload is copied first.
    if (dst != src) memcpy(dst + header, src + header, len - header);
    return protect_rtp(dst, len, cap, out_len);
}

Error SrtpSession::unprotect_rtp(uint8_t* buf, size_t len, size_t* out_len) {
    if (!initialized()) return SRS_ERR(kErrorSrtpState, "unprotect RTP before initialize");
    if (len < kRtpMinHeader || len > INT_MAX) return SRS_ERR(kErrorSrtpUnprotect, "SRTP packet of %zu bytes", len);
    if (gcm_) return gcm_recv_.unprotect_rtp(buf, len, out_len);
    int n = static_cast<int>(len);
    srtp_err_status_t r = srtp_unprotect(recv_, buf, &n);
    if (r != srtp_err_status_ok) return SRS_ERR(kErrorSrtpUnprotect, "srtp_unprotect: %s", srtp_status_name(r));
    *out_len = static_cast<size_t>(n);
    return Error();
}

Error SrtpSession::protect_rtcp(uint8_t* buf, size_t len, size_t cap, size_t* out_len) {
    if (!initialized()) return SRS_ERR(kErrorSrtpState, "protect RTCP before initialize");
    if (len < kRtcpMinHeader) return SRS_ERR(kErrorSrtpProtect, "RTCP packet of %zu bytes", len);
    size_t need = len + srtp_rtcp_trailer(profile_);
    if (cap < need || need > INT_MAX) {
        return SRS_ERR(kErrorSrtpBufferTooSmall, "RTCP %zu bytes + trailer needs %zu, buffer %zu", len, need, cap);
    }
    if (gcm_) return gcm_send_.protect_rtcp(buf, len, cap, out_len);
    int n = static_cast<int>(len);
    srtp_err_status_t r = srtp_protect_rtcp(send_, buf, &n);
    if (r != srtp_err_status_ok) return SRS_ERR(kErrorSrtpProtect, "srtp_protect_rtcp: %s", srtp_status_name(r));
    *out_len = static_cast<size_t>(n);
    return Error();
}

Error SrtpSession::unprotect_rtcp(uint8_t* buf, size_t len, size_t* out_len) {
    if (!initialized()) return SRS_ERR(kErrorSrtpState, "unprotect RTCP before initialize");
    if (len < kRtcpMinHeader || len > INT_MAX) return SRS_ERR(kErrorSrtpUnprotect, "SRTCP packet of %zu bytes", len);
    if (gcm_) return gcm_recv_.unprotect_rtcp(buf, len, out_len);
    int n = static_cast<int>(len);
    srtp_err_status_t r = srtp_unprotect_rtcp(recv_, buf, &n);
    if (r != srtp_err_status_ok) {
        return SRS_ERR(kErrorSrtpUnprotect, "srtp_unprotect_rtcp: %s", srtp_status_name(r));
    }
    *out_len = static_cast<size_t>(n);
    return Error();
}

}  // namespace srs
