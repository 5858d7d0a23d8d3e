// HostCache on a fake clock: literals and localhost without a lookup, TTLs of
// answers and failures, the bound on entries.
#include <gtest/gtest.h>

#include "io/host_cache.hpp"

using namespace srs;

TEST(HostCache, LiteralsAndLocalhostNeedNoLookup) {
    std::vector<std::string> a;
    ASSERT_TRUE(answer_without_lookup("192.0.2.1", &a));
    EXPECT_EQ(a, std::vector<std::string>({"192.0.2.1"}));
    ASSERT_TRUE(answer_without_lookup("2001:db8::1", &a));
    EXPECT_EQ(a, std::vector<std::string>({"2001:db8::1"}));
    ASSERT_TRUE(answer_without_lookup("LocalHost.", &a));
    EXPECT_EQ(a, std::vector<std::string>({"127.0.0.1", "::1"}));
    EXPECT_FALSE(answer_without_lookup("example.com", &a));
    EXPECT_FALSE(answer_without_lookup("localhost.example.com", &a));
    EXPECT_FALSE(answer_without_lookup("[::1]", &a));  // brackets belong to URLs, not hosts
    EXPECT_FALSE(answer_without_lookup("1.2.3", &a));  // inet_aton's short forms are not literals here
    EXPECT_TRUE(is_address_literal("::ffff:10.0.0.1"));
    EXPECT_FALSE(is_address_literal(""));
}

TEST(HostCache, NamesAreNormalized) {
    EXPECT_EQ(normalize_host_name("Example.COM."), "example.com");
    EXPECT_EQ(normalize_host_name("a"), "a");
    EXPECT_EQ(normalize_host_name("."), "");
}

TEST(HostCache, PositiveAndNegativeTtl) {
    HostCacheOptions o;
    o.positive_ttl = 60 * kUsPerSecond;
    o.negative_ttl = 5 * kUsPerSecond;
    HostCache cache(o);
    HostAnswer good;
    good.addresses = {"192.0.2.1", "2001:db8::1"};
    HostAnswer bad;
    bad.error = "Name or service not known";
    utime_t t0 = 1000 * kUsPerSecond;
    cache.put("good.example", good, t0);
    cache.put("bad.example", bad, t0);

    HostAnswer got;
    ASSERT_TRUE(cache.find("good.example", t0 + 59 * kUsPerSecond, &got));
    EXPECT_EQ(got.addresses, good.addresses);
    EXPECT_FALSE(cache.find("good.example", t0 + 60 * kUsPerSecond, &got));
    ASSERT_TRUE(cache.find("bad.example", t0 + 4 * kUsPerSecond, &got));
    EXPECT_TRUE(got.addresses.empty());
    EXPECT_EQ(got.error, "Name or service not known");
    EXPECT_FALSE(cache.find("bad.example", t0 + 5 * kUsPerSecond, &got));
    EXPECT_FALSE(cache.find("other.example", t0, &got));

    // A new answer replaces the old one and restarts its TTL.
    cache.put("bad.example", good, t0 + 10 * kUsPerSecond);
    ASSERT_TRUE(cache.find("bad.example", t0 + 69 * kUsPerSecond, &got));
    EXPECT_EQ(got.addresses.size(), 2u);
    EXPECT_EQ(cache.size(), 2u);
}

TEST(HostCache, BoundedDroppingExpiredThenSoonest) {
    HostCacheOptions o;
    o.max_entries = 3;
    o.positive_ttl = 10 * kUsPerSecond;
    o.negative_ttl = 1 * kUsPerSecond;
    HostCache cache(o);
    HostAnswer good;
    good.addresses = {"192.0.2.1"};
    HostAnswer bad;
    bad.error = "no";
    cache.put("a", good, 0);
    cache.put("b", bad, 0);                    // expires at 1 s
    cache.put("c", good, 2 * kUsPerSecond);
    cache.put("d", good, 3 * kUsPerSecond);    // full: b has expired and goes
    HostAnswer got;
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_TRUE(cache.find("a", 3 * kUsPerSecond, &got));
    EXPECT_FALSE(cache.find("b", 0, &got));
    cache.put("e", good, 4 * kUsPerSecond);    // full, none expired: a (expires soonest) goes
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_FALSE(cache.find("a", 4 * kUsPerSecond, &got));
    EXPECT_TRUE(cache.find("c", 4 * kUsPerSecond, &got));
    EXPECT_TRUE(cache.find("d", 4 * kUsPerSecond, &got));
    EXPECT_TRUE(cache.find("e", 4 * kUsPerSecond, &got));
}

TEST(HostCache, ZeroTtlOrSizeKeepsNothing) {
    HostCacheOptions o;
    o.negative_ttl = 0;
    HostCache cache(o);
    HostAnswer bad;
    bad.error = "no";
    cache.put("x", bad, 0);
    EXPECT_EQ(cache.size(), 0u);
    o.max_entries = 0;
    HostCache none(o);
    HostAnswer good;
    good.addresses = {"192.0.2.1"};
    none.put("x", good, 0);
    EXPECT_EQ(none.size(), 0u);
}
