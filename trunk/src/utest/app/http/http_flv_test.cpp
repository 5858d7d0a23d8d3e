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

namespace {

LiveMessagePtr flv_msg(LiveMessageKind kind, uint32_t ts, const std::string& body) {
    return LiveMessagePtr(LiveMessage::create(kind, ts, SharedBytes::copy_of(body.data(), body.size())));
}

// One FLV tag as FlvWriter lays it out: header, body, PreviousTagSize.
std::string flv_tag(uint8_t type, uint32_t ts, const std::string& body) {
    uint8_t h[kFlvTagHeaderSize], p[kFlvPreviousTagSize];
    FlvWriter::write_tag_header(h, type, ts, static_cast<uint32_t>(body.size()));
    FlvWriter::write_previous_tag_size(p, static_cast<uint32_t>(kFlvTagHeaderSize + body.size()));
    return std::string(reinterpret_cast<char*>(h), sizeof(h)) + body + std::string(reinterpret_cast<char*>(p), sizeof(p));
}

}  // namespace

TEST(AppHttpFlvFraming, TagTypesOfKinds) {
    EXPECT_EQ(flv_tag_type_of(*flv_msg(LiveMessageKind::kAudio, 0, "a")), kFlvTagAudio);
    EXPECT_EQ(flv_tag_type_of(*flv_msg(LiveMessageKind::kVideo, 0, "v")), kFlvTagVideo);
    EXPECT_EQ(flv_tag_type_of(*flv_msg(LiveMessageKind::kData, 0, "d")), kFlvTagScript);
}

TEST(AppHttpFlvFraming, SlotHoldsTagHeaderAndPreviousSizeOnce) {
    LiveMessagePtr m = flv_msg(LiveMessageKind::kVideo, 1000, "frame");
    const uint8_t* f = flv_framing_of(m.get());
    std::string want = flv_tag(kFlvTagVideo, 1000, "frame");
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(f), kFlvTagHeaderSize), want.substr(0, kFlvTagHeaderSize));
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(f + kFlvTagHeaderSize), kFlvPreviousTagSize),
              want.substr(want.size() - kFlvPreviousTagSize));
    EXPECT_EQ(flv_framing_of(m.get()), f);  // cached: the second player reuses it
    EXPECT_FALSE(m->framing(flv_framing_slot()).empty());
}

TEST(AppHttpFlvFraming, BatchIsTwoIovecsPerTagPlusOne) {
    std::vector<LiveMessagePtr> batch = {flv_msg(LiveMessageKind::kData, 0, "meta"),
                                         flv_msg(LiveMessageKind::kVideo, 0, "key"),
                                         flv_msg(LiveMessageKind::kAudio, 23, "aac")};
    std::vector<struct iovec> iov;
    std::vector<FlvGlue> glue;
    ASSERT_EQ(build_flv_iovecs(batch, &iov, &glue), 7u);
    std::string wire;
    for (const auto& v : iov) wire.append(static_cast<const char*>(v.iov_base), v.iov_len);
    EXPECT_EQ(wire, flv_tag(kFlvTagScript, 0, "meta") + flv_tag(kFlvTagVideo, 0, "key") +
                        flv_tag(kFlvTagAudio, 23, "aac"));
    // One tag: header, body, PreviousTagSize.
    std::vector<LiveMessagePtr> one = {batch[1]};
    EXPECT_EQ(build_flv_iovecs(one, &iov, &glue), 3u);
}
