#include "protocol/http/http_url.hpp"

#include <arpa/inet.h>

#include "core/strings.hpp"

namespace srs {

namespace {

bool is_ipv4(const std::string& s) {
    in_addr a;
    return inet_pton(AF_INET, s.c_str(), &a) == 1;
}

bool is_ipv6(const std::string& s) {
    in6_addr a;
    return inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

}  // namespace

Error parse_http_client_url(const std::string& url, HttpClientUrl* out) {
    constexpr std::string_view kScheme = "http://";
    if (!istarts_with(url, kScheme)) return SRS_ERR(kErrorHttpClientBadUrl, "not an http:// URL: %.128s", url.c_str());
    size_t start = kScheme.size();
    size_t end = url.find_first_of("/?#", start);
    if (end == std::string::npos) end = url.size();
    std::string authority = url.substr(start, end - start);
    if (authority.find('@') != std::string::npos) return SRS_ERR(kErrorHttpClientBadUrl, "user info in the URL");

    HttpClientUrl u;
    std::string host, port;
    if (!authority.empty() && authority[0] == '[') {
        size_t close = authority.find(']');
        if (close == std::string::npos) return SRS_ERR(kErrorHttpClientBadUrl, "unclosed [ in the host");
        host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') return SRS_ERR(kErrorHttpClientBadUrl, "junk after the IPv6 host");
            port = authority.substr(close + 2);
            if (port.empty()) return SRS_ERR(kErrorHttpClientBadUrl, "empty port");
        }
        if (!is_ipv6(host)) return SRS_ERR(kErrorHttpClientBadUrl, "bad IPv6 host %s", host.c_str());
        u.ip = host;
    } else {
        size_t colon = authority.find(':');
        host = authority.substr(0, colon);
        if (colon != std::string::npos) {
            port = authority.substr(colon + 1);
            if (port.empty()) return SRS_ERR(kErrorHttpClientBadUrl, "empty port");
        }
        if (iequals(host, "localhost")) {
            u.ip = "127.0.0.1";
        } else if (is_ipv4(host)) {
            u.ip = host;
        } else {
            return SRS_ERR(kErrorHttpClientBadUrl, "host \"%.64s\" is not an IP address or localhost (no DNS)", host.c_str());
        }
    }
    if (!port.empty()) {
        uint64_t n = 0;
        if (!parse_digits_saturating(port, &n) || n == 0 || n > 65535) {
            return SRS_ERR(kErrorHttpClientBadUrl, "bad port \"%.16s\"", port.c_str());
        }
        u.port = static_cast<int>(n);
    }
    u.host_header = authority;
    size_t fragment = url.find('#', end);
    u.target = url.substr(end, fragment == std::string::npos ? std::string::npos : fragment - end);
    if (u.target.empty() || u.target[0] == '?') u.target.insert(0, "/");
    for (char c : u.target) {
        if (static_cast<uint8_t>(c) <= 0x20 || c == 0x7f) return SRS_ERR(kErrorHttpClientBadUrl, "space or control byte in the path");
    }
    *out = std::move(u);
    return Error();
}

}  // namespace srs
