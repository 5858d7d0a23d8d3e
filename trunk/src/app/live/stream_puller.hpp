// Where a stream comes from when it is not published here: the one place
// that decides whether a player's stream is pulled from another server.
//
// Two cases, both decided behind this interface (app/edge implements it):
// - an edge vhost (cluster.mode remote): every stream comes from an origin;
//   the first player starts the pull, the others share it;
// - an origin with the stream registry on: a stream nobody publishes here but
//   another origin owns is pulled from that owner.
// An edge vhost also sends its publishers (and, with token_traverse, its
// connects) upstream, so the same interface carries those.
//
// Protocol handlers (rtmp/, http/, rtc/) ask the live hub for a source and
// this interface whether it is pulled; they never see the edge itself.
#pragma once

#include <memory>
#include <string>

#include "core/error.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

class LiveSource;

// What a client asked for; what an edge names to its origin is built from it.
struct PullRequest {
    std::string vhost;        // the vhost serving the client
    std::string asked_vhost;  // what the client named (tcUrl host, Host header or ?vhost=)
    std::string app, stream;
    std::string param;  // "?k=v&..." or ""
};

// An edge vhost's publisher relayed to an origin (SRS's edge publish).
class PublishRelay {
  public:
    virtual ~PublishRelay() = default;
    // Audio, video or data; other messages are not relayed.
    virtual Error forward(const RtmpMessage& msg) = 0;
    virtual const std::string& upstream_url() const = 0;
};

class StreamPuller {
  public:
    virtual ~StreamPuller() = default;

    // Whether a player of a stream nobody publishes here may get it pulled
    // (an edge vhost, or an origin with the stream registry on). When false
    // such a player is refused (HTTP-FLV: 404) or waits (RTMP).
    virtual bool may_pull(const std::string& vhost) const = 0;
    // A player attached to `source` (its consumer exists already, so nothing
    // the pull brings is missed): starts or joins the pull when the stream
    // comes from another server. *pulled: it does. An error: the pull could
    // not start (the player is refused).
    virtual Error on_play(LiveSource* source, const PullRequest& req, bool* pulled) = 0;
    // Whether `source` is published by a pull (not by a local publisher), and
    // from where (*upstream: "" between two tries).
    virtual bool pulled_from(const LiveSource* source, std::string* upstream) const = 0;
    // A local publisher takes `source` over: its pull stops (the source is
    // unpublished, its players stay). False when it was not pulled.
    virtual bool stop_pull(LiveSource* source) = 0;

    // Edge vhosts: publishers are relayed to an origin, not published here.
    virtual bool relays_publish(const std::string& vhost) const = 0;
    // Edge vhosts with token_traverse: the origin judges a client's connect
    // first (an error refuses the client). Ok everywhere else.
    virtual Error check_connect(const PullRequest& req) = 0;
    // Connects and publishes to the first origin that accepts.
    virtual Error open_publish_relay(const PullRequest& req, std::unique_ptr<PublishRelay>* out) = 0;
};

}  // namespace srs
