// What protocol handlers (RTMP, HTTP-FLV, WebRTC) use of the server, and
// nothing more: the running config, the live sources, the clients, the
// stream puller, the publish claims and the http_hooks. It cannot reload or stop the server
// (the API gets that through its own ServerContext).
//
// config() is a snapshot: a reload swaps in a new Config and leaves the old
// one alive for whoever still holds it, so code that keeps a config across a
// blocking call or a reload keeps its snapshot (and sees the values it
// started with), never a reference.
#pragma once

#include <memory>

#include "app/config/config.hpp"
#include "app/conn/client.hpp"
#include "app/live/source_manager.hpp"
#include "app/live/stream_puller.hpp"
#include "app/registry/stream_claims.hpp"

namespace srs {

class HttpHooks;

class LiveContext {
  public:
    virtual ~LiveContext() = default;
    virtual std::shared_ptr<const Config> config() const = 0;
    virtual SourceManager& sources() = 0;
    // Every client (RTMP, HTTP and API connections, WebRTC sessions).
    virtual ClientRegistry& clients() = 0;
    // Whether a stream comes from another server (edges, an origin cluster).
    virtual StreamPuller& puller() = 0;
    // Publishers claim their stream here first (the stream registry: memory,
    // or Redis for an origin cluster).
    virtual StreamClaims& stream_claims() = 0;
    // vhost.http_hooks: called on the client's coroutine (or queued).
    virtual HttpHooks& hooks() = 0;
};

}  // namespace srs
