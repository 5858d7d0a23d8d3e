// The URLs the server's HTTP client accepts: http://host[:port][/path][?query]
// where host is an IPv4 literal, a bracketed IPv6 literal or "localhost"
// (127.0.0.1). No https, no user info, no DNS: resolving a name would block
// the one thread every coroutine shares.
#pragma once

#include <string>

#include "core/error.hpp"

namespace srs {

struct HttpClientUrl {
    std::string ip;           // the address to connect to, IPv6 without brackets
    int port = 80;
    std::string host_header;  // "host[:port]" as the URL spells it
    std::string target;       // "/path[?query]", "/" when the URL has none
};

// Fails with kErrorHttpClientBadUrl, saying why.
Error parse_http_client_url(const std::string& url, HttpClientUrl* out);

}  // namespace srs
