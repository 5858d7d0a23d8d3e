// The sources take one publish factory (LiveSource::set_forward_factory);
// the server has two subsystems that act on every publish: forward and the
// FFmpeg directives (transcode, exec). This fans one publish out to both.
#pragma once

#include <memory>
#include <vector>

#include "app/live/live_bridge.hpp"

namespace srs {

class PublishBridges : public LiveBridgeFactory {
  public:
    explicit PublishBridges(std::vector<LiveBridgeFactory*> factories) : factories_(std::move(factories)) {}

    std::unique_ptr<LiveSourceBridge> create_bridge(LiveSource* source) override {
        std::vector<std::unique_ptr<LiveSourceBridge>> made;
        for (LiveBridgeFactory* f : factories_) {
            std::unique_ptr<LiveSourceBridge> b = f->create_bridge(source);
            if (b) made.push_back(std::move(b));
        }
        if (made.empty()) return nullptr;
        if (made.size() == 1) return std::move(made[0]);
        return std::unique_ptr<LiveSourceBridge>(new Group(std::move(made)));
    }

  private:
    // Several bridges of one publish, dropped together at unpublish.
    class Group : public LiveSourceBridge {
      public:
        explicit Group(std::vector<std::unique_ptr<LiveSourceBridge>> parts) : parts_(std::move(parts)) {}
        void on_live_message(const LiveMessagePtr& msg) override {
            for (auto& p : parts_) p->on_live_message(msg);
        }

      private:
        std::vector<std::unique_ptr<LiveSourceBridge>> parts_;
    };

    std::vector<LiveBridgeFactory*> factories_;
};

}  // namespace srs
