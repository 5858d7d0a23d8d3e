// The HTTP client side the tools share (tools/http_client.hpp): their URLs
// (the project's parser, IP hosts only) and the GET of an HTTP-FLV player.
// Response bodies are the project's HttpResponseParser, tested in
// utest/protocol/http/http_response_parser_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "tools/http_client.hpp"

using namespace srs;
using namespace srs::tool;

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
    EXPECT_EQ("[::1]", u.host_header);
    ASSERT_TRUE(parse_http_url("http://10.0.0.1", &u).ok());
    EXPECT_EQ("/", u.target);
    ASSERT_TRUE(parse_http_url("http://10.0.0.1?a=1", &u).ok());
    EXPECT_EQ("/?a=1", u.target);

    // The server's client maps localhost; the tools take IP addresses only.
    const char* bad[] = {"https://127.0.0.1/a.flv", "rtmp://127.0.0.1/live",    "http://example.com/a.flv",
                         "http://localhost/a.flv",  "http://LocalHost:8080/a", "http://127.0.0.1:0/a",
                         "http://127.0.0.1:65536/a", "http://[::1/a",          "http://u@127.0.0.1/a",
                         "http:///a.flv"};
    for (const char* url : bad) {
        Error err = parse_http_url(url, &u);
        EXPECT_EQ(kErrorHttpClientBadUrl, err.code()) << url;
        err.ignore();
    }
}

TEST(ToolsHttpClient, CheckUrlTakesTheFirstClientsUrl) {
    EXPECT_TRUE(check_http_url("http://127.0.0.1:8080/live/s%d.flv"));
    EXPECT_FALSE(check_http_url("http://localhost:8080/live/s%d.flv"));
}

TEST(ToolsHttpClient, PlayerRequest) {
    HttpUrl u;
    ASSERT_TRUE(parse_http_url("http://127.0.0.1:8080/live/a.flv?k=v", &u).ok());
    EXPECT_EQ("GET /live/a.flv?k=v HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: sb_latency\r\n"
              "Accept: */*\r\nConnection: close\r\n\r\n",
              http_get_request(u, "sb_latency"));
}

TEST(ToolsHttpClient, ResponseLimits) {
    // A head over 16 KB of field lines is refused, as the tools always did.
    HttpResponseParser parser(tool_response_limits());
    std::string head = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; head.size() < kMaxResponseHeadBytes + 100; i++) head += "X-" + std::to_string(i) + ": " + std::string(80, 'v') + "\r\n";
    size_t used = 0;
    Error err = parser.feed(reinterpret_cast<const uint8_t*>(head.data()), head.size(), &used, nullptr);
    EXPECT_EQ(kErrorHttpClientBadHeader, err.code());
    err.ignore();
}
