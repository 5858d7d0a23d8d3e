// The registry-then-cluster-list locator an edge uses with the stream
// registry on: order, duplicates, a failing part, and re-reading each time.
#include <gtest/gtest.h>

#include "app/edge/composite_origin_locator.hpp"

using namespace srs;

namespace {

class ListLocator : public OriginLocator {
  public:
    Error locate(const StreamKey&, std::vector<std::string>* out) override {
        asked++;
        if (fail) return SRS_ERR(kErrorEdgeOriginInvalid, "down");
        *out = urls;
        return Error();
    }
    std::vector<std::string> urls;
    bool fail = false;
    int asked = 0;
};

const StreamKey kKey{"__defaultVhost__", "live", "s"};

}  // namespace

TEST(CompositeOriginLocator, OwnerFirstThenListWithoutDuplicates) {
    ListLocator registry, cluster;
    registry.urls = {"rtmp://127.0.0.1:1936"};
    cluster.urls = {"rtmp://127.0.0.1:1935", "rtmp://127.0.0.1:1936"};
    CompositeOriginLocator both({&registry, &cluster});
    std::vector<std::string> out{"stale"};
    ASSERT_TRUE(both.locate(kKey, &out).ok());
    EXPECT_EQ(out, (std::vector<std::string>{"rtmp://127.0.0.1:1936", "rtmp://127.0.0.1:1935"}));
}

TEST(CompositeOriginLocator, NobodyOwnsItKeepsTheList) {
    ListLocator registry, cluster;
    cluster.urls = {"rtmp://127.0.0.1:1935"};
    CompositeOriginLocator both({&registry, &cluster});
    std::vector<std::string> out;
    ASSERT_TRUE(both.locate(kKey, &out).ok());
    EXPECT_EQ(out, cluster.urls);
}

TEST(CompositeOriginLocator, RegistryDownStillAnswersTheList) {
    ListLocator registry, cluster;
    registry.fail = true;
    cluster.urls = {"rtmp://127.0.0.1:1935"};
    CompositeOriginLocator both({&registry, &cluster});
    std::vector<std::string> out;
    ASSERT_TRUE(both.locate(kKey, &out).ok());
    EXPECT_EQ(out, cluster.urls);

    // Every part down: the error says so (the edge logs it and retries).
    cluster.fail = true;
    Error err = both.locate(kKey, &out);
    EXPECT_TRUE(err.failed());
    EXPECT_TRUE(out.empty());
    err.ignore();
}

TEST(CompositeOriginLocator, AsksEveryPartOnEveryLocate) {
    ListLocator registry, cluster;
    CompositeOriginLocator both({&registry, &cluster});
    std::vector<std::string> out;
    ASSERT_TRUE(both.locate(kKey, &out).ok());
    EXPECT_TRUE(out.empty());
    // The owner moved: the next try sees it.
    registry.urls = {"rtmp://127.0.0.1:1937"};
    ASSERT_TRUE(both.locate(kKey, &out).ok());
    EXPECT_EQ(out, registry.urls);
    EXPECT_EQ(registry.asked, 2);
    EXPECT_EQ(cluster.asked, 2);
}
