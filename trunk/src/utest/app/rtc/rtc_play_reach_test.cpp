// Whether a WebRTC player of a stream gets media, and the reason the API,
// the WHEP answer and the log give, for each way a stream can be (not) fed.
#include <gtest/gtest.h>

#include "app/rtc/rtc_play_reach.hpp"

using namespace srs;

namespace {

// rtc_server and the vhost's rtc on, rtmp_to_rtc off, nobody publishing.
RtcPlayFacts on() {
    RtcPlayFacts f;
    f.server_enabled = true;
    f.vhost = "__defaultVhost__";
    f.vhost_enabled = true;
    return f;
}

}  // namespace

TEST(RtcPlayReach, WebRtcOffReachesNobody) {
    RtcPlayFacts f = on();
    f.server_enabled = false;
    RtcPlayReach r = rtc_play_reach(f);
    EXPECT_FALSE(r.play);
    EXPECT_EQ("rtc_server is off", r.reason);
    EXPECT_EQ("turn rtc_server.enabled on", r.hint);

    f = on();
    f.vhost = "v.example";
    f.vhost_enabled = false;
    f.rtmp_to_rtc = true;
    r = rtc_play_reach(f);
    EXPECT_FALSE(r.play);
    EXPECT_EQ("rtc is off in vhost v.example", r.reason);
}

TEST(RtcPlayReach, RtmpWithoutBridgeReachesNobody) {
    RtcPlayFacts f = on();
    f.published = true;
    f.how = "published over RTMP";
    RtcPlayReach r = rtc_play_reach(f);
    EXPECT_FALSE(r.play);
    EXPECT_FALSE(r.waiting);
    EXPECT_EQ("published over RTMP and rtmp_to_rtc is off in vhost __defaultVhost__", r.reason);
    EXPECT_EQ("turn rtc.rtmp_to_rtc on in vhost __defaultVhost__ and publish again, or publish over WebRTC (WHIP)",
              r.hint);

    // Turned on by a reload after the publish: the bridge is made at publish time only.
    f.rtmp_to_rtc = true;
    r = rtc_play_reach(f);
    EXPECT_FALSE(r.play);
    EXPECT_EQ("published over RTMP before rtmp_to_rtc was on in vhost __defaultVhost__", r.reason);
    EXPECT_EQ("publish it again to bridge it", r.hint);

    // The publisher's client is not known: still said plainly.
    f = on();
    f.published = true;
    r = rtc_play_reach(f);
    EXPECT_FALSE(r.play);
    EXPECT_EQ("published, not over WebRTC, and rtmp_to_rtc is off in vhost __defaultVhost__", r.reason);
}

TEST(RtcPlayReach, BridgedOrWebRtcPublisherReaches) {
    RtcPlayFacts f = on();
    f.rtmp_to_rtc = true;
    f.published = true;
    f.how = "published over RTMP";
    f.rtc_publisher = true;
    f.bridged = true;
    RtcPlayReach r = rtc_play_reach(f);
    EXPECT_TRUE(r.play);
    EXPECT_EQ("published over RTMP, bridged to WebRTC (rtmp_to_rtc on in vhost __defaultVhost__)", r.reason);
    EXPECT_EQ("", r.hint);

    // WHIP: rtmp_to_rtc does not matter.
    f = on();
    f.published = true;
    f.how = "published over RTC";
    f.rtc_publisher = true;
    r = rtc_play_reach(f);
    EXPECT_TRUE(r.play);
    EXPECT_EQ("published over WebRTC", r.reason);
}

TEST(RtcPlayReach, UnpublishedStreamWaits) {
    RtcPlayFacts f = on();
    f.rtmp_to_rtc = true;
    RtcPlayReach r = rtc_play_reach(f);
    EXPECT_TRUE(r.play);
    EXPECT_TRUE(r.waiting);
    EXPECT_EQ("no publisher yet", r.reason);

    f.rtmp_to_rtc = false;
    r = rtc_play_reach(f);
    EXPECT_TRUE(r.play);
    EXPECT_TRUE(r.waiting);
    EXPECT_EQ("no publisher yet; rtmp_to_rtc is off in vhost __defaultVhost__: only a WebRTC (WHIP) publisher "
              "would reach WebRTC players",
              r.reason);
}
