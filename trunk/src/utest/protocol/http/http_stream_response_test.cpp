// The client side of a streaming HTTP response (an edge's HTTP-FLV pull):
// identity and chunked bodies, fed whole and one byte at a time.
#include <gtest/gtest.h>

#include <string>

#include "protocol/http/http_stream_response.hpp"

using namespace srs;

namespace {

// Feeds `wire` in pieces of `step` bytes; returns the body.
std::string feed(HttpStreamResponse* r, const std::string& wire, size_t step, Error* out) {
    std::string body;
    for (size_t i = 0; i < wire.size(); i += step) {
        size_t n = std::min(step, wire.size() - i);
        Error err = r->feed(reinterpret_cast<const uint8_t*>(wire.data() + i), n, &body);
        if (!err.ok()) {
            *out = std::move(err);
            return body;
        }
    }
    return body;
}

}  // namespace

TEST(HttpStreamResponse, IdentityBodyRunsUntilClose) {
    const std::string wire = "HTTP/1.1 200 OK\r\nContent-Type: video/x-flv\r\nConnection: close\r\n\r\nFLV\x01\x05" "body";
    for (size_t step : {wire.size(), size_t(1), size_t(7)}) {
        HttpStreamResponse r;
        Error err;
        std::string body = feed(&r, wire, step, &err);
        ASSERT_TRUE(err.ok()) << err.describe();
        EXPECT_TRUE(r.head_done());
        EXPECT_EQ(r.status(), 200);
        ASSERT_NE(r.header("content-type"), nullptr);
        EXPECT_EQ(*r.header("content-type"), "video/x-flv");
        EXPECT_EQ(body, "FLV\x01\x05" "body");
        EXPECT_FALSE(r.ended());
    }
}

TEST(HttpStreamResponse, ChunkedBodyIsDechunked) {
    const std::string wire =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nA;ext=1\r\n0123456789\r\n0\r\n\r\n";
    for (size_t step : {wire.size(), size_t(1), size_t(3)}) {
        HttpStreamResponse r;
        Error err;
        std::string body = feed(&r, wire, step, &err);
        ASSERT_TRUE(err.ok()) << err.describe();
        EXPECT_TRUE(r.chunked());
        EXPECT_EQ(body, "hello0123456789");
        EXPECT_TRUE(r.ended());
    }
}

TEST(HttpStreamResponse, ContentLengthEndsTheBody) {
    HttpStreamResponse r;
    Error err;
    std::string body = feed(&r, "HTTP/1.0 404 Not Found\r\nContent-Length: 3\r\n\r\nabcdef", 1, &err);
    ASSERT_TRUE(err.ok());
    EXPECT_EQ(r.status(), 404);
    EXPECT_EQ(body, "abc");
    EXPECT_TRUE(r.ended());
}

TEST(HttpStreamResponse, MalformedInputFails) {
    for (const char* bad : {"HTTX/1.1 200 OK\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
                            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY",
                            "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n"}) {
        HttpStreamResponse r;
        Error err;
        feed(&r, bad, 1, &err);
        EXPECT_FALSE(err.ok()) << bad;
        err.ignore();
        // Failed stays failed.
        std::string body;
        Error again = r.feed(reinterpret_cast<const uint8_t*>("x"), 1, &body);
        EXPECT_FALSE(again.ok());
        again.ignore();
    }
}

TEST(HttpStreamResponse, HeadTooLargeFails) {
    HttpStreamResponse r;
    Error err;
    std::string wire = "HTTP/1.1 200 OK\r\nX: " + std::string(HttpStreamResponse::kMaxHead, 'a') + "\r\n\r\n";
    feed(&r, wire, 4096, &err);
    EXPECT_EQ(err.code(), kErrorHttpHeadersTooLarge);
    err.ignore();
}
