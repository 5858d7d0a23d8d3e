// RtcPendingSessions on the test's clock, no socket: the bound in all and the
// one per signalling address, each refusing with SRS's code 1074 and naming
// its directive; places held from reserve() to cancel/verify/forget; the
// pending timeout's deadlines; and the per-address key (IPv6 by /64).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/rtc/rtc_pending.hpp"

using namespace srs;

namespace {

RtcPendingSessions::Limits limits(size_t total, size_t per_address, int timeout_s) {
    RtcPendingSessions::Limits l;
    l.total = total;
    l.per_address = per_address;
    l.timeout = timeout_s * kUsPerSecond;
    return l;
}

// reserve() + start(): one pending session `cid` from `address` at `now`.
bool add(RtcPendingSessions& p, const std::string& cid, const std::string& address, utime_t now) {
    Error err = p.reserve(address);
    bool ok = err.ok();
    err.ignore();
    if (ok) p.start(cid, address, now);
    return ok;
}

}  // namespace

TEST(RtcPendingSessions, AnAddressPastItsBoundIsRefusedAndAnotherIsNot) {
    RtcPendingSessions p;
    p.set_limits(limits(10, 3, 10));
    for (int i = 0; i < 3; i++) ASSERT_TRUE(add(p, "a" + std::to_string(i), "192.0.2.1", 0));
    Error err = p.reserve("192.0.2.1");
    EXPECT_EQ(err.code(), kErrorExceedConnections);
    EXPECT_NE(err.summary().find("rtc_server.pending_sessions_per_ip"), std::string::npos) << err.summary();
    EXPECT_NE(err.summary().find("192.0.2.1"), std::string::npos) << err.summary();
    err.ignore();
    EXPECT_EQ(p.count("192.0.2.1"), 3u);
    EXPECT_EQ(p.stats().refused, 1u);
    EXPECT_EQ(p.stats().refused_address, 1u);
    // Another address still has room: the flood of one locks nobody else out.
    EXPECT_TRUE(add(p, "b0", "198.51.100.7", 0));
    EXPECT_EQ(p.size(), 4u);
    EXPECT_EQ(p.sessions(), 4u);
}

TEST(RtcPendingSessions, TheBoundInAllHoldsWhateverTheAddresses) {
    RtcPendingSessions p;
    p.set_limits(limits(4, 2, 10));
    EXPECT_TRUE(add(p, "a", "192.0.2.1", 0));
    EXPECT_TRUE(add(p, "b", "192.0.2.2", 0));
    EXPECT_TRUE(add(p, "c", "192.0.2.3", 0));
    EXPECT_TRUE(add(p, "d", "192.0.2.4", 0));
    Error err = p.reserve("192.0.2.5");
    EXPECT_EQ(err.code(), kErrorExceedConnections);
    EXPECT_NE(err.summary().find("rtc_server.pending_sessions allows"), std::string::npos) << err.summary();
    err.ignore();
    EXPECT_EQ(p.stats().refused, 1u);
    EXPECT_EQ(p.stats().refused_address, 0u);
    EXPECT_EQ(p.count("192.0.2.5"), 0u);  // a refused offer takes nothing
}

TEST(RtcPendingSessions, PerAddressZeroMeansNoBoundPerAddress) {
    RtcPendingSessions p;
    p.set_limits(limits(5, 0, 10));
    for (int i = 0; i < 5; i++) EXPECT_TRUE(add(p, "s" + std::to_string(i), "10.0.0.1", 0));
    EXPECT_FALSE(add(p, "s5", "10.0.0.1", 0));  // the bound in all still holds
    EXPECT_EQ(p.stats().refused_address, 0u);
}

TEST(RtcPendingSessions, OffersInFlightHoldTheirPlaceUntilCancelled) {
    RtcPendingSessions p;
    p.set_limits(limits(10, 2, 10));
    // Two offers reserved, still being worked on (a publisher's claim yields).
    ASSERT_TRUE(p.reserve("192.0.2.1").ok());
    ASSERT_TRUE(p.reserve("192.0.2.1").ok());
    EXPECT_EQ(p.size(), 2u);
    EXPECT_EQ(p.sessions(), 0u);
    Error third = p.reserve("192.0.2.1");
    EXPECT_EQ(third.code(), kErrorExceedConnections);
    third.ignore();
    // One is refused by the signalling (a bad SDP): its place is free again.
    p.cancel("192.0.2.1");
    EXPECT_EQ(p.count("192.0.2.1"), 1u);
    EXPECT_TRUE(p.reserve("192.0.2.1").ok());
    p.cancel("192.0.2.1");
    p.cancel("192.0.2.1");
    EXPECT_EQ(p.size(), 0u);
    EXPECT_EQ(p.count("192.0.2.1"), 0u);
}

TEST(RtcPendingSessions, AVerifiedSessionLeavesThePendingOnes) {
    RtcPendingSessions p;
    p.set_limits(limits(10, 1, 10));
    ASSERT_TRUE(add(p, "a", "192.0.2.1", 0));
    EXPECT_FALSE(add(p, "b", "192.0.2.1", 0));
    EXPECT_TRUE(p.verify("a"));
    EXPECT_EQ(p.stats().verified, 1u);
    EXPECT_EQ(p.size(), 0u);
    // Its later bindings (consent, a NAT rebinding) are not a first one.
    EXPECT_FALSE(p.verify("a"));
    EXPECT_EQ(p.stats().verified, 1u);
    // Its place went to the next offer; its deadline is gone.
    EXPECT_TRUE(add(p, "b", "192.0.2.1", 0));
    std::vector<std::string> expired = p.expired(60 * kUsPerSecond);
    EXPECT_EQ(expired, std::vector<std::string>{"b"});
    // The server's reap of "a" (not pending) changes nothing.
    p.forget("a");
    EXPECT_EQ(p.size(), 1u);
}

TEST(RtcPendingSessions, TheTimeoutExpiresThemOnceOldestFirst) {
    RtcPendingSessions p;
    p.set_limits(limits(10, 10, 10));
    const utime_t t0 = 100 * kUsPerSecond;
    ASSERT_TRUE(add(p, "late", "192.0.2.1", t0 + 3 * kUsPerSecond));
    ASSERT_TRUE(add(p, "early", "192.0.2.1", t0));
    ASSERT_TRUE(add(p, "mid", "192.0.2.2", t0 + kUsPerSecond));

    EXPECT_TRUE(p.expired(t0 + 10 * kUsPerSecond - 1).empty());
    EXPECT_EQ(p.expired(t0 + 10 * kUsPerSecond), std::vector<std::string>{"early"});  // at the deadline
    EXPECT_EQ(p.expired(t0 + 13 * kUsPerSecond), (std::vector<std::string>{"mid", "late"}));
    EXPECT_TRUE(p.expired(t0 + 60 * kUsPerSecond).empty());  // each once
    EXPECT_EQ(p.stats().expired, 3u);
    // Expired but not yet reaped: still counted, and no longer verifiable
    // (the server is closing it).
    EXPECT_EQ(p.size(), 3u);
    EXPECT_FALSE(p.verify("mid"));
    // The reap frees the places.
    p.forget("early");
    p.forget("mid");
    p.forget("late");
    EXPECT_EQ(p.size(), 0u);
    EXPECT_EQ(p.count("192.0.2.1"), 0u);
    EXPECT_EQ(p.sessions(), 0u);
}

TEST(RtcPendingSessions, AReloadAppliesToTheOffersAfterIt) {
    RtcPendingSessions p;
    p.set_limits(limits(10, 10, 10));
    ASSERT_TRUE(add(p, "old", "192.0.2.1", 0));
    ASSERT_TRUE(add(p, "old2", "192.0.2.1", 0));
    p.set_limits(limits(10, 1, 2));
    // Two pending from that address already: the new bound of one refuses more.
    EXPECT_FALSE(add(p, "new", "192.0.2.1", 0));
    ASSERT_TRUE(add(p, "other", "192.0.2.9", 0));
    // The new session has the new timeout, the old ones keep theirs.
    EXPECT_EQ(p.expired(2 * kUsPerSecond), std::vector<std::string>{"other"});
    EXPECT_EQ(p.expired(10 * kUsPerSecond), (std::vector<std::string>{"old", "old2"}));
}

TEST(RtcPendingSessions, AFloodThatOutlastsTheTimeoutGetsItsBoundBackEveryTimeout) {
    // 3,000 offers from one address, one every ms, timeout 1 s: at most the
    // bound is pending at any time, the rest refused, and places come back
    // only as the pending ones expire (and are reaped, as the server does).
    RtcPendingSessions p;
    p.set_limits(limits(500, 50, 1));
    size_t accepted = 0, refused = 0, most = 0;
    for (int i = 0; i < 3000; i++) {
        utime_t now = i * kUsPerMs;
        for (const std::string& cid : p.expired(now)) p.forget(cid);
        if (add(p, "s" + std::to_string(i), "127.0.0.1", now)) {
            accepted++;
        } else {
            refused++;
        }
        most = std::max(most, p.count("127.0.0.1"));
    }
    EXPECT_EQ(most, 50u);
    EXPECT_EQ(accepted, 150u);  // 50 at 0 s, 50 at 1 s, 50 at 2 s
    EXPECT_EQ(refused, 2850u);
    for (const std::string& cid : p.expired(10 * kUsPerSecond)) p.forget(cid);
    EXPECT_EQ(p.size(), 0u);
}

TEST(RtcPendingAddressKey, IPv4AsIsIPv6ByItsSlash64) {
    EXPECT_EQ(rtc_pending_address_key("192.0.2.1"), "192.0.2.1");
    EXPECT_EQ(rtc_pending_address_key("::ffff:192.0.2.1"), "192.0.2.1");
    EXPECT_EQ(rtc_pending_address_key("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
    EXPECT_EQ(rtc_pending_address_key("2001:DB8:1:2::1"), "2001:db8:1:2::/64");
    EXPECT_EQ(rtc_pending_address_key("2001:db8:1:3::1"), "2001:db8:1:3::/64");
    EXPECT_EQ(rtc_pending_address_key("::1"), "::/64");
    EXPECT_EQ(rtc_pending_address_key(""), "");
    EXPECT_EQ(rtc_pending_address_key("not an address"), "not an address");
}
