// Builds the server's stream registry from `stream_registry { }`: Redis
// when enabled, in memory otherwise, and the owner URL we register under.
#pragma once

#include <memory>
#include <string>

#include "app/config/config.hpp"
#include "app/registry/stream_registry.hpp"
#include "core/clock.hpp"

namespace srs {

struct StreamRegistrySetup {
    std::unique_ptr<StreamRegistry> registry;
    std::string self;  // "rtmp://HOST:PORT"
};

// Starts the Redis registry's coroutine too (it connects in the background:
// a Redis that is down at startup is retried, it does not stop the server).
Error make_stream_registry(const Config& config, StreamRegistrySetup* out);

// The refresh interval for a ttl: 3 s, or a third of a shorter ttl, so a key
// is refreshed at least twice before it could expire.
utime_t registry_refresh_interval(utime_t ttl_us);

}  // namespace srs
