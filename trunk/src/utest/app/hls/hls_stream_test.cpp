// Tests for app/hls/hls_stream: FLV bodies in (real avcC and AAC config,
// IDR and P frames, AAC frames), files out through an in-memory sink:
// segment cuts, names, the playlist as written, the window sliding with
// clean-up, dropped short segments, discontinuity only on a real change,
// fMP4 init segments, keys, and the hooks' reports.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "app/hls/hls_stream.hpp"
#include "utest/app/hls/hls_test_media.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

class MemorySink : public HlsSink {
  public:
    Error begin_segment(const std::string& temp_path) override {
        temp_ = temp_path;
        files[temp_].clear();
        return Error();
    }
    Error append_segment(const char* data, size_t n) override {
        files[temp_].append(data, n);
        return Error();
    }
    Error finish_segment(const std::string& final_path, bool keep) override {
        std::string bytes = files[temp_];
        files.erase(temp_);
        if (keep) files[final_path] = bytes;
        return Error();
    }
    Error write_file(const std::string& path, const std::string& bytes, const char*) override {
        files[path] = bytes;
        writes[path]++;
        return Error();
    }
    void remove(const std::string& path) override { files.erase(path); }
    std::map<std::string, std::string> files;
    std::map<std::string, int> writes;

  private:
    std::string temp_;
};

class Events : public HlsStreamEvents {
  public:
    void on_hls_segment(const std::string&, const std::string&, const std::string&,
                        const HlsSegmentReport& r) override {
        reports.push_back(r);
    }
    void disconnect_publisher() override { disconnects++; }
    std::vector<HlsSegmentReport> reports;
    int disconnects = 0;
};

using namespace srs::utest::hls_media;

struct Harness {
    explicit Harness(HlsStreamConfig c) : config(std::move(c)) {
        state = std::make_shared<HlsStreamState>();
        state->app = "live";
        state->stream = "s";
        state->vhost = "__defaultVhost__";
        sink = new MemorySink();
        state->sink.reset(sink);
        stream.reset(new HlsStream(config, state, &events, fake_clock));
    }
    void feed(bool video, uint32_t ts, const std::string& body, bool key = false, bool seq = false) {
        ASSERT_TRUE(ok(stream->on_frame(video, ts, key, seq, reinterpret_cast<const uint8_t*>(body.data()),
                                        body.size())));
    }
    void headers(uint32_t ts = 0) {
        feed(true, ts, kAvcSeq, true, true);
        feed(false, ts, kAacSeq, false, true);
    }
    // gop_ms of video at 25 fps (keyframe first) plus AAC every 23 ms, from t0.
    void gop(uint32_t t0, uint32_t gop_ms) {
        for (uint32_t t = 0; t < gop_ms; t += 40) {
            feed(true, t0 + t, t == 0 ? kIdr : kP, t == 0);
            feed(false, t0 + t + 5, kAac);
        }
    }
    std::string playlist() { return sink->files["./h/live/s.m3u8"]; }

    HlsStreamConfig config;
    std::shared_ptr<HlsStreamState> state;
    MemorySink* sink;
    Events events;
    std::unique_ptr<HlsStream> stream;
};

HlsStreamConfig base_config() {
    HlsStreamConfig c;
    c.path = "./h";
    c.cut.fragment_s = 2;
    c.window_s = 6;
    return c;
}

}  // namespace

TEST(HlsStream, CutsAtKeyframesAndWritesSrsPlaylist) {
    Harness h(base_config());
    h.headers();
    for (int i = 0; i < 3; i++) h.gop(i * 2000, 2000);
    // Two segments closed at the 2nd and 3rd keyframes; the third is open.
    ASSERT_EQ(2u, h.events.reports.size());
    EXPECT_EQ(h.playlist(),
              "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-TARGETDURATION:2\n"
              "#EXTINF:2.000, no desc\ns-0.ts\n#EXTINF:2.000, no desc\ns-1.ts\n");
    const std::string& ts = h.sink->files["./h/live/s-0.ts"];
    ASSERT_FALSE(ts.empty());
    EXPECT_EQ(0u, ts.size() % 188);
    EXPECT_EQ(0x47, static_cast<uint8_t>(ts[0]));
    EXPECT_EQ("./h/live/s-1.ts", h.events.reports[1].file);
    EXPECT_EQ("s-1.ts", h.events.reports[1].url);
    EXPECT_EQ("./h/live/s.m3u8", h.events.reports[1].m3u8);
    EXPECT_EQ("live/s.m3u8", h.events.reports[1].m3u8_url);
    EXPECT_EQ(1, h.events.reports[1].seq);
    EXPECT_EQ(2000, h.events.reports[1].duration_ms);
    // The unpublish closes the last one (up to its last frame).
    h.stream.reset();
    EXPECT_NE(std::string::npos, h.playlist().find("#EXTINF:1.965, no desc\ns-2.ts\n"));
    EXPECT_FALSE(h.state->publishing);
}

TEST(HlsStream, WindowSlidesAndCleanupDeletesOldSegments) {
    Harness h(base_config());
    h.headers();
    for (int i = 0; i < 7; i++) h.gop(i * 2000, 2000);
    // 6 closed, window 6 s: the newest three (6 s) do not cross, the 4th crosses and stays.
    EXPECT_NE(std::string::npos, h.playlist().find("#EXT-X-MEDIA-SEQUENCE:2\n"));
    EXPECT_EQ(0u, h.sink->files.count("./h/live/s-1.ts"));
    EXPECT_EQ(1u, h.sink->files.count("./h/live/s-2.ts"));
    HlsStreamConfig keep = base_config();
    keep.cleanup = false;
    Harness k(keep);
    k.headers();
    for (int i = 0; i < 7; i++) k.gop(i * 2000, 2000);
    EXPECT_EQ(1u, k.sink->files.count("./h/live/s-0.ts"));
}

TEST(HlsStream, ShortSegmentDroppedAndItsNumberReused) {
    Harness h(base_config());
    h.headers();
    h.feed(true, 0, kIdr, true);
    h.feed(false, 50, kAac);
    h.stream.reset();  // 50 ms: dropped
    EXPECT_TRUE(h.state->segments.empty());
    EXPECT_EQ(0, h.state->next_seq);
    EXPECT_EQ(0u, h.sink->files.count("./h/live/s-0.ts"));
    EXPECT_TRUE(h.events.reports.empty());
}

TEST(HlsStream, RepeatedSequenceHeaderIsNoDiscontinuityButAChangeIs) {
    Harness h(base_config());
    h.headers();
    for (int i = 0; i < 3; i++) {
        h.headers(i * 2000);  // the same bytes before every IDR (SRS #4695)
        h.gop(i * 2000, 2000);
    }
    EXPECT_EQ(std::string::npos, h.playlist().find("DISCONTINUITY"));
    std::string other = kAvcSeq;
    other[other.size() - 1] ^= 1;
    h.feed(true, 6000, other, true, true);
    h.gop(6000, 2000);
    h.gop(8000, 2000);
    // s-2 was cut at the change; s-3 starts with the new config.
    EXPECT_NE(std::string::npos, h.playlist().find("#EXT-X-DISCONTINUITY\n#EXTINF:2.000, no desc\ns-3.ts\n"));
    EXPECT_EQ(1u, h.playlist().size() - h.playlist().find("DISCONTINUITY") > 0 ? 1u : 0u);
}

TEST(HlsStream, AudioOnlyCutsAtAofRatio) {
    HlsStreamConfig c = base_config();
    c.vcodec = "vn";
    Harness h(c);
    h.feed(false, 0, kAacSeq, false, true);
    for (uint32_t t = 0; t < 10000; t += 23) h.feed(false, t, kAac);
    // 2 s x 2.1 = 4.2 s per segment.
    ASSERT_EQ(2u, h.events.reports.size());
    EXPECT_GE(h.events.reports[0].duration_ms, 4200);
    EXPECT_LT(h.events.reports[0].duration_ms, 4250);
}

TEST(HlsStream, Fmp4InitAndVersion7) {
    HlsStreamConfig c = base_config();
    c.fmp4 = true;
    Harness h(c);
    h.headers();
    for (int i = 0; i < 3; i++) h.gop(i * 2000, 2000);
    std::string p = h.playlist();
    EXPECT_EQ(0u, p.find("#EXTM3U\n#EXT-X-VERSION:7\n"));
    EXPECT_NE(std::string::npos, p.find("#EXT-X-MAP:URI=\"s/init.mp4\"\n#EXTINF:2.000, no desc\ns-0.m4s\n"));
    const std::string& init = h.sink->files["./h/live/s/init.mp4"];
    ASSERT_GT(init.size(), 8u);
    EXPECT_EQ("ftyp", init.substr(4, 4));
    const std::string& m4s = h.sink->files["./h/live/s-0.m4s"];
    ASSERT_GT(m4s.size(), 8u);
    EXPECT_EQ("styp", m4s.substr(4, 4));
    // A real change: a new init under a new name, after a discontinuity.
    std::string other = kAvcSeq;
    other[other.size() - 1] ^= 1;
    h.feed(true, 6000, other, true, true);
    h.gop(6000, 2000);
    h.gop(8000, 2000);
    EXPECT_EQ(1u, h.sink->files.count("./h/live/s/init-1.mp4"));
    EXPECT_NE(std::string::npos,
              h.playlist().find("#EXT-X-MAP:URI=\"s/init-1.mp4\"\n#EXT-X-DISCONTINUITY\n#EXTINF:2.000, no desc\ns-3.m4s"));
}

TEST(HlsStream, KeysRotateEveryNSegments) {
    HlsStreamConfig c = base_config();
    c.keys = true;
    c.fragments_per_key = 2;
    c.window_s = 100;
    Harness h(c);
    h.headers();
    for (int i = 0; i < 6; i++) h.gop(i * 2000, 2000);
    std::string p = h.playlist();
    // Keys at seq 0, 2, 4.
    size_t n = 0;
    for (size_t at = p.find("#EXT-X-KEY"); at != std::string::npos; at = p.find("#EXT-X-KEY", at + 1)) n++;
    EXPECT_EQ(3u, n);
    EXPECT_NE(std::string::npos, p.find("#EXT-X-KEY:METHOD=AES-128,URI=\"s-2.key\",IV=0x"));
    EXPECT_EQ(16u, h.sink->files["./h/live/s-0.key"].size());
    // Whole segments encrypted: a multiple of 16, not TS sync bytes.
    const std::string& seg = h.sink->files["./h/live/s-0.ts"];
    EXPECT_EQ(0u, seg.size() % 16);
    EXPECT_NE(0x47, static_cast<uint8_t>(seg[0]) == 0x47 && static_cast<uint8_t>(seg[188]) == 0x47 ? 0x47 : 0);
}

TEST(HlsStream, RepublishContinuesWindowWithDiscontinuity) {
    Harness h(base_config());
    h.headers();
    for (int i = 0; i < 2; i++) h.gop(i * 2000, 2000);
    h.stream.reset();
    h.stream.reset(new HlsStream(h.config, h.state, &h.events, fake_clock));
    h.headers();
    for (int i = 0; i < 2; i++) h.gop(i * 2000, 2000);
    EXPECT_NE(std::string::npos, h.playlist().find("s-1.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:2.000, no desc\ns-2.ts\n"));
}

TEST(HlsStream, DisposeDeletesEveryFile) {
    HlsStreamConfig c = base_config();
    c.fmp4 = true;
    Harness h(c);
    h.headers();
    for (int i = 0; i < 3; i++) h.gop(i * 2000, 2000);
    h.stream.reset();
    EXPECT_FALSE(h.sink->files.empty());
    h.state->dispose();
    EXPECT_TRUE(h.sink->files.empty());
}

TEST(HlsStream, EntryPrefixAsSrs) {
    HlsStreamConfig c = base_config();
    c.entry_prefix = "http://cdn.example";
    Harness h(c);
    h.headers();
    for (int i = 0; i < 2; i++) h.gop(i * 2000, 2000);
    EXPECT_NE(std::string::npos, h.playlist().find("\nhttp://cdn.example/live/s-0.ts\n"));
    EXPECT_EQ("http://cdn.example/live/s-0.ts", h.events.reports[0].url);
    c.entry_prefix = "http://cdn.example/hls/";
    Harness slash(c);
    slash.headers();
    for (int i = 0; i < 2; i++) slash.gop(i * 2000, 2000);
    EXPECT_NE(std::string::npos, slash.playlist().find("\nhttp://cdn.example/hls/s-0.ts\n"));
}

TEST(HlsStream, PathVariablesInSegmentNames) {
    HlsStreamConfig c = base_config();
    c.ts_file = "[vhost]/[app]/[stream]-[seq]-[duration]-[timestamp].ts";
    c.m3u8_file = "[vhost]/[app]/[stream].m3u8";
    Harness h(c);
    h.headers();
    for (int i = 0; i < 2; i++) h.gop(i * 2000, 2000);
    // [duration] is known at the close: the file is renamed to it.
    EXPECT_EQ(1u, h.sink->files.count("./h/__defaultVhost__/live/s-0-2000-1700000000000.ts"));
    EXPECT_NE(std::string::npos, h.sink->files["./h/__defaultVhost__/live/s.m3u8"].find("\ns-0-2000-1700000000000.ts\n"));
    HlsStreamConfig f = base_config();
    f.ts_floor = true;
    f.ts_file = "[app]/[stream]-[timestamp].ts";
    Harness floor(f);
    floor.headers();
    for (int i = 0; i < 3; i++) floor.gop(i * 2000, 2000);
    // 1700000000000 / 2000, less one for the first segment, then one up per segment (hls_ts_floor.hpp).
    EXPECT_EQ(1u, floor.sink->files.count("./h/live/s-849999999.ts"));
    EXPECT_EQ(1u, floor.sink->files.count("./h/live/s-850000000.ts"));
}

namespace {

// A disk that refuses every segment.
class FullSink : public MemorySink {
  public:
    Error begin_segment(const std::string&) override { return SRS_ERR(kErrorFileOpen, "disk full"); }
};

std::unique_ptr<Harness> failing(const std::string& mode) {
    HlsStreamConfig c = base_config();
    c.on_error = mode;
    std::unique_ptr<Harness> h(new Harness(c));
    h->sink = new FullSink();
    h->state->sink.reset(h->sink);
    return h;
}

// Live messages, as the source hands them (on_live_message applies hls_on_error).
void feed_live(HlsStream* s, bool video, uint32_t ts, const std::string& body, bool key, bool seq) {
    LiveMessagePtr m(LiveMessage::create(video ? LiveMessageKind::kVideo : LiveMessageKind::kAudio, ts,
                                         SharedBytes::copy_of(body.data(), body.size())));
    m->set_keyframe(key);
    m->set_sequence_header(seq);
    s->on_live_message(m);
}

}  // namespace

TEST(HlsStream, OnErrorModes) {
    for (const char* mode : {"continue", "ignore", "disconnect"}) {
        std::unique_ptr<Harness> h = failing(mode);
        feed_live(h->stream.get(), true, 0, kAvcSeq, true, true);
        feed_live(h->stream.get(), true, 0, kIdr, true, false);
        feed_live(h->stream.get(), true, 40, kIdr, true, false);
        std::string m = mode;
        EXPECT_EQ(m != "continue", h->stream->failed()) << mode;
        EXPECT_EQ(m == "disconnect" ? 1 : 0, h->events.disconnects) << mode;
        EXPECT_TRUE(h->state->segments.empty());
    }
}
