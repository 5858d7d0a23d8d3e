// The server's edges: one EdgeIngester per pulled stream, the locator each
// vhost uses, and the reaper that ends pulls nobody watches.
//
// Locators: a vhost in `cluster { mode remote; }` asks its `origin` list
// (ClusterOriginLocator); with the stream registry on (set_registry()) it
// asks the registry first and the list after (CompositeOriginLocator).
// set_locator() replaces both for every edge vhost (tests). Ingesters ask
// the locator they were given on each retry.
//
// An origin's pulls (on_origin_play): a player of a stream nobody publishes
// here, which another origin owns in the registry, gets it pulled from that
// owner exactly like an edge's, the registry being the only locator (the
// cluster list names this origin's peers' edges' origins, not owners).
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
#include "app/edge/composite_origin_locator.hpp"
#include "app/edge/edge_ingester.hpp"
#include "app/edge/edge_request.hpp"
#include "io/coroutine.hpp"

namespace srs {

class ClientRegistry;

constexpr utime_t kEdgeIdleUs = 3 * kUsPerSecond;

class EdgeManager : public StreamPuller, public CoroutineHandler {
  public:
    // config: the running config; clients: where pulls are listed.
    // idle_us: how long a pull outlives its last player (tests shorten it).
    EdgeManager(ConfigSnapshot config, ClientRegistry* clients, utime_t idle_us = kEdgeIdleUs);
    ~EdgeManager() override;

    Error start();
    // Stops every pull (sources unpublished). Before the sources go.
    void stop();

    // nullptr: back to each vhost's cluster.origin list. Not owned.
    void set_locator(OriginLocator* locator) { override_ = locator; }
    // The stream registry's locator (nullptr: none, or only this process
    // registers). Not owned; set before the first pull.
    void set_registry(OriginLocator* registry);
    bool has_registry() const { return registry_ != nullptr; }
    // What an edge vhost asks.
    OriginLocator* locator();

    // StreamPuller: an edge vhost's player goes to on_edge_play(), any
    // other to on_origin_play().
    bool may_pull(const std::string& vhost) const override;
    Error on_play(LiveSource* source, const PullRequest& req, bool* pulled) override;
    bool pulled_from(const LiveSource* source, std::string* upstream) const override;
    bool relays_publish(const std::string& vhost) const override;
    Error check_connect(const PullRequest& req) override;
    Error open_publish_relay(const PullRequest& req, std::unique_ptr<PublishRelay>* out) override;

    // A player of a normal vhost's stream attached to `source`. *pulling:
    // the stream is pulled from its owner for it (a pull already ran, or the
    // registry names another origin and a pull started). False when a local
    // publisher has it, no registry is set, or nobody owns it (the player
    // waits for a local publisher). A failed lookup is logged, not returned.
    Error on_origin_play(LiveSource* source, const PullRequest& req, bool* pulling);
    // Stops this source's pull (its source unpublished, its players stay):
    // a local publisher takes the stream over. False when it was not pulled.
    bool stop_pull(LiveSource* source) override;

    // A player of an edge vhost's stream attached to `source`: starts its
    // pull unless one runs.
    Error on_edge_play(LiveSource* source, const PullRequest& req);
    // The pull of this source, nullptr when it is not pulled.
    const EdgeIngester* ingester_of(const LiveSource* source) const;
    size_t size() const { return ingesters_.size(); }
    // Stops the pulls unwatched for the idle time at `now` (monotonic), and
    // restarts the ones that ended while watched. The reaper calls it every
    // second; tests call it with their own clock.
    void reap(utime_t now);

  private:
    Error cycle() override;
    static std::string key_of(const LiveSource* source);

    struct Pull {
        std::unique_ptr<EdgeIngester> ingester;
        PullRequest req;
        OriginLocator* locator = nullptr;  // what it asks (restarts ask the same)
        utime_t unwatched_since = 0;  // 0: watched
    };
    Error start_pull(LiveSource* source, const PullRequest& req, OriginLocator* locator, Pull* pull);
    bool pulled(const LiveSource* source) const { return ingester_of(source) != nullptr; }

    ConfigSnapshot config_;
    ClientRegistry* clients_;
    utime_t idle_us_;
    ClusterOriginLocator cluster_;
    OriginLocator* override_ = nullptr;
    OriginLocator* registry_ = nullptr;
    std::unique_ptr<CompositeOriginLocator> registry_then_cluster_;
    std::map<std::string, Pull> ingesters_;
    Coroutine reaper_;
};

}  // namespace srs
