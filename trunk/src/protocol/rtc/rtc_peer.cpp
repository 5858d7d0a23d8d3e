// The WebRTC peer: ICE + DTLS-SRTP + RFC 7983 demux; see rtc_peer.hpp.
#include "protocol/rtc/rtc_peer.hpp"

#include <openssl/rand.h>

#include <cstring>
#include <utility>

#include "kernel/demux.hpp"

namespace srs {

namespace {

// RFC 8445 5.1.2.1 with a peer-reflexive type preference (110), the highest
// local preference and component 1: what the controlling side puts in PRIORITY.
constexpr uint32_t kCheckPriority = (110u << 24) | (65535u << 8) | (256u - 1u);

// RFC 5761 4: a second byte of 192..223 (the RTCP packet types SR..PSFB, with
// the marker bit that RTP would have) is RTCP.
constexpr bool is_rtcp(uint8_t second_byte) { return second_byte >= 192 && second_byte <= 223; }

Error random_bytes(uint8_t* out, size_t n) {
    if (RAND_bytes(out, static_cast<int>(n)) != 1) return SRS_ERR(kErrorRtcPeerRandom, "RAND_bytes(%zu)", n);
    return Error();
}

SrtpKeys keys_of(const std::string& key, const std::string& salt) {
    SrtpKeys k;
    k.key = reinterpret_cast<const uint8_t*>(key.data());
    k.key_len = key.size();
    k.salt = reinterpret_cast<const uint8_t*>(salt.data());
    k.salt_len = salt.size();
    return k;
}

}  // namespace

const char* rtc_peer_state_name(RtcPeerState s) {
    switch (s) {
        case RtcPeerState::kNew: return "new";
        case RtcPeerState::kChecking: return "checking";
        case RtcPeerState::kDtls: return "dtls";
        case RtcPeerState::kConnected: return "connected";
        case RtcPeerState::kClosed: return "closed";
        case RtcPeerState::kFailed: return "failed";
    }
    return "unknown";
}

bool stun_local_ufrag(const StunMessage& m, std::string_view* ufrag) {
    if (!m.has_username) return false;
    size_t colon = m.username.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    *ufrag = m.username.substr(0, colon);
    return true;
}

RtcPeer::RtcPeer(RtcPeerOptions options, RtcPeerListener* listener)
    : options_(std::move(options)),
      listener_(listener),
      dtls_(options_.certificate, options_.dtls_role, options_.remote_fingerprint) {}

RtcPeer::~RtcPeer() = default;

Error RtcPeer::check_options() const {
    const RtcPeerOptions& o = options_;
    if (!o.certificate) return SRS_ERR(kErrorRtcPeerOptions, "no certificate");
    if (o.local_ufrag.empty() || o.local_pwd.empty() || o.remote_ufrag.empty() || o.remote_pwd.empty()) {
        return SRS_ERR(kErrorRtcPeerOptions, "ice credentials missing: local %zu/%zu remote %zu/%zu bytes",
                       o.local_ufrag.size(), o.local_pwd.size(), o.remote_ufrag.size(), o.remote_pwd.size());
    }
    if (o.remote_fingerprint.empty()) return SRS_ERR(kErrorRtcPeerOptions, "no remote fingerprint");
    if (o.ice_controlling && o.remote_candidate.family == StunAddress::kNone) {
        return SRS_ERR(kErrorRtcPeerOptions, "controlling peer without a remote candidate");
    }
    if (o.stun_timeout <= 0) return SRS_ERR(kErrorRtcPeerOptions, "stun timeout %lld", (long long)o.stun_timeout);
    return Error();
}

Error RtcPeer::start(utime_t now) {
    if (state_ != RtcPeerState::kNew) return SRS_ERR(kErrorRtcPeerState, "start in %s", rtc_peer_state_name(state_));
    if (Error err = check_options(); err.failed()) return SRS_WRAP(err, "start");
    if (options_.encrypt) {
        if (Error err = srtp_library_init(); err.failed()) return SRS_WRAP(err, "start");
    }
    last_stun_us_ = now;
    // A DTLS server only waits for the ClientHello, so it can start now; a
    // client sends it once ICE has picked the address.
    if (options_.dtls_role == DtlsRole::kServer) {
        if (Error err = dtls_.start(now); err.failed()) return SRS_WRAP(err, "start dtls server");
    }
    state_ = RtcPeerState::kChecking;
    if (options_.ice_controlling) {
        uint8_t tb[8];
        if (Error err = random_bytes(tb, sizeof(tb)); err.failed()) return SRS_WRAP(err, "tie breaker");
        memcpy(&tie_breaker_, tb, sizeof(tb));
        if (Error err = send_check(now); err.failed()) return SRS_WRAP(err, "first check");
    }
    return Error();
}

Error RtcPeer::send_check(utime_t now) {
    std::array<uint8_t, kStunTransactionIdSize> tid;
    if (Error err = random_bytes(tid.data(), tid.size()); err.failed()) return SRS_WRAP(err, "transaction id");
    std::string username = options_.remote_ufrag + ":" + options_.local_ufrag;
    StunBindingRequest req;
    memcpy(req.transaction_id, tid.data(), tid.size());
    req.username = username;
    req.password = options_.remote_pwd;
    req.priority = kCheckPriority;
    req.controlling = true;
    req.tie_breaker = tie_breaker_;
    req.use_candidate = true;  // aggressive nomination: our only pair
    req.software = options_.software;

    RtcTransmit t;
    t.to = options_.remote_candidate;
    t.data.resize(stun_encoded_size(req));
    size_t n = 0;
    if (Error err = stun_encode(req, reinterpret_cast<uint8_t*>(&t.data[0]), t.data.size(), &n); err.failed()) {
        return SRS_WRAP(err, "encode binding request");
    }
    t.data.resize(n);
    out_.push_back(std::move(t));
    checks_.push_back(tid);
    if (checks_.size() > kRtcMaxOutstandingChecks) checks_.pop_front();
    next_check_ = now + (nominated_ ? kRtcConsentInterval : kRtcCheckInterval);
    return Error();
}

Error RtcPeer::handle_datagram(uint8_t* data, size_t size, const StunAddress& from, utime_t now) {
    Error err = on_datagram(data, size, from, now);
    if (err.failed()) {
        ++stats_.dropped;
        return SRS_WRAP(err, "drop %zu bytes from %s", size, from.to_string().c_str());
    }
    return err;
}

Error RtcPeer::on_datagram(uint8_t* data, size_t size, const StunAddress& from, utime_t now) {
    if (state_ == RtcPeerState::kNew || ended()) {
        return SRS_ERR(kErrorRtcPeerState, "datagram in %s", rtc_peer_state_name(state_));
    }
    if (!data || size == 0) return SRS_ERR(kErrorRtcPeerDemux, "empty datagram");
    DatagramKind kind = classify_datagram(data[0]);
    if (kind == DatagramKind::kStun) return on_stun(data, size, from, now);
    if (kind == DatagramKind::kUnknown) return SRS_ERR(kErrorRtcPeerDemux, "first byte %u", data[0]);

    if (!has_remote_ || !(from == remote_)) {
        return SRS_ERR(kErrorRtcPeerAddress, "%s from %s, selected %s", kind == DatagramKind::kDtls ? "dtls" : "rtp",
                       from.to_string().c_str(), has_remote_ ? remote_.to_string().c_str() : "none");
    }
    Error err = kind == DatagramKind::kDtls ? on_dtls(data, size, now) : on_media(data, size, now);
    if (err.ok()) last_heard_us_ = now;  // authenticated traffic on the selected address
    return err;
}

Error RtcPeer::on_stun(const uint8_t* data, size_t size, const StunAddress& from, utime_t now) {
    StunMessage m;
    Error err = m.decode(data, size);
    if (err.ok()) {
        if (m.is_binding_request()) {
            err = on_stun_request(m, data, from, now);
        } else if (stun_method(m.type) == 1 && stun_class(m.type) >= 2) {
            err = on_stun_response(m, data, from, now);
        } else if (m.type == kStunBindingIndication) {
            return Error();  // a keepalive (RFC 8445 11): nothing to do
        } else {
            err = SRS_ERR(kErrorRtcPeerStun, "stun type 0x%04x", m.type);
        }
    }
    if (err.failed()) {
        ++stats_.stun_bad;
        return SRS_WRAP(err, "stun");
    }
    return err;
}

Error RtcPeer::verify_request(const StunMessage& m, const uint8_t* data) const {
    if (m.unknown_required) return SRS_ERR(kErrorRtcPeerStun, "unknown required attribute 0x%04x", m.unknown_required);
    // USERNAME is "<our ufrag>:<their ufrag>".
    const std::string& l = options_.local_ufrag;
    const std::string& r = options_.remote_ufrag;
    if (!m.has_username || m.username.size() != l.size() + 1 + r.size() || m.username.compare(0, l.size(), l) != 0 ||
        m.username[l.size()] != ':' || m.username.compare(l.size() + 1, r.size(), r) != 0) {
        return SRS_ERR(kErrorRtcPeerStunUsername, "username '%.*s', expect '%s:%s'",
                       m.has_username ? static_cast<int>(m.username.size() > 64 ? 64 : m.username.size()) : 0,
                       m.username.data(), l.c_str(), r.c_str());
    }
    if (Error err = stun_verify_integrity(m, data, options_.local_pwd); err.failed()) {
        return SRS_WRAP(err, "binding request");
    }
    if (Error err = stun_verify_fingerprint(m, data); err.failed()) return SRS_WRAP(err, "binding request");
    return Error();
}

Error RtcPeer::encode_success(const StunMessage& m, const StunAddress& from, RtcTransmit* t) const {
    StunBindingResponse resp;
    memcpy(resp.transaction_id, m.transaction_id, kStunTransactionIdSize);
    resp.mapped = from;
    resp.password = options_.local_pwd;
    resp.software = options_.software;
    t->to = from;
    t->data.resize(stun_encoded_size(resp));
    size_t n = 0;
    if (Error err = stun_encode(resp, reinterpret_cast<uint8_t*>(&t->data[0]), t->data.size(), &n); err.failed()) {
        return SRS_WRAP(err, "encode binding response");
    }
    t->data.resize(n);
    return Error();
}

Error RtcPeer::on_stun_request(const StunMessage& m, const uint8_t* data, const StunAddress& from, utime_t now) {
    if (Error err = verify_request(m, data); err.failed()) return err;
    if (options_.ice_controlling) return on_remote_check(m, from, now);
    RtcTransmit t;
    if (Error err = encode_success(m, from, &t); err.failed()) return err;

    // Verified: from here on the request counts.
    out_.push_back(std::move(t));
    ++stats_.stun_ok;
    last_stun_us_ = now;
    if (has_remote_ && from == remote_) {
        last_heard_us_ = now;
        return Error();
    }
    // Another address: the first one, a nomination (USE-CANDIDATE), or the
    // selected address went quiet (the NAT gave the peer a new port). A
    // browser's checks on its other candidate pairs answer, but do not move
    // media back and forth.
    if (!has_remote_ || m.use_candidate || now - last_heard_us_ >= kRtcRebindQuiet) {
        last_heard_us_ = now;
        return select_address(from, now);
    }
    return Error();
}

// The controlling side of full ICE (RFC 8445 7.3): a full-ICE remote checks
// the pair too, and only uses it once its own check got a response, so its
// verified checks are answered. They never pick the address: our nominated
// check does (on_stun_response).
Error RtcPeer::on_remote_check(const StunMessage& m, const StunAddress& from, utime_t now) {
    RtcTransmit t;
    if (m.has_ice_controlling) {
        // RFC 8445 7.3.1.1: both sides claim control. The rule lets the larger
        // tie breaker keep it; we have no controlled mode, so the remote hears
        // 487 either way and, by 7.2.5.1, retries as the controlled side.
        StunBindingErrorResponse e;
        memcpy(e.transaction_id, m.transaction_id, kStunTransactionIdSize);
        e.code = kStunErrorRoleConflict;
        e.reason = "Role Conflict";
        e.password = options_.local_pwd;
        e.software = options_.software;
        t.to = from;
        t.data.resize(stun_encoded_size(e));
        size_t n = 0;
        if (Error err = stun_encode(e, reinterpret_cast<uint8_t*>(&t.data[0]), t.data.size(), &n); err.failed()) {
            return SRS_WRAP(err, "encode role conflict");
        }
        t.data.resize(n);
        out_.push_back(std::move(t));
        ++stats_.role_conflicts;
        return Error();
    }
    if (Error err = encode_success(m, from, &t); err.failed()) return err;
    out_.push_back(std::move(t));
    ++stats_.checks_answered;
    // RFC 8445 7.3.1.4: a triggered check on the pair the remote just checked,
    // so the nomination does not wait for the next timer.
    if (!nominated_ && from == options_.remote_candidate) return send_check(now);
    return Error();
}

Error RtcPeer::on_stun_response(const StunMessage& m, const uint8_t* data, const StunAddress& from, utime_t now) {
    if (!options_.ice_controlling) return SRS_ERR(kErrorRtcPeerStun, "a binding response to the ice-lite side");
    auto it = checks_.begin();
    for (; it != checks_.end(); ++it) {
        if (memcmp(it->data(), m.transaction_id, kStunTransactionIdSize) == 0) break;
    }
    if (it == checks_.end()) return SRS_ERR(kErrorRtcPeerStunTransaction, "response to no outstanding check");
    if (!(from == options_.remote_candidate)) {
        return SRS_ERR(kErrorRtcPeerAddress, "response from %s, checks go to %s", from.to_string().c_str(),
                       options_.remote_candidate.to_string().c_str());
    }
    if (Error err = stun_verify_integrity(m, data, options_.remote_pwd); err.failed()) {
        return SRS_WRAP(err, "binding response");
    }
    if (Error err = stun_verify_fingerprint(m, data); err.failed()) return SRS_WRAP(err, "binding response");
    if (stun_class(m.type) == 3) {
        return SRS_ERR(kErrorRtcPeerStunError, "binding error %d %.*s", m.error_code,
                       static_cast<int>(m.error_reason.size()), m.error_reason.data());
    }
    checks_.erase(it);
    ++stats_.stun_ok;
    last_stun_us_ = now;
    if (!nominated_) {
        nominated_ = true;
        next_check_ = now + kRtcConsentInterval;
    }
    if (!has_remote_) return select_address(from, now);
    return Error();
}

Error RtcPeer::select_address(const StunAddress& addr, utime_t now) {
    bool first = !has_remote_;
    has_remote_ = true;
    remote_ = addr;
    listener_->on_peer_address(addr);
    if (!first || ended()) return Error();
    state_ = RtcPeerState::kDtls;
    if (options_.dtls_role == DtlsRole::kClient) {
        Error err = dtls_.start(now);
        after_dtls(std::move(err), now);
    }
    return Error();
}

Error RtcPeer::on_dtls(const uint8_t* data, size_t size, utime_t now) {
    ++stats_.dtls_in;
    Error err = dtls_.handle_datagram(data, size, now);
    if (err.failed() && dtls_.state() != DtlsState::kFailed) {
        after_dtls(Error(), now);  // still send whatever it wrote
        return SRS_WRAP(err, "dtls");
    }
    after_dtls(std::move(err), now);
    return Error();
}

void RtcPeer::after_dtls(Error err, utime_t now) {
    (void)now;
    std::string d;
    while (dtls_.pop_datagram(&d)) {
        RtcTransmit t;
        t.to = remote_;
        t.data = std::move(d);
        out_.push_back(std::move(t));
    }
    if (ended()) {
        err.ignore();
        return;
    }
    if (err.failed() || dtls_.state() == DtlsState::kFailed) {
        if (err.ok()) err = SRS_ERR(kErrorRtcPeerDtls, "dtls failed: %s", dtls_.milestones().c_str());
        finish(RtcPeerState::kFailed, SRS_WRAP(err, "dtls"));
        return;
    }
    if (dtls_.state() == DtlsState::kClosed) {
        finish(RtcPeerState::kClosed, SRS_ERR(kErrorRtcPeerClosedByPeer, "dtls close_notify received"));
        return;
    }
    if (dtls_.state() == DtlsState::kConnected && state_ != RtcPeerState::kConnected) {
        if (Error e = key_srtp(); e.failed()) {
            finish(RtcPeerState::kFailed, SRS_WRAP(e, "key srtp"));
            return;
        }
        state_ = RtcPeerState::kConnected;
        listener_->on_peer_connected();
    }
}

// RFC 5764 4.2: each side writes with its own key and reads with the other's;
// the DTLS client's is the "client" key.
Error RtcPeer::key_srtp() {
    const DtlsSrtpKeys& k = dtls_.srtp_keys();
    if (Error err = srtp_profile_from_id(k.profile_id, &profile_); err.failed()) return err;
    if (!options_.encrypt) return Error();
    bool is_client = dtls_.role() == DtlsRole::kClient;
    SrtpKeys local = is_client ? keys_of(k.client_key, k.client_salt) : keys_of(k.server_key, k.server_salt);
    SrtpKeys remote = is_client ? keys_of(k.server_key, k.server_salt) : keys_of(k.client_key, k.client_salt);
    return srtp_.initialize(profile_, local, remote);
}

Error RtcPeer::on_media(uint8_t* data, size_t size, utime_t now) {
    if (state_ != RtcPeerState::kConnected) {
        return SRS_ERR(kErrorRtcPeerState, "media in %s", rtc_peer_state_name(state_));
    }
    bool rtcp = size >= 2 && is_rtcp(data[1]);
    size_t n = size;
    if (rtcp) {
        if (options_.encrypt) {
            if (Error err = srtp_.unprotect_rtcp(data, size, &n); err.failed()) {
                ++stats_.srtp_errors;
                return SRS_WRAP(err, "srtcp");
            }
        }
        if (Error err = rtcp_parse_compound(data, n, &rtcp_refs_); err.failed()) return SRS_WRAP(err, "rtcp");
        ++stats_.rtcp_in;
        listener_->on_peer_rtcp(data, n, rtcp_refs_, now);
        return Error();
    }
    if (options_.encrypt) {
        if (Error err = srtp_.unprotect_rtp(data, size, &n); err.failed()) {
            ++stats_.srtp_errors;
            return SRS_WRAP(err, "srtp");
        }
    }
    RtpHeader h;
    if (Error err = rtp_parse_header(data, n, &h); err.failed()) return SRS_WRAP(err, "rtp");
    ++stats_.rtp_in;
    listener_->on_peer_rtp(data, n, h, now);
    return Error();
}

Error RtcPeer::handle_timeout(utime_t now) {
    if (state_ == RtcPeerState::kNew || ended()) return Error();
    if (now - last_stun_us_ >= options_.stun_timeout) {
        close(now, SRS_ERR(kErrorRtcPeerStunTimeout, "no verified binding %s for %lld ms",
                           options_.ice_controlling ? "response" : "request",
                           static_cast<long long>((now - last_stun_us_) / kUsPerMs)));
        return Error();
    }
    if (dtls_.state() == DtlsState::kConnecting && now >= dtls_.next_timeout()) {
        Error err = dtls_.handle_timeout(now);
        after_dtls(std::move(err), now);
        if (ended()) return Error();
    }
    if (options_.ice_controlling && now >= next_check_) {
        if (Error err = send_check(now); err.failed()) return SRS_WRAP(err, "check");
    }
    return Error();
}

utime_t RtcPeer::next_timeout() const {
    if (state_ == RtcPeerState::kNew || ended()) return kRtcNoTimeout;
    utime_t t = last_stun_us_ + options_.stun_timeout;
    if (dtls_.state() == DtlsState::kConnecting && dtls_.next_timeout() < t) t = dtls_.next_timeout();
    if (options_.ice_controlling && next_check_ < t) t = next_check_;
    return t;
}

bool RtcPeer::pop_transmit(RtcTransmit* out) {
    if (out_.empty()) return false;
    *out = std::move(out_.front());
    out_.pop_front();
    return true;
}

Error RtcPeer::protect_rtp(uint8_t* buf, size_t len, size_t cap, size_t* out_len) {
    if (state_ != RtcPeerState::kConnected) {
        return SRS_ERR(kErrorRtcPeerState, "protect rtp in %s", rtc_peer_state_name(state_));
    }
    if (!options_.encrypt) {
        *out_len = len;
        return Error();
    }
    return srtp_.protect_rtp(buf, len, cap, out_len);
}

Error RtcPeer::protect_rtp_from(uint8_t* dst, size_t cap, const uint8_t* src, size_t header, size_t len,
                                size_t* out_len) {
    if (state_ != RtcPeerState::kConnected) {
        return SRS_ERR(kErrorRtcPeerState, "protect rtp in %s", rtc_peer_state_name(state_));
    }
    if (!options_.encrypt) {
        if (header > len || len > cap) return SRS_ERR(kErrorSrtpBufferTooSmall, "RTP %zu bytes, room %zu", len, cap);
        if (dst != src) memcpy(dst + header, src + header, len - header);
        *out_len = len;
        return Error();
    }
    return srtp_.protect_rtp_from(dst, cap, src, header, len, out_len);
}

Error RtcPeer::protect_rtcp(uint8_t* buf, size_t len, size_t cap, size_t* out_len) {
    if (state_ != RtcPeerState::kConnected) {
        return SRS_ERR(kErrorRtcPeerState, "protect rtcp in %s", rtc_peer_state_name(state_));
    }
    if (!options_.encrypt) {
        *out_len = len;
        return Error();
    }
    return srtp_.protect_rtcp(buf, len, cap, out_len);
}

Error RtcPeer::send_rtcp(const std::string& packet) {
    if (state_ != RtcPeerState::kConnected) {
        return SRS_ERR(kErrorRtcPeerState, "send rtcp in %s", rtc_peer_state_name(state_));
    }
    rtcp_buf_.assign(packet);
    rtcp_buf_.resize(packet.size() + kSrtpMaxTrailer);
    size_t n = 0;
    if (Error err = protect_rtcp(reinterpret_cast<uint8_t*>(&rtcp_buf_[0]), packet.size(), rtcp_buf_.size(), &n);
        err.failed()) {
        return SRS_WRAP(err, "send rtcp of %zu bytes", packet.size());
    }
    RtcTransmit t;
    t.to = remote_;
    t.data.assign(rtcp_buf_.data(), n);
    out_.push_back(std::move(t));
    return Error();
}

void RtcPeer::close(utime_t now, Error reason) {
    if (ended()) {
        reason.ignore();
        return;
    }
    if (dtls_.state() != DtlsState::kFailed && dtls_.state() != DtlsState::kClosed) {
        Error err = dtls_.close();  // connected: queues close_notify; connecting: stops the timer
        err.ignore();  // close() cannot fail in these states
        std::string d;
        while (dtls_.pop_datagram(&d)) {
            RtcTransmit t;
            t.to = remote_;
            t.data = std::move(d);
            out_.push_back(std::move(t));
        }
    }
    (void)now;
    if (reason.ok()) reason = SRS_ERR(kErrorRtcPeerState, "closed");
    finish(RtcPeerState::kClosed, std::move(reason));
}

void RtcPeer::finish(RtcPeerState state, Error reason) {
    if (closed_notified_) {
        reason.ignore();
        return;
    }
    closed_notified_ = true;
    state_ = state;
    next_check_ = kRtcNoTimeout;
    listener_->on_peer_closed(reason);
    reason.ignore();
}

std::string RtcPeer::milestones() const {
    std::string s = "ice:" + std::to_string(stats_.stun_ok);
    if (has_remote_) s += "@" + remote_.to_string();
    if (options_.ice_controlling) s += ",answered:" + std::to_string(stats_.checks_answered);
    s += ",dtls:" + dtls_.milestones();
    s += ",srtp:";
    if (state_ == RtcPeerState::kConnected || dtls_.state() == DtlsState::kConnected) {
        s += options_.encrypt ? srtp_profile_name(profile_) : "off";
    } else {
        s += "none";
    }
    return s;
}

}  // namespace srs
