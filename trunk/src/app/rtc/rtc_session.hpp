// One WebRTC session: a publisher or a player, made by the signalling API and
// carried by the server's UDP socket (or a TCP connection).
//
// The session owns its RtcPeer (ICE-lite, DTLS, SRTP: protocol/rtc) and puts
// the feedback handlers around the media path:
//   publisher: NACK generator and receive statistics per track, the TWCC
//              recorder, RR every second, PLI when the source asks;
//   player:    NACKs answered from the source's ring, PLI/FIR turned into one
//              keyframe request, SR every second per track, video held back
//              until a keyframe so the first frame decodes.
// It never blocks and never frees itself: the server calls it from its
// coroutines and reaps it once dead() (after detach()).
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include "app/rtc/rtc_bridge_to_live.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_source.hpp"
#include "app/conn/client.hpp"
#include "core/error.hpp"
#include "protocol/rtc/keyframe_limiter.hpp"
#include "protocol/rtc/nack_generator.hpp"
#include "protocol/rtc/receive_stats.hpp"
#include "protocol/rtc/rtc_peer.hpp"
#include "protocol/rtc/send_stats.hpp"
#include "protocol/rtc/twcc_recorder.hpp"

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

class RtcSession : public Client, public RtcPeerListener, public RtcPlayerSink, public RtcPublisherControl {
  public:
    RtcSession(std::string cid, RtcSessionParams params, RtcSource* source, SourceManager* live_sources);
    ~RtcSession() override;

    // Starts the peer and attaches to the source (publisher: the LiveSource is
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
    void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& header, utime_t now) override;
    void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                      utime_t now) override;
    void on_peer_closed(const Error& reason) override;

    // RtcPlayerSink
    void on_source_packet(RtcMediaKind kind, const RtcPacket& packet, utime_t now) override;
    void on_source_unpublish() override;

    // RtcPublisherControl
    void request_keyframe(utime_t now) override;

    struct Counters {
        uint64_t rtp_in = 0, rtp_out = 0, rtcp_in = 0, rtcp_out = 0, nack_in = 0, nack_out = 0, retransmits = 0,
                 pli_in = 0, pli_out = 0, twcc_out = 0, rr_out = 0, sr_out = 0, dropped = 0,
                 retransmits_refused = 0;  // over the per-second budget (a NACK storm)
    };
    const Counters& counters() const { return counters_; }

  private:
    struct PublisherTrack {
        std::unique_ptr<NackGenerator> nack;
        std::unique_ptr<RtpReceiveStats> stats;
    };
    void send_rtcp(const std::string& compound);
    void send_media(RtcMediaKind kind, const RtcPacket& packet, bool retransmit);
    void publisher_timer(utime_t now);
    void player_timer(utime_t now);
    void answer_nack(const RtcpPacketRef& p);
    // Player: whether the published codecs are the negotiated ones (once per publish).
    void check_codecs();
    // Player waiting for a keyframe: sends the ring's packets from its latest
    // keyframe, if it still holds one (true then).
    bool start_from_ring();
    void catch_up();
    const RtcSessionTrack& track(RtcMediaKind k) const { return k == RtcMediaKind::kAudio ? params_.audio : params_.video; }

    std::string cid_;
    std::string protocol_ = "RTC";
    RtcSessionParams params_;
    RtcPeer peer_;
    RtcSource* source_;
    SourceManager* live_sources_;
    bool live_attached_ = false;  // published (publisher) or attached (player) on the LiveSource
    LiveSource* published_ = nullptr;  // publisher: the LiveSource it published, while attached
    std::unique_ptr<RtcSendPath> path_;
    RtcTcpConn* tcp_ = nullptr;
    AddressListener* address_listener_ = nullptr;

    utime_t clock_ = 0;  // the latest `now` given (callbacks without a clock use it)
    bool connected_ = false;
    bool dead_ = false;
    bool failed_ = false;
    bool expire_requested_ = false;
    std::string close_reason_;
    uint64_t send_bytes_ = 0, recv_bytes_ = 0;
    Counters counters_;
    uint32_t local_ssrc_;  // the SSRC our RTCP is sent from

    // publisher
    PublisherTrack pub_[2];
    TwccRecorder twcc_;
    KeyframeRequestLimiter pli_limiter_;
    bool keyframe_wanted_ = false;
    std::unique_ptr<RtcToLiveBridge> to_live_;  // rtc_to_rtmp: RTMP/HTTP-FLV players of this stream
    utime_t next_rr_ = 0;
    std::vector<uint16_t> lost_;  // reused
    std::string rtcp_;            // reused

    // player
    std::unique_ptr<RtpSendStats> send_stats_[2];
    bool waiting_keyframe_ = true;
    // Whether the published codec of each kind is the one this player
    // negotiated (checked once per publish, not per packet).
    uint32_t checked_generation_ = 0;
    bool codec_ok_[2] = {false, false};
    utime_t keyframe_asked_ = -1;
    utime_t next_sr_ = 0;
    utime_t next_peer_timer_ = 0;
    RtcpNack nack_;  // reused
    utime_t retransmit_window_ = 0;  // start of the current second of retransmissions
    // A Baseline player of a stream with B-frames: they are skipped and its
    // video renumbered (sent_seq_ maps its numbers back for NACKs).
    // Starting from the ring: the next packet to send, paced per timer tick.
    static constexpr int kCatchupPerTick = 40;
    bool catching_up_ = false;
    uint16_t catchup_next_ = 0;
    bool skip_bframes_ = false;
    bool bframes_logged_ = false;
    uint16_t skipped_ = 0;
    struct SentSeq {
        uint16_t sent = 0, ring = 0;
    };
    static constexpr size_t kSentSeqHistory = 1024;
    std::vector<SentSeq> sent_seq_;
    uint32_t retransmits_in_window_ = 0;
};

}  // namespace srs
