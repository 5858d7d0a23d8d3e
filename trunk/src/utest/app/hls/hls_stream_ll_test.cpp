// Tests for LL-HLS in the stream writer, through the memory sink and a real
// store: parts of ~part target cut from the fMP4 muxer, INDEPENDENT on the
// keyframe part, the position blocking requests see, the preload hint, and
// parts dropped from the store once their segment is no longer among the
// newest.
#include <gtest/gtest.h>

#include <string>

#include "app/hls/hls_memory_sink.hpp"
#include "app/hls/hls_stream.hpp"
#include "utest/app/hls/hls_test_media.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

class NoEvents : public HlsStreamEvents {
  public:
    void on_hls_segment(const std::string&, const std::string&, const std::string&, const HlsSegmentReport&) override {
        segments++;
    }
    void disconnect_publisher() override {}
    int segments = 0;
};

using namespace srs::utest::hls_media;

struct LlHarness {
    LlHarness() : store("/w") {
        config.path = "./h";
        config.cut.fragment_s = 1;
        config.window_s = 20;
        config.fmp4 = true;
        config.memory = true;
        config.ll = true;
        config.part_s = 0.2;
        state = std::make_shared<HlsStreamState>();
        state->app = "live";
        state->stream = "s";
        state->vhost = "__defaultVhost__";
        state->sink.reset(new HlsMemorySink(&store));
        stream.reset(new HlsStream(config, state, &events, fake_clock));
        feed(true, 0, kAvcSeq, true, true);
        feed(false, 0, kAacSeq, false, true);
    }
    void feed(bool video, uint32_t ts, const std::string& body, bool key = false, bool seq = false) {
        ASSERT_TRUE(ok(stream->on_frame(video, ts, key, seq, reinterpret_cast<const uint8_t*>(body.data()),
                                        body.size())));
    }
    // One second of 25 fps video (keyframe first) and AAC, from t0.
    void gop(uint32_t t0) {
        for (uint32_t t = 0; t < 1000; t += 40) {
            feed(true, t0 + t, t == 0 ? kIdr : kP, t == 0);
            feed(false, t0 + t + 5, kAac);
        }
    }
    std::shared_ptr<HlsPlaylistSlot> slot() { return store.playlist("h/live/s.m3u8"); }

    HlsMemoryStore store;
    HlsStreamConfig config;
    std::shared_ptr<HlsStreamState> state;
    NoEvents events;
    std::unique_ptr<HlsStream> stream;
};

}  // namespace

TEST(HlsStreamLl, PartsPositionAndHint) {
    LlHarness h;
    h.gop(0);
    std::shared_ptr<HlsPlaylistSlot> slot = h.slot();
    ASSERT_NE(nullptr, slot);
    // Segment 0 open: parts of 200 ms at 0, 200, 400, 600 (the 5th waits for the cut).
    EXPECT_EQ(-1, slot->current().position.last_msn);
    EXPECT_EQ(4, slot->current().position.open_parts);
    EXPECT_EQ("/w/h/live/s-0.part4.m4s", slot->current().hint_key);
    ASSERT_NE(nullptr, h.store.get("h/live/s-0.part0.m4s"));
    EXPECT_EQ("styp", h.store.get("h/live/s-0.part1.m4s")->substr(4, 4));  // a part is a CMAF chunk
    EXPECT_NE(std::string::npos, h.store.get("h/live/s-0.part1.m4s")->find("moof"));
    EXPECT_EQ(nullptr, h.store.get("h/live/s-0.m4s"));
    h.gop(1000);  // the keyframe at 1000 closes segment 0
    EXPECT_EQ(0, slot->current().position.last_msn);
    ASSERT_NE(nullptr, h.store.get("h/live/s-0.m4s"));
    const std::string& text = *slot->current().full;
    EXPECT_NE(std::string::npos, text.find("#EXT-X-PART:DURATION=0.200,URI=\"s-0.part0.m4s\",INDEPENDENT=YES\n"
                                           "#EXT-X-PART:DURATION=0.200,URI=\"s-0.part1.m4s\"\n"))
        << text;
    EXPECT_NE(std::string::npos, text.find("#EXT-X-PART:DURATION=0.200,URI=\"s-0.part4.m4s\"\n#EXTINF:1.000,\ns-0.m4s\n"))
        << text;
    EXPECT_NE(std::string::npos, text.find("#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:20.000Z\n"));
    // The segment is its parts, one after the other.
    std::string joined;
    for (int i = 0; i < 5; i++) joined += *h.store.get("h/live/s-0.part" + std::to_string(i) + ".m4s");
    const std::string& whole = *h.store.get("h/live/s-0.m4s");
    EXPECT_EQ(joined, whole.substr(whole.size() - joined.size()));
    // No part is longer than the target.
    for (size_t at = text.find("DURATION="); at != std::string::npos; at = text.find("DURATION=", at + 1)) {
        EXPECT_LE(std::stod(text.substr(at + 9, 5)), 0.2);
    }
}

TEST(HlsStreamLl, OldPartsLeaveTheStoreAndDisposeEmptiesIt) {
    LlHarness h;
    for (int i = 0; i < 6; i++) h.gop(i * 1000);
    // Segments 0..4 complete: parts kept for 2, 3, 4 and the open 5.
    EXPECT_EQ(nullptr, h.store.get("h/live/s-1.part0.m4s"));
    EXPECT_NE(nullptr, h.store.get("h/live/s-2.part0.m4s"));
    EXPECT_NE(nullptr, h.store.get("h/live/s-1.m4s"));
    EXPECT_EQ(std::string::npos, h.slot()->current().full->find("s-1.part0.m4s"));
    std::shared_ptr<HlsPlaylistSlot> slot = h.slot();
    h.stream.reset();  // unpublish closes segment 5
    EXPECT_EQ(5, slot->current().position.last_msn);
    h.state->dispose();
    EXPECT_TRUE(slot->removed());
    EXPECT_EQ(0u, h.store.bytes());
    EXPECT_EQ(0u, h.store.files()) << "left: init segments and every part and segment";
}
