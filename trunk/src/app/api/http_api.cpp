#include "app/api/http_api.hpp"

#include <unistd.h>

#include <algorithm>

#include "app/api/api_json.hpp"
#include "app/api/summaries_api.hpp"
#include "app/live/live_source.hpp"
#include "app/rtc/rtc_server.hpp"
#include "build_options.h"
#include "core/base64.hpp"
#include "core/strings.hpp"
#include "core/version.hpp"
#include "io/runtime.hpp"
#include "protocol/http/http_response.hpp"

namespace srs {

HttpApiHandler::HttpApiHandler(ServerContext* ctx, RtcServer* rtc)
    : ctx_(ctx), rtc_(rtc), tool_endpoints_(make_tool_endpoints(ctx)), service_id_(new_context_id()) {}

bool HttpApiHandler::match(const HttpRequest& req) const {
    return req.path == "/api" || req.path.compare(0, 5, "/api/") == 0;
}

HttpApiHandler::Json HttpApiHandler::envelope(int code) const {
    Json j;
    j["code"] = code;
    std::string server_id = ctx_->config()->get(keys::server_id);
    j["server"] = server_id.empty() ? "vid-" + service_id_.substr(0, 7) : server_id;
    j["service"] = service_id_;
    j["pid"] = std::to_string(getpid());
    return j;
}

Error HttpApiHandler::reply(const HttpRequest& req, HttpResponse* res, int status, const Json& body) {
    std::string text = dump_api_json(body);
    if (req.has_query_param("callback")) {
        std::string cb = req.query_param("callback");
        // Never echo a callback that is not a plain identifier: that would be
        // script injection into the caller's page.
        if (!is_valid_js_identifier(cb)) {
            Json err = envelope(400);
            err["error"] = "invalid JSONP callback";
            return res->send(400, "application/json", dump_api_json(err));
        }
        return res->send(status, "text/javascript", cb + "(" + text + ")");
    }
    return res->send(status, "application/json", text);
}

// RFC 7617: "Basic" (any case), then base64 of "user:password".
bool HttpApiHandler::authorized(const HttpRequest& req) const {
    std::shared_ptr<const Config> config = ctx_->config();
    if (!config->get(keys::http_api_auth_enabled)) return true;
    const std::string* auth = req.header("Authorization");
    constexpr std::string_view kScheme = "Basic ";
    std::string credentials;
    if (!auth || !istarts_with(*auth, kScheme) ||
        !base64_decode(trim_ows(std::string_view(*auth).substr(kScheme.size())), &credentials)) {
        return false;
    }
    return credentials ==
           config->get(keys::http_api_auth_username) + ":" + config->get(keys::http_api_auth_password);
}

// "vid-" and 7 characters of [0-9a-z] hashed (FNV-1a) from this process's
// service id and the vhost name: stable while the process runs and different
// in the next one, like SRS's random ids, but nothing is cached. A cache entry
// made by the first API call about a vhost would show as new memory in
// valgrind's incremental leak check (/api/v1/valgrind?check=added).
std::string HttpApiHandler::vhost_id(const std::string& vhost) const {
    static const char kChars[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    uint64_t h = 1469598103934665603ULL;
    for (const std::string* part : {&service_id_, &vhost}) {
        for (char c : *part) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;  // separator: ("ab","c") != ("a","bc")
    }
    std::string id = "vid-";
    for (int i = 0; i < 7; i++, h /= 36) id += kChars[h % 36];
    return id;
}

HttpApiHandler::Json HttpApiHandler::stream_json(LiveSource* s) {
    Json j;
    j["id"] = s->id();
    j["name"] = s->stream();
    j["vhost"] = vhost_id(s->vhost());
    j["app"] = s->app();
    // The publisher's tcUrl, as it connected; without one, the vhost's.
    const Client* publisher = s->publishing() ? ctx_->clients().find(s->publisher_cid()) : nullptr;
    j["tcUrl"] = publisher && !publisher->info().tc_url.empty() ? publisher->info().tc_url
                                                                 : "rtmp://" + s->vhost() + "/" + s->app();
    j["url"] = s->url();
    j["live_ms"] = wall_us() / kUsPerMs;
    j["clients"] = s->consumer_count() + s->attached_players() + (s->publishing() ? 1 : 0);
    j["frames"] = s->video_frames();
    j["send_bytes"] = s->send_bytes();
    j["recv_bytes"] = s->recv_bytes();
    j["kbps"] = {{"recv_30s", s->recv_kbps()}, {"send_30s", s->send_kbps()}};
    j["publish"] = {{"active", s->publishing()}, {"cid", s->publisher_cid()}};
    // Ours, only on an edge's pulled streams: where the stream comes from
    // ("" between two tries of the pull).
    std::string upstream;
    if (ctx_->puller().pulled_from(s, &upstream)) {
        j["edge"] = true;
        j["origin"] = upstream;
    }
    if (const VideoCodecConfig* v = s->video_config()) {
        j["video"] = {{"codec", v->codec}, {"profile", v->profile}, {"level", v->level}, {"width", v->width},
                      {"height", v->height}};
    } else {
        j["video"] = nullptr;
    }
    if (const AudioCodecConfig* a = s->audio_config()) {
        j["audio"] = {{"codec", a->codec}, {"sample_rate", a->sample_rate}, {"channel", a->channels},
                      {"profile", a->profile}};
    } else {
        j["audio"] = nullptr;
    }
    // Ours: whether a WebRTC player gets this stream's media, and why (not).
    if (rtc_) {
        RtcPlayReach r = rtc_->play_reach(s->vhost(), s->app(), s->stream());
        j["webrtc"] = {{"play", r.play}, {"reason", r.reason}};
    }
    return j;
}

// Clients are the stream's players and publishers, as in SRS: RTMP
// connections from their first byte, HTTP ones once they play a stream;
// API calls and static file requests are not listed (Client::listed()).
HttpApiHandler::Json HttpApiHandler::client_json(const Client* c) {
    const ClientInfo& i = c->info();
    Json j;
    j["id"] = c->cid();
    j["vhost"] = i.vhost.empty() ? "" : vhost_id(i.vhost);
    LiveSource* s = i.stream.empty() ? nullptr : ctx_->sources().find(i.vhost, i.app, i.stream);
    j["stream"] = s ? s->id() : "";
    j["ip"] = c->peer_ip();
    j["pageUrl"] = i.page_url;
    j["swfUrl"] = i.swf_url;
    j["tcUrl"] = i.tc_url;
    j["url"] = i.stream.empty() ? "" : "/" + i.app + "/" + i.stream;
    j["name"] = i.stream;
    j["type"] = i.kind == ClientKind::kUnknown ? c->protocol() : std::string(client_kind_name(i.kind));
    j["publish"] = i.publishing();
    if (*c->transport()) j["transport"] = c->transport();
    j["alive"] = static_cast<double>(monotonic_us() - c->start_time_us()) / kUsPerSecond;
    j["send_bytes"] = c->send_bytes();
    j["recv_bytes"] = c->recv_bytes();
    j["kbps"] = {{"recv_30s", c->recv_kbps()}, {"send_30s", c->send_kbps()}};
    return j;
}

HttpApiHandler::Json HttpApiHandler::vhost_json(const std::string& vhost) {
    int clients = 0, streams = 0, recv_kbps = 0, send_kbps = 0;
    uint64_t send = 0, recv = 0;
    for (LiveSource* s : ctx_->sources().sources()) {
        if (s->vhost() != vhost) continue;
        streams++;
        clients += static_cast<int>(s->consumer_count() + s->attached_players()) + (s->publishing() ? 1 : 0);
        send += s->send_bytes();
        recv += s->recv_bytes();
        recv_kbps += s->recv_kbps();
        send_kbps += s->send_kbps();
    }
    Json j;
    j["id"] = vhost_id(vhost);
    j["name"] = vhost;
    j["enabled"] = ctx_->config()->get(vhost, keys::vhost_enabled);
    j["clients"] = clients;
    j["streams"] = streams;
    j["send_bytes"] = send;
    j["recv_bytes"] = recv;
    j["kbps"] = {{"recv_30s", recv_kbps}, {"send_30s", send_kbps}};
    j["hls"] = {{"enabled", false}};
    return j;
}

// "?start=&count=" as SRS: count defaults to 10 and is at least 10.
static void page_of(const HttpRequest& req, size_t total, size_t* begin, size_t* end) {
    int64_t start = 0, count = 0;
    if (!parse_integer(req.query_param("start"), &start) || start < 0) start = 0;
    if (!parse_integer(req.query_param("count"), &count)) count = 0;
    count = std::max<int64_t>(10, count);
    *begin = std::min(total, static_cast<size_t>(start));
    *end = std::min(total, *begin + static_cast<size_t>(count));
}

Error HttpApiHandler::api_streams(const HttpRequest& req, HttpResponse* res, const std::string& id) {
    if (req.method != "GET") return reply(req, res, 405, envelope(405));
    std::vector<LiveSource*> all = ctx_->sources().sources();
    Json j = envelope(0);
    if (!id.empty()) {
        for (LiveSource* s : all) {
            if (s->id() == id) {
                j["stream"] = stream_json(s);
                return reply(req, res, 200, j);
            }
        }
        return reply(req, res, 404, envelope(404));
    }
    size_t begin, end;
    page_of(req, all.size(), &begin, &end);
    j["streams"] = Json::array();
    for (size_t i = begin; i < end; i++) j["streams"].push_back(stream_json(all[i]));
    return reply(req, res, 200, j);
}

Error HttpApiHandler::api_clients(const HttpRequest& req, HttpResponse* res, const std::string& id) {
    ClientRegistry& clients = ctx_->clients();
    if (!id.empty()) {
        Client* c = clients.find(id);
        if (!c || !c->listed()) return reply(req, res, 404, envelope(404));
        if (req.method == "DELETE") {
            // Kick: the client's coroutine ends at its next wait and closes.
            c->expire();
            return reply(req, res, 200, envelope(0));
        }
        if (req.method != "GET") return reply(req, res, 405, envelope(405));
        Json j = envelope(0);
        j["client"] = client_json(c);
        return reply(req, res, 200, j);
    }
    if (req.method != "GET") return reply(req, res, 405, envelope(405));
    std::vector<Client*> all = clients.clients();
    all.erase(std::remove_if(all.begin(), all.end(), [](const Client* c) { return !c->listed(); }), all.end());
    size_t begin, end;
    page_of(req, all.size(), &begin, &end);
    Json j = envelope(0);
    j["clients"] = Json::array();
    for (size_t i = begin; i < end; i++) j["clients"].push_back(client_json(all[i]));
    return reply(req, res, 200, j);
}

Error HttpApiHandler::api_vhosts(const HttpRequest& req, HttpResponse* res, const std::string& id) {
    if (req.method != "GET") return reply(req, res, 405, envelope(405));
    Json j = envelope(0);
    std::vector<std::string> names = ctx_->config()->vhosts();
    if (!id.empty()) {
        for (const auto& v : names) {
            if (vhost_id(v) == id) {
                j["vhost"] = vhost_json(v);
                return reply(req, res, 200, j);
            }
        }
        return reply(req, res, 404, envelope(404));
    }
    j["vhosts"] = Json::array();
    for (const auto& v : names) j["vhosts"].push_back(vhost_json(v));
    return reply(req, res, 200, j);
}

Error HttpApiHandler::api_raw(const HttpRequest& req, HttpResponse* res) {
    std::shared_ptr<const Config> config = ctx_->config();
    if (!config->get(keys::http_api_raw_api_enabled)) {
        Json j = envelope(1061);  // SRS's "raw api disabled"
        j["error"] = "raw api is disabled: http_api { raw_api { enabled on; } }";
        return reply(req, res, 200, j);
    }
    std::string rpc = req.query_param("rpc");
    if (rpc == "raw") {
        Json j = envelope(0);
        j["http_api"] = {{"enabled", config->get(keys::http_api_enabled)},
                         {"listen", config->text(keys::http_api_listen)},
                         {"crossdomain", config->get(keys::http_api_crossdomain)},
                         {"raw_api",
                          {{"enabled", config->get(keys::http_api_raw_api_enabled)},
                           {"allow_reload", config->get(keys::http_api_raw_api_allow_reload)}}}};
        return reply(req, res, 200, j);
    }
    if (rpc == "reload") {
        if (!config->get(keys::http_api_raw_api_allow_reload)) {
            Json j = envelope(1062);
            j["error"] = "reload is not allowed: raw_api { allow_reload on; }";
            return reply(req, res, 200, j);
        }
        Error err = ctx_->reload();
        Json j = envelope(err.ok() ? 0 : err.code());
        if (!err.ok()) j["error"] = err.summary();
        return reply(req, res, 200, j);
    }
    Json j = envelope(400);
    j["error"] = "rpc must be raw or reload";
    return reply(req, res, 400, j);
}

Error HttpApiHandler::serve(const HttpRequest& req, HttpResponse* res) {
    if (!authorized(req)) {
        res->head().set("WWW-Authenticate", "Basic realm=\"SRS\"");
        return reply(req, res, 401, envelope(401));
    }
    std::string path = req.path;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    auto under = [&](const char* prefix, std::string* id) {
        std::string p(prefix);
        if (path == p) {
            id->clear();
            return true;
        }
        if (path.compare(0, p.size() + 1, p + "/") == 0) {
            *id = path.substr(p.size() + 1);
            return id->find('/') == std::string::npos;
        }
        return false;
    };
    std::string id;
    // Methods as SRS: streams and vhosts answer GET only, clients GET and
    // DELETE (the kick); every other endpoint answers whatever the method
    // (tools written for SRS POST to /api/v1/versions).
    for (const auto& e : tool_endpoints_) {
        if (path != e->path()) continue;
        std::string type, text;
        if (int status = e->handle_text(req, &type, &text); status != 0) return res->send(status, type, text);
        Json j = envelope(0);
        int status = e->handle(req, &j);
        return reply(req, res, status, j);
    }
    if (under("/api/v1/streams", &id)) return api_streams(req, res, id);
    if (under("/api/v1/clients", &id)) return api_clients(req, res, id);
    if (under("/api/v1/vhosts", &id)) return api_vhosts(req, res, id);
    Json j = envelope(0);
    if (path == "/api") {
        j["urls"] = {{"v1", "the api version 1.0"}};
    } else if (path == "/api/v1") {
        j["urls"] = {{"versions", "the version of SRS"},
                     {"summaries", "the summary(pid, argv, pwd, cpu, mem) of SRS"},
                     {"rusages", "the rusage of SRS"},
                     {"self_proc_stats", "the self process stats"},
                     {"system_proc_stats", "the system process stats"},
                     {"meminfos", "the meminfo of system"},
                     {"features", "the supported features of SRS"},
                     {"vhosts", "manage all vhosts or specified vhost"},
                     {"streams", "manage all streams or specified stream"},
                     {"clients", "manage all clients or specified client, default query top 10 clients"},
                     {"raw", "raw api for srs, support CUID srs for instance the config"}};
        for (const auto& e : tool_endpoints_) {
            if (e->listed()) j["urls"][std::string(e->path()).substr(8)] = e->description();
        }
    } else if (path == "/api/v1/versions") {
        j["data"] = {{"major", SRS_VERSION_MAJOR},
                     {"minor", SRS_VERSION_MINOR},
                     {"revision", SRS_VERSION_REVISION},
                     {"version", SRS_VERSION_STRING}};
    } else if (path == "/api/v1/rusages") {
        j["data"] = ctx_->proc_stats().rusages_json();
    } else if (path == "/api/v1/self_proc_stats") {
        j["data"] = ctx_->proc_stats().self_proc_stats_json();
    } else if (path == "/api/v1/system_proc_stats") {
        j["data"] = ctx_->proc_stats().system_proc_stats_json();
    } else if (path == "/api/v1/meminfos") {
        j["data"] = ctx_->proc_stats().meminfos_json();
    } else if (path == "/api/v1/summaries") {
        j["data"] = build_summaries_data(ctx_, rtc_);
    } else if (path == "/api/v1/features") {
        j["data"] = {{"options", SRS_CONFIGURE_OPTIONS},
                     {"options2", SRS_BUILD_EFFECTIVE},
                     {"build", __DATE__},
                     {"build2", __DATE__ " " __TIME__},
                     {"features",
                      {{"ssl", true}, {"hls", false}, {"hds", false}, {"callback", false}, {"api", true},
                       {"httpd", true}, {"dvr", false}, {"transcode", true}, {"ingest", true}, {"stat", true},
                       {"caster", false}, {"complex_send", true}, {"tcp_nodelay", true}, {"so_sendbuf", true},
                       {"mr", true}}}};
    } else if (path == "/api/v1/raw") {
        return api_raw(req, res);
    } else {
        Json err = envelope(404);
        err["error"] = "no such endpoint: " + path;
        return reply(req, res, 404, err);
    }
    return reply(req, res, 200, j);
}

}  // namespace srs
