// What connections need from the server: the running config (replaced on
// reload, so never hold it across a blocking call), the live sources and
// the clients.
#pragma once

#include "app/config/config.hpp"
#include "app/server/client.hpp"
#include "app/stats/proc_stats.hpp"
#include "app/live/source_manager.hpp"

namespace srs {

class LiveContext {
  public:
    virtual ~LiveContext() = default;
    virtual const Config& config() const = 0;
    virtual SourceManager& sources() = 0;
    // Every client (RTMP, HTTP and API connections, WebRTC sessions).
    virtual ClientRegistry& clients() = 0;
    // Reloads the conf file (SIGHUP, the raw API).
    virtual Error reload() = 0;
    // When the server started (wall clock, for the API).
    virtual utime_t start_wall_us() const = 0;
    // /proc samples for the API, refreshed by the server every few seconds.
    virtual const ProcStatsSampler& proc_stats() const = 0;
};

}  // namespace srs
