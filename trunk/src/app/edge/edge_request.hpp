// What an edge asks its origin for, built from what its client asked.
//
// The edge connects to the origin's address but names, in the tcUrl, the
// vhost the origin should serve (SRS's shape: rtmp://VHOST:PORT/app), so an
// origin with several vhosts picks the right one and applies its rules:
// - follow_client on: the vhost the client asked for;
// - else cluster.vhost when set;
// - else the edge's own vhost name.
// The client's params travel with the stream name (tokens for the origin's
// checks), without vhost=/domain= which the tcUrl now decides.
#pragma once

#include <string>

#include "app/config/config.hpp"
#include "app/live/stream_puller.hpp"

namespace srs {

struct EdgeOptions {
    bool token_traverse = false;
    bool follow_client = false;
    std::string origin_vhost;      // cluster.vhost
    std::string protocol = "rtmp";  // rtmp | flv
};

// cluster.mode remote.
bool is_edge_vhost(const Config& config, const std::string& vhost);
EdgeOptions read_edge_options(const Config& config, const std::string& vhost);

// The vhost named to the origin (see above).
std::string edge_origin_vhost(const EdgeOptions& options, const PullRequest& req);
// The client's params minus vhost= and domain=: "?k=v" or "".
std::string edge_upstream_param(const std::string& param);
// origin "rtmp://HOST:PORT" -> "rtmp://HOST:PORT/app/stream?params".
std::string edge_upstream_url(const std::string& origin, const PullRequest& req);
// origin "rtmp://HOST:PORT" -> "rtmp://VHOST:PORT/app" (+ params when given).
std::string edge_upstream_tc_url(const std::string& origin, const std::string& vhost, const std::string& app,
                                 const std::string& param = "");

}  // namespace srs
