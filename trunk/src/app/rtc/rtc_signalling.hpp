// WebRTC signalling: an offer (WHIP/WHEP POST, SRS /rtc/v1/publish|play)
// becomes a negotiated, started session; a WHIP publisher first claims its
// stream in the stream registry (cluster-wide); a DELETE of a resource ends
// its session when the token matches.
//
// The caller routes and keeps the sessions this makes (RtcServer); the
// routing table is read for fresh ufrags and for a DELETE's session.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/conn/live_context.hpp"
#include "app/rtc/rtc_negotiate.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_routing_table.hpp"
#include "app/rtc/rtc_session.hpp"
#include "app/rtc/rtc_source.hpp"
#include "protocol/rtc/dtls.hpp"

namespace srs {

class RtcSignalling {
  public:
    RtcSignalling(LiveContext* ctx, RtcSourceManager* sources, const RtcRoutingTable* routes)
        : ctx_(ctx), sources_(sources), routes_(routes) {}

    // Offers are answered with these options and this certificate until stop().
    void start(const RtcServerOptions& options, std::shared_ptr<DtlsCertificate> certificate);
    void stop();

    // A started session for an offer, in *session for the caller to route
    // and keep. Errors: kErrorRtcDisabled, kErrorRtcSourceBusy, kErrorSdp* /
    // kErrorRtcInvalidParams (bad offer); nothing is left behind then.
    Error create_session(const RtcSessionRequest& req, RtcSessionAnswer* answer, std::unique_ptr<RtcSession>* session);
    // DELETE of a WHIP/WHEP resource: `session` is the local ufrag (or SRS's
    // "ufrag:remote"), `token` must match; a session that ended at most 60 s
    // before `now` is already deleted. kErrorRtcNoSession otherwise. *closed
    // tells whether a session was closed now (its close_notify is queued).
    Error delete_session(const std::string& session, const std::string& token, utime_t now, bool* closed);

    // The interface addresses rtc_server.candidate "*" stands for (looked up again every 60 s).
    const std::vector<std::string>& detected_addresses(utime_t now);

    struct Stats {
        uint64_t sessions_created = 0, sessions_refused = 0;
    };
    const Stats& stats() const { return stats_; }

  private:
    // Claims the stream for a WHIP publisher in the stream registry;
    // kErrorRtcSourceBusy when another origin owns it.
    Error claim_for_publish(const RtcSessionRequest& req);

    LiveContext* ctx_;
    RtcSourceManager* sources_;
    const RtcRoutingTable* routes_;
    bool started_ = false;
    RtcServerOptions options_;
    std::shared_ptr<DtlsCertificate> certificate_;
    std::vector<std::string> detected_;
    utime_t detected_at_ = -1;
    Stats stats_;
};

}  // namespace srs
