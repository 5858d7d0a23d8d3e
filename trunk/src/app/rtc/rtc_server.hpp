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
//
// A new session is pending (RtcPendingSessions, rtc_pending.hpp) until its
// peer's first STUN binding request verifies: bounded apart (in all, per
// signalling address, in time) and not a client yet. Then it joins the
// ClientRegistry, where max_connections counts it like any TCP client.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "app/rtc/rtc_bridge_from_live.hpp"
#include "app/rtc/rtc_datagram_router.hpp"
#include "app/rtc/rtc_negotiate.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_play_reach.hpp"
#include "app/rtc/rtc_pending.hpp"
#include "app/rtc/rtc_routing_table.hpp"
#include "app/rtc/rtc_session.hpp"
#include "app/rtc/rtc_signalling.hpp"
#include "app/rtc/rtc_source.hpp"
#include "app/rtc/rtc_tcp_io.hpp"
#include "app/rtc/rtc_udp_io.hpp"
#include "app/conn/live_context.hpp"
#include "app/hooks/http_hooks.hpp"
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

    // Signalling: a new session for an offer, pending until its first
    // verified STUN binding. Errors: kErrorRtcDisabled, kErrorRtcSourceBusy,
    // kErrorSdp* / kErrorRtcInvalidParams (bad offer), kErrorExceedConnections
    // (the pending bounds, or max_connections, are full).
    Error create_session(const RtcSessionRequest& req, RtcSessionAnswer* answer);
    // DELETE of a WHIP/WHEP resource: `session` is the local ufrag (or SRS's
    // "ufrag:remote"), `token` must match. kErrorRtcNoSession otherwise.
    Error delete_session(const std::string& session, const std::string& token);
    size_t session_count() const { return sessions_.size(); }
    const RtcPendingSessions& pending() const { return pending_; }
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
        size_t sessions = 0, pending = 0;  // now: every session, and those not verified yet
        uint64_t pending_refused = 0;  // offers refused with 503: a pending bound or max_connections full
        uint64_t pending_expired = 0;  // pending sessions freed by pending_timeout
    };
    Stats stats() const;

  private:
    Error cycle() override;  // the timer coroutine
    void reap();
    void log_stats(utime_t now);
    // A player admitted for a stream it gets nothing of: the log says why (answer->no_media).
    void check_player_reach(const RtcSessionRequest& req, RtcSessionAnswer* answer);
    // A place among the pending sessions for an offer from `address`, or
    // kErrorExceedConnections (logged here, at most once a second).
    Error admit(const Config& config, const std::string& address, utime_t now);
    // Closes the pending sessions whose pending_timeout passed.
    void expire_pending(utime_t now);
    // The first verified binding: pending -> a client (or closed when max_connections is reached).
    void on_session_verified(RtcSession* session, utime_t now);
    struct VerifiedListener : RtcDatagramRouter::Listener {
        explicit VerifiedListener(RtcServer* s) : server(s) {}
        void on_session_verified(RtcSession* session, utime_t now) override { server->on_session_verified(session, now); }
        RtcServer* server;
    };

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
    RtcPendingSessions pending_;
    RtcDatagramRouter router_{&routes_};
    VerifiedListener verified_listener_{this};
    RtcUdpIo udp_{&router_, &sources_};
    RtcTcpIo tcp_{&router_, &udp_};
    RtcSignalling signalling_{ctx_, &sources_, &routes_};
    // Declared after the IO their send paths point into, so freed before it.
    std::vector<std::unique_ptr<RtcSession>> sessions_;
    // Sessions whose on_publish/on_play passed: what their end tells the hooks.
    std::unordered_map<const RtcSession*, std::pair<HookAction, HookRequest>> end_hooks_;
    std::unique_ptr<Coroutine> timer_;
    utime_t next_stats_ = 0;
    uint64_t tick_ = 0;
    uint64_t sessions_closed_ = 0;
    // The refusals of offers: logged at most once a second, with how many since.
    utime_t refusal_logged_at_ = -1;
    uint64_t refusals_unlogged_ = 0;
    uint64_t refused_full_ = 0;  // offers refused for max_connections
};

}  // namespace srs
