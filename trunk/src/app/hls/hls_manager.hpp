// HLS of every published stream (vhost.hls): the sources' publish factory
// for HLS, and the keeper of what outlives a publish.
//
// On each publish of a vhost with hls on it makes an HlsStream (the bridge,
// destroyed at unpublish) over the stream's HlsStreamState, which it keeps:
// a republish continues the window and the sequence numbers. A timer
// coroutine deletes the files of a stream that had no packet for
// hls_dispose seconds and is not published; stop() (the server's quit, fast
// or graceful) deletes the files of every stream with hls_dispose > 0, as
// SRS disposes of its sources when it quits.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "app/config/config.hpp"
#include "app/hls/hls_stream.hpp"
#include "app/live/live_bridge.hpp"
#include "io/coroutine.hpp"

namespace srs {

class ClientRegistry;
class HttpHooks;
class HlsMemoryStore;

// vhost.hls of a vhost as the writer takes it.
HlsStreamConfig read_hls_config(const Config& config, const std::string& vhost);

class HlsManager : public LiveBridgeFactory, public CoroutineHandler {
  public:
    // store: where hls_storage memory (and LL-HLS) puts files; not owned,
    // outlives the manager (null: every stream on disk).
    HlsManager(ConfigSnapshot config, HttpHooks* hooks, ClientRegistry* clients, HlsMemoryStore* store = nullptr);
    ~HlsManager() override;
    Error start();
    // Stops the timer and disposes of the streams with hls_dispose > 0.
    void stop();
    // nullptr when the source's vhost has hls off.
    std::unique_ptr<LiveSourceBridge> create_bridge(LiveSource* source) override;
    size_t stream_count() const { return streams_.size(); }

  private:
    // on_hls's `cwd`.
    const std::string& working_dir();
    class Writer;
    Error cycle() override;
    void dispose_idle(utime_t now_us);

    ConfigSnapshot config_;
    HttpHooks* hooks_;
    ClientRegistry* clients_;
    HlsMemoryStore* store_;
    std::map<std::string, std::shared_ptr<HlsStreamState>> streams_;  // by vhost/app/stream
    std::string cwd_;
    std::unique_ptr<Coroutine> timer_;
    bool stopped_ = false;
};

}  // namespace srs
