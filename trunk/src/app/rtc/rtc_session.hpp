// One WebRTC session, made by the signalling API and carried by the server's
// UDP socket (or a TCP connection). RtcSession is what the server holds: the
// core every session has (its RtcPeer: ICE-lite, DTLS, SRTP from
// protocol/rtc; the send path; the end of the session; its Client entry);
// a role gives it its media:
//   RtcPublisherSession (rtc_publisher_session.hpp): media in, published on
//     the RtcSource and the LiveSource, RtcPublisherFeedback around it;
//   RtcPlayerSession (rtc_player_session.hpp): the source's packets out,
//     RtcPlayerFeedback around them.
// make_rtc_session() picks the role from the params.
//
// A session reads no clock and draws no random number: every call is given
// `now` (monotonic) and RtcSessionDeps gives the wall clock and the SSRC.
// It never blocks and never frees itself: the server calls it from its
// coroutines and reaps it once dead() (after detach()).
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include "app/conn/client.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_session_deps.hpp"
#include "app/rtc/rtc_source.hpp"
#include "core/error.hpp"
#include "protocol/rtc/rtc_feedback.hpp"
#include "protocol/rtc/rtc_peer.hpp"

namespace srs {

class LiveSource;
class SourceManager;
class RtcTcpConn;

// A datagram buffer: room for the largest RTP packet plus its SRTP trailer,
// and for a DTLS flight's datagram.
constexpr size_t kRtcSlotSize = 2048;

// Where a session's datagrams go (the UDP socket's batch, or a TCP stream).
// slot() then commit() without anything in between that can yield.
class RtcSendPath {
  public:
    virtual ~RtcSendPath() = default;
    // A buffer of kRtcSlotSize bytes for the next datagram to the peer.
    virtual uint8_t* slot() = 0;
    virtual void commit(size_t len) = 0;
    virtual const char* transport() const = 0;  // "udp" or "tcp"
    void send_copy(const uint8_t* data, size_t len);
};

// The negotiated view of one kind of media in this session.
struct RtcSessionTrack {
    bool present = false;
    int pt = -1;              // the peer's payload type for our codec
    std::string codec;        // name
    uint32_t clock_rate = 0;
    std::string fmtp;
    uint32_t remote_ssrc = 0; // publisher: from a=ssrc (0: learned from the first packet)
    int twcc_ext = 0;         // publisher: transport-cc extension id (0: none)
    // The offer's a=rtcp-fb nack for this codec (and vhost rtc.nack on): a
    // publisher is sent NACKs, a player's NACKs are answered. Off, as SRS,
    // the session goes on without retransmissions for the track.
    bool nack = true;
};

struct RtcSessionParams {
    bool publisher = false;
    std::string vhost, app, stream;
    std::string client_ip;      // who signalled (for the API)
    std::string tc_url;
    RtcVhostOptions vhost_options;
    RtcPeerOptions peer;
    RtcSessionTrack audio, video;
    std::string token;          // the WHIP/WHEP resource token (DELETE checks it)
    std::string secret;         // the signalling's Bearer token or ?secret=, for authentication hooks
};

class RtcSession : public Client, public RtcPeerListener {
  public:
    ~RtcSession() override;

    // Starts the peer and attaches to the sources (publisher: the LiveSource is
    // published too, which fails when the stream is busy).
    Error start(utime_t now);
    // Detaches from the sources; the server calls it once, before delete.
    void detach();

    // A datagram from the peer's address (or a STUN request for our ufrag).
    // `reply` reaches `from` (STUN answers go there even before it is bound).
    Error handle_datagram(uint8_t* data, size_t size, const StunAddress& from, utime_t now, RtcSendPath* reply);
    // Timers (DTLS, feedback, reports, stun timeout); then queued datagrams go out.
    void on_timer(utime_t now);
    // Sends what the peer queued (STUN answers, DTLS, RTCP): to reply_to by
    // `reply` when given, everything else by the bound path.
    void flush_peer(RtcSendPath* reply = nullptr, const StunAddress* reply_to = nullptr);

    // The path to the verified address (set when ICE binds or moves it).
    // tcp: the TCP connection it runs on (nullptr for UDP), so the server
    // can end the session when that connection goes.
    void bind_send_path(std::unique_ptr<RtcSendPath> path, RtcTcpConn* tcp) {
        path_ = std::move(path);
        tcp_ = tcp;
    }
    RtcTcpConn* tcp_conn() const { return tcp_; }
    RtcSendPath* send_path() const { return path_.get(); }
    RtcPeer& peer() { return peer_; }
    const RtcSessionParams& params() const { return params_; }
    const std::string& username() const { return params_.peer.local_ufrag; }
    bool publisher() const { return params_.publisher; }
    RtcSource* source() const { return source_; }

    // Ends the session (DELETE, API kick, BYE): close_notify goes out with the next flush.
    void close(utime_t now, Error reason);
    bool dead() const { return dead_; }
    const std::string& close_reason() const { return close_reason_; }
    bool failed() const { return failed_; }

    // Set by the server: told when the peer's address is verified or moves.
    class AddressListener {
      public:
        virtual ~AddressListener() = default;
        virtual void on_session_address(RtcSession* session, const StunAddress& addr) = 0;
    };
    void set_address_listener(AddressListener* l) { address_listener_ = l; }

    // Client
    const std::string& cid() const override { return cid_; }
    const std::string& protocol() const override { return protocol_; }
    std::string peer_ip() const override { return params_.client_ip; }
    uint64_t send_bytes() const override { return send_bytes_; }
    uint64_t recv_bytes() const override { return recv_bytes_; }
    void expire() override { expire_requested_ = true; }
    bool listed() const override { return true; }
    // "" until ICE binds an address (then "udp" or "tcp").
    const char* transport() const override { return path_ ? path_->transport() : ""; }

    // RtcPeerListener
    void on_peer_address(const StunAddress& addr) override;
    void on_peer_connected() override;
    void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                      utime_t now) override;
    void on_peer_closed(const Error& reason) override;

    struct Counters {
        uint64_t rtp_in = 0, rtp_out = 0, rtcp_in = 0, rtcp_out = 0, nack_in = 0, nack_out = 0, retransmits = 0,
                 pli_in = 0, pli_out = 0, twcc_out = 0, rr_out = 0, sr_out = 0, dropped = 0,
                 retransmits_refused = 0;  // over the per-second budget (a NACK storm)
    };
    const Counters& counters() const { return counters_; }

  protected:
    RtcSession(std::string cid, RtcSessionParams params, RtcSource* source, SourceManager* live_sources,
               RtcSessionDeps deps);

    // The role's half of start(): attach to the sources (live: the LiveSource
    // of the stream, created if need be).
    virtual Error attach(LiveSource* live, utime_t now) = 0;
    // The role's half of detach() (live: the LiveSource, if it still exists).
    virtual void detach_role(LiveSource* live) = 0;
    // Connected; the handshake's last flight has gone out.
    virtual void on_connected() = 0;
    // Every timer tick while connected.
    virtual void on_role_timer(utime_t now) = 0;
    // One packet of an RTCP compound from the peer (BYE is the core's).
    virtual void on_rtcp_packet(const RtcpPacketRef& p, utime_t now) = 0;

    // Sends one RTCP compound (when connected).
    void send_rtcp(const std::string& compound);
    // Sends the feedback packets a chain produced, counting them by kind.
    void send_feedback(const RtcFeedbackOutput& out);
    const RtcSessionTrack& track(RtcMediaKind k) const {
        return k == RtcMediaKind::kAudio ? params_.audio : params_.video;
    }
    const char* role_name() const { return params_.publisher ? "publisher" : "player"; }

    std::string cid_;
    RtcSessionParams params_;
    RtcSessionDeps deps_;
    RtcPeer peer_;
    RtcSource* source_;
    SourceManager* live_sources_;
    std::unique_ptr<RtcSendPath> path_;
    utime_t clock_ = 0;  // the latest `now` given (callbacks without a clock use it)
    bool connected_ = false;
    bool dead_ = false;
    uint64_t send_bytes_ = 0, recv_bytes_ = 0;
    Counters counters_;
    RtcFeedbackOutput feedback_out_;  // reused by the roles' timers

  private:
    std::string protocol_ = "RTC";
    bool live_attached_ = false;  // published (publisher) or attached (player) on the LiveSource
    RtcTcpConn* tcp_ = nullptr;
    AddressListener* address_listener_ = nullptr;
    utime_t next_peer_timer_ = 0;
    bool failed_ = false;
    bool expire_requested_ = false;
    std::string close_reason_;
};

// A publisher or a player session, as params.publisher says.
std::unique_ptr<RtcSession> make_rtc_session(std::string cid, RtcSessionParams params, RtcSource* source,
                                             SourceManager* live_sources, RtcSessionDeps deps);

}  // namespace srs
