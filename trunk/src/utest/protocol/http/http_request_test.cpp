// Unit tests of protocol/http_request: requests captured from curl 7.88.1 and
// ffmpeg 5.1.9 (Lavf/59.27.100) by a python socket server, a hand-written
// Chromium-style request, pipelining, chunked bodies split at every point,
// every rejection with its status, the limits (failing on the byte that
// crosses them), path normalisation, query parameters, and reads that end at a
// guard page. Every input is parsed whole, one byte at a time and in random
// pieces, and the three must agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "protocol/http/http_request.hpp"
#include "protocol/http/http_response.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

// ---- captures (byte-exact; only the ports were 18081..18084) ----

// curl -s 'http://127.0.0.1:18081/live/livestream.flv?token=abc'
const std::string kCurlGet =
    "GET /live/livestream.flv?token=abc HTTP/1.1\r\nHost: 127.0.0.1:18081\r\n"
    "User-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n";

// ffmpeg -i http://127.0.0.1:18082/live/livestream.flv -f null -
const std::string kFfmpegFlv =
    "GET /live/livestream.flv HTTP/1.1\r\nUser-Agent: Lavf/59.27.100\r\nAccept: */*\r\n"
    "Range: bytes=0-\r\nConnection: close\r\nHost: 127.0.0.1:18082\r\nIcy-MetaData: 1\r\n\r\n";

// curl -X POST -H 'Content-Type: application/json' -d '{...}' http://.../rtc/v1/play/
const std::string kCurlPostJson =
    "POST /rtc/v1/play/ HTTP/1.1\r\nHost: 127.0.0.1:18083\r\nUser-Agent: curl/7.88.1\r\n"
    "Accept: */*\r\nContent-Type: application/json\r\nContent-Length: 62\r\n\r\n"
    "{\"streamurl\":\"webrtc://localhost/live/livestream\",\"sdp\":\"v=0\"}";

// printf 'hello world' | curl -H 'Transfer-Encoding: chunked' --data-binary @- ...
const std::string kCurlChunked =
    "POST /api/v1/echo HTTP/1.1\r\nHost: 127.0.0.1:18084\r\nUser-Agent: curl/7.88.1\r\n"
    "Accept: */*\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    "\r\nb\r\nhello world\r\n0\r\n\r\n";

// Written by hand after what Chromium 120 sends for a page load.
const std::string kChromium =
    "GET /players/srs_player.html?autostart=true&app=live&stream=livestream.flv&port=8080 HTTP/1.1\r\n"
    "Host: localhost:8080\r\n"
    "Connection: keep-alive\r\n"
    "sec-ch-ua: \"Chromium\";v=\"120\", \"Not?A_Brand\";v=\"24\"\r\n"
    "sec-ch-ua-mobile: ?0\r\n"
    "sec-ch-ua-platform: \"Linux\"\r\n"
    "Upgrade-Insecure-Requests: 1\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36\r\n"
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
    "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7\r\n"
    "Sec-Fetch-Site: none\r\n"
    "Sec-Fetch-Mode: navigate\r\n"
    "Sec-Fetch-User: ?1\r\n"
    "Sec-Fetch-Dest: document\r\n"
    "Accept-Encoding: gzip, deflate, br\r\n"
    "Accept-Language: en-US,en;q=0.9\r\n"
    "\r\n";

const std::string kChunkedWithExtensions =
    "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    "5;name=value\r\nhello\r\n"
    "6 ; quoted=\"a b\"\r\n world\r\n"
    "A\r\n0123456789\r\n"
    "0;last\r\n"
    "Expires: never\r\nX-Checksum: abc\r\n\r\n"
    "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";

// ---- helpers ----

std::string dump(const HttpRequest& r) {
    std::string s = r.method + "|" + r.target + "|" + r.path + "|" + r.query + "|1." +
                    std::to_string(r.version_minor) + "|";
    for (const auto& [n, v] : r.headers) s += n + "=" + v + ";";
    s += "|" + r.body + "|" + (r.keep_alive ? "ka" : "close") + (r.chunked ? "|chunked" : "");
    return s;
}

struct Outcome {
    std::vector<HttpRequest> requests;
    int code = 0;           // 0: no error
    size_t consumed = 0;    // total bytes consumed

    std::string summary() const {
        std::string s = "code=" + std::to_string(code) + " consumed=" + std::to_string(consumed);
        for (const auto& r : requests) s += "\n" + dump(r);
        return s;
    }
};

// Feeds data in pieces whose sizes come from next_piece(), taking every request.
template <typename Split>
Outcome run(const uint8_t* data, size_t size, const HttpLimits& limits, Split next_piece) {
    HttpRequestParser p(limits);
    Outcome out;
    size_t pos = 0;
    while (pos < size) {
        size_t n = std::min(std::max<size_t>(next_piece(), 1), size - pos);
        size_t off = 0;
        while (off < n) {
            size_t used = 0;
            Error err = p.feed(data + pos + off, n - off, &used);
            off += used;
            out.consumed += used;
            if (err.failed()) {
                out.code = err.code();
                // Sticky: the same code again, nothing consumed.
                size_t again = 1;
                EXPECT_EQ(out.code, code(p.feed(data + pos + off, n - off, &again)));
                EXPECT_EQ(0u, again);
                return out;
            }
            if (p.has_request()) {
                out.requests.push_back(p.take_request());
            } else if (off != n) {
                ADD_FAILURE() << "feed stopped early without a request";
                return out;
            }
        }
        pos += n;
    }
    return out;
}

Outcome run_whole(const std::string& in, const HttpLimits& limits = {}) {
    return run(reinterpret_cast<const uint8_t*>(in.data()), in.size(), limits, [&] { return in.size(); });
}

// Parses whole, byte by byte and in random pieces; all must agree. Returns the whole run.
Outcome parse_all_ways(const std::string& in, const HttpLimits& limits = {}) {
    const uint8_t* d = reinterpret_cast<const uint8_t*>(in.data());
    Outcome whole = run_whole(in, limits);
    Outcome bytes = run(d, in.size(), limits, [] { return size_t(1); });
    EXPECT_EQ(whole.summary(), bytes.summary()) << "one byte at a time differs";
    std::mt19937 rng(1234);
    for (int round = 0; round < 8; ++round) {
        Outcome pieces = run(d, in.size(), limits, [&] { return size_t(rng() % 17 + 1); });
        EXPECT_EQ(whole.summary(), pieces.summary()) << "random pieces differ, round " << round;
    }
    return whole;
}

HttpRequest parse_one(const std::string& in) {
    Outcome o = parse_all_ways(in);
    EXPECT_EQ(0, o.code) << in;
    EXPECT_EQ(in.size(), o.consumed);
    EXPECT_EQ(1u, o.requests.size()) << in;
    return o.requests.empty() ? HttpRequest() : std::move(o.requests[0]);
}

// The error code and answered status for an input (checked all ways).
int status_of(const std::string& in, const HttpLimits& limits = {}) {
    Outcome o = parse_all_ways(in, limits);
    if (!o.code) return 0;
    return http_status_for(SRS_ERR(o.code, "test"));
}

std::string get_with(const std::string& request_line_rest, const std::string& fields = "Host: a\r\n") {
    return "GET " + request_line_rest + "\r\n" + fields + "\r\n";
}

}  // namespace

// ---- real clients ----

TEST(HttpRequestTest, CurlGet) {
    HttpRequest r = parse_one(kCurlGet);
    EXPECT_EQ("GET", r.method);
    EXPECT_EQ("/live/livestream.flv?token=abc", r.target);
    EXPECT_EQ("/live/livestream.flv", r.path);
    EXPECT_EQ("token=abc", r.query);
    EXPECT_EQ(1, r.version_minor);
    ASSERT_EQ(3u, r.headers.size());
    EXPECT_EQ("User-Agent", r.headers[1].first);
    EXPECT_EQ("curl/7.88.1", r.headers[1].second);
    ASSERT_NE(nullptr, r.header("host"));
    EXPECT_EQ("127.0.0.1:18081", *r.header("HOST"));
    EXPECT_EQ(nullptr, r.header("Cookie"));
    EXPECT_TRUE(r.keep_alive);
    EXPECT_FALSE(r.chunked);
    EXPECT_EQ("", r.body);
    EXPECT_EQ("abc", r.query_param("token"));
    EXPECT_TRUE(r.has_query_param("token"));
    EXPECT_FALSE(r.has_query_param("tok"));
}

TEST(HttpRequestTest, FfmpegHttpFlv) {
    HttpRequest r = parse_one(kFfmpegFlv);
    EXPECT_EQ("/live/livestream.flv", r.path);
    EXPECT_EQ("", r.query);
    EXPECT_FALSE(r.keep_alive);  // Connection: close
    ASSERT_NE(nullptr, r.header("user-agent"));
    EXPECT_EQ("Lavf/59.27.100", *r.header("user-agent"));
    ASSERT_NE(nullptr, r.header("icy-metadata"));
    EXPECT_EQ("1", *r.header("Icy-MetaData"));
    EXPECT_EQ("bytes=0-", *r.header("Range"));
}

TEST(HttpRequestTest, ChromiumPageLoad) {
    HttpRequest r = parse_one(kChromium);
    EXPECT_EQ("/players/srs_player.html", r.path);
    EXPECT_EQ("livestream.flv", r.query_param("stream"));
    EXPECT_EQ("8080", r.query_param("port"));
    EXPECT_EQ(14u, r.headers.size());
    EXPECT_EQ("\"Chromium\";v=\"120\", \"Not?A_Brand\";v=\"24\"", *r.header("Sec-CH-UA"));
    EXPECT_TRUE(r.keep_alive);
}

TEST(HttpRequestTest, CurlPostJson) {
    HttpRequest r = parse_one(kCurlPostJson);
    EXPECT_EQ("POST", r.method);
    EXPECT_EQ("/rtc/v1/play/", r.path);  // the trailing slash is kept
    EXPECT_EQ(62u, r.body.size());
    EXPECT_EQ('{', r.body.front());
    EXPECT_EQ('}', r.body.back());
}

TEST(HttpRequestTest, CurlChunkedPost) {
    HttpRequest r = parse_one(kCurlChunked);
    EXPECT_TRUE(r.chunked);
    EXPECT_EQ("hello world", r.body);
}

// ---- pipelining ----

TEST(HttpRequestTest, PipelinedGetsStopAfterEachRequest) {
    std::string in = kCurlGet + kFfmpegFlv;
    HttpRequestParser p;
    size_t used = 0;
    ASSERT_TRUE(ok(p.feed(reinterpret_cast<const uint8_t*>(in.data()), in.size(), &used)));
    EXPECT_EQ(kCurlGet.size(), used);
    ASSERT_TRUE(p.has_request());
    EXPECT_EQ(kErrorHttpParserState, code(p.feed(reinterpret_cast<const uint8_t*>(in.data()) + used, 1, &used)));
    EXPECT_EQ(0u, used);
    EXPECT_EQ(500, http_status_for(SRS_ERR(kErrorHttpParserState, "x")));
    EXPECT_EQ("/live/livestream.flv", p.take_request().path);
    EXPECT_FALSE(p.has_request());
    ASSERT_TRUE(ok(p.feed(reinterpret_cast<const uint8_t*>(in.data()) + kCurlGet.size(), kFfmpegFlv.size(), &used)));
    EXPECT_EQ(kFfmpegFlv.size(), used);
    EXPECT_FALSE(p.take_request().keep_alive);

    Outcome o = parse_all_ways(in);
    ASSERT_EQ(2u, o.requests.size());
    EXPECT_EQ(in.size(), o.consumed);
}

TEST(HttpRequestTest, PipelinedPostThenGet) {
    Outcome o = parse_all_ways(kCurlPostJson + kCurlGet + kCurlChunked + kChromium);
    ASSERT_EQ(0, o.code);
    ASSERT_EQ(4u, o.requests.size());
    EXPECT_EQ(62u, o.requests[0].body.size());
    EXPECT_EQ("", o.requests[1].body);
    EXPECT_EQ("hello world", o.requests[2].body);
    EXPECT_EQ("/players/srs_player.html", o.requests[3].path);
}

// A connection keeps one HttpRequest: each request taken into it must be
// exactly what a fresh parse gives, with nothing left from the one before.
TEST(HttpRequestTest, TakeIntoAReusedRequestLeavesNothingBehind) {
    const std::string big_post = "POST /api/v1/x?a=1 HTTP/1.1\r\nHost: h\r\nX-One: 1\r\nX-Two: 2\r\n"
                                 "Content-Length: 70000\r\n\r\n" + std::string(70000, 'b');
    const std::string in = kCurlPostJson + kCurlGet + big_post + kFfmpegFlv + kCurlChunked;
    Outcome fresh = parse_all_ways(in);
    ASSERT_EQ(0, fresh.code);
    ASSERT_EQ(5u, fresh.requests.size());

    HttpLimits limits;
    limits.max_body = 128 * 1024;
    HttpRequestParser p(limits);
    HttpRequest req;
    EXPECT_FALSE(p.take_request(&req));  // none ready: emptied, false
    size_t at = 0;
    for (size_t n = 0; n < fresh.requests.size(); n++) {
        size_t used = 0;
        ASSERT_TRUE(ok(p.feed(reinterpret_cast<const uint8_t*>(in.data()) + at, in.size() - at, &used)));
        at += used;
        ASSERT_TRUE(p.take_request(&req)) << n;
        const HttpRequest& want = fresh.requests[n];
        EXPECT_EQ(want.method, req.method) << n;
        EXPECT_EQ(want.target, req.target) << n;
        EXPECT_EQ(want.path, req.path) << n;
        EXPECT_EQ(want.query, req.query) << n;
        EXPECT_EQ(want.headers, req.headers) << n;
        EXPECT_EQ(want.body, req.body) << n;
        EXPECT_EQ(want.keep_alive, req.keep_alive) << n;
        EXPECT_EQ(want.chunked, req.chunked) << n;
        EXPECT_EQ(want.version_minor, req.version_minor) << n;
    }
    EXPECT_EQ(in.size(), at);
    EXPECT_EQ(70000u, fresh.requests[2].body.size());
    // The 70000-byte body's storage went to the parser when the request after
    // it was taken (n = 3) and was given back there: the request after that
    // (n = 4) does not get it, so a connection does not keep it.
    EXPECT_LT(req.body.capacity(), 64u * 1024);
    EXPECT_FALSE(p.take_request(&req));
    EXPECT_TRUE(req.method.empty() && req.body.empty() && req.headers.empty());
}

TEST(HttpRequestTest, IncompleteRequestKeepsStateAndConsumesAll) {
    std::string part = kCurlPostJson.substr(0, kCurlPostJson.size() - 5);
    Outcome o = parse_all_ways(part);
    EXPECT_EQ(0, o.code);
    EXPECT_EQ(part.size(), o.consumed);
    EXPECT_TRUE(o.requests.empty());
}

// ---- chunked bodies ----

TEST(HttpRequestTest, ChunkedExtensionsAndTrailersSplitEverywhere) {
    const std::string& in = kChunkedWithExtensions;
    const std::string expected_body = "hello world0123456789";
    Outcome whole = parse_all_ways(in);
    ASSERT_EQ(0, whole.code);
    ASSERT_EQ(2u, whole.requests.size());
    EXPECT_EQ(expected_body, whole.requests[0].body);
    EXPECT_EQ(2u, whole.requests[0].headers.size());  // trailers are dropped
    EXPECT_EQ(nullptr, whole.requests[0].header("Expires"));
    EXPECT_EQ("/next", whole.requests[1].path);

    // Three pieces, cut at every pair of points.
    const uint8_t* d = reinterpret_cast<const uint8_t*>(in.data());
    for (size_t a = 1; a < in.size(); ++a) {
        for (size_t b = a; b < in.size(); b += 3) {
            size_t cuts[3] = {a, b - a, in.size()};
            int k = 0;
            Outcome o = run(d, in.size(), HttpLimits{}, [&] { return cuts[std::min(k++, 2)]; });
            ASSERT_EQ(whole.summary(), o.summary()) << "cut at " << a << "," << b;
        }
    }
}

TEST(HttpRequestTest, ChunkedBuiltByResponseHelpersRoundTrips) {
    std::string body;
    std::string in = "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip , chunked\r\n\r\n";
    EXPECT_EQ(501, status_of(in));
    in = "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n";
    for (size_t n : {1u, 15u, 16u, 255u, 4096u, 70000u}) {
        std::string piece(n, static_cast<char>('a' + n % 26));
        in += http_chunk(piece.data(), piece.size());
        body += piece;
    }
    in += http_last_chunk();
    HttpRequest r = parse_one(in);
    EXPECT_EQ(body, r.body);
}

// ---- rejections ----

struct Rejection {
    const char* name;
    std::string input;
    int code;
};

TEST(HttpRequestTest, RejectionsWithStatus) {
    const std::string host = "Host: a\r\n";
    const std::string chunked_head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::vector<Rejection> cases = {
        {"method with (", get_with("/ HTTP/1.1").replace(1, 1, "("), kErrorHttpBadMethod},
        {"leading space", " " + get_with("/ HTTP/1.1"), kErrorHttpBadMethod},
        {"TLS hello", std::string("\x16\x03\x01\x02\x00\x01\x00\x01", 8), kErrorHttpBadMethod},
        {"long method", std::string(33, 'A') + " / HTTP/1.1\r\n\r\n", kErrorHttpBadMethod},
        {"two spaces", get_with(" / HTTP/1.1"), kErrorHttpBadRequestLine},
        {"HTTP/0.9", "GET /\r\n\r\n", kErrorHttpBadRequestLine},
        {"space after version", get_with("/ HTTP/1.1 "), kErrorHttpBadVersion},
        {"lower-case version", get_with("/ http/1.1"), kErrorHttpBadVersion},
        {"HTTP/1.10", get_with("/ HTTP/1.10"), kErrorHttpBadVersion},
        {"HTTP/1", get_with("/ HTTP/1"), kErrorHttpBadVersion},
        {"HTTP/2.0", get_with("/ HTTP/2.0"), kErrorHttpVersionNotSupported},
        {"HTTP/1.2", get_with("/ HTTP/1.2"), kErrorHttpVersionNotSupported},
        {"HTTP/0.9 with version", get_with("/ HTTP/0.9"), kErrorHttpVersionNotSupported},
        {"control in target", get_with("/a\x01z HTTP/1.1"), kErrorHttpBadTarget},
        {"fragment", get_with("/a#frag HTTP/1.1"), kErrorHttpBadTarget},
        {"asterisk", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", kErrorHttpBadTarget},
        {"authority", "CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n", kErrorHttpBadTarget},
        {"ftp", get_with("ftp://a/b HTTP/1.1"), kErrorHttpBadTarget},
        {"no host in URI", get_with("http:///b HTTP/1.1"), kErrorHttpBadTarget},
        {"dotdot", get_with("/../etc/passwd HTTP/1.1"), kErrorHttpBadPath},
        {"encoded dotdot", get_with("/%2e%2e/etc/passwd HTTP/1.1"), kErrorHttpBadPath},
        {"mixed dotdot", get_with("/a/.%2E/%2e./x HTTP/1.1"), kErrorHttpBadPath},
        {"encoded slash dotdot", get_with("/a%2f..%2f..%2fetc HTTP/1.1"), kErrorHttpBadPath},
        {"encoded NUL", get_with("/a%00.flv HTTP/1.1"), kErrorHttpBadPath},
        {"encoded CRLF", get_with("/a%0d%0aX:%20y HTTP/1.1"), kErrorHttpBadPath},
        {"bad escape", get_with("/a%zz HTTP/1.1"), kErrorHttpBadPath},
        {"truncated escape", get_with("/a%2 HTTP/1.1"), kErrorHttpBadPath},
        {"space before colon", get_with("/ HTTP/1.1", "Host : a\r\n"), kErrorHttpBadHeader},
        {"empty name", get_with("/ HTTP/1.1", host + ": v\r\n"), kErrorHttpBadHeader},
        {"no colon", get_with("/ HTTP/1.1", host + "NoColon\r\n"), kErrorHttpBadHeader},
        {"NUL in name", get_with("/ HTTP/1.1", host + std::string("X\0Y: v\r\n", 8)), kErrorHttpBadHeader},
        {"NUL in value", get_with("/ HTTP/1.1", host + std::string("X: a\0b\r\n", 8)), kErrorHttpBadHeader},
        {"DEL in value", get_with("/ HTTP/1.1", host + "X: a\x7f" "b\r\n"), kErrorHttpBadHeader},
        {"ESC in value", get_with("/ HTTP/1.1", host + "X: \x1b[31m\r\n"), kErrorHttpBadHeader},
        {"obs-fold", get_with("/ HTTP/1.1", host + "X: a\r\n b\r\n"), kErrorHttpBadHeader},
        {"space line first", get_with("/ HTTP/1.1", " Host: a\r\n"), kErrorHttpBadHeader},
        {"bare CR in value", get_with("/ HTTP/1.1", host + "X: a\rb\r\n"), kErrorHttpBadLineEnding},
        {"bare CR in line", "GET / HTTP/1.1\rX", kErrorHttpBadLineEnding},
        {"bare CR before", "\r\rGET / HTTP/1.1\r\n", kErrorHttpBadLineEnding},
        {"no Host 1.1", get_with("/ HTTP/1.1", ""), kErrorHttpBadHost},
        {"two Hosts", get_with("/ HTTP/1.1", "Host: a\r\nHost: b\r\n"), kErrorHttpBadHost},
        {"two Hosts 1.0", get_with("/ HTTP/1.0", "Host: a\r\nhost: a\r\n"), kErrorHttpBadHost},
        {"CL letters", get_with("/ HTTP/1.1", host + "Content-Length: abc\r\n"), kErrorHttpBadContentLength},
        {"CL negative", get_with("/ HTTP/1.1", host + "Content-Length: -1\r\n"), kErrorHttpBadContentLength},
        {"CL plus", get_with("/ HTTP/1.1", host + "Content-Length: +5\r\n"), kErrorHttpBadContentLength},
        {"CL empty", get_with("/ HTTP/1.1", host + "Content-Length:\r\n"), kErrorHttpBadContentLength},
        {"CL 5 5", get_with("/ HTTP/1.1", host + "Content-Length: 5 5\r\n"), kErrorHttpBadContentLength},
        {"CL list differs", get_with("/ HTTP/1.1", host + "Content-Length: 5, 6\r\n"), kErrorHttpSmuggling},
        {"CL twice differs", get_with("/ HTTP/1.1", host + "Content-Length: 5\r\nContent-Length: 6\r\n"),
         kErrorHttpSmuggling},
        {"CL and TE", get_with("/ HTTP/1.1", host + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
         kErrorHttpSmuggling},
        {"TE and CL", get_with("/ HTTP/1.1", host + "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n"),
         kErrorHttpSmuggling},
        {"TE gzip", get_with("/ HTTP/1.1", host + "Transfer-Encoding: gzip\r\n"), kErrorHttpBadTransferEncoding},
        {"TE chunked gzip", get_with("/ HTTP/1.1", host + "Transfer-Encoding: chunked, gzip\r\n"),
         kErrorHttpBadTransferEncoding},
        {"TE chunked twice", get_with("/ HTTP/1.1", host + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"),
         kErrorHttpBadTransferEncoding},
        {"TE empty", get_with("/ HTTP/1.1", host + "Transfer-Encoding: \r\n"), kErrorHttpBadTransferEncoding},
        {"TE in 1.0", get_with("/ HTTP/1.0", "Transfer-Encoding: chunked\r\n"), kErrorHttpBadTransferEncoding},
        {"TE gzip chunked", get_with("/ HTTP/1.1", host + "Transfer-Encoding: gzip, chunked\r\n"),
         kErrorHttpUnsupportedTransferEncoding},
        {"CL over limit", get_with("/ HTTP/1.1", host + "Content-Length: 1048577\r\n"), kErrorHttpBodyTooLarge},
        {"CL huge", get_with("/ HTTP/1.1", host + "Content-Length: 99999999999999999999999\r\n"),
         kErrorHttpBodyTooLarge},
        {"chunk over limit", chunked_head + "100001\r\n", kErrorHttpBodyTooLarge},
        {"chunk sum over limit", chunked_head + "80000\r\n" + std::string(0x80000, 'x') + "\r\n80001\r\n",
         kErrorHttpBodyTooLarge},
        {"chunk size huge", chunked_head + "ffffffffffffffffffff\r\n", kErrorHttpBodyTooLarge},
        {"chunk size letters", chunked_head + "zz\r\n", kErrorHttpBadChunkSize},
        {"chunk size 0x", chunked_head + "0x5\r\n", kErrorHttpBadChunkSize},
        {"chunk no size", chunked_head + ";a=b\r\n", kErrorHttpBadChunkSize},
        {"chunk empty line", chunked_head + "\r\n", kErrorHttpBadChunkSize},
        {"chunk junk after size", chunked_head + "5 x\r\n", kErrorHttpBadChunkSize},
        {"chunk ext control", chunked_head + "5;a\x01\r\n", kErrorHttpBadChunkSize},
        {"chunk negative", chunked_head + "-5\r\n", kErrorHttpBadChunkSize},
        {"chunk line too long", chunked_head + std::string(kHttpMaxChunkLine + 1, '0'), kErrorHttpBadChunkSize},
        {"chunk CR without LF", chunked_head + "5\rX", kErrorHttpBadLineEnding},
        {"chunk data no CRLF", chunked_head + "5\r\nhelloX", kErrorHttpBadChunkEnd},
        {"chunk data CR CR", chunked_head + "5\r\nhello\r\r", kErrorHttpBadChunkEnd},
        {"trailer control", chunked_head + "0\r\nX: \x01\r\n\r\n", kErrorHttpBadHeader},
        {"trailer fold", chunked_head + "0\r\nX: a\r\n b\r\n\r\n", kErrorHttpBadHeader},
    };
    for (const Rejection& c : cases) {
        Outcome o = parse_all_ways(c.input);
        EXPECT_EQ(c.code, o.code) << c.name;
        EXPECT_TRUE(o.requests.empty()) << c.name;
        EXPECT_LT(o.consumed, c.input.size()) << c.name;
    }
    EXPECT_EQ(400, status_of(get_with("/%2e%2e/etc/passwd HTTP/1.1")));
    EXPECT_EQ(505, status_of(get_with("/ HTTP/2.0")));
    EXPECT_EQ(501, status_of(get_with("/ HTTP/1.1", host + "Transfer-Encoding: br, chunked\r\n")));
    EXPECT_EQ(413, status_of(get_with("/ HTTP/1.1", host + "Content-Length: 1048577\r\n")));
    EXPECT_EQ(400, status_of(get_with("/ HTTP/1.1", host + "Content-Length: 1, 2\r\n")));
    EXPECT_EQ(500, http_status_for(SRS_ERR(kErrorSocketRead, "not from the parser")));
}

TEST(HttpRequestTest, ErrorIsStickyUntilReset) {
    HttpRequestParser p;
    std::string bad = "G@T / HTTP/1.1\r\n";
    size_t used = 9;
    EXPECT_EQ(kErrorHttpBadMethod, code(p.feed(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), &used)));
    EXPECT_EQ(1u, used);  // 'G' was fine, '@' was not
    EXPECT_EQ(kErrorHttpBadMethod,
              code(p.feed(reinterpret_cast<const uint8_t*>(kCurlGet.data()), kCurlGet.size(), &used)));
    EXPECT_EQ(0u, used);
    p.reset();
    EXPECT_TRUE(ok(p.feed(reinterpret_cast<const uint8_t*>(kCurlGet.data()), kCurlGet.size(), &used)));
    EXPECT_TRUE(p.has_request());
    EXPECT_EQ(0u, HttpRequestParser().take_request().headers.size());  // none ready: empty
}

// ---- accepted variants ----

TEST(HttpRequestTest, AcceptedVariants) {
    // Bare LF line ends (documented choice), leading empty lines, OWS trimming.
    HttpRequest r = parse_one("\r\n\nGET /a HTTP/1.1\nHost: a\nX-Pad:  \t v v \t \n\n");
    EXPECT_EQ("v v", *r.header("x-pad"));
    EXPECT_EQ("/a", r.path);
    r = parse_one(get_with("/ HTTP/1.1", "Host: a\r\nX-Empty:\r\nX-Spaces:   \r\n"));
    EXPECT_EQ("", *r.header("X-Empty"));
    EXPECT_EQ("", *r.header("X-Spaces"));
    // Equal Content-Length values are one value.
    r = parse_one("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\ncontent-length: 3\r\n\r\nabc");
    EXPECT_EQ("abc", r.body);
    // Absolute-form.
    r = parse_one(get_with("http://example.com:8080/live/a.flv?x=1 HTTP/1.1"));
    EXPECT_EQ("/live/a.flv", r.path);
    EXPECT_EQ("x=1", r.query);
    r = parse_one(get_with("HTTPS://example.com?x=1 HTTP/1.1"));
    EXPECT_EQ("/", r.path);
    // Methods are any token; obs-text in values is kept.
    r = parse_one(get_with("/ HTTP/1.1", "Host: a\r\nX-Utf8: caf\xc3\xa9\r\n").replace(0, 3, "M-SEARCH"));
    EXPECT_EQ("M-SEARCH", r.method);
    EXPECT_EQ("caf\xc3\xa9", *r.header("x-utf8"));
    // HTTP/1.0 needs no Host.
    r = parse_one("GET / HTTP/1.0\r\n\r\n");
    EXPECT_EQ(0, r.version_minor);
}

TEST(HttpRequestTest, KeepAliveRules) {
    struct Case {
        const char* version;
        const char* connection;
        bool keep_alive;
    } cases[] = {
        {"HTTP/1.1", nullptr, true},
        {"HTTP/1.1", "close", false},
        {"HTTP/1.1", "Keep-Alive", true},
        {"HTTP/1.1", "Upgrade, CLOSE", false},
        {"HTTP/1.0", nullptr, false},
        {"HTTP/1.0", "keep-alive", true},
        {"HTTP/1.0", "Keep-Alive, TE", true},
        {"HTTP/1.0", "keep-alive, close", false},
        {"HTTP/1.0", "keepalive", false},
    };
    for (const Case& c : cases) {
        std::string fields = "Host: a\r\n";
        if (c.connection) fields += std::string("Connection: ") + c.connection + "\r\n";
        HttpRequest r = parse_one(get_with(std::string("/ ") + c.version, fields));
        EXPECT_EQ(c.keep_alive, r.keep_alive) << c.version << " " << (c.connection ? c.connection : "-");
    }
}

TEST(HttpRequestTest, ExpectContinue) {
    std::string head = "POST /api HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n";
    HttpRequestParser p;
    size_t used = 0;
    EXPECT_TRUE(ok(p.feed(reinterpret_cast<const uint8_t*>(head.data()), head.size() - 1, &used)));
    EXPECT_FALSE(p.wants_continue());  // the header section is not complete
    EXPECT_TRUE(ok(p.feed(reinterpret_cast<const uint8_t*>(head.data()) + head.size() - 1, 1, &used)));
    EXPECT_TRUE(p.wants_continue());
    EXPECT_TRUE(ok(p.feed(reinterpret_cast<const uint8_t*>("body"), 4, &used)));
    EXPECT_FALSE(p.wants_continue());
    EXPECT_EQ("body", p.take_request().body);
}

// ---- limits ----

TEST(HttpRequestTest, RequestLineLimit) {
    HttpLimits small;
    small.max_request_line = 64;
    std::string line = "GET /" + std::string(64 - 14, 'a') + " HTTP/1.1";  // exactly 64 bytes
    ASSERT_EQ(64u, line.size());
    EXPECT_EQ(0, status_of(get_with(line.substr(4)), small));
    EXPECT_EQ(414, status_of(get_with("/a" + line.substr(5)), small));
    Outcome o = parse_all_ways("GET /" + std::string(100000, 'a'), small);
    EXPECT_EQ(kErrorHttpRequestLineTooLong, o.code);
    EXPECT_EQ(64u, o.consumed);  // fails on the 65th byte
    EXPECT_EQ(414, status_of("GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n"));
    EXPECT_EQ(400, status_of(std::string(100000, '\n')));
}

TEST(HttpRequestTest, HeaderBytesLimitFailsOnTheCrossingByte) {
    const std::string start = "GET / HTTP/1.1\r\nHost: a\r\nX-Big: ";
    std::string in = start + std::string(1024 * 1024, 'v') + "\r\n\r\n";  // a 1 MB header
    Outcome o = parse_all_ways(in);
    EXPECT_EQ(kErrorHttpHeadersTooLarge, o.code);
    EXPECT_EQ(431, http_status_for(SRS_ERR(o.code, "x")));
    EXPECT_EQ(16u + 32 * 1024, o.consumed);  // request line + exactly the budget

    // Exactly at the limit is fine; one byte more is not.
    HttpLimits small;
    small.max_header_bytes = 20;
    EXPECT_EQ(0, status_of(get_with("/ HTTP/1.1", "Host: a\r\nX: 1234\r\n"), small));  // 9 + 9 + 2
    EXPECT_EQ(431, status_of(get_with("/ HTTP/1.1", "Host: a\r\nX: 12345\r\n"), small));
    EXPECT_EQ(431, status_of(get_with("/ HTTP/1.1", "Host: a\r\nXX: 1234\r\n"), small));
    // Trailers share the budget.
    std::string chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
    small.max_header_bytes = 42;  // 9 + 28 + 2 for the headers, 3 bytes of trailers
    EXPECT_EQ(0, status_of(chunked + "\r\n", small));
    EXPECT_EQ(431, status_of(chunked + "X: 1\r\n\r\n", small));
}

TEST(HttpRequestTest, HeaderCountLimitFailsEarly) {
    std::string in = "GET / HTTP/1.1\r\nHost: a\r\n";
    for (int i = 0; i < 10000; ++i) in += "X-N: v\r\n";
    in += "\r\n";
    Outcome o = parse_all_ways(in);
    EXPECT_EQ(kErrorHttpTooManyHeaders, o.code);
    EXPECT_EQ(431, http_status_for(SRS_ERR(o.code, "x")));
    EXPECT_EQ(16u + 9 + 63 * 8, o.consumed);  // fails on the first byte of the 65th field

    std::string fields = "Host: a\r\n";
    for (int i = 0; i < 63; ++i) fields += "X-N: v\r\n";
    EXPECT_EQ(0, status_of(get_with("/ HTTP/1.1", fields)));  // exactly 64
    EXPECT_EQ(431, status_of(get_with("/ HTTP/1.1", fields + "Y: z\r\n")));
}

TEST(HttpRequestTest, BodyLimit) {
    HttpLimits small;
    small.max_body = 10;
    EXPECT_EQ(0, status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789", small));
    EXPECT_EQ(413, status_of("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n", small));
    std::string chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
    EXPECT_EQ(0, status_of(chunked + "5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n", small));
    EXPECT_EQ(413, status_of(chunked + "5\r\n01234\r\n6\r\n", small));
    EXPECT_EQ(0, status_of(chunked + "000000000a\r\n0123456789\r\n0\r\n\r\n", small));
    HttpLimits unlimited;
    unlimited.max_body = SIZE_MAX;
    EXPECT_EQ(413, status_of(chunked + "10000000000000000\r\n", unlimited));  // 2^64
    EXPECT_EQ(0, status_of(chunked + "1\r\nx\r\n0\r\n\r\n", unlimited));
}

// ---- path and query ----

TEST(HttpRequestTest, PathNormalisationTable) {
    const std::pair<const char*, const char*> good[] = {
        {"/", "/"},
        {"/a/./b/../c", "/a/c"},
        {"//a///b//", "/a/b/"},
        {"/a/b/..", "/a/"},
        {"/a/.", "/a/"},
        {"/a/..", "/"},
        {"/.", "/"},
        {"/a%2Fb", "/a/b"},              // %2F is a separator after decoding
        {"/a%2f..%2fb", "/b"},           // inside the root: fine
        {"/%61%62c", "/abc"},
        {"/live/stream%20name.flv", "/live/stream name.flv"},
        {"/a/...", "/a/..."},           // not a dot segment
        {"/a/..b/.c", "/a/..b/.c"},
        {"/%252e%252e/x", "/%2e%2e/x"},  // decoded once only
        {"/caf%C3%A9", "/caf\xc3\xa9"},
        {"/a+b", "/a+b"},                // '+' is not a space in a path
        {"/live/livestream.m3u8", "/live/livestream.m3u8"},  // already normal: copied as is
        {"/a/b/", "/a/b/"},
        {"/a/b//", "/a/b/"},
        {"/a/./", "/a/"},
    };
    for (const auto& [raw, want] : good) {
        std::string out = "unchanged";
        EXPECT_TRUE(ok(normalize_http_path(raw, &out))) << raw;
        EXPECT_EQ(want, out) << raw;
        HttpRequest r = parse_one(get_with(std::string(raw) + "?q HTTP/1.1"));
        EXPECT_EQ(want, r.path) << raw;
        EXPECT_EQ(std::string(raw) + "?q", r.target);
    }
    const char* bad[] = {"/..", "/../", "/a/../..", "/%2e%2e", "/%2E%2e/x", "/a/%2e%2e%2f%2e%2e/x",
                         "/%2f..", "/a%00", "/%0a", "/%7f", "/%", "/%g0", "a", ""};
    for (const char* raw : bad) {
        std::string out = "unchanged";
        EXPECT_EQ(kErrorHttpBadPath, code(normalize_http_path(raw, &out))) << raw;
        EXPECT_EQ("unchanged", out) << raw;
    }
}

TEST(HttpRequestTest, QueryParams) {
    HttpRequest r = parse_one(get_with("/api?a=1&b=x%20y&c=p+q&d&e=&%6B=v&a=2&&f=%zz HTTP/1.1"));
    EXPECT_EQ("a=1&b=x%20y&c=p+q&d&e=&%6B=v&a=2&&f=%zz", r.query);
    EXPECT_EQ("1", r.query_param("a"));  // the first one
    EXPECT_EQ("x y", r.query_param("b"));
    EXPECT_EQ("p q", r.query_param("c"));
    EXPECT_EQ("", r.query_param("d"));
    EXPECT_TRUE(r.has_query_param("d"));
    EXPECT_TRUE(r.has_query_param("e"));
    EXPECT_EQ("v", r.query_param("k"));  // names are decoded too
    EXPECT_EQ("%zz", r.query_param("f"));
    EXPECT_FALSE(r.has_query_param("z"));
    EXPECT_FALSE(r.has_query_param(""));
    EXPECT_EQ("", r.query_param("z"));
    r = parse_one(get_with("/a? HTTP/1.1"));
    EXPECT_EQ("", r.query);
    EXPECT_EQ("/a?", r.target);
}

// ---- guard page ----

TEST(HttpRequestTest, GuardPageEveryPrefix) {
    const std::string inputs[] = {kCurlGet, kFfmpegFlv, kCurlPostJson, kCurlChunked, kChromium,
                                  kChunkedWithExtensions, "GET /%2", "GET / HTTP/1.1\r\nHost: a\r\nX: a\r"};
    GuardPage guard(4096);
    for (const std::string& in : inputs) {
        for (size_t len = 0; len <= in.size(); ++len) {
            const uint8_t* p = guard.place(reinterpret_cast<const uint8_t*>(in.data()), len);
            Outcome whole = run(p, len, HttpLimits{}, [&] { return len; });
            Outcome bytes = run(p, len, HttpLimits{}, [] { return size_t(1); });
            ASSERT_EQ(whole.summary(), bytes.summary()) << "prefix " << len;
        }
        // And an empty feed reads nothing.
        HttpRequestParser parser;
        size_t used = 1;
        EXPECT_TRUE(ok(parser.feed(guard.place(nullptr, 0), 0, &used)));
        EXPECT_EQ(0u, used);
    }
}
