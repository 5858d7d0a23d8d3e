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

#include "core/clock.hpp"
#include "core/error.hpp"
#include "io/socket.hpp"
#include "kernel/stun/stun.hpp"
#include "http_client.hpp"
#include "rtc_player.hpp"

namespace srs::tool {

constexpr size_t kMaxResponseHead = 16 * 1024;
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
// connection to url's host and reads the whole response: its head, and a
// body framed by Content-Length, chunked or the close (at most 256 KB).
// user_agent names the tool in the request.
inline Error http_exchange(const HttpUrl& url, const char* method, const std::string& target,
                           const char* content_type, const std::string& body, utime_t timeout,
                           const char* user_agent, HttpResponseHead* head, std::string* out) {
    TcpConn* raw = nullptr;
    if (Error err = TcpConn::connect(url.host, url.port, timeout, &raw); err.failed()) {
        return SRS_WRAP(err, "tcp connect %s:%d", url.host.c_str(), url.port);
    }
    std::unique_ptr<TcpConn> sock(raw);
    sock->set_recv_timeout(timeout);
    sock->set_send_timeout(timeout);
    std::string req = std::string(method) + " " + target + " HTTP/1.1\r\nHost: " + url.host_header +
                      "\r\nUser-Agent: " + user_agent + "\r\nAccept: */*\r\nConnection: close\r\n";
    if (content_type) {
        req += std::string("Content-Type: ") + content_type + "\r\nContent-Length: " + std::to_string(body.size()) +
               "\r\n";
    }
    req += "\r\n";
    req += body;
    if (Error err = sock->write(req.data(), req.size()); err.failed()) return SRS_WRAP(err, "send %s", method);

    std::string raw_head;
    HttpBody framing;
    bool in_head = true;
    out->clear();
    auto on_data = [out](const uint8_t* p, size_t n) {
        if (out->size() + n > kMaxResponseBody) {
            return SRS_ERR(kErrorHttpBadContentLength, "response body over %zu bytes", kMaxResponseBody);
        }
        out->append(reinterpret_cast<const char*>(p), n);
        return Error();
    };
    char buf[4096];
    while (true) {
        size_t n = 0;
        Error err = sock->read(buf, sizeof(buf), &n);
        if (err.failed()) {
            if (err.code() == kErrorSocketClosed && !in_head && framing.mode() == HttpBody::kUntilClose) {
                err.ignore();
                return Error();
            }
            return SRS_WRAP(err, in_head ? "read the response head" : "read the response body");
        }
        const uint8_t* p = reinterpret_cast<const uint8_t*>(buf);
        if (in_head) {
            const size_t old = raw_head.size();
            raw_head.append(buf, n);
            const size_t end = raw_head.find("\r\n\r\n", old >= 3 ? old - 3 : 0);
            if (end == std::string::npos) {
                if (raw_head.size() > kMaxResponseHead) {
                    return SRS_ERR(kErrorHttpHeadersTooLarge, "response head over %zu bytes", kMaxResponseHead);
                }
                continue;
            }
            const size_t used = end + 4 - old;
            raw_head.resize(end + 4);
            if (Error e = parse_http_response_head(raw_head, head); e.failed()) return e;
            in_head = false;
            if (head->chunked) framing.start(HttpBody::kChunked, 0);
            else if (head->has_length) framing.start(HttpBody::kLength, head->length);
            else framing.start(HttpBody::kUntilClose, 0);
            p += used;
            n -= used;
        }
        if (Error e = framing.feed(p, n, on_data); e.failed()) return e;
        if (framing.done()) return Error();
    }
}

}  // namespace srs::tool
