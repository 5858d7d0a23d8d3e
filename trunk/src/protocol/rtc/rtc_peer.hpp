// One WebRTC peer (a session's transport) as a sans-IO object: ICE (lite on
// the server, full and controlling on the client), DTLS-SRTP, and the demux of RFC 7983
// joined into one state machine. Datagrams and the clock go in
// (handle_datagram, handle_timeout), datagrams to send come out
// (pop_transmit), media goes up through a listener.
//
//   kNew -start-> kChecking -verified STUN-> kDtls -DTLS connected-> kConnected
//   from kChecking or later: stun timeout, close_notify, close() -> kClosed;
//   a DTLS (or SRTP keying) failure -> kFailed.
//
// Guarantees:
// - No sockets, no real time: `now` is given; next_timeout() says when to call
//   handle_timeout (INT64_MAX: never).
// - Every error handle_datagram returns is the drop of that one datagram; the
//   state does not change on a dropped datagram (except a DTLS failure, which
//   ends the session). The session ends only through on_peer_closed, called
//   exactly once (from handle_datagram, handle_timeout or close).
// - A STUN request is answered only when it decodes, names "<local>:<remote>"
//   ufrags, and its MESSAGE-INTEGRITY (local_pwd) and FINGERPRINT verify.
//   The client answers them too (a full-ICE remote checks the pair before it
//   uses it), with a success, or 487 when the request also claims control;
//   they never select the address there: only the response to our check does.
// - DTLS and media are taken only from the selected address: the source of the
//   first verified binding request (server) or response (client), moved by a
//   later verified request from elsewhere (NAT rebinding).
// - The media path allocates nothing: SRTP is removed in place and the
//   listener gets pointers into the caller's datagram.
// - The listener must not destroy the peer from inside a callback; it may call
//   close(), protect_*(), send_rtcp().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "kernel/rtp/rtcp.hpp"
#include "kernel/rtp/rtp.hpp"
#include "kernel/stun/stun.hpp"
#include "protocol/rtc/dtls.hpp"
#include "protocol/rtc/srtp.hpp"

namespace srs {

// Client checks: resent this often until the first verified response, then a
// consent check (RFC 7675) this often.
constexpr utime_t kRtcCheckInterval = 100 * kUsPerMs;
constexpr utime_t kRtcConsentInterval = 2500 * kUsPerMs;
// How many of our last checks a response may answer.
constexpr size_t kRtcMaxOutstandingChecks = 16;
constexpr utime_t kRtcNoTimeout = INT64_MAX;
// A verified check from a new address without USE-CANDIDATE moves the peer
// only once the selected address has been quiet this long.
constexpr utime_t kRtcRebindQuiet = 1 * kUsPerSecond;

struct RtcPeerOptions {
    // false: the server, ICE-lite (only answers connectivity checks). true: a full-ICE controlling client (our
    // load tools and tests): sends binding requests with USE-CANDIDATE to remote_candidate (aggressive
    // nomination), answers the remote's own checks (a full-ICE server such as Pion's needs its check answered
    // before it uses the pair), and moves to DTLS once one of its checks got a verified response.
    bool ice_controlling = false;
    std::string local_ufrag, local_pwd;    // ours, as in our SDP
    std::string remote_ufrag, remote_pwd;  // the peer's, from its SDP
    std::shared_ptr<DtlsCertificate> certificate;
    DtlsRole dtls_role = DtlsRole::kServer;  // server = a=setup:passive
    std::string remote_fingerprint;        // the peer's a=fingerprint sha-256 value (hex with colons)
    bool encrypt = true;                   // false: after DTLS, RTP/RTCP are sent and taken in the clear (SRS's encrypt off)
    utime_t stun_timeout = 30 * kUsPerSecond;  // server: no verified binding request for this long -> closed
                                               // (client: no verified response, first or consent)
    StunAddress remote_candidate;          // client only: where checks go
    std::string software;                  // SOFTWARE attribute in our STUN messages ("" none)
};

enum class RtcPeerState { kNew, kChecking, kDtls, kConnected, kClosed, kFailed };
const char* rtc_peer_state_name(RtcPeerState s);

// The ufrag the receiver of `m` is known by: USERNAME up to its ':' (ICE:
// "<receiver>:<sender>"). False without USERNAME, ':' or a ufrag before it.
// The server routes a request from an unknown address to a session with it.
bool stun_local_ufrag(const StunMessage& m, std::string_view* ufrag);

// Told synchronously from inside handle_datagram / handle_timeout / close.
class RtcPeerListener {
  public:
    virtual ~RtcPeerListener() = default;
    // A verified binding request came from an address other than the current one (the first, or NAT rebinding):
    // the owner re-keys its address table. Client: the first verified response.
    virtual void on_peer_address(const StunAddress& addr) = 0;
    // DTLS connected and SRTP keyed: media may flow.
    virtual void on_peer_connected() = 0;
    // A decrypted RTP packet; data is valid only during the call and writable in place.
    virtual void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& header, utime_t now) = 0;
    // A decrypted RTCP compound, split and validated by rtcp_parse_compound.
    virtual void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                              utime_t now) = 0;
    // The peer ended (close_notify received, stun timeout, DTLS failure, close()); called exactly once.
    virtual void on_peer_closed(const Error& reason) = 0;
};

struct RtcTransmit {
    StunAddress to;
    std::string data;
};

class RtcPeer {
  public:
    RtcPeer(RtcPeerOptions options, RtcPeerListener* listener);
    ~RtcPeer();
    RtcPeer(const RtcPeer&) = delete;
    RtcPeer& operator=(const RtcPeer&) = delete;

    Error start(utime_t now);  // client: queues the first check; server: arms the stun timeout
    // One datagram from `from`. `data` is writable: SRTP is removed in place. Demux by first byte (RFC 7983).
    // STUN request (server): must decode, have USERNAME "<local_ufrag>:<remote_ufrag>", verify MESSAGE-INTEGRITY
    // with local_pwd and FINGERPRINT; then a success response goes to `from` (pop_transmit) and the stun timer is
    // refreshed; a verified request from a new address moves the peer (on_peer_address); the first one also starts
    // DTLS when we are the DTLS client. Anything failing -> error returned, nothing sent, state unchanged.
    // STUN request (client): verified the same way, answered with a success (or 487 Role Conflict when it carries
    // ICE-CONTROLLING); one from remote_candidate before our nomination also triggers a check; no state change.
    // STUN response (client): transaction id must match an outstanding check, integrity verified with remote_pwd.
    // DTLS/RTP/RTCP: accepted only from the selected address (else an error, dropped). RTP vs RTCP by RFC 5761
    // (second byte 192..223 is RTCP). SRTP/SRTCP unprotect failures, RTP header errors, RTCP compound errors ->
    // the packet is dropped with an error returned; the peer lives on.
    // Every error returned is a drop of that one datagram; the session only ends via on_peer_closed.
    Error handle_datagram(uint8_t* data, size_t size, const StunAddress& from, utime_t now);
    // DTLS retransmit, stun timeout (server), checks/consent (client). When the session ends here the reason
    // goes to on_peer_closed and this returns success.
    Error handle_timeout(utime_t now);
    utime_t next_timeout() const;         // kRtcNoTimeout (INT64_MAX) for never
    bool pop_transmit(RtcTransmit* out);  // STUN, DTLS, protected RTCP queued by the peer
    size_t pending_transmits() const { return out_.size(); }
    // Media out: protect buf[0,len) in place (room up to cap); send *out_len bytes to remote_address().
    // kErrorRtcPeerState before connected; with encrypt off, copies nothing and *out_len = len.
    Error protect_rtp(uint8_t* buf, size_t len, size_t cap, size_t* out_len);
    // Out of place (SrtpSession::protect_rtp_from): dst[0, header) is the
    // header as it goes out, src[header, len) the shared payload, only read.
    Error protect_rtp_from(uint8_t* dst, size_t cap, const uint8_t* src, size_t header, size_t len,
                           size_t* out_len);
    Error protect_rtcp(uint8_t* buf, size_t len, size_t cap, size_t* out_len);
    // Ahead of protect_rtp_from in a fan-out: the sender's state, then its key.
    void prefetch_send_state() const { srtp_.prefetch_send_state(); }
    void prefetch_send_key() const { srtp_.prefetch_send_key(); }
    // Protects an RTCP compound and queues it for pop_transmit to remote_address().
    Error send_rtcp(const std::string& packet);
    // Queues a DTLS close_notify (when connected), moves to closed, calls on_peer_closed once.
    void close(utime_t now, Error reason);
    RtcPeerState state() const { return state_; }
    bool has_remote_address() const { return has_remote_; }
    const StunAddress& remote_address() const { return remote_; }
    utime_t last_stun_us() const { return last_stun_us_; }
    SrtpProfile srtp_profile() const { return profile_; }
    const DtlsEndpoint& dtls() const { return dtls_; }
    // "ice:<verified stun>@<address>[,answered:<remote checks answered, client>],dtls:<DtlsEndpoint::milestones()>,
    // srtp:<profile name>" for the log line.
    std::string milestones() const;
    // Counters for logs/stats: verified stun (server: requests answered; client: responses to our checks), stun
    // rejected, dtls datagrams, rtp/rtcp in, unprotect errors; client only: the remote's checks answered with a
    // success, and with 487.
    struct Stats {
        uint64_t stun_ok = 0, stun_bad = 0, dtls_in = 0, rtp_in = 0, rtcp_in = 0, srtp_errors = 0, dropped = 0;
        uint64_t checks_answered = 0, role_conflicts = 0;
    };
    const Stats& stats() const { return stats_; }

  private:
    Error check_options() const;
    Error on_datagram(uint8_t* data, size_t size, const StunAddress& from, utime_t now);
    Error on_stun(const uint8_t* data, size_t size, const StunAddress& from, utime_t now);
    Error on_stun_request(const StunMessage& m, const uint8_t* data, const StunAddress& from, utime_t now);
    // USERNAME "<local>:<remote>", MESSAGE-INTEGRITY with local_pwd, FINGERPRINT, no unknown required attribute.
    Error verify_request(const StunMessage& m, const uint8_t* data) const;
    Error encode_success(const StunMessage& m, const StunAddress& from, RtcTransmit* t) const;
    Error on_remote_check(const StunMessage& m, const StunAddress& from, utime_t now);
    Error on_stun_response(const StunMessage& m, const uint8_t* data, const StunAddress& from, utime_t now);
    Error on_dtls(const uint8_t* data, size_t size, utime_t now);
    Error on_media(uint8_t* data, size_t size, utime_t now);
    Error send_check(utime_t now);
    // Sets the selected address (telling the listener when it changes); the
    // first one moves to kDtls and starts a DTLS client.
    Error select_address(const StunAddress& addr, utime_t now);
    // Queues what DTLS wrote, and follows its state: connected -> key SRTP,
    // failed or closed -> the session ends.
    void after_dtls(Error err, utime_t now);
    Error key_srtp();
    void finish(RtcPeerState state, Error reason);
    bool ended() const { return state_ == RtcPeerState::kClosed || state_ == RtcPeerState::kFailed; }

    RtcPeerOptions options_;
    RtcPeerListener* listener_;
    DtlsEndpoint dtls_;
    SrtpSession srtp_;
    SrtpProfile profile_ = SrtpProfile::kAes128CmSha1_80;
    RtcPeerState state_ = RtcPeerState::kNew;
    bool closed_notified_ = false;

    bool has_remote_ = false;
    StunAddress remote_;
    utime_t last_stun_us_ = 0;
    utime_t last_heard_us_ = 0;  // the last authenticated datagram from the selected address

    // Client: our checks.
    uint64_t tie_breaker_ = 0;
    utime_t next_check_ = kRtcNoTimeout;
    bool nominated_ = false;  // a verified response came
    std::deque<std::array<uint8_t, kStunTransactionIdSize>> checks_;

    std::deque<RtcTransmit> out_;
    std::vector<RtcpPacketRef> rtcp_refs_;  // reused: no allocation per compound
    std::string rtcp_buf_;                  // send_rtcp's scratch
    Stats stats_;
};

}  // namespace srs
