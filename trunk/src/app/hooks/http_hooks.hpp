// vhost.http_hooks as the protocol handlers call them.
//
//   HttpHooks hooks(config_snapshot, base_options);     // the server builds one
//   hooks.start();                                      // the asynchronous queue's coroutine
//   Error err = hooks.call(HookAction::kPlay, req);     // on the client's coroutine
//   if (err.failed()) ...refuse the client...
//   hooks.notify(HookAction::kStop, req);               // failures logged, never returned
//   hooks.post_async(HookAction::kDvr, req);            // queued, never waits
//
// Each action's URLs are called in conf order with a POST of SRS's body
// (hook_contract.hpp); the first failure fails the hook and the URLs after
// it are not called. Every call reads the running config, so a reload
// applies to the next call. A call takes at most vhost.http_hooks.timeout
// (connect, request and the whole answer, however slowly it trickles), and
// an answer over kHookMaxAnswerBytes is a failure. Redirects are not
// followed: a 3xx is a failure like any status but 200/201. Each failure
// logs one line with the hook, the URL and the reason in the caller's
// context id.
//
// The HTTP client options come from the server (base_options: the resolver
// and TLS settings belong to the HTTP client); only the timeouts and the
// answer bound are set here.
//
// on_dvr, on_hls, on_hls_notify and the ends of WebRTC sessions (whose UDP
// coroutine must never wait) go through a bounded queue drained by one
// coroutine: when it is full the oldest job is dropped with a log line.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/hooks/hook_contract.hpp"
#include "app/upstream/http_client.hpp"
#include "io/coroutine.hpp"

namespace srs {

constexpr size_t kHookMaxAnswerBytes = 64 * 1024;  // a hook answers a few bytes of JSON
constexpr size_t kHookQueueCapacity = 1024;        // jobs waiting in the asynchronous queue

// The options of one hook call: base's, with the timeouts cut to timeout_us
// and the answer bounded.
HttpClientOptions hook_client_options(const HttpClientOptions& base, utime_t timeout_us);

class HttpHooks : public CoroutineHandler {
  public:
    HttpHooks(ConfigSnapshot config, HttpClientOptions base);
    ~HttpHooks() override;
    HttpHooks(const HttpHooks&) = delete;
    HttpHooks& operator=(const HttpHooks&) = delete;

    // The HTTP client's base options (the resolver and TLS settings the
    // server builds), for the calls from now on.
    void set_client_options(HttpClientOptions base) { base_ = std::move(base); }
    // The API's "service" (random per process); server_id comes from the config.
    void set_service_id(const std::string& id) { service_id_ = id; }
    // Starts the queue's coroutine; stop() drops what waits (with a log line).
    Error start();
    void stop();

    // Whether the vhost calls hooks for `action` (http_hooks on, URLs set).
    bool configured(const std::string& vhost, HookAction action) const;

    // Calls the action's URLs in order on the calling coroutine; ok when
    // the hooks are off or the action has no URL. *called (optional) tells
    // whether any URL was called.
    Error call(HookAction action, HookRequest req, bool* called = nullptr);
    // As call(), for the actions whose failure changes nothing (on_close,
    // on_unpublish, on_stop): the failure is logged.
    void notify(HookAction action, HookRequest req);
    // Queues the action's call with the URLs and body of now; returns at once.
    void post_async(HookAction action, HookRequest req);
    // Queues on_hls_notify: a GET of one of the templates, picked at random.
    void post_hls_notify(HookRequest req, const std::string& ts_url);

    struct Stats {
        uint64_t calls = 0, failures = 0, queued = 0, dropped = 0;
    };
    const Stats& stats() const { return stats_; }
    size_t queue_size() const { return queue_.size(); }

  private:
    struct Job {
        std::string hook;  // the action's name, for the log
        bool get = false;  // on_hls_notify
        size_t read_bytes = 0;  // GET: body bytes read before closing (hls_nb_notify)
        std::vector<std::string> urls;
        std::string body;
        std::string cid;
        std::string vhost;
    };
    Error cycle() override;
    void fill_identity(const Config& config, HookRequest* req) const;
    std::vector<std::string> urls_of(const Config& config, const std::string& vhost, HookAction action) const;
    // POSTs body to each URL in order; the first failure is returned.
    Error post_all(const char* hook, const std::vector<std::string>& urls, const std::string& body,
                   const std::string& vhost);
    void run_get(const Job& job);
    void enqueue(Job job);

    ConfigSnapshot config_;
    HttpClientOptions base_;
    std::string service_id_;
    std::deque<Job> queue_;
    std::unique_ptr<Coroutine> worker_;
    CoCond wake_;
    std::mt19937 rng_;
    Stats stats_;
    utime_t drop_logged_at_ = 0;
    uint64_t drops_unlogged_ = 0;
};

}  // namespace srs
