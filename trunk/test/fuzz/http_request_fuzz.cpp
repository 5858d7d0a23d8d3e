// libFuzzer target for protocol/http_request: the input is a byte stream from a
// client (any number of pipelined requests). It is parsed whole, one byte at a
// time and in pseudo-random pieces, with the default limits and with small
// ones; the three ways must give the same requests, the same error code and
// the same number of consumed bytes. Every accepted request must also satisfy
// the parser's promises: a normalised path (starts with '/', no "//", no dot
// segments, no control bytes, normalising it again changes nothing), a version
// of 1.0 or 1.1, no more fields and body than the limits allow.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "protocol/http/http_request.hpp"

using namespace srs;

namespace {

struct Outcome {
    std::string requests;  // every request, serialised
    int code = 0;
    size_t consumed = 0;
};

void check_request(const HttpRequest& r, const HttpLimits& limits) {
    const std::string& p = r.path;
    if (p.empty() || p[0] != '/') abort();
    if (p.find("//") != std::string::npos) abort();
    if (p.find("/./") != std::string::npos || p.find("/../") != std::string::npos) abort();
    if (p.size() >= 2 && p.compare(p.size() - 2, 2, "/.") == 0) abort();
    if (p.size() >= 3 && p.compare(p.size() - 3, 3, "/..") == 0) abort();
    for (char c : p) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) abort();
    }
    // Normalising is idempotent once '%' cannot start an escape; check paths without '%'.
    if (p.find('%') == std::string::npos) {
        std::string again;
        Error err = normalize_http_path(p, &again);
        if (err.failed() || again != p) abort();
    }
    if (r.version_minor != 0 && r.version_minor != 1) abort();
    if (r.headers.size() > limits.max_headers) abort();
    if (r.body.size() > limits.max_body) abort();
    if (r.method.empty() || r.method.size() > kHttpMaxMethodLength) abort();
    if (r.version_minor == 1 && !r.header("host")) abort();
}

std::string serialise(const HttpRequest& r) {
    std::string s = r.method + '\x01' + r.target + '\x01' + r.path + '\x01' + r.query + '\x01' +
                    std::to_string(r.version_minor) + '\x01';
    for (const auto& [n, v] : r.headers) s += n + '\x02' + v + '\x03';
    s += '\x01' + r.body + '\x01' + (r.keep_alive ? "k" : "c") + (r.chunked ? "t" : "f") + '\x04';
    return s;
}

// Splits: 0 = whole, 1 = one byte at a time, otherwise pieces of 1..16 bytes
// from a generator seeded with `mode`.
Outcome run(const uint8_t* data, size_t size, const HttpLimits& limits, uint32_t mode) {
    HttpRequestParser parser(limits);
    Outcome out;
    uint32_t rng = mode;
    size_t pos = 0;
    while (pos < size) {
        size_t n = size - pos;
        if (mode == 1) {
            n = 1;
        } else if (mode > 1) {
            rng = rng * 1103515245u + 12345u;
            n = std::min<size_t>(n, 1 + (rng >> 16) % 16);
        }
        size_t off = 0;
        while (off < n) {
            size_t used = 0;
            Error err = parser.feed(data + pos + off, n - off, &used);
            if (used > n - off) abort();
            off += used;
            out.consumed += used;
            if (err.failed()) {
                out.code = err.code();
                if (http_status_for(err) == 500) abort();  // only parse errors here
                return out;
            }
            if (parser.has_request()) {
                HttpRequest r = parser.take_request();
                check_request(r, limits);
                out.requests += serialise(r);
            } else if (off != n) {
                abort();  // stopped without a request or an error
            }
        }
        pos += n;
    }
    return out;
}

void compare(const uint8_t* data, size_t size, const HttpLimits& limits) {
    Outcome whole = run(data, size, limits, 0);
    Outcome bytes = run(data, size, limits, 1);
    Outcome pieces = run(data, size, limits, 2 + static_cast<uint32_t>(size));
    if (whole.code != bytes.code || whole.consumed != bytes.consumed || whole.requests != bytes.requests) abort();
    if (whole.code != pieces.code || whole.consumed != pieces.consumed || whole.requests != pieces.requests) abort();
    if (whole.code == 0 && whole.consumed != size) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 64 * 1024) return 0;
    compare(data, size, HttpLimits{});
    HttpLimits small;
    small.max_request_line = 64;
    small.max_header_bytes = 200;
    small.max_headers = 6;
    small.max_body = 100;
    compare(data, size, small);
    return 0;
}
