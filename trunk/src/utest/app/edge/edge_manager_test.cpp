// The edge manager's bookkeeping: one pull per stream whatever the number of
// players, the pull listed as a client and publishing the source, stopped
// once its players are gone for the idle time, restarted when kicked while
// players remain. The locator names no origin, so the pulls only retry.
#include <gtest/gtest.h>

#include <memory>

#include "app/edge/edge_manager.hpp"
#include "app/live/consumer_options.hpp"
#include "io/runtime.hpp"
#include "utest/app/conn/fake_live_context.hpp"

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

// The registry's answer for every stream (empty: nobody owns it).
class OwnerLocator : public OriginLocator {
  public:
    Error locate(const StreamKey&, std::vector<std::string>* out) override {
        asked++;
        *out = owners;
        return Error();
    }
    std::vector<std::string> owners;
    int asked = 0;
};

class EdgeManagerTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

// Lets the pulls' coroutines run what they have to (no time passes).
void settle() {
    for (int i = 0; i < 20; i++) yield_now();
}

size_t ingest_clients(ClientRegistry& clients) {
    size_t n = 0;
    for (Client* c : clients.clients()) n += c->info().kind == ClientKind::kEdgeIngest;
    return n;
}

}  // namespace

TEST_F(EdgeManagerTest, OnePullPerStreamStoppedWhenUnwatched) {
    FakeLiveContext ctx("listen 1935;\nvhost __defaultVhost__ {\n cluster {\n mode remote;\n origin 127.0.0.1:1;\n }\n}\n");
    EdgeManager edge([&ctx] { return ctx.config(); }, &ctx.clients(), kIdle);
    utime_t now = 1000 * kUsPerSecond;  // the reaper's clock, moved by hand
    NoOrigin locator;
    edge.set_locator(&locator);
    EXPECT_EQ(edge.locator(), &locator);
    LiveSource* source = ctx.sources().fetch_or_create("__defaultVhost__", "live", "s");
    PullRequest req{"__defaultVhost__", "__defaultVhost__", "live", "s", ""};
    ConsumerOptions copts;
    std::unique_ptr<LiveConsumer> a(source->create_consumer(copts));
    ASSERT_TRUE(edge.on_edge_play(source, req).ok());
    std::unique_ptr<LiveConsumer> b(source->create_consumer(copts));
    ASSERT_TRUE(edge.on_edge_play(source, req).ok());
    EXPECT_EQ(edge.size(), 1u);
    EXPECT_EQ(ingest_clients(ctx.clients()), 1u);
    EXPECT_TRUE(source->publishing());
    ASSERT_NE(edge.ingester_of(source), nullptr);
    EXPECT_EQ(edge.ingester_of(source)->upstream_url(), "");
    settle();  // the pull runs, finds no origin, waits to retry
    EXPECT_GE(locator.asked, 1);

    // Watched: reaping keeps it however long.
    edge.reap(now);
    now += 2 * kIdle;
    edge.reap(now);
    EXPECT_EQ(edge.size(), 1u);

    // Kicked from the API while players remain: a fresh pull.
    Client* kicked = ctx.clients().find(source->publisher_cid());
    ASSERT_NE(kicked, nullptr);
    std::string old_cid = kicked->cid();
    kicked->expire();
    settle();
    edge.reap(now);
    ASSERT_EQ(edge.size(), 1u);
    EXPECT_TRUE(source->publishing());
    EXPECT_NE(source->publisher_cid(), old_cid);
    EXPECT_EQ(ingest_clients(ctx.clients()), 1u);

    // The players leave: first reap notes it, one after the idle time stops it.
    a.reset();
    b.reset();
    edge.reap(now);
    EXPECT_EQ(edge.size(), 1u);
    now += 2 * kIdle;
    edge.reap(now);
    EXPECT_EQ(edge.size(), 0u);
    EXPECT_EQ(edge.ingester_of(source), nullptr);
    EXPECT_FALSE(source->publishing());
    EXPECT_EQ(ingest_clients(ctx.clients()), 0u);

    // A new player starts a new pull.
    std::unique_ptr<LiveConsumer> c(source->create_consumer(copts));
    ASSERT_TRUE(edge.on_edge_play(source, req).ok());
    EXPECT_EQ(edge.size(), 1u);
    edge.stop();
    EXPECT_FALSE(source->publishing());
}

// An origin's player of a stream it does not publish: pulled only when the
// registry names another owner, shared, and given up to a local publisher.
TEST_F(EdgeManagerTest, OriginPullsFromTheOwnerOnly) {
    FakeLiveContext ctx("listen 1935;\nvhost __defaultVhost__ {\n cluster {\n origin 127.0.0.1:1;\n }\n}\n");
    EdgeManager edge([&ctx] { return ctx.config(); }, &ctx.clients(), kIdle);
    utime_t now = 1000 * kUsPerSecond;  // the reaper's clock, moved by hand
    LiveSource* source = ctx.sources().fetch_or_create("__defaultVhost__", "live", "s");
    PullRequest req{"__defaultVhost__", "__defaultVhost__", "live", "s", ""};
    ConsumerOptions copts;
    std::unique_ptr<LiveConsumer> a(source->create_consumer(copts));
    bool pulling = true;

    // No registry (stream_registry off): as before, wait for a local publisher.
    ASSERT_TRUE(edge.on_origin_play(source, req, &pulling).ok());
    EXPECT_FALSE(pulling);
    EXPECT_FALSE(edge.has_registry());

    OwnerLocator registry;
    edge.set_registry(&registry);
    // Nobody owns it: no pull.
    ASSERT_TRUE(edge.on_origin_play(source, req, &pulling).ok());
    EXPECT_FALSE(pulling);
    EXPECT_EQ(edge.size(), 0u);
    EXPECT_FALSE(source->publishing());

    // Another origin owns it: one pull, which asks the registry only.
    registry.owners = {"rtmp://127.0.0.1:1"};
    ASSERT_TRUE(edge.on_origin_play(source, req, &pulling).ok());
    EXPECT_TRUE(pulling);
    std::unique_ptr<LiveConsumer> b(source->create_consumer(copts));
    int asked = registry.asked;
    ASSERT_TRUE(edge.on_origin_play(source, req, &pulling).ok());
    EXPECT_TRUE(pulling);
    EXPECT_EQ(registry.asked, asked);  // the second player joins without a lookup
    EXPECT_EQ(edge.size(), 1u);
    EXPECT_EQ(ingest_clients(ctx.clients()), 1u);
    EXPECT_TRUE(source->publishing());

    // A local publisher takes it over: the pull stops, the players stay.
    EXPECT_TRUE(edge.stop_pull(source));
    EXPECT_FALSE(edge.stop_pull(source));
    EXPECT_EQ(edge.size(), 0u);
    EXPECT_FALSE(source->publishing());
    EXPECT_EQ(source->consumer_count(), 2u);
    ASSERT_TRUE(source->on_publish("local", SourceOptions()).ok());
    ASSERT_TRUE(edge.on_origin_play(source, req, &pulling).ok());
    EXPECT_FALSE(pulling);  // a local publisher has it: never pulled
    EXPECT_EQ(edge.size(), 0u);
    source->on_unpublish();

    // The players leave: an origin's pull ends like an edge's.
    ASSERT_TRUE(edge.on_origin_play(source, req, &pulling).ok());
    ASSERT_TRUE(pulling);
    a.reset();
    b.reset();
    edge.reap(now);
    now += 2 * kIdle;
    edge.reap(now);
    EXPECT_EQ(edge.size(), 0u);
    EXPECT_FALSE(source->publishing());
}

// Edge vhosts ask the registry first and the cluster list after.
TEST_F(EdgeManagerTest, EdgeLocatorWithRegistry) {
    FakeLiveContext ctx("listen 1935;\nvhost __defaultVhost__ {\n cluster {\n mode remote;\n origin 127.0.0.1:1935 127.0.0.1:1936;\n }\n}\n");
    EdgeManager edge([&ctx] { return ctx.config(); }, &ctx.clients(), kIdle);
    StreamKey key{"__defaultVhost__", "live", "s"};
    std::vector<std::string> out;
    ASSERT_TRUE(edge.locator()->locate(key, &out).ok());
    EXPECT_EQ(out, (std::vector<std::string>{"rtmp://127.0.0.1:1935", "rtmp://127.0.0.1:1936"}));
    OwnerLocator registry;
    registry.owners = {"rtmp://127.0.0.1:1936"};
    edge.set_registry(&registry);
    ASSERT_TRUE(edge.locator()->locate(key, &out).ok());
    EXPECT_EQ(out, (std::vector<std::string>{"rtmp://127.0.0.1:1936", "rtmp://127.0.0.1:1935"}));
    edge.set_registry(nullptr);
    ASSERT_TRUE(edge.locator()->locate(key, &out).ok());
    EXPECT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0], "rtmp://127.0.0.1:1935");
}
