// The stream registry of an origin cluster, in Redis.
//
//   acquire:  SET key owner NX PX ttl      (nil: someone holds it; GET says who)
//   refresh:  EVAL kRefreshScript          (every refresh interval, per owned key:
//             extend if ours, write again if gone, report a foreign owner)
//   release:  EVAL kReleaseScript          (delete only if still ours)
//   lookup:   GET key
//
// One coroutine refreshes every owned key and performs releases. When Redis
// is down, nothing is taken from publishers: keys only expire in Redis, and
// acquire()/lookup() fail (logged). When the connection comes back the
// coroutine writes every owned key again at once, so a restarted Redis knows
// them within a backoff step (at most RedisClientOptions::backoff_max_us).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "app/registry/redis_client.hpp"
#include "app/registry/stream_registry.hpp"
#include "io/coroutine.hpp"

namespace srs {

struct RedisRegistryOptions {
    RedisClientOptions client;
    utime_t ttl_us = 10 * kUsPerSecond;
    utime_t refresh_interval_us = 3 * kUsPerSecond;
};

class RedisStreamRegistry : public StreamRegistry, public CoroutineHandler {
  public:
    explicit RedisStreamRegistry(RedisRegistryOptions options);
    ~RedisStreamRegistry() override;

    // Starts the refresh coroutine (it connects right away).
    Error start();
    void stop();

    Error acquire(const std::string& key, const std::string& owner) override;
    void release(const std::string& key, const std::string& owner) override;
    Error lookup(const std::string& key, std::string* owner) override;
    std::string describe() const override { return options_.client.address.to_string(); }

    size_t owned() const { return owned_.size(); }
    size_t pending_releases() const { return releasing_.size(); }
    // Refresh rounds that reached Redis for every key (for tests).
    uint64_t refresh_rounds() const { return refresh_rounds_; }
    RedisClient& client() { return client_; }

  private:
    Error cycle() override;
    // Extends (or writes again) every owned key; false when Redis was not reachable.
    bool refresh_all();
    void release_pending();
    RedisRegistryOptions options_;
    RedisClient client_;
    std::map<std::string, std::string> owned_;  // key -> owner
    struct Releasing {
        std::string owner;
        utime_t expires_us;  // past it, Redis dropped the key anyway
    };
    std::map<std::string, Releasing> releasing_;
    uint64_t refresh_rounds_ = 0;
    CoCond wake_;
    Coroutine worker_;
};

}  // namespace srs
