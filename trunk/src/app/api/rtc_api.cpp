#include "app/api/rtc_api.hpp"

#include <cctype>

#include "app/api/api_json.hpp"
#include "app/config/config_keys.hpp"
#include "app/hooks/hook_contract.hpp"
#include "app/live/live_source.hpp"
#include "app/rtc/rtc_server.hpp"
#include "app/security/access_check.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"
#include "io/runtime.hpp"
#include "kernel/sdp/sdp.hpp"
#include "protocol/http/http_response.hpp"

namespace srs {

namespace {

// A parameter of a query string that is not the request's own (a webrtc://
// stream URL's), read by HttpRequest's own rules.
std::string query_value(const std::string& query, const std::string& key) {
    HttpRequest r;
    r.query = query;
    return r.query_param(key);
}

// The Host header without its port ("[::1]:1985" -> "::1").
std::string host_without_port(const std::string* host) {
    if (!host) return "";
    std::string h = *host;
    if (!h.empty() && h[0] == '[') {
        size_t end = h.find(']');
        return end == std::string::npos ? h : h.substr(1, end - 1);
    }
    size_t colon = h.find(':');
    return colon == std::string::npos ? h : h.substr(0, colon);
}

std::string resolve_vhost(ServerContext* ctx, const std::string& host, const std::string& query) {
    std::shared_ptr<const Config> config = ctx->config();
    std::string v = query_value(query, "vhost");
    if (v.empty()) v = query_value(query, "domain");
    if (!v.empty() && config->has_vhost(v)) return v;
    return config->has_vhost(host) ? host : kDefaultVhost;
}

// What every form of request shares: knobs from the query (URL first, then
// the stream URL's for the JSON API).
void read_knobs(const std::string& query, RtcSessionRequest* r) {
    std::string eip = query_value(query, "eip");
    if (eip.empty()) eip = query_value(query, "candidate");
    if (!eip.empty()) r->eip = eip;
    std::string codec = query_value(query, "codec");
    if (!codec.empty()) r->codec = codec;
    if (query_value(query, "encrypt") == "false") r->encrypt = false;
}

// Percent-encodes everything but RFC 3986 unreserved characters (and ':' of a session id).
std::string url_encode(const std::string& s) {
    static const char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

}  // namespace

int rtc_error_status(int code) {
    if (code >= kErrorSdpTooLarge && code <= kErrorSdpAnswer) return 400;
    switch (code) {
        case kErrorRtcApiBody:
        case kErrorRtcInvalidParams:
            return 400;
        case kErrorRtcDisabled:
            return 403;
        case kErrorRtcNoSession:
            return 404;
        case kErrorRtcSourceBusy:
            return 409;
        case kErrorExceedConnections:
            return 503;
        default:
            return 500;
    }
}

bool parse_webrtc_url(const std::string& url, std::string* host, std::string* app, std::string* stream,
                      std::string* query) {
    // Any scheme, as SRS: only host, app, stream and query are used
    // (webrtc://, http://, https://, rtmp://, ...).
    size_t sep = url.find("://");
    if (sep == std::string::npos || sep == 0) return false;
    for (size_t i = 0; i < sep; i++) {
        char c = url[i];
        bool ok = isalpha(static_cast<unsigned char>(c)) ||
                  (i > 0 && (isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.'));
        if (!ok) return false;
    }
    std::string rest = url.substr(sep + 3);
    size_t q = rest.find('?');
    *query = q == std::string::npos ? "" : rest.substr(q + 1);
    if (q != std::string::npos) rest = rest.substr(0, q);
    size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0) return false;
    std::string authority = rest.substr(0, slash);
    *host = host_without_port(&authority);
    std::string path = rest.substr(slash + 1);
    size_t last = path.rfind('/');
    if (last == std::string::npos || last == 0 || last + 1 >= path.size()) return false;
    *app = path.substr(0, last);
    *stream = path.substr(last + 1);
    return true;
}

RtcApiHandler::RtcApiHandler(ServerContext* ctx, HttpApiHandler* api, RtcServer* rtc)
    : ctx_(ctx), api_(api), rtc_(rtc) {}

bool RtcApiHandler::match(const HttpRequest& req) const { return req.path.compare(0, 8, "/rtc/v1/") == 0; }

Error RtcApiHandler::serve(const HttpRequest& req, HttpResponse* res) {
    const std::string& p = req.path;
    bool whip = p == "/rtc/v1/whip/" || p == "/rtc/v1/whip";
    bool whep = p == "/rtc/v1/whep/" || p == "/rtc/v1/whep" || p == "/rtc/v1/whip-play/" || p == "/rtc/v1/whip-play";
    if (whip || whep) {
        if (req.method == "DELETE") return serve_whip_delete(req, res);
        if (req.method != "POST") return res->send(405, "text/plain", "use POST with an SDP offer, or DELETE\n");
        return serve_whip(req, res, whep || req.query_param("action") == "play");
    }
    if (p == "/rtc/v1/publish/" || p == "/rtc/v1/publish" || p == "/rtc/v1/play/" || p == "/rtc/v1/play") {
        if (req.method != "POST") return res->send(405, "text/plain", "use POST with a JSON body\n");
        return serve_json(req, res, p.compare(0, 15, "/rtc/v1/publish") == 0);
    }
    return res->send_error(404);
}

Error RtcApiHandler::serve_whip(const HttpRequest& req, HttpResponse* res, bool play) {
    RtcSessionRequest r;
    r.publish = !play;
    r.offer = req.body;
    r.client_ip = res->socket() ? res->socket()->peer().ip : "";
    r.signal_ip = r.client_ip;
    r.api_host = host_without_port(req.header("Host"));
    r.app = req.query_param("app");
    r.stream = req.query_param("stream");
    if (r.app.empty()) r.app = "live";
    if (r.stream.empty()) r.stream = "livestream";
    r.vhost = resolve_vhost(ctx_, r.api_host, req.query);
    r.tc_url = "webrtc://" + r.api_host + "/" + r.app;
    read_knobs(req.query, &r);
    // The bearer token (WHIP section 4.5) or ?secret=: kept for auth hooks.
    const std::string* auth = req.header("Authorization");
    if (auth && istarts_with(*auth, "Bearer ")) r.secret = std::string(trim_ows(std::string_view(*auth).substr(7)));
    if (r.secret.empty()) r.secret = req.query_param("secret");
    // The vhost's allow/deny rules: 403 with SRS's JSON code (1053 deny, 1054 not allowed).
    if (Error err = check_security(*ctx_->config(), r.vhost, play ? AccessAction::kPlay : AccessAction::kPublish,
                                   r.client_ip);
        err.failed()) {
        srs_warn("RTC: %s /%s/%s refused (403): %s", play ? "WHEP" : "WHIP", r.app.c_str(), r.stream.c_str(),
                 err.summary().c_str());
        HttpApiHandler::Json body = api_->envelope(err.code());
        err.ignore();
        return res->send(403, "application/json", dump_api_json(body));
    }
    r.param = req.query.empty() ? "" : "?" + req.query;
    if (Error err = call_start_hook(&r); err.failed()) {
        srs_warn("RTC: %s /%s/%s refused (403) by the %s hook", play ? "WHEP" : "WHIP", r.app.c_str(), r.stream.c_str(),
                 play ? "on_play" : "on_publish");
        HttpApiHandler::Json body = api_->envelope(hook_refusal_code(err));
        err.ignore();
        return res->send(403, "application/json", dump_api_json(body));
    }
    RtcSessionAnswer a;
    if (Error err = rtc_->create_session(r, &a); err.failed()) {
        notify_end_hook(r);
        if (err.code() == kErrorExceedConnections) return send_full(res, std::move(err));  // the server logged it
        int status = rtc_error_status(err.code());
        srs_warn("RTC: %s /%s/%s from %s refused (%d): %s", play ? "WHEP" : "WHIP", r.app.c_str(), r.stream.c_str(),
                 r.client_ip.c_str(), status, err.summary().c_str());
        std::string text = err.summary() + "\n";
        err.ignore();
        return res->send(status, "text/plain", text);
    }
    std::string location = std::string(play ? "/rtc/v1/whep/" : "/rtc/v1/whip/") + "?action=delete&token=" +
                           url_encode(a.token) + "&app=" + url_encode(r.app) + "&stream=" + url_encode(r.stream) +
                           "&session=" + url_encode(a.session_id);
    res->head().set("Location", location);
    // Ours: the player is admitted (as SRS does) but will get no media, and why.
    if (!a.no_media.empty()) res->head().set("X-SRS-No-Media", a.no_media);
    return res->send(201, "application/sdp", a.sdp);
}

Error RtcApiHandler::serve_whip_delete(const HttpRequest& req, HttpResponse* res) {
    std::string session = req.query_param("session");
    std::string token = req.query_param("token");
    if (Error err = rtc_->delete_session(session, token); err.failed()) {
        int status = rtc_error_status(err.code());
        std::string text = err.summary() + "\n";
        err.ignore();
        return res->send(status, "text/plain", text);
    }
    return res->send(200, "", "");
}

Error RtcApiHandler::serve_json(const HttpRequest& req, HttpResponse* res, bool publish) {
    using Json = HttpApiHandler::Json;
    // SRS's pages close after each call.
    res->head().set("Connection", "Close");
    auto fail = [&](Error err) {
        int code = hook_refusal_code(err);  // SRS's code for a hook's failure, the error's otherwise
        srs_warn("RTC: %s API refused: %s", publish ? "publish" : "play", err.summary().c_str());
        Json body = api_->envelope(code);
        err.ignore();
        return res->send(200, "application/json", dump_api_json(body));
    };
    Json j = Json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return fail(SRS_ERR(kErrorRtcApiBody, "the body is not a JSON object"));
    auto str = [&j](const char* key) -> std::string {
        auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : "";
    };
    RtcSessionRequest r;
    r.publish = publish;
    r.offer = str("sdp");
    if (r.offer.empty()) return fail(SRS_ERR(kErrorRtcApiBody, "no sdp in the body"));
    std::string host, query;
    if (!parse_webrtc_url(str("streamurl"), &host, &r.app, &r.stream, &query)) {
        return fail(SRS_ERR(kErrorRtcApiBody, "streamurl %s is not webrtc://host/app/stream", str("streamurl").c_str()));
    }
    r.client_ip = res->socket() ? res->socket()->peer().ip : "";
    // Judged by the socket's address, never by the body's clientip.
    AccessAction action = publish ? AccessAction::kPublish : AccessAction::kPlay;
    if (Error err = check_security(*ctx_->config(), resolve_vhost(ctx_, host, query), action, r.client_ip);
        err.failed()) {
        return fail(std::move(err));
    }
    r.signal_ip = r.client_ip;  // never the body's clientip: the bound per address must not be dodged
    std::string clientip = str("clientip");
    if (!clientip.empty()) r.client_ip = clientip;
    r.api_host = host_without_port(req.header("Host"));
    r.vhost = resolve_vhost(ctx_, host, query);
    r.tc_url = "webrtc://" + host + "/" + r.app;
    read_knobs(query, &r);
    read_knobs(req.query, &r);
    r.secret = query_value(query, "secret");
    r.param = query.empty() ? "" : "?" + query;
    if (Error err = call_start_hook(&r); err.failed()) return fail(std::move(err));
    RtcSessionAnswer a;
    if (Error err = rtc_->create_session(r, &a); err.failed()) {
        notify_end_hook(r);
        if (err.code() == kErrorExceedConnections) return send_full(res, std::move(err));
        return fail(std::move(err));
    }
    Json body = api_->envelope(0);
    body["sdp"] = a.sdp;
    body["sessionid"] = a.session_id;
    if (!a.no_media.empty()) body["no_media"] = a.no_media;  // ours, as WHEP's X-SRS-No-Media
    return res->send(200, "application/json", dump_api_json(body));
}

HookRequest RtcApiHandler::hook_request(const RtcSessionRequest& r) {
    HookRequest h;
    h.client_id = r.hook_cid.empty() ? context_id() : r.hook_cid;  // the API connection's, as SRS
    h.ip = r.client_ip;
    h.vhost = r.vhost;
    h.app = r.app;
    h.stream = r.stream;
    h.param = r.param;
    h.tc_url = r.tc_url;
    if (LiveSource* s = ctx_->sources().find(r.vhost, r.app, r.stream)) h.stream_id = s->id();
    return h;
}

Error RtcApiHandler::call_start_hook(RtcSessionRequest* r) {
    HookRequest h = hook_request(*r);
    if (Error err = ctx_->hooks().call(r->publish ? HookAction::kPublish : HookAction::kPlay, h); err.failed()) {
        return err;
    }
    r->end_hook = true;
    r->hook_cid = h.client_id;
    return Error();
}

void RtcApiHandler::notify_end_hook(const RtcSessionRequest& r) {
    if (!r.end_hook) return;
    ctx_->hooks().notify(r.publish ? HookAction::kUnpublish : HookAction::kStop, hook_request(r));
}

Error RtcApiHandler::send_full(HttpResponse* res, Error err) {
    HttpApiHandler::Json body = api_->envelope(err.code());
    body["error"] = err.summary();
    err.ignore();
    // A place frees when a pending session verifies or times out: at the latest after pending_timeout.
    utime_t wait = rtc_->pending().limits().timeout;
    res->head().set("Retry-After", std::to_string(wait > 0 ? (wait + kUsPerSecond - 1) / kUsPerSecond : 1));
    return res->send(503, "application/json", dump_api_json(body));
}

}  // namespace srs
