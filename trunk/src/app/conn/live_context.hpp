// What protocol handlers (RTMP, HTTP-FLV, WebRTC) use of the server, and
// nothing more: the running config, the live sources, the clients, the
// stream puller, the publish claims, the http_hooks and the outbound HTTP client's options. It cannot reload or stop the server
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
#include "app/upstream/http_client.hpp"

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
    // The base of every outbound HTTP request (heartbeat, forward backend,
    // hooks): the server's resolver and `http_client { }`'s TLS settings
    // with the trust store loaded once. Copy it and set the timeouts.
    virtual const HttpClientOptions& http_client_options() const = 0;
};

}  // namespace srs
