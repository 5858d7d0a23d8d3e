// What the HTTP API, the exporter and the heartbeat use of the server: what
// protocol handlers see (LiveContext) plus the server's own state and the
// reload the raw API asks for. Protocol handlers are never given this.
#pragma once

#include "app/conn/live_context.hpp"
#include "app/stats/proc_sampler.hpp"
#include "core/clock.hpp"

namespace srs {

class ServerContext : public LiveContext {
  public:
    // Reloads the conf file (SIGHUP, the raw API).
    virtual Error reload() = 0;
    // When the server started (wall clock, for the API).
    virtual utime_t start_wall_us() const = 0;
    // /proc samples for the API, refreshed by the server every few seconds.
    virtual const ProcStatsSampler& proc_stats() const = 0;
};

}  // namespace srs
