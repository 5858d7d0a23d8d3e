#include "app/http/hls_ctx.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/http/http_static.hpp"
#include "app/live/live_source.hpp"
#include "app/security/access_check.hpp"
#include "app/hooks/http_hooks.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

static const char* kPlaylistType = "application/vnd.apple.mpegurl";

Error read_small_file(BlockingWorker* worker, const std::string& path, size_t max, std::string* out) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return SRS_ERR(kErrorFileOpen, "open %s", path.c_str());
    out->clear();
    Error err;
    char buf[16 * 1024];
    while (true) {
        bool blocked = false;
        ssize_t n = read_file_piece(worker, fd, buf, sizeof(buf), static_cast<off_t>(out->size()), &blocked);
        if (n < 0) {
            err = SRS_ERR(kErrorFileRead, "read %s", path.c_str());
            break;
        }
        if (n == 0) break;
        if (out->size() + static_cast<size_t>(n) > max) {
            err = SRS_ERR(kErrorFileRead, "%s is over %zu bytes", path.c_str(), max);
            break;
        }
        out->append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return err;
}

static std::string host_without_port(const std::string& host) {
    if (!host.empty() && host[0] == '[') return host.substr(1, host.find(']') - 1);
    return host.substr(0, host.find(':'));
}

HlsCtxService::HlsCtxService(LiveContext* live, BlockingWorker* worker)
    : live_(live), worker_(worker), table_(&live->clients()), sweeper_("hls_ctx", this) {}

HlsCtxService::~HlsCtxService() { stop(); }

Error HlsCtxService::start() { return sweeper_.start(); }

void HlsCtxService::stop() {
    sweeper_.stop();
    table_.clear();
}

std::string HlsCtxService::vhost_of(const HttpRequest& req) const {
    std::string vhost = req.query_param("vhost");
    if (vhost.empty()) {
        const std::string* host = req.header("Host");
        vhost = host ? host_without_port(*host) : "";
    }
    if (!live_->config()->has_vhost(vhost)) vhost = kDefaultVhost;
    return vhost;
}

utime_t HlsCtxService::idle_us(const std::string& vhost) const {
    double window_s = live_->config()->get(vhost, keys::vhost_hls_hls_window);
    return static_cast<utime_t>(2 * window_s * kUsPerSecond);
}

Error HlsCtxService::serve_playlist(const HttpRequest& req, HttpResponse* res, const std::string& file,
                                    bool* served, const std::string* memory) {
    *served = false;
    std::shared_ptr<const Config> config = live_->config();
    if (!any_ctx(config)) return Error();
    std::string vhost = vhost_of(req);
    if (!config->get(vhost, keys::vhost_hls_enabled) || !config->get(vhost, keys::vhost_hls_hls_ctx)) return Error();
    std::string id = req.query_param(kHlsCtxParam);
    HlsSession* s = id.empty() ? nullptr : table_.find(id);
    if (s) {
        // As SRS: without hls_ts_ctx a session's playlist is the plain file.
        if (!config->get(vhost, keys::vhost_hls_hls_ts_ctx)) {
            table_.touch(s, monotonic_us(), idle_us(vhost));
            return Error();
        }
        *served = true;
        return serve_known_session(req, res, s, file, memory);
    }
    *served = true;
    return serve_new_session(req, res, vhost, file);
}

bool HlsCtxService::any_ctx(const std::shared_ptr<const Config>& config) {
    // The cached config is held, so a new one can never reuse its address.
    if (config == ctx_config_) return any_ctx_;
    ctx_config_ = config;
    any_ctx_ = false;
    std::vector<std::string> vhosts = config->vhosts();
    vhosts.push_back(kDefaultVhost);  // where requests for an unknown host go
    for (const std::string& v : vhosts) {
        if (config->get(v, keys::vhost_hls_enabled) && config->get(v, keys::vhost_hls_hls_ctx)) any_ctx_ = true;
    }
    return any_ctx_;
}

Error HlsCtxService::serve_known_session(const HttpRequest& req, HttpResponse* res, HlsSession* s,
                                         const std::string& file, const std::string* memory) {
    res->head().set("Cache-Control", "no-cache");
    // A kicked session gets SRS's 404 until it expires.
    if (s->interrupted()) {
        srs_warn("HLS %s: session %s was kicked, 404", req.path.c_str(), s->cid().c_str());
        return res->send(404, "text/plain; charset=utf-8", "HLS stream " + s->cid() + " is EOF\n");
    }
    table_.touch(s, monotonic_us(), idle_us(s->info().vhost));
    // The playlist is gone: the stream ended (hls_dispose) or never was.
    std::string playlist;
    if (file.empty()) return res->send(404, "text/plain; charset=utf-8", "HLS stream " + s->cid() + " is EOF\n");
    if (memory) return res->send(200, kPlaylistType, hls_rewrite_playlist(*memory, s->cid()));
    if (Error err = read_small_file(worker_, file, kHlsCtxMaxPlaylist, &playlist); !err.ok()) {
        srs_warn("HLS %s: %s", req.path.c_str(), err.summary().c_str());
        err.ignore();
        return res->send_error(404);
    }
    return res->send(200, kPlaylistType, hls_rewrite_playlist(playlist, s->cid()));
}

Error HlsCtxService::serve_new_session(const HttpRequest& req, HttpResponse* res, const std::string& vhost,
                                       const std::string& file) {
    std::shared_ptr<const Config> config = live_->config();
    std::string ip = res->socket() ? res->socket()->peer().ip : "";
    std::string app, stream;
    if (!hls_stream_of_path(req.path, &app, &stream)) return res->send_error(404);
    // The vhost's allow/deny rules first, as for every player.
    if (Error err = check_security(*config, vhost, AccessAction::kPlay, ip); !err.ok()) {
        srs_warn("HLS %s refused (403): %s", req.path.c_str(), err.summary().c_str());
        err.ignore();
        return res->send_error(403);
    }
    // SRS makes a session for any .m3u8 path; we make one only for a playlist
    // that exists, so a scan of names costs no hooks and no clients.
    if (file.empty()) return res->send_error(404);
    // Sessions are bounded like connections (each holds a little memory
    // until it expires): past max_connections of them, new players wait.
    size_t limit = static_cast<size_t>(config->get(keys::max_connections));
    if (table_.size() >= limit) {
        srs_warn("HLS %s refused (503): %zu sessions, max_connections=%zu", req.path.c_str(), table_.size(), limit);
        return res->send_error(503);
    }

    // The player's own id when it is a fresh, safe one (SRS keeps it), else ours.
    std::string id = req.query_param(kHlsCtxParam);
    if (!is_valid_hls_ctx(id) || !table_.id_free(id)) {
        do {
            id = new_context_id();
        } while (!table_.id_free(id));
    }

    HookRequest hook;
    hook.client_id = id;
    hook.ip = ip;
    hook.vhost = vhost;
    hook.app = app;
    hook.stream = stream;
    if (!req.query.empty()) hook.param = "?" + req.query;
    const std::string* host = req.header("Host");
    hook.tc_url = "http://" + (host ? *host : std::string("127.0.0.1")) + "/" + app;
    if (const std::string* referer = req.header("Referer")) hook.page_url = *referer;
    if (LiveSource* src = live_->sources().find(vhost, app, stream)) hook.stream_id = src->id();

    ClientInfo info;
    info.vhost = vhost;
    info.app = app;
    info.stream = stream;
    info.tc_url = hook.tc_url;
    info.page_url = hook.page_url;
    // Listed before on_play, as SRS (the hook may look the client up).
    HlsSession* s = table_.create(id, ip, info, hook, monotonic_us(), idle_us(vhost));
    if (Error err = live_->hooks().call(HookAction::kPlay, hook); !err.ok()) {
        err.ignore();  // the hooks logged the URL and the reason
        srs_warn("HLS %s refused (403) by the on_play hook, session %s", req.path.c_str(), id.c_str());
        // The session may have been kicked or found while the hook ran: look it up again.
        if (HlsSession* again = table_.find(id); again == s) table_.drop(s);
        return res->send_error(403);
    }
    srs_trace("HLS play %s/%s/%s, session %s from %s", vhost.c_str(), app.c_str(), stream.c_str(), id.c_str(),
              ip.c_str());
    res->head().set("Cache-Control", "no-cache");
    return res->send(200, kPlaylistType, hls_master_playlist(req.path, id, req.query));
}

void HlsCtxService::on_file_sent(const HttpRequest& req, uint64_t bytes) {
    if (req.query.empty() || !req.has_query_param(kHlsCtxParam)) return;
    HlsSession* s = table_.find(req.query_param(kHlsCtxParam));
    if (!s || s->interrupted()) return;
    std::shared_ptr<const Config> config = live_->config();
    if (!config->get(s->info().vhost, keys::vhost_hls_hls_ts_ctx)) return;
    s->add_send_bytes(bytes);
    table_.touch(s, monotonic_us(), idle_us(s->info().vhost));
}

Error HlsCtxService::cycle() {
    while (true) {
        if (Error err = sleep_us(kHlsCtxSweepUs); !err.ok()) return err;
        for (auto& s : table_.take_expired(monotonic_us())) {
            srs_trace("HLS session %s of %s/%s/%s expired, sent %llu bytes", s->cid().c_str(),
                      s->info().vhost.c_str(), s->info().app.c_str(), s->info().stream.c_str(),
                      (unsigned long long)s->send_bytes());
            live_->hooks().notify(HookAction::kStop, s->hook());
            if (Error err = sweeper_.pull(); !err.ok()) return err;
        }
    }
}

}  // namespace srs
