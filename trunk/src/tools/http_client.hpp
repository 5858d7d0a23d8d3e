// What the HTTP tools (sb_http_load, sb_latency, the WebRTC tools' signalling)
// share on the client side: the URL they are given, parsed by the project's
// parse_http_client_url with the tools' rule that the host is an IP address,
// and the request an HTTP-FLV player sends. Responses are read with the
// project's HttpResponseParser (protocol/http/http_response_parser.hpp).
// Sans-IO: nothing here reads a socket.
#pragma once

#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "protocol/http/http_response_parser.hpp"
#include "protocol/http/http_url.hpp"
#include "tool_common.hpp"

namespace srs::tool {

// A response head may take this much (field lines), as a browser allows.
constexpr size_t kMaxResponseHeadBytes = 16 * 1024;

// The limits of the tools' response parsers.
inline HttpResponseLimits tool_response_limits() {
    HttpResponseLimits limits;
    limits.max_header_bytes = kMaxResponseHeadBytes;
    return limits;
}

// ---- URL ----

struct HttpUrl {
    std::string host;         // an IP literal, IPv6 without brackets
    int port = 80;
    std::string host_header;  // "host[:port]" as the URL has it
    std::string target;       // "/path[?query]"
};

// http://ip[:port]/path[?query]. The host must be an IP address: the tools
// take no host name, not even the "localhost" the server's client maps (as
// for their rtmp:// URLs).
inline Error parse_http_url(const std::string& url, HttpUrl* out) {
    HttpClientUrl u;
    if (Error err = parse_http_client_url(url, &u); !err.ok()) return err;
    if (u.ip.empty() || istarts_with(u.host_header, "localhost")) {  // a name (localhost maps to an ip)
        return SRS_ERR(kErrorHttpClientBadUrl, "the host must be an IP address (no DNS)");
    }
    if (u.tls) return SRS_ERR(kErrorHttpClientBadUrl, "the tools speak http:// only");
    out->host = std::move(u.ip);
    out->port = u.port;
    out->host_header = std::move(u.host_header);
    out->target = std::move(u.target);
    return Error();
}

inline bool check_http_url(const std::string& url) {
    HttpUrl u;
    if (Error err = parse_http_url(url_for(url, 0), &u); !err.ok()) {
        fprintf(stderr, "bad url %s: %s\n", url.c_str(), err.summary().c_str());
        return false;
    }
    return true;
}

// The GET an HTTP-FLV player sends: one response per connection.
inline std::string http_get_request(const HttpUrl& url, const char* user_agent) {
    return "GET " + url.target + " HTTP/1.1\r\nHost: " + url.host_header + "\r\nUser-Agent: " + user_agent +
           "\r\nAccept: */*\r\nConnection: close\r\n\r\n";
}

}  // namespace srs::tool
