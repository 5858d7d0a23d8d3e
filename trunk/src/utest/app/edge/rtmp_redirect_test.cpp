// RTMP 302 as SRS sends it: the target from the _error's info object, and a
// client that follows it (against scripted peers on loopback).
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "app/edge/edge_keyframe_gate.hpp"
#include "app/edge/rtmp_redirect.hpp"
#include "app/upstream/rtmp_transport.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "protocol/rtmp/rtmp_command.hpp"
#include "utest/app/edge/scripted_rtmp_server.hpp"

using namespace srs;

namespace {

constexpr utime_t kTimeout = 5 * kUsPerSecond;

Amf0Value redirect_info(const std::string& redirect, const std::string& redirect2 = "") {
    Amf0Value info = Amf0Value::object();
    info.set("level", Amf0Value::string("error"));
    info.set("code", Amf0Value::string("NetConnection.Connect.Rejected"));
    info.set("description", Amf0Value::string("RTMP 302 Redirect"));
    Amf0Value ex = Amf0Value::object();
    ex.set("code", Amf0Value::number(302));
    if (!redirect.empty()) ex.set("redirect", Amf0Value::string(redirect));
    if (!redirect2.empty()) ex.set("redirect2", Amf0Value::string(redirect2));
    info.set("ex", ex);
    return info;
}

// One connection: handshake, then the connect answer `redirect_to` decides:
// a _result (empty), or a 302 to it.
class FakeOrigin : public utest::ScriptedRtmpServer {
  public:
    explicit FakeOrigin(std::string redirect_to = "")
        : ScriptedRtmpServer("origin"), redirect_to_(std::move(redirect_to)) {}
    std::string seen_tc_url;

  private:
    Error serve(TcpConn*, RtmpTransport& t) override {
        RtmpCommand cmd;
        if (Error err = expect(t, kRtmpCmdConnect, &cmd); !err.ok()) return err;
        RtmpConnectRequest req;
        if (Error err = parse_rtmp_request(cmd, &req); !err.ok()) return err;
        seen_tc_url = req.tc_url;
        if (redirect_to_.empty()) {
            Amf0Value data = Amf0Value::ecma_array();
            if (Error err = t.send_command(build_connect_result(req.transaction_id, 0, data), 0,
                                           kRtmpCidOverConnection);
                !err.ok()) {
                return err;
            }
        } else {
            RtmpStatus status;
            status.level = "error";
            status.code = "NetConnection.Connect.Rejected";
            RtmpCommand e = build_error(req.transaction_id, status);
            e.args.back() = redirect_info(redirect_to_);
            if (Error err = t.send_command(e, 0, kRtmpCidOverConnection); !err.ok()) return err;
        }
        return hold_until_close(t);
    }
    std::string redirect_to_;
};

class EdgeRedirectTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

}  // namespace

TEST(EdgeRedirectTarget, TcUrlGetsTheStreamAndParams) {
    std::string target;
    ASSERT_TRUE(rtmp_redirect_target(redirect_info("rtmp://10.0.0.9:1936/live"), "rtmp://1.2.3.4/live/s?token=t",
                                     &target));
    EXPECT_EQ(target, "rtmp://10.0.0.9:1936/live/s?token=t");
    ASSERT_TRUE(rtmp_redirect_target(redirect_info("rtmp://10.0.0.9:1936/live/"), "rtmp://1.2.3.4/live/s", &target));
    EXPECT_EQ(target, "rtmp://10.0.0.9:1936/live/s");
    // Only a host: the asked app and stream.
    ASSERT_TRUE(rtmp_redirect_target(redirect_info("rtmp://10.0.0.9:1936"), "rtmp://1.2.3.4/live/s", &target));
    EXPECT_EQ(target, "rtmp://10.0.0.9:1936/live/s");
    // Already a stream URL.
    ASSERT_TRUE(rtmp_redirect_target(redirect_info("rtmp://10.0.0.9/other/x"), "rtmp://1.2.3.4/live/s", &target));
    EXPECT_EQ(target, "rtmp://10.0.0.9/other/x");
}

TEST(EdgeRedirectTarget, Redirect2WinsAndOthersAreNotRedirects) {
    std::string target;
    ASSERT_TRUE(rtmp_redirect_target(redirect_info("rtmp://a/live", "rtmp://10.0.0.1:2/live/z"), "rtmp://b/live/s",
                                     &target));
    EXPECT_EQ(target, "rtmp://10.0.0.1:2/live/z");
    Amf0Value plain = redirect_info("rtmp://a/live");
    plain.get("ex")->set("code", Amf0Value::number(401));
    EXPECT_FALSE(rtmp_redirect_target(plain, "rtmp://b/live/s", &target));
    Amf0Value other = redirect_info("rtmp://a/live");
    other.set("code", Amf0Value::string("NetConnection.Connect.Failed"));
    EXPECT_FALSE(rtmp_redirect_target(other, "rtmp://b/live/s", &target));
    Amf0Value no_ex = Amf0Value::object();
    no_ex.set("code", Amf0Value::string("NetConnection.Connect.Rejected"));
    EXPECT_FALSE(rtmp_redirect_target(no_ex, "rtmp://b/live/s", &target));
    EXPECT_FALSE(rtmp_redirect_target(Amf0Value(), "rtmp://b/live/s", &target));
    EXPECT_FALSE(rtmp_redirect_target(redirect_info(""), "rtmp://b/live/s", &target));
}

TEST_F(EdgeRedirectTest, FollowsOneHopAndDropsTheTcUrlOverride) {
    FakeOrigin target;
    ASSERT_TRUE(target.start().ok());
    FakeOrigin first(target.base() + "/live");
    ASSERT_TRUE(first.start().ok());
    RtmpClient client;
    client.set_tc_url("rtmp://origin.vhost:1935/live");
    std::string final_url;
    Error err = rtmp_connect_following_redirects(&client, first.base() + "/live/s?k=v", kTimeout, kMaxRtmpRedirects,
                                                 &final_url);
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_EQ(final_url, target.base() + "/live/s?k=v");
    EXPECT_EQ(first.seen_tc_url, "rtmp://origin.vhost:1935/live");
    EXPECT_EQ(target.seen_tc_url, target.base() + "/live");
    client.close().ignore();
}

TEST_F(EdgeRedirectTest, GivesUpAfterTheHopLimit) {
    // a -> b -> c -> d -> e: four hops, one too many.
    FakeOrigin e;
    ASSERT_TRUE(e.start().ok());
    FakeOrigin d(e.base() + "/live");
    ASSERT_TRUE(d.start().ok());
    FakeOrigin c(d.base() + "/live");
    ASSERT_TRUE(c.start().ok());
    FakeOrigin b(c.base() + "/live");
    ASSERT_TRUE(b.start().ok());
    FakeOrigin a(b.base() + "/live");
    ASSERT_TRUE(a.start().ok());
    RtmpClient client;
    std::string final_url;
    Error err = rtmp_connect_following_redirects(&client, a.base() + "/live/s", kTimeout, 3, &final_url);
    EXPECT_EQ(err.code(), kErrorEdgeRedirectLoop) << err.describe();
    err.ignore();
    EXPECT_FALSE(client.connected());
}

TEST(EdgeKeyframeGate, VideoWaitsForAKeyframeAfterReset) {
    const uint8_t sh[] = {0x17, 0, 0, 0, 0, 1, 2, 3};
    const uint8_t key[] = {0x17, 1, 0, 0, 0, 9, 9};
    const uint8_t inter[] = {0x27, 1, 0, 0, 0, 9};
    EdgeKeyframeGate gate;
    EXPECT_FALSE(gate.pass_video(inter, sizeof(inter)));
    EXPECT_TRUE(gate.pass_video(sh, sizeof(sh)));
    EXPECT_TRUE(gate.pass_video(key, sizeof(key)));
    EXPECT_TRUE(gate.pass_video(inter, sizeof(inter)));
    gate.reset();
    EXPECT_FALSE(gate.pass_video(inter, sizeof(inter)));
    EXPECT_TRUE(gate.pass_video(sh, sizeof(sh)));
    EXPECT_FALSE(gate.pass_video(inter, sizeof(inter)));
    EXPECT_TRUE(gate.pass_video(key, sizeof(key)));
    EXPECT_EQ(gate.dropped(), 3u);
    EXPECT_FALSE(gate.pass_video(nullptr, 0));
}
