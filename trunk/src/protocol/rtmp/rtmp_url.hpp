// What an RTMP client asked for: schema, host, port, vhost, app, stream and
// params, discovered from connect's tcUrl and the publish/play stream name.
// Pure string functions, no IO, no DNS.
//
// Accepted forms (as SRS accepts them):
//   rtmp://host[:port]/app[/app2...]/stream[?k=v&...]     standard
//   rtmp://host/app?k=v/stream                            FMLE: params on the app
//   rtmp://host/app/_definst_/stream                      _definst_ is dropped
//   rtmp://host/app...vhost...v/stream                    legacy, same as ?vhost=v
//   rtmp://[::1]:1935/app/stream                          IPv6 literal
// The stream is the last path segment, the app everything before it. The vhost
// comes from a `vhost` or `domain` param, else it is the host (an IP host is
// mapped to __defaultVhost__ by the caller, which knows the configured vhosts).
#pragma once

#include <string>

#include "core/error.hpp"

namespace srs {

constexpr int kRtmpDefaultPort = 1935;
inline constexpr char kRtmpDefaultVhost[] = "__defaultVhost__";
inline constexpr char kRtmpDefaultApp[] = "__defaultApp__";

struct RtmpRequestInfo {
    std::string schema;  // "rtmp"
    std::string host;    // as written in the URL, IPv6 without brackets
    int port = kRtmpDefaultPort;
    std::string vhost;   // from ?vhost= / ?domain=, else the host
    std::string app;     // "live", "live/sub"; __defaultApp__ when the URL has none
    std::string stream;  // without params
    std::string param;   // "?k=v&..." from the tcUrl and the stream name, "" when none

    // "/app/stream".
    std::string stream_url() const;
    // "schema://host[:port]/app": the port only when not 1935, IPv6 in brackets.
    std::string tc_url() const;
    // "stream?k=v": the name a client sends in publish/play.
    std::string stream_with_param() const;
};

// Server side: connect's tcUrl plus the stream name of publish/play (which may
// carry "?k=v" params). The stream name may be empty (after connect only).
Error discover_rtmp_request(const std::string& tc_url, const std::string& stream, RtmpRequestInfo* out);

// Client side: one full URL, "rtmp://host[:port]/app/stream[?k=v]".
Error parse_rtmp_url(const std::string& url, RtmpRequestInfo* out);

// True for an IPv4 or IPv6 literal ("127.0.0.1", "::1").
bool is_ip_literal(const std::string& host);

}  // namespace srs
