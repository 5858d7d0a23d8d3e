// The stream registries (memory, and Redis against a real redis-server), the
// redis URL and owner URL, the origin locator and the claims the publish
// paths make.
#include <gtest/gtest.h>

#include "app/registry/memory_stream_registry.hpp"
#include "app/registry/registry_address.hpp"
#include "app/registry/registry_factory.hpp"
#include "app/registry/registry_origin_locator.hpp"
#include "app/registry/stream_claims.hpp"
#include "io/runtime.hpp"
#include "utest/test_util.hpp"

using namespace srs;

TEST(StreamRegistryKey, NamesVhostAppAndStream) {
    EXPECT_EQ(stream_registry_key("__defaultVhost__", "live", "livestream"),
              "srs:stream:__defaultVhost__/live/livestream");
}

TEST(MemoryStreamRegistry, AcquireRefusesAnotherOwnerAndReleaseFreesIt) {
    MemoryStreamRegistry r;
    std::string owner;
    ASSERT_TRUE(utest::ok(r.lookup("k", &owner)));
    EXPECT_EQ(owner, "");
    ASSERT_TRUE(utest::ok(r.acquire("k", "rtmp://a:1935")));
    ASSERT_TRUE(utest::ok(r.acquire("k", "rtmp://a:1935")));  // ours already: fine
    Error busy = r.acquire("k", "rtmp://b:1935");
    EXPECT_EQ(busy.code(), kErrorStreamBusy);
    EXPECT_NE(busy.message().find("rtmp://a:1935"), std::string::npos) << busy.message();
    busy.ignore();
    ASSERT_TRUE(utest::ok(r.lookup("k", &owner)));
    EXPECT_EQ(owner, "rtmp://a:1935");
    r.release("k", "rtmp://b:1935");  // not b's: no effect
    EXPECT_EQ(r.size(), 1u);
    r.release("k", "rtmp://a:1935");
    EXPECT_EQ(r.size(), 0u);
    EXPECT_TRUE(utest::ok(r.acquire("k", "rtmp://b:1935")));
}

TEST(RegistryAddress, ParsesRedisUrls) {
    RedisAddress a;
    ASSERT_TRUE(utest::ok(parse_redis_url("redis://127.0.0.1:6380/2", &a)));
    EXPECT_EQ(a.host, "127.0.0.1");
    EXPECT_EQ(a.port, 6380);
    EXPECT_EQ(a.db, 2);
    ASSERT_TRUE(utest::ok(parse_redis_url("redis://localhost", &a)));
    EXPECT_EQ(a.host, "127.0.0.1");
    EXPECT_EQ(a.port, 6379);
    EXPECT_EQ(a.db, 0);
    ASSERT_TRUE(utest::ok(parse_redis_url("10.1.2.3:7000", &a)));
    EXPECT_EQ(a.port, 7000);
    ASSERT_TRUE(utest::ok(parse_redis_url("redis://[::1]:7001/3", &a)));
    EXPECT_EQ(a.host, "::1");
    EXPECT_EQ(a.port, 7001);
    EXPECT_EQ(a.db, 3);
    EXPECT_EQ(a.to_string(), "redis://[::1]:7001/3");
    const char* bad[] = {"redis://", "redis://h:0", "redis://h:70000", "redis://h:1/x", "redis://u:p@h:1",
                         "redis://[::1"};
    for (const char* b : bad) EXPECT_EQ(utest::code(parse_redis_url(b, &a)), kErrorRegistryConfig) << b;
}

TEST(RegistryAddress, OwnerUrlUsesAdvertiseOrAnInterfaceAddress) {
    EXPECT_EQ(registry_owner_url("10.0.0.7", 19350), "rtmp://10.0.0.7:19350");
    std::string detected = registry_owner_url("", 1935);
    EXPECT_EQ(detected.compare(0, 7, "rtmp://"), 0);
    EXPECT_NE(detected.find(":1935"), std::string::npos);
    EXPECT_EQ(registry_owner_url("::1", 1935), "rtmp://[::1]:1935");
}

TEST(RegistryAddress, RefreshIntervalIsThreeSecondsOrAThirdOfTheTtl) {
    EXPECT_EQ(registry_refresh_interval(10 * kUsPerSecond), 3 * kUsPerSecond);
    EXPECT_EQ(registry_refresh_interval(3 * kUsPerSecond), 1 * kUsPerSecond);
    EXPECT_EQ(registry_refresh_interval(1 * kUsPerMs), 100 * kUsPerMs);
}

TEST(RegistryOriginLocator, AnswersTheOwnerButNeverOurselves) {
    MemoryStreamRegistry r;
    RegistryOriginLocator self_locator(&r, "rtmp://10.0.0.1:1935");
    StreamKey key{"__defaultVhost__", "live", "x"};
    std::vector<std::string> urls{"stale"};
    ASSERT_TRUE(utest::ok(self_locator.locate(key, &urls)));
    EXPECT_TRUE(urls.empty());
    ASSERT_TRUE(utest::ok(r.acquire(stream_registry_key("__defaultVhost__", "live", "x"), "rtmp://10.0.0.1:1935")));
    ASSERT_TRUE(utest::ok(self_locator.locate(key, &urls)));
    EXPECT_TRUE(urls.empty()) << "we own it: pulling from ourselves would loop";
    RegistryOriginLocator other(&r, "rtmp://10.0.0.2:1935");
    ASSERT_TRUE(utest::ok(other.locate(key, &urls)));
    ASSERT_EQ(urls.size(), 1u);
    EXPECT_EQ(urls[0], "rtmp://10.0.0.1:1935");
}

TEST(StreamClaims, UnclaimKeepsTheClaimWhileALocalPublisherHoldsIt) {
    ASSERT_TRUE(utest::ok(init_runtime()));
    MemoryStreamRegistry r;
    SourceManager sources;
    StreamClaims claims(&r, "rtmp://me:1935", &sources);
    sources.set_publish_observer(&claims);
    ASSERT_TRUE(utest::ok(claims.claim("v", "live", "x")));
    LiveSource* s = sources.fetch_or_create("v", "live", "x");
    ASSERT_TRUE(utest::ok(s->on_publish("cid1", SourceOptions())));
    claims.unclaim("v", "live", "x");  // a refused second publisher's cleanup
    EXPECT_EQ(r.size(), 1u);
    s->on_unpublish();  // the observer gives it up
    EXPECT_EQ(r.size(), 0u);
    // Another server owns it: the claim says busy.
    ASSERT_TRUE(utest::ok(r.acquire(stream_registry_key("v", "live", "x"), "rtmp://other:1935")));
    EXPECT_EQ(utest::code(claims.claim("v", "live", "x")), kErrorStreamBusy);
    sources.set_publish_observer(nullptr);
}
