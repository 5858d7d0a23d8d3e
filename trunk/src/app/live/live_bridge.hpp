// A stream turned into another protocol as it is published: the RTMP ->
// WebRTC bridge (app/rtc) hangs one of these on a LiveSource. The live layer
// knows only this interface, so it does not depend on WebRTC.
#pragma once

#include <memory>

#include "app/live/live_message.hpp"

namespace srs {

class LiveSource;

class LiveSourceBridge {
  public:
    virtual ~LiveSourceBridge() = default;
    // Every message the source's players get (metadata, sequence headers,
    // frames), after the source's timestamp correction.
    virtual void on_live_message(const LiveMessagePtr& msg) = 0;
};

// Makes the bridge of a source as it is published (nullptr: none for this
// stream, e.g. its vhost does not bridge, or the publisher is WebRTC itself).
class LiveBridgeFactory {
  public:
    virtual ~LiveBridgeFactory() = default;
    virtual std::unique_ptr<LiveSourceBridge> create_bridge(LiveSource* source) = 0;
};

}  // namespace srs
