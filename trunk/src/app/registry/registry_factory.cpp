#include "app/registry/registry_factory.hpp"

#include "app/registry/memory_stream_registry.hpp"
#include "app/registry/redis_stream_registry.hpp"
#include "app/registry/registry_address.hpp"
#include "core/log.hpp"

namespace srs {

utime_t registry_refresh_interval(utime_t ttl_us) {
    utime_t interval = 3 * kUsPerSecond;
    if (ttl_us / 3 < interval) interval = ttl_us / 3;
    if (interval < 100 * kUsPerMs) interval = 100 * kUsPerMs;
    return interval;
}

Error make_stream_registry(const Config& config, StreamRegistrySetup* out) {
    std::vector<ListenEndpoint> listen = config.get(keys::listen);
    int port = listen.empty() ? 1935 : listen[0].port;
    out->self = registry_owner_url(config.get(keys::stream_registry_advertise), port);
    if (!config.get(keys::stream_registry_enabled)) {
        out->registry.reset(new MemoryStreamRegistry());
        return Error();
    }
    RedisRegistryOptions options;
    std::string url = config.get(keys::stream_registry_redis);
    if (Error err = parse_redis_url(url, &options.client.address); err.failed()) {
        return SRS_WRAP(err, "stream_registry.redis");
    }
    options.ttl_us = config.get(keys::stream_registry_ttl) * kUsPerSecond;
    options.refresh_interval_us = registry_refresh_interval(options.ttl_us);
    std::unique_ptr<RedisStreamRegistry> redis(new RedisStreamRegistry(options));
    if (Error err = redis->start(); err.failed()) return SRS_WRAP(err, "stream registry");
    srs_trace("stream registry: %s, we own streams as %s", redis->describe().c_str(), out->self.c_str());
    out->registry = std::move(redis);
    return Error();
}

}  // namespace srs
