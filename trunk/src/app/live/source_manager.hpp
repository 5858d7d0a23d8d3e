// All live sources of the server, by vhost/app/stream. A source with no
// publisher and no players is freed after a grace period, so memory does not
// grow with the number of distinct stream names ever used.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/live/live_source.hpp"
#include "io/coroutine.hpp"

namespace srs {

class SourceManager : public CoroutineHandler {
  public:
    explicit SourceManager(utime_t idle_grace_us = 3 * kUsPerSecond);
    ~SourceManager() override;

    Error start();
    void stop();
    LiveSource* fetch_or_create(const std::string& vhost, const std::string& app, const std::string& stream);
    LiveSource* find(const std::string& vhost, const std::string& app, const std::string& stream) const;
    std::vector<LiveSource*> sources() const;
    size_t size() const { return sources_.size(); }
    // Messages dropped by players' queue shrinks on every source, freed
    // ones included: a counter that never goes down.
    uint64_t dropped_messages_total() const;
    // Frees idle sources past the grace period (the coroutine calls it every second).
    void collect_idle();
    // Given to every source, present and future (nullptr: no bridges).
    void set_bridge_factory(LiveBridgeFactory* factory);
    // Given to every source, present and future (nullptr: no forwarders).
    void set_forward_factory(LiveBridgeFactory* factory);
    // Given to every source, present and future (nullptr: nobody).
    void set_publish_observer(LivePublishObserver* observer);

  private:
    Error cycle() override;
    static std::string key(const std::string& vhost, const std::string& app, const std::string& stream);
    utime_t idle_grace_us_;
    uint64_t dropped_by_freed_ = 0;  // by sources already freed
    std::map<std::string, std::unique_ptr<LiveSource>> sources_;
    LiveBridgeFactory* bridge_factory_ = nullptr;
    LiveBridgeFactory* forward_factory_ = nullptr;
    LivePublishObserver* publish_observer_ = nullptr;
    Coroutine collector_;
};

}  // namespace srs
