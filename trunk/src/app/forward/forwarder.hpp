// Forward (SRS's vhost.forward): every stream published here is published
// again to other servers, as an encoder would.
//
// The ForwardManager is the sources' forward factory: on each publish of a
// vhost with forward on it hangs a SourceForwarders on the source, which
// lives until the unpublish. That one asks the backend (on_forward) for the
// destinations when one is set, else takes forward.destination, and starts
// one StreamForwarder per destination.
//
// A StreamForwarder is a coroutine and a consumer of the source like any
// player: it connects and publishes, then takes a consumer (primed with
// metadata, sequence headers and the GOP, so the destination can decode at
// once) and sends what the consumer queues. The queue is bounded like a
// player's (play.queue_length: a forwarder that falls behind is shrunk to
// the headers and the next keyframe), so the source never waits for it. A
// destination that refuses or dies is let go (the consumer with it) and
// tried again every 3 s until the unpublish.
//
// Each connection runs in a coroutine of its own, watched by the
// forwarder's: a destination that never finishes connect, handshake and
// publish (one that trickles bytes, or chatters pings and never answers, so
// no single read times out) is cut off after kForwardSetupTimeoutUs, like
// one that refuses.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/forward/forward_contract.hpp"
#include "app/live/live_bridge.hpp"
#include "app/live/live_consumer.hpp"
#include "app/upstream/http_client.hpp"
#include "io/coroutine.hpp"

namespace srs {

class Config;
class LiveSource;

// One destination of one published stream.
class StreamForwarder : public CoroutineHandler {
  public:
    // resolver: for a destination named by DNS (nullptr: numeric hosts only).
    StreamForwarder(LiveSource* source, std::string url, ConsumerOptions options, HostResolver* resolver = nullptr);
    ~StreamForwarder() override;
    Error start();
    void stop();
    const std::string& url() const { return url_; }
    uint64_t sent() const { return sent_; }

  private:
    class Connection;

    Error cycle() override;
    // Runs one Connection until it ends; ends it when the destination has
    // not said yes to the publish within kForwardSetupTimeoutUs.
    Error attempt();
    // One connection, in the Connection's coroutine `conn`: until it fails
    // or that coroutine is stopped.
    Error forward_once(const Coroutine& conn);

    LiveSource* source_;
    std::string url_;
    ConsumerOptions options_;
    HostResolver* resolver_;
    uint64_t sent_ = 0;
    int attempts_ = 0;
    bool published_ = false;  // of the current connection
    CoCond connection_ended_;
    Coroutine co_;
};

// What one publish of a vhost forwards.
struct ForwardPlan {
    std::vector<std::string> destinations;  // HOST:PORT
    std::string backend;                    // on_forward URL, "" for none
    ConsumerOptions consumer;
    OnForwardRequest hook;  // the backend's request (when there is a backend)
};

// The forwarders of one publish of one source.
class SourceForwarders : public LiveSourceBridge, public CoroutineHandler {
  public:
    SourceForwarders(LiveSource* source, ForwardPlan plan, HttpClientOptions http);
    ~SourceForwarders() override;  // stops every forwarder
    Error start();
    void on_live_message(const LiveMessagePtr&) override {}  // each forwarder has its own consumer
    size_t forwarder_count() const { return forwarders_.size(); }

  private:
    // Asks the backend (again every 3 s while it fails), then starts the forwarders.
    Error cycle() override;
    Error ask_backend(std::vector<std::string>* urls);
    void start_forwarders(const std::vector<std::string>& urls);

    LiveSource* source_;
    ForwardPlan plan_;
    HttpClientOptions http_;  // for the backend
    std::vector<std::unique_ptr<StreamForwarder>> forwarders_;
    Coroutine co_;
};

class ForwardManager : public LiveBridgeFactory {
  public:
    explicit ForwardManager(std::function<std::shared_ptr<const Config>()> config);
    // Told to the backend (the API's service id).
    void set_service_id(const std::string& id) { service_id_ = id; }
    // The backend's requests (the server's base options: resolver, TLS).
    void set_http_options(const HttpClientOptions& options) { http_ = options; }
    // nullptr when the source's vhost does not forward.
    std::unique_ptr<LiveSourceBridge> create_bridge(LiveSource* source) override;

  private:
    std::function<std::shared_ptr<const Config>()> config_;
    std::string service_id_;
    HttpClientOptions http_;
};

}  // namespace srs
