// RtcRoutingTable without sockets: which session a datagram goes to (by the
// ufrag of a STUN binding request, else by the sender's bound address),
// binding and rebinding, reaping, and the ended-sessions memory a late DELETE
// checks, on the test's clock.
#include <gtest/gtest.h>

#include "app/rtc/rtc_routing_table.hpp"
#include "utest/app/rtc/rtc_routing_fixtures.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

const StunAddress kAddrA = StunAddress::ipv4(0xc0000201, 32853);  // 192.0.2.1:32853
const StunAddress kAddrB = StunAddress::ipv4(0xc0000201, 32854);
const StunAddress kAddrC = StunAddress::ipv4(0xc6336401, 40000);  // 198.51.100.1:40000

// The session a datagram from `from` goes to (nullptr: dropped); fails the
// test when the table reports an error.
RtcSession* route(const RtcRoutingTable& t, std::vector<uint8_t> d, const StunAddress& from) {
    RtcSession* s = nullptr;
    Error err = t.find(d.data(), d.size(), from, &s);
    EXPECT_TRUE(err.ok()) << err.describe();
    return s;
}

}  // namespace

TEST(RtcRoutingTable, StunRequestFindsItsSessionByUfragFromANewAddress) {
    RtcTestSessions sessions;
    auto s = sessions.make(kRfc5769LocalUfrag, "t1");
    auto other = sessions.make("zzzz", "t2");
    RtcRoutingTable t;
    t.add(s.get());
    t.add(other.get());
    EXPECT_EQ(t.find_by_ufrag("evtj"), s.get());
    EXPECT_TRUE(t.has_ufrag("zzzz"));

    EXPECT_EQ(route(t, rfc5769_request(), kAddrA), s.get());
    // Finding is not binding: nothing else from that address reaches it.
    EXPECT_EQ(t.address_count(), 0u);
    EXPECT_EQ(route(t, rtp_packet(), kAddrA), nullptr);
    StunAddress bound;
    EXPECT_FALSE(t.address_of(s.get(), &bound));
}

TEST(RtcRoutingTable, UnknownAddressWithoutAStunUfragIsDropped) {
    RtcTestSessions sessions;
    auto s = sessions.make(kRfc5769LocalUfrag, "t1");
    RtcRoutingTable t;
    t.add(s.get());
    EXPECT_EQ(route(t, rtp_packet(), kAddrA), nullptr);
    EXPECT_EQ(route(t, dtls_record(), kAddrA), nullptr);
    EXPECT_EQ(route(t, rfc5769_response(), kAddrA), nullptr);  // STUN, but no USERNAME
    EXPECT_EQ(route(t, unhex("ff00"), kAddrA), nullptr);        // no protocol of RFC 7983
    EXPECT_EQ(route(t, {}, kAddrA), nullptr);

    // A request naming a ufrag nobody has.
    std::vector<uint8_t> req = rfc5769_request();
    req[64] = 'x';  // USERNAME "xvtj:h6vY"
    EXPECT_EQ(route(t, req, kAddrA), nullptr);

    // A STUN datagram that does not decode is an error (the caller counts the drop).
    std::vector<uint8_t> cut = rfc5769_request();
    cut.resize(30);
    RtcSession* found = s.get();
    Error err = t.find(cut.data(), cut.size(), kAddrA, &found);
    EXPECT_TRUE(err.failed());
    EXPECT_EQ(found, nullptr);
}

TEST(RtcRoutingTable, BoundAddressRoutesEverythingAndTheStunUfragStillWins) {
    RtcTestSessions sessions;
    auto s = sessions.make(kRfc5769LocalUfrag, "t1");
    auto other = sessions.make("zzzz", "t2");
    RtcRoutingTable t;
    t.add(s.get());
    t.add(other.get());
    t.bind(other.get(), kAddrA);
    EXPECT_EQ(route(t, rtp_packet(), kAddrA), other.get());
    EXPECT_EQ(route(t, dtls_record(), kAddrA), other.get());
    EXPECT_EQ(route(t, rfc5769_response(), kAddrA), other.get());
    EXPECT_EQ(route(t, rtp_packet(), kAddrB), nullptr);  // same IP, another port
    // The same IP and port over IPv6 is another address.
    uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8};
    EXPECT_EQ(route(t, rtp_packet(), StunAddress::ipv6(v6, kAddrA.port)), nullptr);
    // A binding request goes to the session its USERNAME names, whoever holds the address.
    EXPECT_EQ(route(t, rfc5769_request(), kAddrA), s.get());
}

TEST(RtcRoutingTable, RebindingMovesTheAddress) {
    RtcTestSessions sessions;
    auto s = sessions.make(kRfc5769LocalUfrag, "t1");
    RtcRoutingTable t;
    t.add(s.get());
    t.bind(s.get(), kAddrA);
    t.bind(s.get(), kAddrC);  // the NAT gave the peer another address
    EXPECT_EQ(route(t, rtp_packet(), kAddrC), s.get());
    EXPECT_EQ(route(t, rtp_packet(), kAddrA), nullptr);
    EXPECT_EQ(t.address_count(), 1u);
    StunAddress bound;
    ASSERT_TRUE(t.address_of(s.get(), &bound));
    EXPECT_TRUE(bound == kAddrC);
    t.bind(s.get(), kAddrC);  // the same again changes nothing
    EXPECT_EQ(t.address_count(), 1u);
    EXPECT_EQ(route(t, rtp_packet(), kAddrC), s.get());
}

TEST(RtcRoutingTable, TwoSessionsNeverShareAnAddress) {
    RtcTestSessions sessions;
    auto first = sessions.make("aaaa", "t1");
    auto second = sessions.make("bbbb", "t2");
    RtcRoutingTable t;
    t.add(first.get());
    t.add(second.get());
    t.bind(first.get(), kAddrA);
    t.bind(second.get(), kAddrA);  // the latest verification wins
    EXPECT_EQ(route(t, rtp_packet(), kAddrA), second.get());
    EXPECT_EQ(t.address_count(), 1u);
    StunAddress bound;
    EXPECT_FALSE(t.address_of(first.get(), &bound));
    // The first binding elsewhere takes nothing from the second.
    t.bind(first.get(), kAddrB);
    EXPECT_EQ(route(t, rtp_packet(), kAddrA), second.get());
    EXPECT_EQ(route(t, rtp_packet(), kAddrB), first.get());
    EXPECT_EQ(t.address_count(), 2u);
}

TEST(RtcRoutingTable, DeadSessionGetsNothing) {
    RtcTestSessions sessions;
    auto s = sessions.make(kRfc5769LocalUfrag, "t1");
    RtcRoutingTable t;
    t.add(s.get());
    t.bind(s.get(), kAddrA);
    s->close(1000, SRS_ERR(kErrorRtcSessionClosed, "test"));
    ASSERT_TRUE(s->dead());
    EXPECT_EQ(route(t, rtp_packet(), kAddrA), nullptr);
    EXPECT_EQ(route(t, rfc5769_request(), kAddrB), nullptr);
    // Still in the maps until reaped (a DELETE still finds it).
    EXPECT_EQ(t.find_by_ufrag("evtj"), s.get());
}

TEST(RtcRoutingTable, ReapedSessionLeavesBothMaps) {
    RtcTestSessions sessions;
    auto s = sessions.make(kRfc5769LocalUfrag, "t1");
    auto other = sessions.make("zzzz", "t2");
    RtcRoutingTable t;
    t.add(s.get());
    t.add(other.get());
    t.bind(s.get(), kAddrA);
    t.bind(other.get(), kAddrB);
    t.remove(s.get(), 5 * kUsPerSecond);
    EXPECT_EQ(t.find_by_ufrag("evtj"), nullptr);
    EXPECT_FALSE(t.has_ufrag("evtj"));
    EXPECT_EQ(t.find_by_address(kAddrA), nullptr);
    EXPECT_EQ(route(t, rfc5769_request(), kAddrC), nullptr);
    EXPECT_EQ(route(t, rtp_packet(), kAddrA), nullptr);
    EXPECT_EQ(t.session_count(), 1u);
    EXPECT_EQ(t.address_count(), 1u);
    EXPECT_EQ(route(t, rtp_packet(), kAddrB), other.get());
}

TEST(RtcRoutingTable, EndedSessionDeleteIsAcceptedFor60Seconds) {
    RtcTestSessions sessions;
    auto s = sessions.make("evtj", "token-1");
    RtcRoutingTable t;
    t.add(s.get());
    const utime_t ended_at = 100 * kUsPerSecond;
    EXPECT_FALSE(t.ended_recently("evtj", "token-1", ended_at));  // not ended yet
    t.remove(s.get(), ended_at);
    EXPECT_TRUE(t.ended_recently("evtj", "token-1", ended_at));
    EXPECT_TRUE(t.ended_recently("evtj", "token-1", ended_at + 60 * kUsPerSecond));
    EXPECT_FALSE(t.ended_recently("evtj", "token-1", ended_at + 60 * kUsPerSecond + 1));
    EXPECT_FALSE(t.ended_recently("evtj", "another", ended_at + kUsPerSecond));
    EXPECT_FALSE(t.ended_recently("zzzz", "token-1", ended_at + kUsPerSecond));

    t.forget_ended(ended_at + 30 * kUsPerSecond);
    EXPECT_EQ(t.ended_count(), 1u);
    EXPECT_TRUE(t.ended_recently("evtj", "token-1", ended_at + 30 * kUsPerSecond));
    t.forget_ended(ended_at + 61 * kUsPerSecond);
    EXPECT_EQ(t.ended_count(), 0u);
}
