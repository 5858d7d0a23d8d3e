// RTMP 302: an origin that does not serve a stream sends the client elsewhere.
//
// SRS's shape: connect is answered with
//   _error(tid, null, {level: "error", code: "NetConnection.Connect.Rejected",
//                      description: ..., ex: {code: 302, redirect: TCURL, redirect2: URL}})
// where redirect is the new tcUrl (rtmp://HOST:PORT/app) and redirect2, when
// present, the whole stream URL. The edge follows at most kMaxRtmpRedirects
// hops, then gives up on that origin.
#pragma once

#include <string>

#include "app/upstream/rtmp_client.hpp"
#include "kernel/flv/amf0.hpp"

namespace srs {

constexpr int kMaxRtmpRedirects = 3;

// Whether `info` (the _error's info object) is a 302, and where it sends a
// client that asked for `asked_url` ("rtmp://HOST:PORT/app/stream?params"):
// redirect2 as is; else redirect as a tcUrl, with the asked stream and params
// appended (or as is when it already names a stream).
bool rtmp_redirect_target(const Amf0Value& info, const std::string& asked_url, std::string* target);

// client->connect(url), following up to max_hops redirects. On success
// *final_url is the URL connected to. The tcUrl override set on the client
// is dropped at the first hop (the redirect names the server to ask).
Error rtmp_connect_following_redirects(RtmpClient* client, const std::string& url, utime_t timeout_us,
                                       int max_hops, std::string* final_url);

}  // namespace srs
