// The WebRTC server: owns the sessions and wires the parts that serve them.
//
//   RtcSignalling      offer -> negotiated, started session (the registry
//                      claim for publishers), DELETE with its token;
//   RtcRoutingTable    sessions by ufrag and by verified address, and the
//                      ones that ended lately (a DELETE racing a close);
//   RtcDatagramRouter  a datagram -> its session, binding the address the
//                      session's peer verified (the datagram's reply path
//                      carries its origin);
//   RtcUdpIo/RtcTcpIo  rtc_server.listen's sockets (recvmmsg/sendmmsg
//                      batches) and rtc_server.tcp's RFC 4571 connections.
//
// A timer coroutine drives the sessions' clocks (DTLS, feedback, reports,
// stun timeouts) every 20 ms and frees the sessions that ended.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/rtc/rtc_bridge_from_live.hpp"
#include "app/rtc/rtc_datagram_router.hpp"
#include "app/rtc/rtc_negotiate.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_play_reach.hpp"
#include "app/rtc/rtc_routing_table.hpp"
#include "app/rtc/rtc_session.hpp"
#include "app/rtc/rtc_signalling.hpp"
#include "app/rtc/rtc_source.hpp"
#include "app/rtc/rtc_tcp_io.hpp"
#include "app/rtc/rtc_udp_io.hpp"
#include "app/conn/live_context.hpp"
#include "io/coroutine.hpp"
#include "protocol/rtc/dtls.hpp"

namespace srs {

class RtcServer : public CoroutineHandler {
  public:
    explicit RtcServer(LiveContext* ctx);
    ~RtcServer() override;

    // Makes the certificate and opens the sockets; nothing when disabled.
    Error start(const RtcServerOptions& options);
    void stop();
    bool running() const { return started_; }
    const RtcServerOptions& options() const { return options_; }

    // Signalling: a new session for an offer. Errors: kErrorRtcDisabled,
    // kErrorRtcSourceBusy, kErrorSdp* / kErrorRtcInvalidParams (bad offer).
    Error create_session(const RtcSessionRequest& req, RtcSessionAnswer* answer);
    // DELETE of a WHIP/WHEP resource: `session` is the local ufrag (or SRS's
    // "ufrag:remote"), `token` must match. kErrorRtcNoSession otherwise.
    Error delete_session(const std::string& session, const std::string& token);
    size_t session_count() const { return sessions_.size(); }
    RtcSourceManager& rtc_sources() { return sources_; }

    // The RTMP -> WebRTC bridge of a stream being published, when its vhost
    // has rtc.enabled and rtc.rtmp_to_rtc (the source manager asks). Without
    // one, the WebRTC players already waiting are told in the log.
    std::unique_ptr<LiveSourceBridge> create_live_bridge(LiveSource* source);
    // Whether a WebRTC player of the stream gets its media now (the API's
    // stream "webrtc", the WHEP answer's X-SRS-No-Media).
    RtcPlayReach play_reach(const std::string& vhost, const std::string& app, const std::string& stream);

    struct Stats {
        uint64_t rx_packets = 0, rx_stun = 0, rx_dtls = 0, rx_rtp = 0, rx_unknown_addr = 0, rx_dropped = 0;
        uint64_t sessions_created = 0, sessions_refused = 0, sessions_closed = 0;
    };
    Stats stats() const;

  private:
    Error cycle() override;  // the timer coroutine
    void reap();
    void log_stats(utime_t now);
    // A player admitted for a stream it gets nothing of: the log says why (answer->no_media).
    void check_player_reach(const RtcSessionRequest& req, RtcSessionAnswer* answer);

    LiveContext* ctx_;
    RtcServerOptions options_;
    bool started_ = false;
    std::shared_ptr<DtlsCertificate> certificate_;
    RtcSourceManager sources_;
    LiveToRtcBridgeFactory bridge_factory_{this};
    // Sessions by ufrag and by verified address, and the ones that ended
    // lately: a DELETE racing the peer's own close (a page that closes and
    // DELETEs at once) still gets 200.
    RtcRoutingTable routes_;
    RtcDatagramRouter router_{&routes_};
    RtcUdpIo udp_{&router_, &sources_};
    RtcTcpIo tcp_{&router_, &udp_};
    RtcSignalling signalling_{ctx_, &sources_, &routes_};
    // Declared after the IO their send paths point into, so freed before it.
    std::vector<std::unique_ptr<RtcSession>> sessions_;
    std::unique_ptr<Coroutine> timer_;
    utime_t next_stats_ = 0;
    uint64_t tick_ = 0;
    uint64_t sessions_closed_ = 0;
};

}  // namespace srs
