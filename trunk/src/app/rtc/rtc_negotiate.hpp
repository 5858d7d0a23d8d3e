// Offer in, answer and session parameters out: what a WHIP/WHEP POST or an
// SRS /rtc/v1/publish|play call asks of the server, without creating
// anything. A refused offer allocates nothing beyond its parse.
#pragma once

#include <string>
#include <vector>

#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_session.hpp"
#include "core/error.hpp"

namespace srs {

class RtcSource;

// One signalling request, as the API layer read it.
struct RtcSessionRequest {
    bool publish = false;
    std::string vhost, app, stream;
    std::string offer;          // SDP text
    std::string client_ip;      // the HTTP peer (the JSON API's "clientip" when given: shown in the API)
    std::string signal_ip;      // the HTTP peer, always: the pending sessions are bounded per this address
    std::string api_host;       // the Host the API was reached by (without port)
    std::string eip;            // ?eip= (ip or ip:port): an extra candidate, offered first
    std::string codec;          // ?codec= video preference (h264|h265|hevc|vp8|vp9|av1)
    bool encrypt = true;        // ?encrypt=false turns SRTP off for this session
    std::string tc_url;
    std::string secret;         // Authorization: Bearer <token>, or ?secret= (kept for hooks, not checked yet)
    std::string param;          // the stream's query ("?k=v" or ""), for the http_hooks
    // on_publish/on_play passed for this session: on_unpublish/on_stop are
    // queued when it ends, with hook_cid as their client_id.
    bool end_hook = false;
    std::string hook_cid;
};

struct RtcSessionAnswer {
    std::string sdp;
    std::string session_id;  // "<local ufrag>:<remote ufrag>", SRS's sessionid
    std::string token;       // for the WHIP/WHEP Location
    std::string cid;
    std::string no_media;  // a player's: why it will get no media (rtc_play_reach), "" when it will
};

// The server's host candidates for a request: eip first, then the
// configured or detected addresses, then (api_as_candidates) the API host
// when it is an address. Warnings explain candidates that will not reach
// this client (loopback/private to a remote client).
struct RtcCandidatePlan {
    std::vector<SdpHostCandidate> candidates;
    std::vector<std::string> warnings;
};
RtcCandidatePlan rtc_plan_candidates(const RtcServerOptions& server, const RtcSessionRequest& req,
                                     const std::vector<std::string>& detected);

// Parses and judges the offer and fills the session parameters (except the
// peer's certificate and ICE credentials, which the caller adds) and the
// answer's text. `source` may be null (no publisher known yet). Errors carry
// kErrorSdp* (bad offer: 400) or kErrorRtcInvalidParams.
// The profile-level-id of an H.264 fmtp, lower case ("" when absent).
std::string h264_profile_level_id(const std::string& fmtp);

struct RtcNegotiation {
    RtcSessionParams params;
    std::string answer_sdp;
};
Error rtc_negotiate(const RtcSessionRequest& req, const RtcServerOptions& server, const RtcVhostOptions& vhost,
                    const RtcSource* source, const std::vector<SdpHostCandidate>& candidates,
                    const std::string& local_ufrag, const std::string& local_pwd, const std::string& fingerprint,
                    RtcNegotiation* out);

// What the session's log line says of retransmissions: "on", or which
// track goes without and why ("video off (the offer has no a=rtcp-fb nack)").
std::string rtc_nack_summary(const RtcSessionParams& params);

}  // namespace srs
