#include "app/registry/redis_stream_registry.hpp"

#include "core/log.hpp"

namespace srs {

namespace {

// KEYS[1] key, ARGV[1] owner, ARGV[2] ttl ms. 1: extended; 2: the key was gone
// (expired while Redis was unreachable, or Redis restarted) and is ours again;
// otherwise the owner that holds it now.
const char* kRefreshScript =
    "local v = redis.call('GET', KEYS[1])\n"
    "if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end\n"
    "if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 2 end\n"
    "return v\n";

// KEYS[1] key, ARGV[1] owner: deletes the key only while that owner holds it.
const char* kReleaseScript =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end\n"
    "return 0\n";

}  // namespace

RedisStreamRegistry::RedisStreamRegistry(RedisRegistryOptions options)
    : options_(options), client_(options.client), worker_("stream-registry", this) {}

RedisStreamRegistry::~RedisStreamRegistry() { stop(); }

Error RedisStreamRegistry::start() { return worker_.start(); }

void RedisStreamRegistry::stop() {
    worker_.stop();
    // Shutting down: give our streams up now rather than after the ttl, so
    // another origin can take a publisher at once (best effort, one try).
    for (const auto& kv : owned_) releasing_[kv.first] = Releasing{kv.second, monotonic_us() + options_.ttl_us};
    owned_.clear();
    if (!releasing_.empty()) release_pending();
    releasing_.clear();
}

Error RedisStreamRegistry::acquire(const std::string& key, const std::string& owner) {
    std::string ttl_ms = std::to_string(options_.ttl_us / kUsPerMs);
    RedisReply reply;
    if (Error err = client_.call_ok({"SET", key, owner, "NX", "PX", ttl_ms}, &reply); err.failed()) {
        return SRS_WRAP(err, "acquire %s", key.c_str());
    }
    if (reply.is_nil()) {
        std::string holder;
        if (Error err = lookup(key, &holder); err.failed()) return SRS_WRAP(err, "acquire %s", key.c_str());
        // Ours already (a publisher of this process raced us; the live source decides between them).
        if (holder != owner) {
            return SRS_ERR(kErrorStreamBusy, "stream %s is owned by %s", key.c_str(),
                           holder.empty() ? "(expired meanwhile, try again)" : holder.c_str());
        }
    }
    owned_[key] = owner;
    releasing_.erase(key);  // a release queued before this acquire must not delete it
    return Error();
}

void RedisStreamRegistry::release(const std::string& key, const std::string& owner) {
    auto it = owned_.find(key);
    if (it == owned_.end() || it->second != owner) return;
    owned_.erase(it);
    releasing_[key] = Releasing{owner, monotonic_us() + options_.ttl_us};
    wake_.signal();
}

Error RedisStreamRegistry::lookup(const std::string& key, std::string* owner) {
    RedisReply reply;
    if (Error err = client_.call_ok({"GET", key}, &reply); err.failed()) return SRS_WRAP(err, "lookup %s", key.c_str());
    if (reply.is_nil()) {
        owner->clear();
    } else if (reply.type == RedisReplyType::kString) {
        *owner = reply.str;
    } else {
        return SRS_ERR(kErrorRedisReplyError, "lookup %s: GET answered %s", key.c_str(), reply.describe().c_str());
    }
    return Error();
}

void RedisStreamRegistry::release_pending() {
    utime_t now = monotonic_us();
    // A copy: the call yields, and an acquire of the same key meanwhile
    // erases its entry (iterating releasing_ itself would use a freed node).
    std::map<std::string, Releasing> pending = releasing_;
    for (const auto& kv : pending) {
        if (!releasing_.count(kv.first)) continue;  // acquired again meanwhile
        if (now >= kv.second.expires_us) {
            releasing_.erase(kv.first);  // expired in Redis by now: nothing to delete
            continue;
        }
        RedisReply reply;
        if (Error err = client_.call_ok({"EVAL", kReleaseScript, "1", kv.first, kv.second.owner}, &reply);
            err.failed()) {
            srs_warn("stream registry: release %s later: %s", kv.first.c_str(), err.summary().c_str());
            return;  // the client backs off; try again on the next wake
        }
        srs_trace("stream registry: released %s (%s)", kv.first.c_str(), reply.integer ? "deleted" : "not ours");
        releasing_.erase(kv.first);
    }
}

bool RedisStreamRegistry::refresh_all() {
    std::string ttl_ms = std::to_string(options_.ttl_us / kUsPerMs);
    // A copy: an acquire or release in another coroutine may change the map
    // while a command waits.
    std::map<std::string, std::string> keys = owned_;
    for (const auto& kv : keys) {
        if (!owned_.count(kv.first)) continue;
        RedisReply reply;
        if (Error err = client_.call_ok({"EVAL", kRefreshScript, "1", kv.first, kv.second, ttl_ms}, &reply);
            err.failed()) {
            // The publisher keeps publishing: only Redis forgets the key (after ttl).
            srs_error("stream registry: cannot refresh %zu owned stream(s), streams keep playing: %s", keys.size(),
                      err.summary().c_str());
            return false;
        }
        if (reply.type == RedisReplyType::kInteger && reply.integer == 2) {
            srs_trace("stream registry: %s registered again for %s", kv.first.c_str(), kv.second.c_str());
        } else if (reply.type == RedisReplyType::kString) {
            srs_error("stream registry: %s is now owned by %s, not by us (%s): two origins publish it",
                      kv.first.c_str(), reply.str.c_str(), kv.second.c_str());
        }
    }
    refresh_rounds_++;
    return true;
}

Error RedisStreamRegistry::cycle() {
    srs_trace("stream registry: %s, ttl %d ms, refresh every %d ms", describe().c_str(),
              (int)(options_.ttl_us / kUsPerMs), (int)(options_.refresh_interval_us / kUsPerMs));
    utime_t next_refresh = 0;
    uint64_t seen_connects = 0;
    while (true) {
        if (Error err = worker_.pull(); err.failed()) {
            err.ignore();  // asked to stop: not a failure
            return Error();
        }
        utime_t now = monotonic_us();
        if (!client_.connected() && now >= client_.next_attempt_us()) {
            if (Error err = client_.ensure_connected(); err.failed()) err.ignore();  // logged by the client
        }
        // A new connection: Redis may have restarted empty, so write every key now.
        if (client_.connected() && client_.connects() != seen_connects) {
            seen_connects = client_.connects();
            next_refresh = 0;
        }
        if (!releasing_.empty() && client_.connected()) release_pending();
        now = monotonic_us();
        if (now >= next_refresh) {
            if (!owned_.empty()) refresh_all();
            next_refresh = monotonic_us() + options_.refresh_interval_us;
        }
        now = monotonic_us();
        utime_t wake_at = next_refresh;
        if (!client_.connected() && client_.next_attempt_us() < wake_at) wake_at = client_.next_attempt_us();
        if (!releasing_.empty() && now + options_.client.backoff_min_us < wake_at) {
            wake_at = now + options_.client.backoff_min_us;
        }
        if (wake_at > now) wake_.wait(wake_at - now);
    }
}

}  // namespace srs
