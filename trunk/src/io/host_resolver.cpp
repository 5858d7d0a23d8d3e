#include "io/host_resolver.hpp"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "io/socket.hpp"
#include "st/st.h"

namespace srs {

HostAnswer getaddrinfo_lookup(const std::string& name) {
    HostAnswer answer;
    addrinfo hints;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    int r = getaddrinfo(name.c_str(), nullptr, &hints, &list);
    if (r != 0) {
        answer.error = r == EAI_SYSTEM ? std::string("system error: ") + strerror(errno) : gai_strerror(r);
        return answer;
    }
    for (addrinfo* a = list; a; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
        std::string ip = endpoint_of(a->ai_addr).ip;
        if (std::find(answer.addresses.begin(), answer.addresses.end(), ip) == answer.addresses.end()) {
            answer.addresses.push_back(ip);
        }
    }
    freeaddrinfo(list);
    if (answer.addresses.empty()) answer.error = "no IPv4 or IPv6 address";
    return answer;
}

// A lookup as the helper threads see it.
struct LookupJob {
    std::string name;
    HostAnswer answer;
};

// Shared by the resolver and its threads; the last one out frees it, so a
// thread stuck in getaddrinfo after stop() never touches freed memory.
struct HostResolver::Shared {
    std::mutex mu;
    std::condition_variable work;  // a job was queued, or quit
    std::condition_variable idle;  // a thread finished a job
    std::deque<std::shared_ptr<LookupJob>> queue;
    std::vector<std::shared_ptr<LookupJob>> finished;
    bool quit = false;
    int busy = 0;
    int event_fd = -1;
    HostLookupFn lookup;
    ~Shared() {
        if (event_fd >= 0) ::close(event_fd);
    }
};

struct HostResolver::Pending {
    CoCond cond;
    bool done = false;
    HostAnswer answer;
};

void HostResolver::lookup_thread(std::shared_ptr<Shared> s) {
    std::unique_lock<std::mutex> lock(s->mu);
    while (true) {
        s->work.wait(lock, [&] { return s->quit || !s->queue.empty(); });
        if (s->quit) return;
        std::shared_ptr<LookupJob> job = std::move(s->queue.front());
        s->queue.pop_front();
        s->busy++;
        lock.unlock();
        job->answer = s->lookup(job->name);
        lock.lock();
        s->busy--;
        s->finished.push_back(std::move(job));
        uint64_t one = 1;
        ssize_t n = ::write(s->event_fd, &one, sizeof(one));
        (void)n;  // fails only when the counter would overflow
        s->idle.notify_all();
    }
}

HostResolver::HostResolver(HostResolverOptions options) : options_(std::move(options)), cache_(options_.cache) {}

HostResolver::~HostResolver() { stop(); }

Error HostResolver::start() {
    if (running_) return Error();
    auto s = std::make_shared<Shared>();
    s->lookup = options_.lookup ? options_.lookup : getaddrinfo_lookup;
    s->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->event_fd < 0) return SRS_ERR(kErrorThreadStart, "eventfd: %s", strerror(errno));
    int fd = fcntl(s->event_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return SRS_ERR(kErrorThreadStart, "dup eventfd: %s", strerror(errno));
    st_netfd_t nfd = st_netfd_open(fd);
    if (!nfd) {
        ::close(fd);
        return SRS_ERR(kErrorThreadStart, "open eventfd netfd: %s", strerror(errno));
    }
    event_netfd_ = nfd;
    shared_ = s;
    int threads = std::max(1, options_.threads);
    for (int i = 0; i < threads; i++) std::thread(lookup_thread, s).detach();
    dispatcher_.reset(new Coroutine("host-resolver", this));
    if (Error err = dispatcher_->start(); !err.ok()) {
        stop();
        return SRS_WRAP(err, "host resolver dispatcher");
    }
    running_ = true;
    return Error();
}

void HostResolver::stop() {
    if (shared_) {
        std::unique_lock<std::mutex> lock(shared_->mu);
        shared_->quit = true;
        shared_->work.notify_all();
        // A short grace for lookups in flight; a thread that stays stuck
        // finishes later on its own, holding only the shared state.
        shared_->idle.wait_for(lock, std::chrono::seconds(1), [this] { return shared_->busy == 0; });
    }
    if (dispatcher_) {
        dispatcher_->stop();
        dispatcher_.reset();
    }
    if (event_netfd_) st_netfd_close(static_cast<st_netfd_t>(event_netfd_));
    event_netfd_ = nullptr;
    shared_.reset();
    for (auto& [name, p] : inflight_) {
        p->done = true;
        p->answer.addresses.clear();
        p->answer.error = "resolver stopped";
        p->cond.broadcast();
    }
    inflight_.clear();
    running_ = false;
}

Error HostResolver::resolve(const std::string& host, utime_t timeout_us, std::vector<std::string>* addresses) {
    if (answer_without_lookup(host, addresses)) return Error();
    std::string name = normalize_host_name(host);
    if (name.empty()) return SRS_ERR(kErrorDnsResolve, "empty host name");
    HostAnswer answer;
    if (cache_.find(name, monotonic_us(), &answer)) {
        if (answer.addresses.empty()) return SRS_ERR(kErrorDnsResolve, "resolve %s: %s (cached)", name.c_str(), answer.error.c_str());
        *addresses = answer.addresses;
        return Error();
    }
    if (!running_) return SRS_ERR(kErrorDnsResolve, "resolve %s: resolver not running", name.c_str());

    std::shared_ptr<Pending> p;
    auto it = inflight_.find(name);
    if (it != inflight_.end()) {
        p = it->second;
    } else {
        p = std::make_shared<Pending>();
        inflight_[name] = p;
        auto job = std::make_shared<LookupJob>();
        job->name = name;
        {
            std::lock_guard<std::mutex> lock(shared_->mu);
            shared_->queue.push_back(std::move(job));
        }
        shared_->work.notify_one();
        lookups_started_++;
    }

    utime_t deadline = timeout_us < 0 ? -1 : monotonic_us() + timeout_us;
    while (!p->done) {
        utime_t left = -1;
        if (deadline >= 0) {
            left = deadline - monotonic_us();
            if (left <= 0) {
                return SRS_ERR(kErrorDnsTimeout, "resolve %s: no answer in %lld ms", name.c_str(),
                               (long long)(timeout_us / kUsPerMs));
            }
        }
        if (!p->cond.wait(left) && !p->done && (deadline < 0 || monotonic_us() < deadline)) {
            return SRS_ERR(kErrorThreadInterrupted, "resolve %s: interrupted", name.c_str());
        }
    }
    if (p->answer.addresses.empty()) return SRS_ERR(kErrorDnsResolve, "resolve %s: %s", name.c_str(), p->answer.error.c_str());
    *addresses = p->answer.addresses;
    return Error();
}

void HostResolver::take_finished() {
    std::vector<std::shared_ptr<LookupJob>> done;
    {
        std::lock_guard<std::mutex> lock(shared_->mu);
        done.swap(shared_->finished);
    }
    utime_t now = monotonic_us();
    for (auto& job : done) {
        cache_.put(job->name, job->answer, now);
        auto it = inflight_.find(job->name);
        if (it == inflight_.end()) continue;
        std::shared_ptr<Pending> p = it->second;
        inflight_.erase(it);
        p->answer = job->answer;
        p->done = true;
        p->cond.broadcast();
    }
}

Error HostResolver::cycle() {
    while (true) {
        if (Error err = dispatcher_->pull(); !err.ok()) return Error();
        uint64_t count = 0;
        ssize_t n = st_read(static_cast<st_netfd_t>(event_netfd_), &count, sizeof(count), ST_UTIME_NO_TIMEOUT);
        if (n < 0 && errno == EINTR) return Error();
        if (n != sizeof(count)) return SRS_ERR(kErrorThreadTerminated, "read eventfd: %s", strerror(errno));
        take_finished();
    }
}

}  // namespace srs
