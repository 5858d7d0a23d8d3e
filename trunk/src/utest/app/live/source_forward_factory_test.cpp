// LiveSource's forward slot: made at each publish the source's own publisher
// makes (any protocol), never for a pull from another server, dropped at the
// unpublish and when the factory goes.
#include <gtest/gtest.h>

#include "app/live/live_source.hpp"
#include "app/live/source_manager.hpp"

using namespace srs;

namespace {

struct CountingForward : LiveSourceBridge {
    explicit CountingForward(int* alive) : alive_(alive) { (*alive_)++; }
    ~CountingForward() override { (*alive_)--; }
    void on_live_message(const LiveMessagePtr&) override {}
    int* alive_;
};

struct CountingFactory : LiveBridgeFactory {
    std::unique_ptr<LiveSourceBridge> create_bridge(LiveSource* source) override {
        made++;
        last_param = source->publish_options().param;
        return std::unique_ptr<LiveSourceBridge>(new CountingForward(&alive));
    }
    int made = 0;
    int alive = 0;
    std::string last_param;
};

}  // namespace

TEST(SourceForwardFactory, MadePerPublishDroppedAtUnpublish) {
    CountingFactory factory;
    SourceManager sources;
    sources.set_forward_factory(&factory);
    LiveSource* s = sources.fetch_or_create("__defaultVhost__", "live", "a");
    SourceOptions o;
    o.param = "?k=v";
    o.bridge = false;  // a WebRTC publisher is forwarded too
    ASSERT_TRUE(s->on_publish("c1", o).ok());
    EXPECT_EQ(1, factory.made);
    EXPECT_EQ(1, factory.alive);
    EXPECT_EQ("?k=v", factory.last_param);
    s->on_unpublish();
    EXPECT_EQ(0, factory.alive);

    // A pull from another server is not forwarded here.
    SourceOptions pulled;
    pulled.claimed = false;
    ASSERT_TRUE(s->on_publish("c2", pulled).ok());
    EXPECT_EQ(1, factory.made);
    s->on_unpublish();

    // The factory taken back drops the forward of a live publish.
    ASSERT_TRUE(s->on_publish("c3", o).ok());
    EXPECT_EQ(1, factory.alive);
    sources.set_forward_factory(nullptr);
    EXPECT_EQ(0, factory.alive);
    s->on_unpublish();
}
