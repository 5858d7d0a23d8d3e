// HTTP-FLV's pure pieces: mount templates and the tracks a response announces.
#include <gtest/gtest.h>

#include "app/http/http_flv.hpp"
#include "app/live/live_source.hpp"
#include "io/runtime.hpp"

using namespace srs;

TEST(AppHttpFlvMount, DefaultVhostLeavesTheVhostOut) {
    std::string app, stream;
    ASSERT_TRUE(HttpFlvHandler::match_mount("[vhost]/[app]/[stream].flv", "__defaultVhost__", "/live/livestream.flv",
                                            &app, &stream));
    EXPECT_EQ(app, "live");
    EXPECT_EQ(stream, "livestream");
    // The app may hold slashes, the stream not.
    ASSERT_TRUE(HttpFlvHandler::match_mount("[vhost]/[app]/[stream].flv", "__defaultVhost__", "/a/b/s.flv", &app,
                                            &stream));
    EXPECT_EQ(app, "a/b");
    EXPECT_EQ(stream, "s");
    EXPECT_FALSE(HttpFlvHandler::match_mount("[vhost]/[app]/[stream].flv", "__defaultVhost__", "/live.flv", &app,
                                             &stream));
    EXPECT_FALSE(HttpFlvHandler::match_mount("[vhost]/[app]/[stream].flv", "__defaultVhost__", "/live/s.ts", &app,
                                             &stream));
}

TEST(AppHttpFlvMount, NamedVhostIsLiteralAndEscaped) {
    std::string app, stream;
    ASSERT_TRUE(HttpFlvHandler::match_mount("[vhost]/[app]/[stream].flv", "a.b.com", "/a.b.com/live/s.flv", &app,
                                            &stream));
    EXPECT_EQ(app, "live");
    // "." in the vhost is a dot, not any character.
    EXPECT_FALSE(HttpFlvHandler::match_mount("[vhost]/[app]/[stream].flv", "a.b.com", "/aXbXcom/live/s.flv", &app,
                                             &stream));
    // A template without [app] or [stream] never matches.
    EXPECT_FALSE(HttpFlvHandler::match_mount("/live/fixed.flv", "__defaultVhost__", "/live/fixed.flv", &app, &stream));
    // A custom template.
    ASSERT_TRUE(HttpFlvHandler::match_mount("/flv/[app]-[stream].flv", "__defaultVhost__", "/flv/live-s1.flv", &app,
                                            &stream));
    EXPECT_EQ(app, "live");
    EXPECT_EQ(stream, "s1");
}

TEST(AppHttpFlvTracks, GuessFollowsTheStreamOnceItCarriesMedia) {
    // Audio-only stream, guess on: only audio announced, whatever the conf says.
    FlvTracks t = choose_flv_tracks(true, true, true, true, true, false);
    EXPECT_TRUE(t.audio);
    EXPECT_FALSE(t.video);
    EXPECT_TRUE(t.drop_unannounced);
    t = choose_flv_tracks(false, false, true, false, false, true);
    EXPECT_FALSE(t.audio);
    EXPECT_TRUE(t.video);
    EXPECT_FALSE(t.drop_unannounced);
    // Nothing carried yet: the configured flags stand.
    t = choose_flv_tracks(true, false, true, true, false, false);
    EXPECT_TRUE(t.audio);
    EXPECT_FALSE(t.video);
}

TEST(AppHttpFlvTracks, WithoutGuessTheConfWins) {
    FlvTracks t = choose_flv_tracks(true, false, false, true, true, true);
    EXPECT_TRUE(t.audio);
    EXPECT_FALSE(t.video);
    t = choose_flv_tracks(false, true, false, true, true, false);
    EXPECT_FALSE(t.audio);
    EXPECT_TRUE(t.video);
}

TEST(AppHttpFlvTracks, SourceTellsWhatThisPublishCarries) {
    ASSERT_TRUE(init_runtime().ok());
    LiveSource source("__defaultVhost__", "live", "s");
    ASSERT_TRUE(source.on_publish("pub", SourceOptions()).ok());
    EXPECT_FALSE(source.carries_audio());
    EXPECT_FALSE(source.carries_video());
    const uint8_t aac_raw[] = {0xaf, 0x01, 0x21, 0x00};
    ASSERT_TRUE(source.on_audio(0, SharedBytes::copy_of(aac_raw, sizeof(aac_raw))).ok());
    EXPECT_TRUE(source.carries_audio());
    EXPECT_FALSE(source.carries_video());
    // Empty bodies (some encoders send them) say nothing about the stream.
    ASSERT_TRUE(source.on_video(0, SharedBytes()).ok());
    EXPECT_FALSE(source.carries_video());
    // A new publish starts over.
    source.on_unpublish();
    ASSERT_TRUE(source.on_publish("pub2", SourceOptions()).ok());
    EXPECT_FALSE(source.carries_audio());
}
