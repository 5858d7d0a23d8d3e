// rtc_io.hpp: the I/O the WebRTC tools (sb_rtc_load, sb_rtc_publish) share:
// STUN addresses to and from sockaddr, and one HTTP request per connection for
// the signalling (WHEP/WHIP, SRS's JSON API). Header-only for the reason
// tool_common.hpp gives.
#pragma once

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cstring>
#include <memory>
#include <string>

#include "app/upstream/http_client.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "io/socket.hpp"
#include "kernel/stun/stun.hpp"
#include "http_client.hpp"
#include "rtc_player.hpp"

namespace srs::tool {

constexpr size_t kMaxResponseBody = 256 * 1024;

// ---- addresses ----

inline bool stun_address_of_ip(const std::string& ip, uint16_t port, StunAddress* out) {
    in_addr v4;
    in6_addr v6;
    if (inet_pton(AF_INET, ip.c_str(), &v4) == 1) {
        *out = StunAddress::ipv4(ntohl(v4.s_addr), port);
        return true;
    }
    if (inet_pton(AF_INET6, ip.c_str(), &v6) == 1) {
        *out = StunAddress::ipv6(v6.s6_addr, port);
        return true;
    }
    return false;
}

inline StunAddress stun_address_of(const sockaddr_storage& ss) {
    if (ss.ss_family == AF_INET) {
        const sockaddr_in* in = reinterpret_cast<const sockaddr_in*>(&ss);
        return StunAddress::ipv4(ntohl(in->sin_addr.s_addr), ntohs(in->sin_port));
    }
    if (ss.ss_family == AF_INET6) {
        const sockaddr_in6* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
        return StunAddress::ipv6(in6->sin6_addr.s6_addr, ntohs(in6->sin6_port));
    }
    return StunAddress();
}

inline socklen_t sockaddr_of(const StunAddress& a, sockaddr_storage* ss) {
    *ss = sockaddr_storage();
    if (a.family == StunAddress::kIpv4) {
        sockaddr_in* in = reinterpret_cast<sockaddr_in*>(ss);
        in->sin_family = AF_INET;
        in->sin_port = htons(a.port);
        memcpy(&in->sin_addr, a.ip, 4);
        return sizeof(sockaddr_in);
    }
    sockaddr_in6* in6 = reinterpret_cast<sockaddr_in6*>(ss);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(a.port);
    memcpy(&in6->sin6_addr, a.ip, 16);
    return sizeof(sockaddr_in6);
}

// ---- HTTP: one request per connection ----

// Sends `method target` (with `body` when content_type is set) on a new
// connection to url's host and reads the whole response with the project's
// HttpClient: its head, and a body framed by Content-Length, chunked or the
// close (at most 256 KB). user_agent names the tool in the request. A peer
// that closes before the response is complete is a closed socket
// (kErrorSocketClosed), as for the other tools, not a protocol failure.
inline Error http_exchange(const HttpUrl& url, const char* method, const std::string& target,
                           const char* content_type, const std::string& body, utime_t timeout,
                           const char* user_agent, HttpResponseHead* head, std::string* out) {
    HttpClientOptions options;
    options.connect_timeout = timeout;
    options.io_timeout = timeout;
    options.total_timeout = 0;  // each read and write has `timeout`, as a player's socket
    options.max_body = kMaxResponseBody;
    options.user_agent = user_agent;
    HttpClient client(options);
    out->clear();
    Error err = client.start(method, "http://" + url.host_header + target, content_type ? content_type : "", body);
    if (err.ok()) {
        const HttpParsedResponse& parsed = client.head();
        *head = HttpResponseHead();
        head->status = parsed.status;
        head->reason = parsed.reason;
        const std::string* location = parsed.header("Location");
        if (location) head->location = *location;
        head->chunked = parsed.chunked;
        head->has_length = parsed.has_length;
        head->length = parsed.content_length;
        err = client.read_body_all(out);
    }
    if (err.code() == kErrorHttpClientTruncated) {
        Error closed = SRS_ERR(kErrorSocketClosed, "%s", err.summary().c_str());
        err.ignore();
        return closed;
    }
    return err;
}

}  // namespace srs::tool
