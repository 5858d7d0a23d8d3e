// WebRTC signalling on the API port (and on the HTTP port when the API
// shares it), with SRS's paths and shapes:
//
//   POST /rtc/v1/whip/?app=&stream=        body: SDP offer  -> 201, SDP answer, Location
//   POST /rtc/v1/whep/?app=&stream=        (also /rtc/v1/whip-play/ and /rtc/v1/whip/?action=play)
//   DELETE <Location>                      /rtc/v1/whip/?action=delete&token=&app=&stream=&session=
//   POST /rtc/v1/publish/, /rtc/v1/play/   body: {api, tid, streamurl, clientip, sdp}
//                                          -> 200 {code, server, service, pid, sdp, sessionid}
//
// WHIP/WHEP answer errors with HTTP statuses and the reason as text; the JSON
// API answers HTTP 200 with SRS's non-zero code, as SRS's pages expect.
// Except a full server (the pending sessions' bounds, max_connections): 503
// on either, with Retry-After and the JSON envelope carrying code 1074
// (SRS's ERROR_EXCEED_CONNECTIONS) and the reason in "error".
// Knobs on either: eip=, codec=, encrypt=false; a Bearer token or ?secret=
// is read and kept for authentication (not checked yet).
#pragma once

#include <string>

#include "app/api/http_api.hpp"
#include "app/http/http_conn.hpp"
#include "app/hooks/http_hooks.hpp"
#include "app/rtc/rtc_negotiate.hpp"

namespace srs {

class RtcServer;

class RtcApiHandler : public HttpHandler {
  public:
    RtcApiHandler(ServerContext* ctx, HttpApiHandler* api, RtcServer* rtc);
    bool match(const HttpRequest& req) const override;
    Error serve(const HttpRequest& req, HttpResponse* res) override;

  private:
    Error serve_whip(const HttpRequest& req, HttpResponse* res, bool play);
    Error serve_whip_delete(const HttpRequest& req, HttpResponse* res);
    Error serve_json(const HttpRequest& req, HttpResponse* res, bool publish);
    // on_publish / on_play on the API's coroutine; when it passes the
    // session's end queues on_unpublish / on_stop (r->end_hook).
    Error call_start_hook(RtcSessionRequest* r);
    // A passed start hook whose session was not made: its end hook now.
    void notify_end_hook(const RtcSessionRequest& r);
    HookRequest hook_request(const RtcSessionRequest& r);
    // 503, Retry-After and {code, server, service, pid, error} for kErrorExceedConnections.
    Error send_full(HttpResponse* res, Error err);

    ServerContext* ctx_;
    HttpApiHandler* api_;
    RtcServer* rtc_;
};

// HTTP status for a signalling error (WHIP/WHEP): 400 bad offer or knob,
// 403 disabled, 404 no session, 409 busy, 503 full, 500 otherwise.
int rtc_error_status(int code);

// SCHEME://host[:port]/app/stream[?query] -> host, app, stream, query, for
// any scheme (SRS's clients send webrtc://, http://, https:// or rtmp://);
// false when it is not of that form.
bool parse_webrtc_url(const std::string& url, std::string* host, std::string* app, std::string* stream,
                      std::string* query);

}  // namespace srs
