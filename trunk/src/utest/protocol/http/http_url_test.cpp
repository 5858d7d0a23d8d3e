// parse_http_client_url: the URLs the server's HTTP client (heartbeat,
// forward backend, hooks, HTTP-FLV edge) takes.
#include <gtest/gtest.h>

#include <string>

#include "protocol/http/http_url.hpp"
#include "utest/test_util.hpp"

namespace srs {

using utest::code;
using utest::ok;

TEST(HttpClientUrl, IpLiteralsAndLocalhost) {
    HttpClientUrl u;
    ASSERT_TRUE(ok(parse_http_client_url("http://127.0.0.1:8085/api/v1/servers", &u)));
    EXPECT_FALSE(u.tls);
    EXPECT_EQ(u.host, "127.0.0.1");
    EXPECT_EQ(u.ip, "127.0.0.1");
    EXPECT_EQ(u.port, 8085);
    EXPECT_EQ(u.host_header, "127.0.0.1:8085");
    EXPECT_EQ(u.target, "/api/v1/servers");
    ASSERT_TRUE(ok(parse_http_client_url("http://localhost?x=1#frag", &u)));
    EXPECT_EQ(u.ip, "127.0.0.1");
    EXPECT_EQ(u.port, 80);
    EXPECT_EQ(u.target, "/?x=1");
    ASSERT_TRUE(ok(parse_http_client_url("HTTP://[::1]:1985", &u)));
    EXPECT_EQ(u.ip, "::1");
    EXPECT_EQ(u.host, "::1");
    EXPECT_EQ(u.host_header, "[::1]:1985");
    EXPECT_EQ(u.target, "/");
}

TEST(HttpClientUrl, HttpsDefaultsTo443) {
    HttpClientUrl u;
    ASSERT_TRUE(ok(parse_http_client_url("https://127.0.0.1/hook", &u)));
    EXPECT_TRUE(u.tls);
    EXPECT_EQ(u.port, 443);
    EXPECT_EQ(u.host_header, "127.0.0.1");
    ASSERT_TRUE(ok(parse_http_client_url("HTTPS://[2001:db8::1]:8443/a?b", &u)));
    EXPECT_TRUE(u.tls);
    EXPECT_EQ(u.ip, "2001:db8::1");
    EXPECT_EQ(u.port, 8443);
    EXPECT_EQ(u.target, "/a?b");
    ASSERT_TRUE(ok(parse_http_client_url("http://10.0.0.1", &u)));
    EXPECT_FALSE(u.tls);
    EXPECT_EQ(u.port, 80);
}

TEST(HttpClientUrl, NamesAreKeptForTheResolver) {
    HttpClientUrl u;
    ASSERT_TRUE(ok(parse_http_client_url("https://hooks.example.com/api/v1/streams", &u)));
    EXPECT_TRUE(u.tls);
    EXPECT_EQ(u.host, "hooks.example.com");
    EXPECT_EQ(u.ip, "");  // resolved by the client, not here
    EXPECT_EQ(u.port, 443);
    EXPECT_EQ(u.host_header, "hooks.example.com");
    ASSERT_TRUE(ok(parse_http_client_url("http://ip6-localhost:8085/x", &u)));
    EXPECT_EQ(u.host, "ip6-localhost");
    EXPECT_EQ(u.port, 8085);
    ASSERT_TRUE(ok(parse_http_client_url("http://Backend_1.internal.:9000", &u)));
    EXPECT_EQ(u.host, "Backend_1.internal.");
    ASSERT_TRUE(ok(parse_http_client_url("http://localhost./", &u)));
    EXPECT_EQ(u.ip, "127.0.0.1");
    ASSERT_TRUE(ok(parse_http_client_url("http://3com.net/", &u)));  // digits first is fine; an all-digit TLD is not
}

TEST(HttpClientUrl, BrokenUrlsAreRefused) {
    HttpClientUrl u;
    const std::string long_label = "http://" + std::string(64, 'a') + ".com/";
    const std::string long_name = "http://" + std::string(50, 'a') + "." + std::string(50, 'b') + "." +
                                  std::string(50, 'c') + "." + std::string(50, 'd') + "." + std::string(50, 'e') + "/";
    const std::string bad[] = {"http://127.0.0.1:0/", "http://127.0.0.1:70000/", "http://a@127.0.0.1/",
                               "http://[::1/", "http:///x", "http://127.0.0.1:/", "http://1.2.3.4/a b",
                               "ftp://1.2.3.4/", "https://", "https://:443/", "http://exa mple.com/",
                               "http://a..b/", "http://.a/", "http://-a.com/", "http://a-.com/", "http://a.com:x/",
                               "http://10.1/", "http://999.1.1.1/", "http://[example.com]/", "http://[::1]x/",
                               "http://a%2eb/", "httpx://a/", long_label, long_name, "", "http://host:65536"};
    for (const std::string& b : bad) EXPECT_EQ(code(parse_http_client_url(b, &u)), kErrorHttpClientBadUrl) << b;
}

TEST(HttpClientUrl, HostNameRules) {
    EXPECT_TRUE(is_valid_host_name("a"));
    EXPECT_TRUE(is_valid_host_name("a.b-c.d"));
    EXPECT_TRUE(is_valid_host_name(std::string(63, 'x') + ".com"));
    EXPECT_FALSE(is_valid_host_name(std::string(64, 'x') + ".com"));
    EXPECT_FALSE(is_valid_host_name(""));
    EXPECT_FALSE(is_valid_host_name("."));
    EXPECT_FALSE(is_valid_host_name("a..b"));
    EXPECT_FALSE(is_valid_host_name("1.2.3.4"));  // literals are not names
    EXPECT_FALSE(is_valid_host_name("a/b"));
    EXPECT_FALSE(is_valid_host_name("a\xc3\xa9.com"));
}

}  // namespace srs
