// What the HTTP-FLV tools (sb_http_load, sb_latency) share on the client side:
// the URL they are given, the response body's framing (close-delimited,
// Content-Length or chunked) decoded as it arrives, and big-endian fields.
// Sans-IO: nothing here reads a socket.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "protocol/http/http_request.hpp"
#include "protocol/rtmp/rtmp_url.hpp"
#include "tool_common.hpp"

namespace srs::tool {

constexpr size_t kMaxChunkLine = 1024;  // a chunk-size line or a trailer field

// ---- URL ----

struct HttpUrl {
    std::string host;         // an IP literal, IPv6 without brackets
    int port = 80;
    std::string host_header;  // "host[:port]" as the URL has it
    std::string target;       // "/path[?query]"
};

// http://ip[:port]/path[?query]; the host must be an IP address (no DNS).
inline Error parse_http_url(const std::string& url, HttpUrl* out) {
    static const char kScheme[] = "http://";
    if (!istarts_with(url, kScheme)) {
        return SRS_ERR(kErrorHttpBadTarget, "not an http:// URL (https is not supported)");
    }
    size_t start = sizeof(kScheme) - 1;
    size_t end = url.find_first_of("/?#", start);
    if (end == std::string::npos) end = url.size();
    std::string authority = url.substr(start, end - start);
    if (authority.find('@') != std::string::npos) return SRS_ERR(kErrorHttpBadTarget, "user info in the URL");
    std::string port;
    if (!authority.empty() && authority[0] == '[') {
        size_t close = authority.find(']');
        if (close == std::string::npos) return SRS_ERR(kErrorHttpBadTarget, "unclosed [ in the host");
        out->host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') return SRS_ERR(kErrorHttpBadTarget, "junk after the IPv6 host");
            port = authority.substr(close + 2);
        }
    } else {
        size_t colon = authority.find(':');
        out->host = authority.substr(0, colon);
        if (colon != std::string::npos) port = authority.substr(colon + 1);
    }
    if (out->host.empty()) return SRS_ERR(kErrorHttpBadTarget, "no host");
    if (!is_ip_literal(out->host)) {
        return SRS_ERR(kErrorRtmpClientNoDns, "the host %s is not an IP address (no DNS)", out->host.c_str());
    }
    out->port = 80;
    if (!port.empty()) {
        if (!parse_integer(port, 1, 65535, &out->port)) {
            return SRS_ERR(kErrorHttpBadTarget, "bad port %s", port.c_str());
        }
    }
    out->host_header = authority;
    std::string rest = url.substr(end, url.find('#', end) - end);  // a fragment is never sent
    if (rest.empty() || rest[0] != '/') rest = "/" + rest;
    out->target = rest;
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

// ---- HTTP response body: close-delimited, Content-Length or chunked ----

// Takes the body in pieces of any size and hands its content to on_data(p, n)
// (which returns an Error), in place. done() once a Content-Length body is
// complete or a chunked body's last chunk and trailer came; a close-delimited
// body ends only with the connection.
class HttpBody {
  public:
    enum Mode : uint8_t { kUntilClose, kLength, kChunked };
    void start(Mode mode, uint64_t length) {
        *this = HttpBody();
        mode_ = mode;
        left_ = length;
        done_ = mode == kLength && length == 0;
    }
    bool done() const { return done_; }
    Mode mode() const { return mode_; }

    template <typename OnData>
    Error feed(const uint8_t* p, size_t n, OnData&& on_data);

  private:
    enum ChunkState : uint8_t { kSize, kData, kDataEnd, kTrailer };
    Mode mode_ = kUntilClose;
    ChunkState chunk_ = kSize;
    bool done_ = false;
    bool digits_ = false;     // the chunk-size line has a digit
    bool extension_ = false;  // in the chunk extensions of the size line
    bool cr_ = false;         // a CR after the chunk data
    uint32_t line_ = 0;       // bytes in the current size or trailer line
    uint64_t left_ = 0;       // of the body (kLength) or of the chunk (kData)
};

template <typename OnData>
inline Error HttpBody::feed(const uint8_t* p, size_t n, OnData&& on_data) {
    const uint8_t* const end = p + n;
    if (mode_ == kUntilClose) return on_data(p, n);
    if (mode_ == kLength) {
        if (done_) return Error();
        size_t k = static_cast<size_t>(std::min<uint64_t>(left_, n));
        left_ -= k;
        done_ = left_ == 0;
        return on_data(p, k);
    }
    // Chunked: chunk = size [; ext] CRLF data CRLF; last-chunk = 0 CRLF; trailer; CRLF.
    while (p < end && !done_) {
        switch (chunk_) {
            case kSize: {
                uint8_t c = *p++;
                if (++line_ > kMaxChunkLine) return SRS_ERR(kErrorHttpBadChunkSize, "chunk-size line too long");
                if (c == '\n') {
                    if (!digits_) return SRS_ERR(kErrorHttpBadChunkSize, "chunk-size line without a size");
                    chunk_ = left_ ? kData : kTrailer;
                    line_ = 0;
                    digits_ = extension_ = false;
                } else if (extension_ || c == '\r') {
                    // skipped: extensions; the CR before LF
                } else if (c == ';' || c == ' ' || c == '\t') {
                    extension_ = true;
                } else {
                    int v = hex_digit_value(static_cast<char>(c));
                    if (v < 0 || left_ >> 40) return SRS_ERR(kErrorHttpBadChunkSize, "bad chunk size byte 0x%02x", c);
                    left_ = left_ * 16 + static_cast<uint64_t>(v);
                    digits_ = true;
                }
                break;
            }
            case kData: {
                size_t k = static_cast<size_t>(std::min<uint64_t>(left_, static_cast<uint64_t>(end - p)));
                if (Error err = on_data(p, k); !err.ok()) return err;
                p += k;
                left_ -= k;
                if (left_ == 0) chunk_ = kDataEnd;
                break;
            }
            case kDataEnd: {
                uint8_t c = *p++;
                if (c == '\r' && !cr_) {
                    cr_ = true;
                } else if (c == '\n') {
                    cr_ = false;
                    chunk_ = kSize;
                } else {
                    return SRS_ERR(kErrorHttpBadChunkEnd, "chunk data not followed by CRLF");
                }
                break;
            }
            case kTrailer: {
                uint8_t c = *p++;
                if (c == '\n') {
                    if (line_ == 0) done_ = true;  // the empty line ends the body
                    line_ = 0;
                } else if (c != '\r' && ++line_ > kMaxChunkLine) {
                    return SRS_ERR(kErrorHttpBadChunkSize, "trailer field too long");
                }
                break;
            }
        }
    }
    return Error();
}

}  // namespace srs::tool
