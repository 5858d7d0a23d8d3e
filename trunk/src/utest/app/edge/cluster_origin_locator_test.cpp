// The vhost's origin list as the edge sees it, and the URLs it builds from a
// client's request.
#include <gtest/gtest.h>

#include "app/edge/cluster_origin_locator.hpp"
#include "app/edge/edge_request.hpp"

using namespace srs;

TEST(EdgeOriginEntry, DefaultPortAndForms) {
    std::string url;
    ASSERT_TRUE(origin_entry_to_url("127.0.0.1", &url).ok());
    EXPECT_EQ(url, "rtmp://127.0.0.1:1935");
    ASSERT_TRUE(origin_entry_to_url("10.0.0.2:19350", &url).ok());
    EXPECT_EQ(url, "rtmp://10.0.0.2:19350");
    ASSERT_TRUE(origin_entry_to_url("[::1]:1936", &url).ok());
    EXPECT_EQ(url, "rtmp://[::1]:1936");
    ASSERT_TRUE(origin_entry_to_url("[::1]", &url).ok());
    EXPECT_EQ(url, "rtmp://[::1]:1935");
    ASSERT_TRUE(origin_entry_to_url("::1", &url).ok());
    EXPECT_EQ(url, "rtmp://[::1]:1935");
}

TEST(EdgeOriginEntry, RejectsNamesAndBadPorts) {
    std::string url;
    for (const char* bad : {"", "origin.example.com", "origin:1935", "127.0.0.1:", "127.0.0.1:0",
                            "127.0.0.1:65536", "127.0.0.1:19x", "[::1", "[::1]x", ":1935"}) {
        Error err = origin_entry_to_url(bad, &url);
        EXPECT_FALSE(err.ok()) << bad;
        EXPECT_EQ(err.code(), kErrorEdgeOriginInvalid) << bad;
        err.ignore();
    }
}

TEST(EdgeClusterLocator, ListsTheVhostsOriginsInOrderEachCall) {
    std::vector<std::string> conf = {"127.0.0.1:19350", "bad.name", "127.0.0.2"};
    std::string asked;
    ClusterOriginLocator locator([&](const std::string& vhost) {
        asked = vhost;
        return conf;
    });
    std::vector<std::string> out;
    ASSERT_TRUE(locator.locate({"edge.example", "live", "s"}, &out).ok());
    EXPECT_EQ(asked, "edge.example");
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0], "rtmp://127.0.0.1:19350");
    EXPECT_EQ(out[1], "rtmp://127.0.0.2:1935");
    // A reload changes the list: the next call sees it.
    conf = {"127.0.0.3:1"};
    ASSERT_TRUE(locator.locate({"edge.example", "live", "s"}, &out).ok());
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], "rtmp://127.0.0.3:1");
}

TEST(EdgeClusterLocator, EmptyIsNobodyAllBadIsAnError) {
    std::vector<std::string> conf;
    ClusterOriginLocator locator([&](const std::string&) { return conf; });
    std::vector<std::string> out = {"stale"};
    ASSERT_TRUE(locator.locate({"v", "a", "s"}, &out).ok());
    EXPECT_TRUE(out.empty());
    conf = {"name.only"};
    Error err = locator.locate({"v", "a", "s"}, &out);
    EXPECT_EQ(err.code(), kErrorEdgeOriginInvalid);
    err.ignore();
}

TEST(EdgeRequest, OriginVhostChoice) {
    PullRequest req;
    req.vhost = "__defaultVhost__";
    req.asked_vhost = "client.example";
    EdgeOptions o;
    EXPECT_EQ(edge_origin_vhost(o, req), "__defaultVhost__");
    o.origin_vhost = "origin.example";
    EXPECT_EQ(edge_origin_vhost(o, req), "origin.example");
    o.follow_client = true;
    EXPECT_EQ(edge_origin_vhost(o, req), "client.example");
}

TEST(EdgeRequest, UpstreamUrlsKeepParamsButVhost) {
    EXPECT_EQ(edge_upstream_param(""), "");
    EXPECT_EQ(edge_upstream_param("?vhost=a"), "");
    EXPECT_EQ(edge_upstream_param("?token=x&vhost=a&domain=b&k=v"), "?token=x&k=v");
    PullRequest req;
    req.vhost = "v";
    req.app = "live";
    req.stream = "s";
    req.param = "?vhost=v&token=t";
    EXPECT_EQ(edge_upstream_url("rtmp://127.0.0.1:19350", req), "rtmp://127.0.0.1:19350/live/s?token=t");
    EXPECT_EQ(edge_upstream_tc_url("rtmp://127.0.0.1:19350", "origin.example", "live"),
              "rtmp://origin.example:19350/live");
    EXPECT_EQ(edge_upstream_tc_url("rtmp://[::1]:1935", "o", "live", "?token=t"), "rtmp://o:1935/live?token=t");
}
