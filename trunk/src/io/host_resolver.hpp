// Host names to addresses without blocking the coroutine thread
// (docs/architecture.md, "Blocking calls").
//
// Why a few helper threads running getaddrinfo, not getaddrinfo_a: the
// system's resolver is then used exactly as every other program uses it
// (nsswitch, /etc/hosts, resolv.conf), a lookup that hangs occupies one
// thread we own and can see, and the completion comes back through an eventfd
// that a coroutine of ours reads, as BlockingWorker does. getaddrinfo_a would
// run the same getaddrinfo on glibc's own threads, with either signals or
// glibc-created threads for the callback, and its cancel cannot stop a lookup
// that has started either.
//
// Guarantees:
// - resolve() returns within its timeout even when getaddrinfo hangs: the
//   caller stops waiting, the lookup finishes later on its thread and only
//   touches memory shared with the resolver (reference-counted), never the
//   caller's. Its answer still fills the cache.
// - Literal addresses and "localhost" are answered at once (HostCache).
// - Answers are cached (60 s when the name resolved, 5 s when not; ours,
//   HostCacheOptions). Callers asking for a name already being looked up wait
//   for that lookup instead of starting another.
// - Lookups of different names run on up to `threads` threads at once, so a
//   slow name does not hold up the others (unless `threads` of them hang).
// - Only the calling coroutine waits; every other one keeps running.
// - stop() wakes every waiting caller with an error. A thread still inside
//   getaddrinfo after a short grace is left to finish on its own (detached):
//   it holds only the shared state, which it frees when it is the last user.
//
// One resolver per server, owned by the server object and handed to the
// clients it builds (HttpClientOptions::resolver, RtmpClient).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "io/coroutine.hpp"
#include "io/host_cache.hpp"

namespace srs {

// Runs on a helper thread: must be thread-safe, must not call st_* or log.
using HostLookupFn = std::function<HostAnswer(const std::string& name)>;

// The system's resolver: getaddrinfo(name, SOCK_STREAM), addresses in its order, duplicates dropped.
HostAnswer getaddrinfo_lookup(const std::string& name);

struct HostResolverOptions {
    int threads = 4;
    HostCacheOptions cache;
    HostLookupFn lookup = getaddrinfo_lookup;  // tests give a fake
};

class HostResolver : public CoroutineHandler {
  public:
    explicit HostResolver(HostResolverOptions options = {});
    ~HostResolver() override;  // stop()
    HostResolver(const HostResolver&) = delete;
    HostResolver& operator=(const HostResolver&) = delete;

    // The helper threads and the coroutine that reads their completions. Call after init_runtime().
    Error start();
    void stop();

    // The addresses of `host` (a name, a literal, or localhost), waiting at
    // most timeout_us (< 0: as long as the lookup takes). Fails with
    // kErrorDnsResolve (naming the resolver's reason), kErrorDnsTimeout, or
    // kErrorThreadInterrupted.
    Error resolve(const std::string& host, utime_t timeout_us, std::vector<std::string>* addresses);

    uint64_t lookups_started() const { return lookups_started_; }
    size_t cached() const { return cache_.size(); }

  private:
    struct Shared;   // what the helper threads touch
    struct Pending;  // the callers' side of one lookup (coroutine thread only)
    Error cycle() override;
    void take_finished();
    static void lookup_thread(std::shared_ptr<Shared> shared);  // a helper thread's loop

    HostResolverOptions options_;
    HostCache cache_;
    std::shared_ptr<Shared> shared_;
    std::unordered_map<std::string, std::shared_ptr<Pending>> inflight_;
    void* event_netfd_ = nullptr;  // st_netfd_t of a dup of the shared eventfd
    std::unique_ptr<Coroutine> dispatcher_;
    bool running_ = false;
    uint64_t lookups_started_ = 0;
};

}  // namespace srs
