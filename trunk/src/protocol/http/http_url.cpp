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

bool is_valid_host_name(const std::string& host) {
    std::string h = host;
    if (!h.empty() && h.back() == '.') h.pop_back();
    if (h.empty() || h.size() > 253) return false;
    // An all-digit last label reads as a (partial) IPv4 address to
    // getaddrinfo ("10.1" is 10.0.0.1): no top-level domain is numeric.
    size_t last = h.rfind('.');
    if (h.find_first_not_of("0123456789", last == std::string::npos ? 0 : last + 1) == std::string::npos) return false;
    size_t label = 0;
    for (size_t i = 0; i <= h.size(); i++) {
        if (i == h.size() || h[i] == '.') {
            if (label == 0 || label > 63) return false;
            if (h[i - 1] == '-' || h[i - label] == '-') return false;
            label = 0;
            continue;
        }
        char c = h[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok) return false;
        label++;
    }
    return true;
}

Error parse_http_client_url(const std::string& url, HttpClientUrl* out) {
    HttpClientUrl u;
    size_t start = 0;
    if (istarts_with(url, "http://")) {
        start = 7;
    } else if (istarts_with(url, "https://")) {
        start = 8;
        u.tls = true;
        u.port = 443;
    } else {
        return SRS_ERR(kErrorHttpClientBadUrl, "not an http:// or https:// URL: %.128s", url.c_str());
    }
    size_t end = url.find_first_of("/?#", start);
    if (end == std::string::npos) end = url.size();
    std::string authority = url.substr(start, end - start);
    if (authority.find('@') != std::string::npos) return SRS_ERR(kErrorHttpClientBadUrl, "user info in the URL");
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
        if (iequals(host, "localhost") || iequals(host, "localhost.")) {
            u.ip = "127.0.0.1";
        } else if (is_ipv4(host)) {
            u.ip = host;
        } else if (!is_valid_host_name(host)) {
            return SRS_ERR(kErrorHttpClientBadUrl, "host \"%.64s\" is neither an IP address nor a DNS name", host.c_str());
        }
    }
    if (!port.empty()) {
        uint64_t n = 0;
        if (!parse_digits_saturating(port, &n) || n == 0 || n > 65535) {
            return SRS_ERR(kErrorHttpClientBadUrl, "bad port \"%.16s\"", port.c_str());
        }
        u.port = static_cast<int>(n);
    }
    u.host = host;
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
