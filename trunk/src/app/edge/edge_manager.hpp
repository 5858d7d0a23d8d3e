// The server's edges: one EdgeIngester per pulled stream, the locator each
// vhost uses, and the reaper that ends pulls nobody watches.
//
// Locators: a vhost in `cluster { mode remote; }` asks its `origin` list
// (ClusterOriginLocator) unless another locator was installed with
// set_locator() (the stream registry does that), which then answers for
// every edge vhost. The manager owns neither kind's users: ingesters ask
// the locator they were given on each retry.
//
// Reaping (every second, or reap()): a pull whose source has had no player
// for kEdgeIdleUs is stopped (the source is unpublished, and the source manager
// frees it later); a pull whose coroutine ended (kicked from the API) is
// dropped, and started again if players are still there.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "app/edge/cluster_origin_locator.hpp"
#include "app/edge/edge_ingester.hpp"
#include "app/edge/edge_request.hpp"
#include "io/coroutine.hpp"

namespace srs {

class LiveContext;

constexpr utime_t kEdgeIdleUs = 3 * kUsPerSecond;

class EdgeManager : public CoroutineHandler {
  public:
    // idle_us: how long a pull outlives its last player (tests shorten it).
    explicit EdgeManager(LiveContext* ctx, utime_t idle_us = kEdgeIdleUs);
    ~EdgeManager() override;

    Error start();
    // Stops every pull (sources unpublished). Before the sources go.
    void stop();

    // nullptr: back to each vhost's cluster.origin list. Not owned.
    void set_locator(OriginLocator* locator) { override_ = locator; }
    OriginLocator* locator() { return override_ ? override_ : &cluster_; }

    // A player of an edge vhost's stream attached to `source`: starts its
    // pull unless one runs.
    Error on_play(LiveSource* source, const EdgeClientRequest& req);
    // The pull of this source, nullptr when it is not pulled.
    const EdgeIngester* ingester_of(const LiveSource* source) const;
    size_t size() const { return ingesters_.size(); }
    void reap();

  private:
    Error cycle() override;
    static std::string key_of(const LiveSource* source);

    struct Pull {
        std::unique_ptr<EdgeIngester> ingester;
        EdgeClientRequest req;
        utime_t unwatched_since = 0;  // 0: watched
    };
    Error start_pull(LiveSource* source, const EdgeClientRequest& req, Pull* pull);

    LiveContext* ctx_;
    utime_t idle_us_;
    ClusterOriginLocator cluster_;
    OriginLocator* override_ = nullptr;
    std::map<std::string, Pull> ingesters_;
    Coroutine reaper_;
};

}  // namespace srs
