// vhost.dvr: the sources' publish factory for recordings, and the
// recovery of what a crash left at start (docs/dvr.md).
//
// create_bridge reads the running config at each publish: a vhost with
// dvr enabled whose dvr_apply names the stream gets a DvrRecorder for that
// publish (so a reload applies from the next publish, as SRS's). recover()
// runs once before the listeners take publishers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/hooks/hook_contract.hpp"
#include "app/live/live_bridge.hpp"

namespace srs {

class HttpHooks;

class DvrManager : public LiveBridgeFactory {
  public:
    DvrManager(ConfigSnapshot config, HttpHooks* hooks) : config_(std::move(config)), hooks_(hooks) {}

    // nullptr when the source's vhost does not record it.
    std::unique_ptr<LiveSourceBridge> create_bridge(LiveSource* source) override;

    // Renames (after cutting them to their last whole unit) the recordings
    // left under their temporary names; each is logged. Before the
    // listeners open, so no recording of this run is taken for a leftover.
    void recover();
    // on_dvr of each recovered file: once the hooks know the service id.
    void post_recovered();

  private:
    ConfigSnapshot config_;
    HttpHooks* hooks_;
    std::vector<HookRequest> recovered_;
};

}  // namespace srs
