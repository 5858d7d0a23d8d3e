// Tests for app/dvr/dvr_recorder, the FLV and MP4 writers and the crash
// recovery, on real files in a temporary folder: a session FLV with its
// metadata patched, segment files each starting with the headers and a
// keyframe (file names from a fake clock), an MP4 of whole fragments, the
// recovery of cut files, and a path that cannot be written.
#include <gtest/gtest.h>

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/dvr/dvr_flv_metadata.hpp"
#include "app/dvr/dvr_recorder.hpp"
#include "app/dvr/dvr_recovery.hpp"
#include "core/buffer.hpp"
#include "kernel/flv/flv.hpp"
#include "kernel/mp4/mp4_recovery.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

// The AVC record ffmpeg wrote for a 320x240 Main-profile stream.
const char* const kAvcRecord = "014d500bffe10016674d500beca146d80880000003008000000a078912cb01000468ebecb2";

LiveMessagePtr message(LiveMessageKind kind, uint32_t ts, const std::string& body, bool key = false,
                       bool header = false) {
    LiveMessagePtr m(LiveMessage::create(kind, ts, SharedBytes::copy_of(body.data(), body.size())));
    m->set_keyframe(key);
    m->set_sequence_header(header);
    return m;
}

std::string metadata_body() {
    Amf0Value meta = Amf0Value::ecma_array();
    meta.set("width", Amf0Value::number(320));
    meta.set("duration", Amf0Value::number(0));
    std::string b;
    ByteWriter w(&b);
    amf0_encode(&w, Amf0Value::string("onMetaData"));
    amf0_encode(&w, meta);
    return b;
}

// A publish of `seconds` at 25 fps with a keyframe every `gop` frames and
// AAC frames every 23 ms, starting at base_ms.
void publish(LiveSourceBridge* r, int seconds, int gop, uint32_t base_ms = 1000) {
    r->on_live_message(message(LiveMessageKind::kData, base_ms, metadata_body()));
    r->on_live_message(message(LiveMessageKind::kVideo, base_ms, unhex_string(std::string("1700000000") + kAvcRecord),
                               true, true));
    r->on_live_message(message(LiveMessageKind::kAudio, base_ms, unhex_string("af001210"), false, true));
    uint32_t audio_ts = base_ms;
    for (int i = 0; i < seconds * 25; i++) {
        uint32_t ts = base_ms + i * 40;
        bool key = i % gop == 0;
        std::string body = key ? "1701000000" "0000000565888000ff" : "2701000000" "00000004419a0011";
        r->on_live_message(message(LiveMessageKind::kVideo, ts, unhex_string(body), key));
        while (audio_ts <= ts) {
            r->on_live_message(message(LiveMessageKind::kAudio, audio_ts, unhex_string("af01211a0011")));
            audio_ts += 23;
        }
    }
}

class TempDir {
  public:
    TempDir() {
        char tmpl[] = "/tmp/srs_dvr_test_XXXXXX";
        path_ = mkdtemp(tmpl);
    }
    ~TempDir() {
        std::string cmd = "rm -rf '" + path_ + "'";
        if (system(cmd.c_str()) != 0) ADD_FAILURE() << "cleanup of " << path_;
    }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<std::string> list_dir(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (struct dirent* e = readdir(d)) {
            std::string n = e->d_name;
            if (n != "." && n != "..") out.push_back(n);
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<FlvTag> read_tags(const std::string& bytes) {
    FlvReader reader;
    size_t used = 0;
    std::vector<FlvTag> tags;
    EXPECT_TRUE(ok(reader.feed(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &used, &tags)));
    EXPECT_EQ(bytes.size(), used);
    return tags;
}

DvrSettings settings(const std::string& tmpl, bool segment = false, int64_t duration_ms = 30000) {
    DvrSettings s;
    s.path_template = tmpl;
    s.plan.segment = segment;
    s.plan.duration_ms = duration_ms;
    return s;
}

const DvrStreamName kName{"__defaultVhost__", "live", "cam"};

}  // namespace

TEST(DvrRecorderTest, SessionFlvIsRenamedAndItsMetadataPatched) {
    TempDir dir;
    int64_t clock = 1772600767089;
    std::string final_path = dir.path() + "/live/cam.1772600767089.flv";
    {
        DvrRecorder r(settings(dir.path() + "/[app]/[stream].[timestamp].flv"), kName, HookRequest(), nullptr,
                      [&] { return clock; });
        publish(&r, 4, 25);
        // While recording: only the temporary name exists.
        EXPECT_EQ(std::vector<std::string>{"cam.1772600767089.flv.tmp"}, list_dir(dir.path() + "/live"));
        EXPECT_FALSE(r.failed());
    }
    EXPECT_EQ(std::vector<std::string>{"cam.1772600767089.flv"}, list_dir(dir.path() + "/live"));
    std::string bytes = read_file(final_path);
    std::vector<FlvTag> tags = read_tags(bytes);
    ASSERT_GT(tags.size(), 100u);
    ASSERT_EQ(kFlvTagScript, tags[0].type);
    Amf0Value meta;
    ASSERT_TRUE(ok(dvr_parse_metadata(tags[0].data.data(), tags[0].data.size(), &meta)));
    EXPECT_NEAR(3.96, meta.get_number("duration"), 0.05);  // 99 frames of 40 ms
    EXPECT_EQ(static_cast<double>(bytes.size()), meta.get_number("filesize"));
    EXPECT_EQ(320, meta.get_number("width"));  // the publisher's metadata is kept
    // Then the sequence headers, at the file's start (time_jitter full: 0).
    EXPECT_EQ(kFlvTagVideo, tags[1].type);
    EXPECT_EQ(0x17, tags[1].data.data()[0]);
    EXPECT_EQ(0u, tags[1].data.data()[1]);
    EXPECT_EQ(0u, tags[1].timestamp);
    EXPECT_EQ(kFlvTagAudio, tags[2].type);
    EXPECT_EQ(0u, tags[2].timestamp);
}

TEST(DvrRecorderTest, SegmentsStartWithHeadersAndAKeyframe) {
    TempDir dir;
    int64_t clock = 1772600000000;
    int files = 0;
    {
        DvrRecorder r(settings(dir.path() + "/[stream]-[timestamp].flv", true, 2000), kName, HookRequest(), nullptr,
                      [&] { return clock += 1000; });  // each file is named a second later
        publish(&r, 7, 25);
        files = r.files_closed();
    }
    EXPECT_EQ(3, files);  // cut at 2 s, 4 s, 6 s; the last closes with the recorder
    std::vector<std::string> names = list_dir(dir.path());
    ASSERT_EQ(4u, names.size());
    for (const std::string& n : names) {
        ASSERT_EQ(std::string::npos, n.find(".tmp")) << n;
        std::vector<FlvTag> tags = read_tags(read_file(dir.path() + "/" + n));
        ASSERT_GT(tags.size(), 4u) << n;
        EXPECT_EQ(kFlvTagScript, tags[0].type);
        EXPECT_EQ(0x17, tags[1].data.data()[0]) << n;  // video sequence header
        EXPECT_EQ(0xaf, tags[2].data.data()[0]) << n;  // audio sequence header
        // The first frame is a video keyframe at 0.
        size_t i = 3;
        EXPECT_EQ(kFlvTagVideo, tags[i].type) << n;
        EXPECT_EQ(0x17, tags[i].data.data()[0]) << n;
        EXPECT_EQ(0u, tags[i].timestamp) << n;
        Amf0Value meta;
        ASSERT_TRUE(ok(dvr_parse_metadata(tags[0].data.data(), tags[0].data.size(), &meta)));
        if (n != names.back()) {
            EXPECT_NEAR(2.0, meta.get_number("duration"), 0.1) << n;
        }
    }
}

TEST(DvrRecorderTest, Mp4IsWholeFragmentsAndRecoversWhenCut) {
    TempDir dir;
    int64_t clock = 1772600000000;
    {
        DvrRecorder r(settings(dir.path() + "/[stream].mp4"), kName, HookRequest(), nullptr, [&] { return clock; });
        publish(&r, 5, 25);
    }
    std::string bytes = read_file(dir.path() + "/cam.mp4");
    ASSERT_GT(bytes.size(), 1000u);
    EXPECT_EQ("ftyp", bytes.substr(4, 4));
    auto reader = [&](uint64_t off, size_t n, uint8_t* out, size_t* got) {
        *got = off >= bytes.size() ? 0 : std::min<size_t>(n, bytes.size() - off);
        memcpy(out, bytes.data() + off, *got);
        return Error();
    };
    Mp4Recovery rec;
    ASSERT_TRUE(ok(mp4_scan_recovery(bytes.size(), reader, &rec)));
    EXPECT_TRUE(rec.has_moov);
    EXPECT_GE(rec.fragments, 5u);  // one per GOP of 1 s, or more (a fragment holds at most 1 s)
    EXPECT_EQ(bytes.size(), rec.length);

    // What a kill leaves: the file cut in the middle of its last fragment.
    std::string tmp = dir.path() + "/cut.mp4.tmp";
    std::ofstream(tmp, std::ios::binary) << bytes.substr(0, bytes.size() - 100);
    DvrRecovered out;
    ASSERT_TRUE(ok(dvr_recover_file(tmp, &out)));
    EXPECT_EQ(dir.path() + "/cut.mp4", out.path);
    EXPECT_EQ(rec.fragments - 1, out.fragments);
    EXPECT_LT(out.bytes, bytes.size() - 100);
    EXPECT_EQ(out.bytes, read_file(out.path).size());
    EXPECT_NE(0, access(tmp.c_str(), F_OK));  // renamed

    // Nothing whole: left as it is.
    std::string empty = dir.path() + "/empty.mp4.tmp";
    std::ofstream(empty, std::ios::binary) << bytes.substr(0, 20);
    EXPECT_FALSE(ok(dvr_recover_file(empty, &out)));
    EXPECT_EQ(0, access(empty.c_str(), F_OK));
}

TEST(DvrRecorderTest, FlvRecoveryCutsToTheLastTagAndPatchesTheMetadata) {
    TempDir dir;
    int64_t clock = 1772600000000;
    {
        DvrRecorder r(settings(dir.path() + "/[stream].flv"), kName, HookRequest(), nullptr, [&] { return clock; });
        publish(&r, 3, 25);
    }
    std::string bytes = read_file(dir.path() + "/cam.flv");
    // Zero the patched numbers (as a crash leaves them) and cut in a tag.
    DvrFlvMetadata m = dvr_flv_metadata(nullptr);
    std::string crashed = bytes.substr(0, bytes.size() - 7);
    size_t body_at = kFlvHeaderSize + kFlvPreviousTagSize + kFlvTagHeaderSize;
    crashed.replace(body_at + m.duration_at, 8, amf0_number_bytes(0));
    crashed.replace(body_at + m.filesize_at, 8, amf0_number_bytes(0));
    std::string tmp = dir.path() + "/rec.flv.tmp";
    std::ofstream(tmp, std::ios::binary) << crashed;
    DvrRecovered out;
    ASSERT_TRUE(ok(dvr_recover_file(tmp, &out)));
    std::string got = read_file(dir.path() + "/rec.flv");
    EXPECT_EQ(out.bytes, got.size());
    EXPECT_GT(out.cut_bytes, 0u);
    std::vector<FlvTag> tags = read_tags(got);  // whole tags only
    Amf0Value meta;
    ASSERT_TRUE(ok(dvr_parse_metadata(tags[0].data.data(), tags[0].data.size(), &meta)));
    EXPECT_EQ(static_cast<double>(got.size()), meta.get_number("filesize"));
    EXPECT_NEAR(2.9, meta.get_number("duration"), 0.1);
    EXPECT_NEAR(2900, out.duration_ms, 100);

    // Not an FLV at all: left.
    std::string junk = dir.path() + "/junk.flv.tmp";
    std::ofstream(junk, std::ios::binary) << "not a video";
    EXPECT_FALSE(ok(dvr_recover_file(junk, &out)));
}

TEST(DvrRecorderTest, FindsOnlyLeftoversTheTemplateMakes) {
    TempDir dir;
    std::string tmpl = dir.path() + "/[app]/[stream].[timestamp].flv";
    mkdir((dir.path() + "/live").c_str(), 0755);
    mkdir((dir.path() + "/live/deeper").c_str(), 0755);
    for (const char* n : {"/live/a.123.flv.tmp", "/live/a.123.flv", "/live/b.x.flv.tmp", "/live/deeper/c.1.flv.tmp",
                          "/top.1.flv.tmp", "/live/d.5.mp4.tmp"}) {
        std::ofstream(dir.path() + n) << "x";
    }
    EXPECT_EQ(std::vector<std::string>{dir.path() + "/live/a.123.flv.tmp"}, dvr_find_leftovers(tmpl));
    EXPECT_TRUE(dvr_find_leftovers(dir.path() + "/nowhere/[stream].flv").empty());
}

TEST(DvrRecorderTest, ARecordingInProgressIsNoLeftover) {
    TempDir dir;
    int64_t clock = 1772600000000;
    {
        DvrRecorder r(settings(dir.path() + "/[stream].flv"), kName, HookRequest(), nullptr, [&] { return clock; });
        publish(&r, 2, 25);
        // Another server starting now finds the file but must not take it.
        std::string tmp = dir.path() + "/cam.flv.tmp";
        EXPECT_EQ(std::vector<std::string>{tmp}, dvr_find_leftovers(dir.path() + "/[stream].flv"));
        DvrRecovered out;
        EXPECT_FALSE(ok(dvr_recover_file(tmp, &out)));
        EXPECT_EQ(0, access(tmp.c_str(), F_OK));
    }
    EXPECT_EQ(std::vector<std::string>{"cam.flv"}, list_dir(dir.path()));
}

TEST(DvrRecorderTest, TimeJitterOffKeepsTheSourcesTimestamps) {
    TempDir dir;
    int64_t clock = 1772600000000;
    DvrSettings s = settings(dir.path() + "/[stream].flv");
    s.jitter = TimeJitter::kOff;
    {
        DvrRecorder r(s, kName, HookRequest(), nullptr, [&] { return clock; });
        publish(&r, 2, 25, 5000);
    }
    std::vector<FlvTag> tags = read_tags(read_file(dir.path() + "/cam.flv"));
    ASSERT_GT(tags.size(), 4u);
    EXPECT_EQ(5000u, tags[1].timestamp);  // the headers take the first frame's time
    EXPECT_EQ(5000u, tags[3].timestamp);
    uint32_t last_video = 0;
    for (const FlvTag& t : tags) {
        if (t.type == kFlvTagVideo) last_video = t.timestamp;
    }
    EXPECT_EQ(5000u + 49 * 40, last_video);
}

TEST(DvrRecorderTest, AnMp4OfOnlyCodecsItCannotTakeIsRemoved) {
    TempDir dir;
    int64_t clock = 1772600000000;
    {
        DvrRecorder r(settings(dir.path() + "/[stream].mp4"), kName, HookRequest(), nullptr, [&] { return clock; });
        // MP3 audio (sound format 2), no video.
        for (uint32_t ts = 0; ts < 2000; ts += 26) {
            r.on_live_message(message(LiveMessageKind::kAudio, ts, unhex_string("2ffffb9064")));
        }
        EXPECT_FALSE(r.failed());
        EXPECT_EQ(std::vector<std::string>{"cam.mp4.tmp"}, list_dir(dir.path()));
    }
    EXPECT_TRUE(list_dir(dir.path()).empty());
}

TEST(DvrRecorderTest, AnUnwritablePathStopsTheRecordingNotThePublish) {
    TempDir dir;
    // A file where the folder should be: mkdir fails.
    std::ofstream(dir.path() + "/blocker") << "x";
    int64_t clock = 1772600000000;
    DvrRecorder r(settings(dir.path() + "/blocker/[stream].flv"), kName, HookRequest(), nullptr,
                  [&] { return clock; });
    publish(&r, 1, 25);
    EXPECT_TRUE(r.failed());
    EXPECT_EQ(0, r.files_closed());
    EXPECT_EQ(std::vector<std::string>{"blocker"}, list_dir(dir.path()));
}
