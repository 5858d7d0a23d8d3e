// The URLs the server's HTTP client accepts:
//   http[s]://host[:port][/path][?query][#fragment]
// where host is an IPv4 literal, a bracketed IPv6 literal, or a DNS name
// (letters, digits, '-', '_' in dot-separated labels of 1..63, at most 253
// bytes, one trailing dot allowed). The port defaults to 80 for http and 443
// for https. A name is kept as a name: resolving it is the caller's job (the
// client resolves off the coroutine thread), except "localhost", which is
// 127.0.0.1 as before. No user info.
#pragma once

#include <string>

#include "core/error.hpp"

namespace srs {

struct HttpClientUrl {
    bool tls = false;         // https://
    std::string host;         // as the URL names it; IPv6 without brackets
    std::string ip;           // the address when host is a literal or localhost; empty for a name to resolve
    int port = 80;
    std::string host_header;  // "host[:port]" as the URL spells it
    std::string target;       // "/path[?query]", "/" when the URL has none
};

// Fails with kErrorHttpClientBadUrl, saying why.
Error parse_http_client_url(const std::string& url, HttpClientUrl* out);

// Whether `host` is a DNS name as the client URLs take it (see above).
bool is_valid_host_name(const std::string& host);

}  // namespace srs
