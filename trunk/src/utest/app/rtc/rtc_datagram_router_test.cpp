// RtcDatagramRouter with real sessions and no socket: a datagram reaches its
// session, an address is bound only once the session's peer verified a STUN
// request from it (the RFC 5769 request, whose credentials the sessions
// use), the session keeps a copy of the datagram's reply path, the
// listener hears of a session's first verified binding (it was pending until
// then) once, and every drop is counted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/rtc/rtc_datagram_router.hpp"
#include "kernel/stun/stun.hpp"
#include "utest/app/rtc/rtc_routing_fixtures.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

const StunAddress kAddrA = StunAddress::ipv4(0xc0000201, 32853);  // 192.0.2.1:32853
const StunAddress kAddrC = StunAddress::ipv4(0xc6336401, 40000);  // 198.51.100.1:40000

// What went back to one origin, named so a kept copy can be told apart.
struct Sent {
    std::string origin;
    std::string data;
};

class FakeReplyPath : public RtcReplyPath {
  public:
    FakeReplyPath(std::string origin, std::vector<Sent>* sent) : origin_(std::move(origin)), sent_(sent) {}
    uint8_t* slot() override { return buf_; }
    void commit(size_t len) override { sent_->push_back(Sent{origin_, std::string(reinterpret_cast<char*>(buf_), len)}); }
    const char* transport() const override { return "udp"; }
    std::unique_ptr<RtcSendPath> copy() const override {
        return std::unique_ptr<RtcSendPath>(new FakeReplyPath(origin_ + " (kept)", sent_));
    }
    RtcTcpConn* tcp_conn() const override { return nullptr; }

  private:
    std::string origin_;
    std::vector<Sent>* sent_;
    uint8_t buf_[kRtcSlotSize];
};

// Decodes a datagram sent back as a STUN binding success response.
bool is_binding_success(const std::string& d) {
    StunMessage m;
    Error err = m.decode(reinterpret_cast<const uint8_t*>(d.data()), d.size());
    bool ok = err.ok() && m.type == kStunBindingSuccess;
    err.ignore();
    return ok;
}

class RtcDatagramRouterTest : public ::testing::Test {
  protected:
    void deliver(std::vector<uint8_t> d, const StunAddress& from, const std::string& origin, utime_t now) {
        FakeReplyPath reply(origin, &sent_);
        router_.deliver(d.data(), d.size(), from, &reply, now);
    }

    RtcTestSessions sessions_;
    RtcRoutingTable routes_;
    RtcDatagramRouter router_{&routes_};
    std::vector<Sent> sent_;
};

}  // namespace

TEST_F(RtcDatagramRouterTest, AnAddressIsBoundOnlyOnceThePeerVerifiedAStunRequest) {
    const utime_t now = 10 * kUsPerSecond;
    auto s = sessions_.make(kRfc5769LocalUfrag, "t1");
    ASSERT_TRUE(s->start(now).ok());
    routes_.add(s.get());

    // Found by its ufrag, but MESSAGE-INTEGRITY does not verify: nothing is
    // bound, nothing answered, the drop counted.
    std::vector<uint8_t> forged = rfc5769_request();
    forged[forged.size() - 12] ^= 0x01;  // a byte of the HMAC
    deliver(forged, kAddrA, "A", now);
    EXPECT_EQ(routes_.address_count(), 0u);
    EXPECT_EQ(s->send_path(), nullptr);
    EXPECT_TRUE(sent_.empty());
    EXPECT_EQ(router_.stats().rx_stun, 1u);
    EXPECT_EQ(router_.stats().rx_dropped, 1u);

    // The genuine request: answered on the reply path, and its address bound.
    deliver(rfc5769_request(), kAddrA, "A", now);
    ASSERT_EQ(sent_.size(), 1u);
    EXPECT_EQ(sent_[0].origin, "A");
    EXPECT_TRUE(is_binding_success(sent_[0].data));
    EXPECT_EQ(routes_.find_by_address(kAddrA), s.get());
    ASSERT_NE(s->send_path(), nullptr);
    EXPECT_EQ(s->tcp_conn(), nullptr);
    EXPECT_STREQ(s->transport(), "udp");
    EXPECT_EQ(router_.stats().rx_dropped, 1u);

    // What the session sends now goes by its kept copy of that path.
    s->send_path()->send_copy(reinterpret_cast<const uint8_t*>("x"), 1);
    ASSERT_EQ(sent_.size(), 2u);
    EXPECT_EQ(sent_[1].origin, "A (kept)");
}

TEST_F(RtcDatagramRouterTest, NatRebindingMovesTheAddressAndThePath) {
    utime_t now = 10 * kUsPerSecond;
    auto s = sessions_.make(kRfc5769LocalUfrag, "t1");
    ASSERT_TRUE(s->start(now).ok());
    routes_.add(s.get());
    deliver(rfc5769_request(), kAddrA, "A", now);
    ASSERT_EQ(routes_.find_by_address(kAddrA), s.get());

    // The selected address went quiet; the same check comes from a new port.
    now += kRtcRebindQuiet;
    deliver(rfc5769_request(), kAddrC, "C", now);
    EXPECT_EQ(routes_.find_by_address(kAddrC), s.get());
    EXPECT_EQ(routes_.find_by_address(kAddrA), nullptr);
    EXPECT_EQ(routes_.address_count(), 1u);
    sent_.clear();
    s->send_path()->send_copy(reinterpret_cast<const uint8_t*>("x"), 1);
    ASSERT_EQ(sent_.size(), 1u);
    EXPECT_EQ(sent_[0].origin, "C (kept)");

    // The old address routes nothing now.
    uint64_t unknown = router_.stats().rx_unknown_addr;
    deliver(rtp_packet(), kAddrA, "A", now);
    EXPECT_EQ(router_.stats().rx_unknown_addr, unknown + 1);
}

TEST_F(RtcDatagramRouterTest, DatagramsNoSessionTakesAreCounted) {
    auto s = sessions_.make(kRfc5769LocalUfrag, "t1");
    ASSERT_TRUE(s->start(kUsPerSecond).ok());
    routes_.add(s.get());

    deliver(rtp_packet(), kAddrA, "A", kUsPerSecond);    // an address nobody verified
    deliver(dtls_record(), kAddrA, "A", kUsPerSecond);
    std::vector<uint8_t> cut = rfc5769_request();
    cut.resize(30);
    deliver(cut, kAddrA, "A", kUsPerSecond);             // STUN that does not decode
    deliver({}, kAddrA, "A", kUsPerSecond);              // empty
    const RtcDatagramRouter::Stats& st = router_.stats();
    EXPECT_EQ(st.rx_packets, 4u);
    EXPECT_EQ(st.rx_rtp, 1u);
    EXPECT_EQ(st.rx_dtls, 1u);
    EXPECT_EQ(st.rx_stun, 1u);
    EXPECT_EQ(st.rx_unknown_addr, 2u);
    EXPECT_EQ(st.rx_dropped, 4u);
    EXPECT_TRUE(sent_.empty());
    EXPECT_EQ(routes_.address_count(), 0u);
}

namespace {

struct VerifiedLog : RtcDatagramRouter::Listener {
    void on_session_verified(RtcSession* session, utime_t now) override {
        told.push_back(session);
        // Told after the datagram was handled: its answer is queued, its address bound.
        bound_when_told = session->send_path() != nullptr;
        at = now;
    }
    std::vector<RtcSession*> told;
    bool bound_when_told = false;
    utime_t at = 0;
};

}  // namespace

TEST_F(RtcDatagramRouterTest, TheListenerHearsOfTheFirstVerifiedBindingOnce) {
    utime_t now = 10 * kUsPerSecond;
    VerifiedLog log;
    router_.set_listener(&log);
    auto s = sessions_.make(kRfc5769LocalUfrag, "t1");
    ASSERT_TRUE(s->start(now).ok());
    routes_.add(s.get());

    std::vector<uint8_t> forged = rfc5769_request();
    forged[forged.size() - 12] ^= 0x01;
    deliver(forged, kAddrA, "A", now);  // does not verify: still pending
    EXPECT_TRUE(log.told.empty());

    deliver(rfc5769_request(), kAddrA, "A", now);
    ASSERT_EQ(log.told.size(), 1u);
    EXPECT_EQ(log.told[0], s.get());
    EXPECT_TRUE(log.bound_when_told);
    EXPECT_EQ(log.at, now);

    // Consent checks and a NAT rebinding are not a first binding.
    deliver(rfc5769_request(), kAddrA, "A", now + kUsPerSecond);
    now += 2 * kUsPerSecond + kRtcRebindQuiet;
    deliver(rfc5769_request(), kAddrC, "C", now);
    EXPECT_EQ(routes_.find_by_address(kAddrC), s.get());
    EXPECT_EQ(log.told.size(), 1u);
    router_.set_listener(nullptr);
}
