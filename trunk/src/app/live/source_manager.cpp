#include "app/live/source_manager.hpp"

#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

SourceManager::SourceManager(utime_t idle_grace_us) : idle_grace_us_(idle_grace_us), collector_("sources", this) {}

SourceManager::~SourceManager() { stop(); }

Error SourceManager::start() { return collector_.start(); }

void SourceManager::stop() {
    collector_.stop();
    sources_.clear();
}

std::string SourceManager::key(const std::string& vhost, const std::string& app, const std::string& stream) {
    return vhost + "/" + app + "/" + stream;
}

LiveSource* SourceManager::fetch_or_create(const std::string& vhost, const std::string& app,
                                           const std::string& stream) {
    auto& slot = sources_[key(vhost, app, stream)];
    if (!slot) {
        slot.reset(new LiveSource(vhost, app, stream));
        slot->set_bridge_factory(bridge_factory_);
        slot->set_forward_factory(forward_factory_);
        slot->set_publish_observer(publish_observer_);
        srs_trace("new source %s/%s/%s, sources=%zu", vhost.c_str(), app.c_str(), stream.c_str(), sources_.size());
    }
    return slot.get();
}

void SourceManager::set_publish_observer(LivePublishObserver* observer) {
    publish_observer_ = observer;
    for (auto& kv : sources_) kv.second->set_publish_observer(observer);
}

void SourceManager::set_forward_factory(LiveBridgeFactory* factory) {
    forward_factory_ = factory;
    for (auto& kv : sources_) kv.second->set_forward_factory(factory);
}

void SourceManager::set_bridge_factory(LiveBridgeFactory* factory) {
    bridge_factory_ = factory;
    for (auto& kv : sources_) kv.second->set_bridge_factory(factory);
}

LiveSource* SourceManager::find(const std::string& vhost, const std::string& app, const std::string& stream) const {
    auto it = sources_.find(key(vhost, app, stream));
    return it == sources_.end() ? nullptr : it->second.get();
}

std::vector<LiveSource*> SourceManager::sources() const {
    std::vector<LiveSource*> out;
    for (auto& kv : sources_) out.push_back(kv.second.get());
    return out;
}

uint64_t SourceManager::dropped_messages_total() const {
    uint64_t n = dropped_by_freed_;
    for (auto& kv : sources_) n += kv.second->dropped_messages();
    return n;
}

void SourceManager::collect_idle() {
    utime_t now = monotonic_us();
    for (auto it = sources_.begin(); it != sources_.end();) {
        LiveSource* s = it->second.get();
        if (s->idle() && now - s->idle_since_us() >= idle_grace_us_) {
            srs_trace("free idle source %s, sources=%zu", it->first.c_str(), sources_.size() - 1);
            dropped_by_freed_ += s->dropped_messages();
            it = sources_.erase(it);
        } else {
            ++it;
        }
    }
}

Error SourceManager::cycle() {
    while (true) {
        if (Error err = collector_.pull(); !err.ok()) {
            err.ignore();
            return Error();
        }
        collect_idle();
        if (Error err = sleep_us(kUsPerSecond); !err.ok()) {
            err.ignore();
            return Error();
        }
    }
}

}  // namespace srs
