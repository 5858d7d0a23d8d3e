#include "app/hooks/http_hooks.hpp"

#include <algorithm>

#include "app/config/config_keys.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

namespace {

// While a queued job runs, its lines carry the context id of the client it is about.
class JobContext {
  public:
    explicit JobContext(const std::string& cid) : saved_(context_id()) {
        if (!cid.empty()) set_context_id(cid);
    }
    ~JobContext() { set_context_id(saved_); }

  private:
    std::string saved_;
};

}  // namespace

HttpClientOptions hook_client_options(const HttpClientOptions& base, utime_t timeout_us) {
    HttpClientOptions o = base;
    o.connect_timeout = std::min(base.connect_timeout > 0 ? base.connect_timeout : timeout_us, timeout_us);
    o.io_timeout = timeout_us;
    o.total_timeout = timeout_us;
    o.max_body = kHookMaxAnswerBytes;
    return o;
}

HttpHooks::HttpHooks(ConfigSnapshot config, HttpClientOptions base)
    : config_(std::move(config)), base_(std::move(base)), rng_(std::random_device{}()) {}

HttpHooks::~HttpHooks() { stop(); }

Error HttpHooks::start() {
    worker_.reset(new Coroutine("http-hooks", this));
    if (Error err = worker_->start(); err.failed()) return SRS_WRAP(err, "http hooks queue");
    return Error();
}

void HttpHooks::stop() {
    if (worker_) worker_->stop();
    worker_.reset();
    if (!queue_.empty()) {
        srs_warn("http_hooks: %zu queued hook calls dropped at shutdown", queue_.size());
        stats_.dropped += queue_.size();
        queue_.clear();
    }
}

std::vector<std::string> HttpHooks::urls_of(const Config& c, const std::string& vhost, HookAction action) const {
    if (!c.get(vhost, keys::vhost_http_hooks_enabled)) return {};
    switch (action) {
        case HookAction::kConnect: return c.get(vhost, keys::vhost_http_hooks_on_connect);
        case HookAction::kClose: return c.get(vhost, keys::vhost_http_hooks_on_close);
        case HookAction::kPublish: return c.get(vhost, keys::vhost_http_hooks_on_publish);
        case HookAction::kUnpublish: return c.get(vhost, keys::vhost_http_hooks_on_unpublish);
        case HookAction::kPlay: return c.get(vhost, keys::vhost_http_hooks_on_play);
        case HookAction::kStop: return c.get(vhost, keys::vhost_http_hooks_on_stop);
        case HookAction::kDvr: return c.get(vhost, keys::vhost_http_hooks_on_dvr);
        case HookAction::kHls: return c.get(vhost, keys::vhost_http_hooks_on_hls);
        case HookAction::kForward:
        default: return {};  // forward.backend is forward's own
    }
}

bool HttpHooks::configured(const std::string& vhost, HookAction action) const {
    return !urls_of(*config_(), vhost, action).empty();
}

void HttpHooks::fill_identity(const Config& config, HookRequest* req) const {
    std::string server_id = config.get(keys::server_id);
    // As the API's "server": the configured id, else one derived from the service id.
    req->server_id = server_id.empty() ? "vid-" + service_id_.substr(0, 7) : server_id;
    req->service_id = service_id_;
}

Error HttpHooks::post_all(const char* hook, const std::vector<std::string>& urls, const std::string& body,
                          const std::string& vhost) {
    utime_t timeout = config_()->get(vhost, keys::vhost_http_hooks_timeout) * kUsPerMs;
    HttpClientOptions options = hook_client_options(base_, timeout);
    for (const std::string& url : urls) {
        utime_t start = monotonic_us();
        stats_.calls++;
        HttpClientResult res;
        Error err = http_post(url, "application/json", body, options, &res);
        if (err.ok()) err = check_hook_answer(res.head.status, res.body);
        int ms = static_cast<int>((monotonic_us() - start) / kUsPerMs);
        if (err.failed()) {
            stats_.failures++;
            srs_warn("http_hooks: %s %s failed after %d ms: %s", hook, url.c_str(), ms, err.summary().c_str());
            return SRS_WRAP(err, "%s %s", hook, url.c_str());
        }
        srs_trace("http_hooks: %s %s ok, %d ms", hook, url.c_str(), ms);
    }
    return Error();
}

Error HttpHooks::call(HookAction action, HookRequest req, bool* called) {
    std::shared_ptr<const Config> config = config_();
    std::vector<std::string> urls = urls_of(*config, req.vhost, action);
    if (called) *called = !urls.empty();
    if (urls.empty()) return Error();
    fill_identity(*config, &req);
    return post_all(hook_action_name(action), urls, build_hook_body(action, req), req.vhost);
}

void HttpHooks::notify(HookAction action, HookRequest req) {
    Error err = call(action, std::move(req));
    err.ignore();  // post_all logged it; these hooks change nothing
}

void HttpHooks::enqueue(Job job) {
    if (queue_.size() >= kHookQueueCapacity) {
        const Job& old = queue_.front();
        stats_.dropped++;
        drops_unlogged_++;
        // A flood drops thousands a second: one line a second says it.
        utime_t now = monotonic_us();
        if (drop_logged_at_ == 0 || now - drop_logged_at_ >= kUsPerSecond) {
            srs_warn("http_hooks: the queue holds %zu calls: dropped the oldest, %s of client %s (%llu dropped "
                     "since the last such line, %llu in all)", queue_.size(), old.hook.c_str(), old.cid.c_str(),
                     (unsigned long long)drops_unlogged_, (unsigned long long)stats_.dropped);
            drop_logged_at_ = now;
            drops_unlogged_ = 0;
        }
        queue_.pop_front();
    }
    stats_.queued++;
    queue_.push_back(std::move(job));
    wake_.signal();
}

void HttpHooks::post_async(HookAction action, HookRequest req) {
    std::shared_ptr<const Config> config = config_();
    Job job;
    job.urls = urls_of(*config, req.vhost, action);
    if (job.urls.empty()) return;
    fill_identity(*config, &req);
    job.hook = hook_action_name(action);
    job.body = build_hook_body(action, req);
    job.cid = req.client_id;
    job.vhost = req.vhost;
    enqueue(std::move(job));
}

void HttpHooks::post_hls_notify(HookRequest req, const std::string& ts_url) {
    std::shared_ptr<const Config> config = config_();
    if (!config->get(req.vhost, keys::vhost_http_hooks_enabled)) return;
    std::vector<std::string> templates = config->get(req.vhost, keys::vhost_http_hooks_on_hls_notify);
    if (templates.empty()) return;
    fill_identity(*config, &req);
    const std::string& tmpl = templates[std::uniform_int_distribution<size_t>(0, templates.size() - 1)(rng_)];
    Job job;
    job.hook = "on_hls_notify";
    job.get = true;
    // hls_nb_notify: what a CDN's prefetch endpoint is read of (SRS reads that
    // much of the body and closes; the body itself is not used).
    job.read_bytes = static_cast<size_t>(config->get(req.vhost, keys::vhost_hls_hls_nb_notify));
    job.urls.push_back(expand_hls_notify_url(tmpl, req.server_id, req.app, req.stream, ts_url, hook_param(req.param)));
    job.cid = req.client_id;
    job.vhost = req.vhost;
    enqueue(std::move(job));
}

void HttpHooks::run_get(const Job& job) {
    utime_t timeout = config_()->get(job.vhost, keys::vhost_http_hooks_timeout) * kUsPerMs;
    HttpClientOptions options = hook_client_options(base_, timeout);
    utime_t start = monotonic_us();
    stats_.calls++;
    HttpClient client(options);
    Error err = client.start("GET", job.urls[0]);
    int ms = static_cast<int>((monotonic_us() - start) / kUsPerMs);
    if (err.failed()) {
        stats_.failures++;
        srs_warn("http_hooks: %s %s failed after %d ms: %s", job.hook.c_str(), job.urls[0].c_str(), ms,
                 err.summary().c_str());
        err.ignore();
        return;
    }
    // At most read_bytes of the body are read, then the connection closes;
    // the bytes are not used, only counted in the log.
    std::string body;
    bool eof = false;
    while (!eof && body.size() < job.read_bytes) {
        if (Error e = client.read_body_some(&body, &eof); e.failed()) {
            srs_warn("http_hooks: %s %s: reading the answer: %s", job.hook.c_str(), job.urls[0].c_str(),
                     e.summary().c_str());
            e.ignore();
            break;
        }
    }
    client.close();
    ms = static_cast<int>((monotonic_us() - start) / kUsPerMs);
    srs_trace("http_hooks: %s %s answered %d, read %zu of its body, %d ms", job.hook.c_str(), job.urls[0].c_str(),
              client.head().status, std::min(body.size(), job.read_bytes), ms);
}

Error HttpHooks::cycle() {
    while (true) {
        if (Error err = worker_->pull(); err.failed()) return err;
        if (queue_.empty()) {
            wake_.wait(-1);
            continue;
        }
        Job job = std::move(queue_.front());
        queue_.pop_front();
        JobContext context(job.cid);
        if (job.get) {
            run_get(job);
            continue;
        }
        Error err = post_all(job.hook.c_str(), job.urls, job.body, job.vhost);
        err.ignore();  // logged; an asynchronous hook's failure changes nothing
    }
}

}  // namespace srs
