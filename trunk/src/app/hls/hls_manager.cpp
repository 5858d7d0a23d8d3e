#include "app/hls/hls_manager.hpp"

#include <unistd.h>

#include "app/config/config_keys.hpp"
#include "app/conn/client.hpp"
#include "app/hls/hls_memory_sink.hpp"
#include "app/hooks/http_hooks.hpp"
#include "app/live/live_source.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

namespace {

constexpr utime_t kDisposeCheckUs = 1000 * kUsPerMs;


}  // namespace

HlsStreamConfig read_hls_config(const Config& c, const std::string& vhost) {
    HlsStreamConfig h;
    h.cut.fragment_s = c.get(vhost, keys::vhost_hls_hls_fragment);
    h.cut.td_ratio = c.get(vhost, keys::vhost_hls_hls_td_ratio);
    h.cut.aof_ratio = c.get(vhost, keys::vhost_hls_hls_aof_ratio);
    h.cut.wait_keyframe = c.get(vhost, keys::vhost_hls_hls_wait_keyframe);
    h.window_s = c.get(vhost, keys::vhost_hls_hls_window);
    h.on_error = c.get(vhost, keys::vhost_hls_hls_on_error);
    h.path = c.get(vhost, keys::vhost_hls_hls_path);
    h.m3u8_file = c.get(vhost, keys::vhost_hls_hls_m3u8_file);
    h.ts_file = c.get(vhost, keys::vhost_hls_hls_ts_file);
    h.ts_floor = c.get(vhost, keys::vhost_hls_hls_ts_floor);
    h.entry_prefix = c.get(vhost, keys::vhost_hls_hls_entry_prefix);
    h.acodec = c.get(vhost, keys::vhost_hls_hls_acodec);
    h.vcodec = c.get(vhost, keys::vhost_hls_hls_vcodec);
    h.cleanup = c.get(vhost, keys::vhost_hls_hls_cleanup);
    h.dispose_s = c.get(vhost, keys::vhost_hls_hls_dispose);
    h.keys = c.get(vhost, keys::vhost_hls_hls_keys);
    h.fragments_per_key = c.get(vhost, keys::vhost_hls_hls_fragments_per_key);
    h.key_file = c.get(vhost, keys::vhost_hls_hls_key_file);
    h.key_file_path = c.get(vhost, keys::vhost_hls_hls_key_file_path);
    h.key_url = c.get(vhost, keys::vhost_hls_hls_key_url);
    h.fmp4 = c.get(vhost, keys::vhost_hls_hls_use_fmp4);
    h.dts_directly = c.get(vhost, keys::vhost_hls_hls_dts_directly);
    h.fmp4_file = c.get(vhost, keys::vhost_hls_hls_fmp4_file);
    h.init_file = c.get(vhost, keys::vhost_hls_hls_init_file);
    h.memory = std::string(c.get(vhost, keys::vhost_hls_hls_storage)) == "memory";
    h.ll = c.get(vhost, keys::vhost_hls_hls_ll);
    h.part_s = c.get(vhost, keys::vhost_hls_hls_part);
    if (h.ll) {
        // Parts are served from memory, cut from fMP4 fragments, and not
        // encrypted (AES-128 CBC runs over a whole segment).
        h.fmp4 = true;
        h.memory = true;
        h.keys = false;
    }
    return h;
}

// The bridge of one publish: the stream writer plus what its events need
// (the hooks with the publish's identity, the publisher to disconnect).
class HlsManager::Writer : public LiveSourceBridge, public HlsStreamEvents {
  public:
    Writer(HlsManager* owner, LiveSource* source, HlsStreamConfig config, std::shared_ptr<HlsStreamState> state)
        : owner_(owner), source_(source), release_kept_(state), stream_(std::move(config), std::move(state), this) {}
    void on_live_message(const LiveMessagePtr& msg) override { stream_.on_live_message(msg); }

    void on_hls_segment(const std::string& vhost, const std::string& app, const std::string& stream,
                        const HlsSegmentReport& r) override {
        if (!owner_->hooks_) return;
        HookRequest req;
        req.client_id = source_->publisher_cid();
        req.ip = source_->publish_options().client_ip;
        req.vhost = vhost;
        req.app = app;
        req.stream = stream;
        req.param = source_->publish_options().param;
        req.tc_url = source_->publish_options().tc_url;
        req.stream_id = source_->id();
        req.duration = r.duration_ms / 1000.0;
        req.cwd = owner_->working_dir();
        req.file = r.file;
        req.url = r.url;
        req.m3u8 = r.m3u8;
        req.m3u8_url = r.m3u8_url;
        req.seq_no = r.seq;
        owner_->hooks_->post_hls_notify(req, r.url);
        owner_->hooks_->post_async(HookAction::kHls, std::move(req));
    }

    void disconnect_publisher() override {
        if (!owner_->clients_) return;
        Client* c = owner_->clients_->find(source_->publisher_cid());
        if (c) c->expire();
    }

  private:
    // Deletes the files the sink kept for reuse once the stream writer
    // (declared after it, so destroyed first) has closed the last segment
    // and written the last playlist: nothing will take them.
    struct ReleaseKept {
        explicit ReleaseKept(std::shared_ptr<HlsStreamState> s) : state(std::move(s)) {}
        ~ReleaseKept() {
            if (state->sink) state->sink->release_kept();
        }
        std::shared_ptr<HlsStreamState> state;
    };

    HlsManager* owner_;
    LiveSource* source_;
    ReleaseKept release_kept_;
    HlsStream stream_;
};

HlsManager::HlsManager(ConfigSnapshot config, HttpHooks* hooks, ClientRegistry* clients, HlsMemoryStore* store)
    : config_(std::move(config)), hooks_(hooks), clients_(clients), store_(store) {}

HlsManager::~HlsManager() { stop(); }

Error HlsManager::start() {
    timer_.reset(new Coroutine("hls-dispose", this));
    return timer_->start();
}

void HlsManager::stop() {
    if (stopped_) return;
    stopped_ = true;
    if (timer_) timer_->stop();
    for (auto& kv : streams_) {
        if (kv.second->dispose_s > 0) {
            srs_trace("hls %s: files disposed of at quit", kv.first.c_str());
            kv.second->dispose();
        }
    }
    streams_.clear();
}

std::unique_ptr<LiveSourceBridge> HlsManager::create_bridge(LiveSource* source) {
    if (stopped_) return nullptr;
    std::shared_ptr<const Config> conf = config_();
    if (!conf->get(source->vhost(), keys::vhost_hls_enabled)) return nullptr;
    HlsStreamConfig hls = read_hls_config(*conf, source->vhost());
    std::string key = source->vhost() + source->url();
    std::shared_ptr<HlsStreamState>& state = streams_[key];
    if (!state) {
        state.reset(new HlsStreamState());
        state->vhost = source->vhost();
        state->app = source->app();
        state->stream = source->stream();
        if (hls.memory && store_) {
            state->sink.reset(new HlsMemorySink(store_));
        } else {
            state->sink.reset(new HlsDiskSink());
        }
    }
    srs_trace("hls %s: %s%s, fragment %.3fs, window %.3fs, %s %s", key.c_str(), hls.fmp4 ? "fmp4" : "ts",
              hls.ll ? " low-latency" : "", hls.cut.fragment_s, hls.window_s,
              hls.memory && store_ ? "in memory as" : "path", hls.path.c_str());
    return std::unique_ptr<LiveSourceBridge>(new Writer(this, source, std::move(hls), state));
}

Error HlsManager::cycle() {
    while (timer_->pull().ok()) {
        if (Error err = sleep_us(kDisposeCheckUs); err.failed()) {
            err.ignore();
            break;
        }
        dispose_idle(monotonic_us());
    }
    return Error();
}

void HlsManager::dispose_idle(utime_t now_us) {
    for (auto it = streams_.begin(); it != streams_.end();) {
        HlsStreamState& s = *it->second;
        // A writer still holds a published stream's state: never disposed under it.
        bool idle = !s.publishing && it->second.use_count() == 1 && s.dispose_s > 0 &&
                    now_us - s.last_packet_us >= s.dispose_s * kUsPerSecond;
        if (!idle) {
            ++it;
            continue;
        }
        srs_trace("hls %s: no packet for %llds, files disposed of", it->first.c_str(), (long long)s.dispose_s);
        s.dispose();
        it = streams_.erase(it);
    }
}

const std::string& HlsManager::working_dir() {
    // The process's folder does not change once the server runs (a daemon
    // changes it before): asked once, not per segment.
    if (cwd_.empty()) {
        char buf[4096];
        if (getcwd(buf, sizeof(buf))) cwd_ = buf;
    }
    return cwd_;
}

}  // namespace srs
