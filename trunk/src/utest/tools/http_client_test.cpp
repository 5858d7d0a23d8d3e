// The HTTP client side shared by sb_http_load and sb_latency
// (research/tools/http_client.hpp): URLs, and response bodies fed in pieces.
#include <gtest/gtest.h>

#include <string>

#include "tools/http_client.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

// Feeds `wire` to a fresh body in pieces of `step` bytes; the content it
// handed out, and the first error.
std::string decode(HttpBody::Mode mode, uint64_t length, const std::string& wire, size_t step, Error* err,
                   bool* done) {
    HttpBody body;
    body.start(mode, length);
    std::string out;
    *err = Error();
    for (size_t at = 0; at < wire.size() && err->ok(); at += step) {
        const size_t n = std::min(step, wire.size() - at);
        *err = body.feed(reinterpret_cast<const uint8_t*>(wire.data() + at), n, [&](const uint8_t* p, size_t k) {
            out.append(reinterpret_cast<const char*>(p), k);
            return Error();
        });
    }
    *done = body.done();
    return out;
}

}  // namespace

TEST(ToolsHttpClient, ParsesUrls) {
    HttpUrl u;
    ASSERT_TRUE(parse_http_url("http://127.0.0.1:8080/live/a.flv?k=v#frag", &u).ok());
    EXPECT_EQ("127.0.0.1", u.host);
    EXPECT_EQ(8080, u.port);
    EXPECT_EQ("127.0.0.1:8080", u.host_header);
    EXPECT_EQ("/live/a.flv?k=v", u.target);
    ASSERT_TRUE(parse_http_url("HTTP://[::1]/x.flv", &u).ok());
    EXPECT_EQ("::1", u.host);
    EXPECT_EQ(80, u.port);
    ASSERT_TRUE(parse_http_url("http://10.0.0.1", &u).ok());
    EXPECT_EQ("/", u.target);

    const char* bad[] = {"https://127.0.0.1/a.flv", "rtmp://127.0.0.1/live", "http://example.com/a.flv",
                         "http://127.0.0.1:0/a", "http://127.0.0.1:65536/a", "http://[::1/a", "http://u@127.0.0.1/a",
                         "http:///a.flv"};
    for (const char* url : bad) {
        Error err = parse_http_url(url, &u);
        EXPECT_FALSE(err.ok()) << url;
        err.ignore();
    }
}

TEST(ToolsHttpClient, ChunkedBodyInPiecesOfAnySize) {
    const std::string wire = "5\r\nhello\r\n1;ext=1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n";
    for (size_t step = 1; step <= wire.size(); step++) {
        Error err;
        bool done = false;
        EXPECT_EQ("hello 0123456789", decode(HttpBody::kChunked, 0, wire, step, &err, &done)) << step;
        EXPECT_TRUE(err.ok()) << step;
        EXPECT_TRUE(done) << step;
    }
}

TEST(ToolsHttpClient, LengthAndCloseDelimitedBodies) {
    Error err;
    bool done = false;
    EXPECT_EQ("abc", decode(HttpBody::kLength, 3, "abcdef", 2, &err, &done));
    EXPECT_TRUE(err.ok());
    EXPECT_TRUE(done);
    EXPECT_EQ("abcdef", decode(HttpBody::kUntilClose, 0, "abcdef", 4, &err, &done));
    EXPECT_FALSE(done);  // only the close ends it
}

TEST(ToolsHttpClient, BrokenChunkingIsAnError) {
    struct Case {
        const char* wire;
        int code;
    } cases[] = {
        {"zz\r\n", kErrorHttpBadChunkSize},
        {"\r\n", kErrorHttpBadChunkSize},
        {"3\r\nabcX", kErrorHttpBadChunkEnd},
        {"fffffffffffffffff\r\n", kErrorHttpBadChunkSize},
    };
    for (const Case& c : cases) {
        Error err;
        bool done = false;
        decode(HttpBody::kChunked, 0, c.wire, 1, &err, &done);
        EXPECT_EQ(c.code, err.code()) << c.wire;
        EXPECT_FALSE(done);
        err.ignore();
    }
    Error err;
    bool done = false;
    decode(HttpBody::kChunked, 0, std::string(2000, '1'), 7, &err, &done);  // a size line that never ends
    EXPECT_EQ(kErrorHttpBadChunkSize, err.code());
    err.ignore();
}
