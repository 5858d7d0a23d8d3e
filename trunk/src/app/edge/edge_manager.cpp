#include "app/edge/edge_manager.hpp"

#include "app/conn/client.hpp"
#include "app/edge/edge_forwarder.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

EdgeManager::EdgeManager(ConfigSnapshot config, ClientRegistry* clients, utime_t idle_us)
    : config_(std::move(config)),
      clients_(clients),
      idle_us_(idle_us),
      cluster_([this](const std::string& vhost) { return config_()->get(vhost, keys::vhost_cluster_origin); }),
      reaper_("edge-reaper", this) {}

EdgeManager::~EdgeManager() { stop(); }

Error EdgeManager::start() { return reaper_.start(); }

void EdgeManager::stop() {
    reaper_.stop();
    // Each stop() joins its coroutine and unpublishes its source.
    ingesters_.clear();
}

std::string EdgeManager::key_of(const LiveSource* source) {
    return source->vhost() + "/" + source->app() + "/" + source->stream();
}

void EdgeManager::set_registry(OriginLocator* registry) {
    registry_ = registry;
    registry_then_cluster_.reset(registry ? new CompositeOriginLocator({registry, &cluster_}) : nullptr);
}

OriginLocator* EdgeManager::locator() {
    if (override_) return override_;
    if (registry_then_cluster_) return registry_then_cluster_.get();
    return &cluster_;
}

Error EdgeManager::start_pull(LiveSource* source, const PullRequest& req, OriginLocator* locator, Pull* pull) {
    std::shared_ptr<const Config> config = config_();
    SourceOptions options;
    options.gop_cache = config->get(req.vhost, keys::vhost_play_gop_cache);
    options.gop_cache_max_frames = static_cast<int>(config->get(req.vhost, keys::vhost_play_gop_cache_max_frames));
    // Origins differ in their clocks and a switch jumps: always correct.
    options.jitter = TimeJitter::kFull;
    options.claimed = false;  // the owner holds the claim, not its pull
    pull->req = req;
    pull->locator = locator;
    pull->unwatched_since = 0;
    pull->ingester.reset(new EdgeIngester(source, locator, clients_, req,
                                          read_edge_options(*config, req.vhost), options));
    if (Error err = pull->ingester->start(); !err.ok()) {
        pull->ingester.reset();
        return err;
    }
    return Error();
}

bool EdgeManager::may_pull(const std::string& vhost) const {
    return registry_ || is_edge_vhost(*config_(), vhost);
}

Error EdgeManager::on_play(LiveSource* source, const PullRequest& req, bool* pulled) {
    if (!is_edge_vhost(*config_(), req.vhost)) return on_origin_play(source, req, pulled);
    *pulled = true;
    return on_edge_play(source, req);
}

bool EdgeManager::pulled_from(const LiveSource* source, std::string* upstream) const {
    const EdgeIngester* pull = ingester_of(source);
    if (!pull) return false;
    *upstream = pull->upstream_url();
    return true;
}

bool EdgeManager::relays_publish(const std::string& vhost) const { return is_edge_vhost(*config_(), vhost); }

Error EdgeManager::check_connect(const PullRequest& req) {
    std::shared_ptr<const Config> config = config_();
    if (!is_edge_vhost(*config, req.vhost)) return Error();
    EdgeOptions options = read_edge_options(*config, req.vhost);
    if (!options.token_traverse) return Error();
    PullRequest asked = req;
    if (asked.stream.empty()) asked.stream = "token_traverse";  // connect names no stream; the URL needs one
    return edge_token_traverse(locator(), asked, options);
}

Error EdgeManager::open_publish_relay(const PullRequest& req, std::unique_ptr<PublishRelay>* out) {
    std::unique_ptr<EdgeForwarder> forwarder(new EdgeForwarder(locator(), req, read_edge_options(*config_(), req.vhost)));
    if (Error err = forwarder->start(); !err.ok()) return err;
    *out = std::move(forwarder);
    return Error();
}

Error EdgeManager::on_edge_play(LiveSource* source, const PullRequest& req) {
    Pull& pull = ingesters_[key_of(source)];
    if (pull.ingester && pull.ingester->source() == source) {
        pull.unwatched_since = 0;
        return Error();
    }
    if (pull.ingester) pull.ingester.reset();  // a freed source's stale pull (cannot outlive it, but be safe)
    if (Error err = start_pull(source, req, locator(), &pull); !err.ok()) {
        ingesters_.erase(key_of(source));
        return SRS_WRAP(err, "edge pull");
    }
    return Error();
}

Error EdgeManager::on_origin_play(LiveSource* source, const PullRequest& req, bool* pulling) {
    *pulling = false;
    if (pulled(source)) {
        ingesters_[key_of(source)].unwatched_since = 0;
        *pulling = true;
        return Error();
    }
    if (!registry_ || source->publishing()) return Error();
    std::vector<std::string> owners;
    StreamKey key{req.vhost, req.app, req.stream};
    if (Error err = registry_->locate(key, &owners); err.failed()) {
        srs_warn("origin: owner of %s unknown, wait for a local publisher: %s", key_of(source).c_str(),
                 err.summary().c_str());
        err.ignore();
        return Error();
    }
    // The lookup yielded: another player may have started the pull, or a publisher come.
    if (pulled(source)) {
        *pulling = true;
        return Error();
    }
    if (owners.empty() || source->publishing()) return Error();
    srs_trace("origin: %s is owned by %s, pull it from there", key_of(source).c_str(), owners[0].c_str());
    Pull& pull = ingesters_[key_of(source)];
    pull.ingester.reset();
    if (Error err = start_pull(source, req, registry_, &pull); !err.ok()) {
        ingesters_.erase(key_of(source));
        return SRS_WRAP(err, "origin pull");
    }
    *pulling = true;
    return Error();
}

bool EdgeManager::stop_pull(LiveSource* source) {
    if (!pulled(source)) return false;
    srs_trace("origin: a local publisher takes %s over, stop its pull", key_of(source).c_str());
    ingesters_.erase(key_of(source));  // ~EdgeIngester stops and unpublishes; players stay attached
    return true;
}

const EdgeIngester* EdgeManager::ingester_of(const LiveSource* source) const {
    auto it = ingesters_.find(key_of(source));
    if (it == ingesters_.end() || !it->second.ingester || it->second.ingester->source() != source) return nullptr;
    return it->second.ingester.get();
}

void EdgeManager::reap(utime_t now) {
    for (auto it = ingesters_.begin(); it != ingesters_.end();) {
        Pull& pull = it->second;
        LiveSource* source = pull.ingester ? pull.ingester->source() : nullptr;
        bool watched = source && source->consumer_count() + source->attached_players() > 0;
        if (!pull.ingester || (!watched && pull.unwatched_since && now - pull.unwatched_since >= idle_us_)) {
            if (pull.ingester) {
                srs_trace("edge: no player of %s for %d ms, stop its pull", it->first.c_str(),
                          (int)(idle_us_ / kUsPerMs));
            }
            it = ingesters_.erase(it);  // ~EdgeIngester stops and unpublishes
            continue;
        }
        if (!watched && !pull.unwatched_since) pull.unwatched_since = now;
        if (watched) pull.unwatched_since = 0;
        if (!pull.ingester->running()) {
            // Kicked from the API: players still there get a fresh pull.
            srs_warn("edge: pull of %s ended, restart it for its players", it->first.c_str());
            pull.ingester.reset();
            if (Error err = start_pull(source, pull.req, pull.locator, &pull); !err.ok()) {
                srs_error("edge: restart pull of %s: %s", it->first.c_str(), err.describe().c_str());
                err.ignore();
                it = ingesters_.erase(it);
                continue;
            }
        }
        ++it;
    }
}

Error EdgeManager::cycle() {
    while (true) {
        if (Error err = reaper_.pull(); !err.ok()) {
            err.ignore();
            return Error();
        }
        reap(monotonic_us());
        if (Error err = sleep_us(kUsPerSecond); !err.ok()) {
            err.ignore();
            return Error();
        }
    }
}

}  // namespace srs
