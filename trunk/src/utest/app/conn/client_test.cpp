// The client registry with a client that is not a TCP connection (as a
// WebRTC session on a shared UDP socket will be): listed, counted, kicked.
#include <gtest/gtest.h>

#include <string>

#include "app/conn/client.hpp"
#include "utest/app/conn/fake_live_context.hpp"

using namespace srs;

TEST(AppClientKind, NamesAreSrsTypeStrings) {
    EXPECT_STREQ(client_kind_name(ClientKind::kRtmpPlay), "rtmp-play");
    EXPECT_STREQ(client_kind_name(ClientKind::kFmlePublish), "fmle-publish");
    EXPECT_STREQ(client_kind_name(ClientKind::kFlashPublish), "flash-publish");
    EXPECT_STREQ(client_kind_name(ClientKind::kFlvPlay), "flv-play");
    EXPECT_STREQ(client_kind_name(ClientKind::kRtcPlay), "rtc-play");
    EXPECT_STREQ(client_kind_name(ClientKind::kRtcPublish), "rtc-publish");
    EXPECT_STREQ(client_kind_name(ClientKind::kUnknown), "");
    EXPECT_TRUE(client_kind_publishes(ClientKind::kFmlePublish));
    EXPECT_TRUE(client_kind_publishes(ClientKind::kFlashPublish));
    EXPECT_TRUE(client_kind_publishes(ClientKind::kRtcPublish));
    EXPECT_FALSE(client_kind_publishes(ClientKind::kRtmpPlay));
    EXPECT_FALSE(client_kind_publishes(ClientKind::kFlvPlay));
    EXPECT_FALSE(client_kind_publishes(ClientKind::kRtcPlay));
    EXPECT_FALSE(client_kind_publishes(ClientKind::kUnknown));
}

TEST(AppClientRegistry, ListsCountsAndKicksANonTcpClient) {
    ClientRegistry registry;
    FakeRtcSession a("a1"), b("b2");
    registry.add(&b);
    registry.add(&a);
    EXPECT_EQ(registry.size(), 2u);
    EXPECT_EQ(registry.totals().clients, 0u);  // not yet playing or publishing
    EXPECT_EQ(registry.find("a1"), &a);
    EXPECT_EQ(registry.find("zz"), nullptr);
    ASSERT_EQ(registry.clients().size(), 2u);
    EXPECT_EQ(registry.clients()[0], &a);  // context-id order

    // Listed by the API once it plays; its info is the API's.
    EXPECT_FALSE(a.listed());
    a.info().kind = ClientKind::kRtcPlay;
    a.info().stream = "livestream";
    EXPECT_TRUE(a.listed());
    EXPECT_FALSE(a.info().publishing());
    EXPECT_EQ(registry.totals().clients, 1u);

    // Kick.
    registry.find("a1")->expire();
    EXPECT_TRUE(a.expired);
    registry.expire_all();
    EXPECT_TRUE(b.expired);

    // Bit rates are sampled by the owner, then read from const clients.
    registry.sample_kbps(0);
    a.sent = 125000;  // 1 Mbit in one second
    registry.sample_kbps(kUsPerSecond);
    const Client& ca = a;
    EXPECT_EQ(ca.send_kbps(), 1000);
    EXPECT_EQ(ca.recv_kbps(), 0);

    // Ends: the player with an error, the other (never listed) with one too;
    // removing twice counts once, and the totals keep what they leave.
    b.received = 300;
    EXPECT_EQ(registry.totals().recv_bytes, 300u);
    registry.remove(&a, true);
    registry.remove(&a, true);
    registry.remove(&b, true);
    EXPECT_EQ(registry.size(), 0u);
    ClientTotals t = registry.totals();
    EXPECT_EQ(t.clients, 1u);
    EXPECT_EQ(t.errors, 1u);  // b was not a listed client
    EXPECT_EQ(t.send_bytes, 125000u);
    EXPECT_EQ(t.recv_bytes, 300u);
}

TEST(AppClientRegistry, RemovesOnlyTheRegisteredObject) {
    ClientRegistry registry;
    FakeRtcSession a("same"), impostor("same");
    registry.add(&a);
    registry.remove(&impostor, true);
    EXPECT_EQ(registry.find("same"), &a);
    EXPECT_EQ(registry.totals().errors, 0u);
}
