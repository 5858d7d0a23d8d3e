// What connections need from the server: the running config and the live
// sources. config() is a snapshot: a reload swaps in a new Config and leaves
// the old one alive for whoever still holds it, so code that keeps a config
// across a blocking call or a reload keeps its snapshot (and sees the values
// it started with), never a reference. Also the clients.
#pragma once

#include <memory>

#include "app/config/config.hpp"
#include "app/conn/client.hpp"
#include "app/stats/proc_sampler.hpp"
#include "app/live/source_manager.hpp"
#include "app/registry/stream_claims.hpp"

namespace srs {

class EdgeManager;

class LiveContext {
  public:
    virtual ~LiveContext() = default;
    virtual std::shared_ptr<const Config> config() const = 0;
    virtual SourceManager& sources() = 0;
    // Every client (RTMP, HTTP and API connections, WebRTC sessions).
    virtual ClientRegistry& clients() = 0;
    // The edge pulls of cluster.mode remote vhosts (nullptr: no edge support).
    virtual EdgeManager* edge() { return nullptr; }
    // Reloads the conf file (SIGHUP, the raw API).
    virtual Error reload() = 0;
    // When the server started (wall clock, for the API).
    virtual utime_t start_wall_us() const = 0;
    // /proc samples for the API, refreshed by the server every few seconds.
    virtual const ProcStatsSampler& proc_stats() const = 0;
    // Publishers claim their stream here first (the stream registry: memory,
    // or Redis for an origin cluster).
    virtual StreamClaims& stream_claims() = 0;
};

}  // namespace srs
