// The edge manager's bookkeeping: one pull per stream whatever the number of
// players, the pull listed as a client and publishing the source, stopped
// once its players are gone for the idle time, restarted when kicked while
// players remain. The locator names no origin, so the pulls only retry.
#include <gtest/gtest.h>

#include <memory>

#include "app/edge/edge_manager.hpp"
#include "app/live/consumer_options.hpp"
#include "io/runtime.hpp"
#include "utest/app/server/fake_live_context.hpp"

using namespace srs;

namespace {

constexpr utime_t kIdle = 50 * kUsPerMs;

class NoOrigin : public OriginLocator {
  public:
    Error locate(const StreamKey&, std::vector<std::string>* out) override {
        out->clear();
        asked++;
        return Error();
    }
    int asked = 0;
};

class EdgeManagerTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

size_t ingest_clients(ClientRegistry& clients) {
    size_t n = 0;
    for (Client* c : clients.clients()) n += c->info().kind == ClientKind::kEdgeIngest;
    return n;
}

}  // namespace

TEST_F(EdgeManagerTest, OnePullPerStreamStoppedWhenUnwatched) {
    FakeLiveContext ctx("listen 1935;\nvhost __defaultVhost__ {\n cluster {\n mode remote;\n origin 127.0.0.1:1;\n }\n}\n");
    EdgeManager edge(&ctx, kIdle);
    NoOrigin locator;
    edge.set_locator(&locator);
    EXPECT_EQ(edge.locator(), &locator);
    LiveSource* source = ctx.sources().fetch_or_create("__defaultVhost__", "live", "s");
    EdgeClientRequest req{"__defaultVhost__", "__defaultVhost__", "live", "s", ""};
    ConsumerOptions copts;
    std::unique_ptr<LiveConsumer> a(source->create_consumer(copts));
    ASSERT_TRUE(edge.on_play(source, req).ok());
    std::unique_ptr<LiveConsumer> b(source->create_consumer(copts));
    ASSERT_TRUE(edge.on_play(source, req).ok());
    EXPECT_EQ(edge.size(), 1u);
    EXPECT_EQ(ingest_clients(ctx.clients()), 1u);
    EXPECT_TRUE(source->publishing());
    ASSERT_NE(edge.ingester_of(source), nullptr);
    EXPECT_EQ(edge.ingester_of(source)->upstream_url(), "");
    sleep_us(10 * kUsPerMs).ignore();  // the pull runs, finds no origin, waits to retry
    EXPECT_GE(locator.asked, 1);

    // Watched: reaping keeps it however long.
    edge.reap();
    sleep_us(2 * kIdle).ignore();
    edge.reap();
    EXPECT_EQ(edge.size(), 1u);

    // Kicked from the API while players remain: a fresh pull.
    Client* kicked = ctx.clients().find(source->publisher_cid());
    ASSERT_NE(kicked, nullptr);
    std::string old_cid = kicked->cid();
    kicked->expire();
    sleep_us(10 * kUsPerMs).ignore();
    edge.reap();
    ASSERT_EQ(edge.size(), 1u);
    EXPECT_TRUE(source->publishing());
    EXPECT_NE(source->publisher_cid(), old_cid);
    EXPECT_EQ(ingest_clients(ctx.clients()), 1u);

    // The players leave: first reap notes it, one after the idle time stops it.
    a.reset();
    b.reset();
    edge.reap();
    EXPECT_EQ(edge.size(), 1u);
    sleep_us(2 * kIdle).ignore();
    edge.reap();
    EXPECT_EQ(edge.size(), 0u);
    EXPECT_EQ(edge.ingester_of(source), nullptr);
    EXPECT_FALSE(source->publishing());
    EXPECT_EQ(ingest_clients(ctx.clients()), 0u);

    // A new player starts a new pull.
    std::unique_ptr<LiveConsumer> c(source->create_consumer(copts));
    ASSERT_TRUE(edge.on_play(source, req).ok());
    EXPECT_EQ(edge.size(), 1u);
    edge.stop();
    EXPECT_FALSE(source->publishing());
}
