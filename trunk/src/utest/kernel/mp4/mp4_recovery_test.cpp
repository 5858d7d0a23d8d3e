// Tests for kernel/mp4/mp4_recovery: a recording the muxer wrote, cut at
// every byte, keeps exactly its complete fragments; read errors pass up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/mp4/mp4_muxer.hpp"
#include "kernel/mp4/mp4_recovery.hpp"
#include "core/bytes.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

Mp4ReadAt reader_of(const std::string& file) {
    return [&file](uint64_t offset, size_t n, uint8_t* out, size_t* got) {
        if (offset > file.size()) return SRS_ERR(kErrorFileRead, "read past the end");
        *got = std::min(n, static_cast<size_t>(file.size() - offset));
        memcpy(out, file.data() + offset, *got);
        return Error();
    };
}

TEST(Mp4Recovery, CutAtEveryByteKeepsCompleteFragments) {
    std::string record = unhex_string("014d500bffe10016674d500beca146d80880000003008000000a078912cb01000468ebecb2");
    Mp4TrackConfig video;
    ASSERT_TRUE(ok(mp4_video_track(VideoCodec::kH264, reinterpret_cast<const uint8_t*>(record.data()), record.size(),
                                   &video)));
    Mp4MuxerOptions o;
    o.dvr = true;
    Mp4FragmentedMuxer mux(o);
    ASSERT_TRUE(ok(mux.set_track(video)));
    std::string file;
    ASSERT_TRUE(ok(mux.write_init(&file)));
    std::vector<size_t> ends = {file.size()};  // moov end, then each fragment's end
    const std::string frame(30, 'x');
    for (int i = 0; i < 3; i++) {
        Mp4Sample s;
        s.dts_ms = i * 40;
        s.keyframe = true;
        s.data = reinterpret_cast<const uint8_t*>(frame.data());
        s.size = frame.size();
        ASSERT_TRUE(ok(mux.add_video(s)));
        Mp4FragmentInfo info;
        ASSERT_TRUE(ok(mux.flush(&file, &info)));
        ends.push_back(file.size());
    }
    for (size_t cut = 0; cut <= file.size(); cut++) {
        const std::string part = file.substr(0, cut);
        Mp4Recovery r;
        ASSERT_TRUE(ok(mp4_scan_recovery(part.size(), reader_of(part), &r)));
        size_t expect = 0;
        uint32_t fragments = 0;
        for (size_t k = 0; k < ends.size(); k++) {
            if (ends[k] <= cut) {
                expect = ends[k];
                fragments = static_cast<uint32_t>(k);
            }
        }
        ASSERT_EQ(r.length, expect) << cut;
        EXPECT_EQ(r.fragments, fragments) << cut;
        EXPECT_EQ(r.has_moov, cut >= ends[0]) << cut;
        EXPECT_EQ(r.truncated, expect != cut) << cut;
    }
}

namespace {

// A DVR recording as the muxer writes it: H.264 at 25 fps and AAC at 44.1
// kHz (1024 samples a frame, ms timestamps), one fragment a second; ends[k]
// is where fragment k ends (ends[0]: the moov's end).
struct Recording {
    std::string file;
    std::vector<size_t> ends;
    std::vector<Mp4Patch> finish_patches;  // what a clean close writes
};

Recording record_av(int seconds) {
    Recording r;
    std::string avc = unhex_string("014d500bffe10016674d500beca146d80880000003008000000a078912cb01000468ebecb2");
    std::string asc = unhex_string("1210");
    Mp4TrackConfig video, audio;
    EXPECT_TRUE(ok(mp4_video_track(VideoCodec::kH264, reinterpret_cast<const uint8_t*>(avc.data()), avc.size(),
                                   &video)));
    EXPECT_TRUE(ok(mp4_aac_track(reinterpret_cast<const uint8_t*>(asc.data()), asc.size(), &audio)));
    Mp4MuxerOptions o;
    o.dvr = true;
    Mp4FragmentedMuxer mux(o);
    EXPECT_TRUE(ok(mux.set_track(video)));
    EXPECT_TRUE(ok(mux.set_track(audio)));
    EXPECT_TRUE(ok(mux.write_init(&r.file)));
    r.ends.push_back(r.file.size());
    static const std::string frame(50, 'v'), sound(20, 'a');
    int audio_frame = 0;
    for (int f = 0; f < seconds * 25; f++) {
        const int64_t dts = f * 40;
        if (f > 0 && f % 25 == 0) {
            Mp4FragmentInfo info;
            EXPECT_TRUE(ok(mux.flush(&r.file, &info, dts)));
            r.ends.push_back(r.file.size());
        }
        Mp4Sample v;
        v.dts_ms = dts;
        v.cts_ms = 80;
        v.keyframe = f % 25 == 0;
        v.data = reinterpret_cast<const uint8_t*>(frame.data());
        v.size = frame.size();
        EXPECT_TRUE(ok(mux.add_video(v)));
        for (int64_t a = audio_frame * 1024 * 1000 / 44100; a < dts + 40; a = ++audio_frame * 1024 * 1000 / 44100) {
            Mp4Sample s;
            s.dts_ms = a;
            s.keyframe = true;
            s.data = reinterpret_cast<const uint8_t*>(sound.data());
            s.size = sound.size();
            EXPECT_TRUE(ok(mux.add_audio(s)));
        }
    }
    Mp4FragmentInfo info;
    EXPECT_TRUE(ok(mux.flush(&r.file, &info)));
    r.ends.push_back(r.file.size());
    EXPECT_TRUE(ok(mux.finish(&r.finish_patches)));
    return r;
}

uint64_t value_of(const std::string& b) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(b.data());
    return b.size() == 8 ? load_be64(p) : load_be32(p);
}

std::string patched(std::string file, const std::vector<Mp4Patch>& patches) {
    for (const Mp4Patch& p : patches) file.replace(p.offset, p.bytes.size(), p.bytes);
    return file;
}

// mvhd's timescale and duration (version 0, as the muxer writes it).
void mvhd_of(const std::string& file, uint32_t* timescale, uint32_t* duration) {
    size_t at = file.find("mvhd");
    ASSERT_NE(std::string::npos, at);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(file.data()) + at + 4;
    ASSERT_EQ(0, p[0]);
    *timescale = load_be32(p + 12);
    *duration = load_be32(p + 16);
}

}  // namespace

TEST(Mp4Recovery, WholeRecordingGetsTheDurationsACleanCloseWrites) {  // at the same places
    Recording r = record_av(4);
    ASSERT_EQ(5u, r.ends.size());
    Mp4Recovery rec;
    ASSERT_TRUE(ok(mp4_scan_recovery(r.file.size(), reader_of(r.file), &rec)));
    EXPECT_EQ(4u, rec.fragments);
    EXPECT_FALSE(rec.truncated);
    // mvhd, mehd, and tkhd + mdhd of both tracks: the same bytes at the same places.
    ASSERT_EQ(6u, rec.patches.size());
    ASSERT_EQ(6u, r.finish_patches.size());
    for (const Mp4Patch& mine : rec.patches) {
        bool found = false;
        for (const Mp4Patch& clean : r.finish_patches) {
            if (clean.offset != mine.offset) continue;
            found = true;
            // The muxer rounds each track's end to ms; the fragments' sample
            // durations are exact: the two agree within a ms.
            ASSERT_EQ(clean.bytes.size(), mine.bytes.size()) << mine.offset;
            const uint64_t a = value_of(clean.bytes), b = value_of(mine.bytes);
            EXPECT_LE(a > b ? a - b : b - a, std::max<uint64_t>(2, a / 1000)) << mine.offset << " " << a << " " << b;
        }
        EXPECT_TRUE(found) << mine.offset;
    }
    uint32_t timescale = 0, duration = 0;
    mvhd_of(patched(r.file, rec.patches), &timescale, &duration);
    EXPECT_EQ(1000u, timescale);
    EXPECT_EQ(static_cast<int64_t>(duration), rec.duration_ms);
    EXPECT_GE(duration, 4000u - 40);
    EXPECT_LE(duration, 4000u + 40);
    // Unpatched, the moov says 0: what a kill leaves.
    mvhd_of(r.file, &timescale, &duration);
    EXPECT_EQ(0u, duration);
}

TEST(Mp4Recovery, TruncatedRecordingGetsTheTimeOfItsKeptFragments) {
    Recording r = record_av(5);
    // Killed in the middle of the 4th fragment's mdat, and in its moof.
    for (size_t cut : {(r.ends[3] + r.ends[4]) / 2, r.ends[3] + 20}) {
        const std::string part = r.file.substr(0, cut);
        Mp4Recovery rec;
        ASSERT_TRUE(ok(mp4_scan_recovery(part.size(), reader_of(part), &rec)));
        EXPECT_EQ(r.ends[3], rec.length);
        EXPECT_EQ(3u, rec.fragments);
        std::string fixed = patched(part.substr(0, rec.length), rec.patches);
        uint32_t timescale = 0, duration = 0;
        mvhd_of(fixed, &timescale, &duration);
        EXPECT_NEAR(3000, static_cast<int>(duration), 40) << cut;
        EXPECT_EQ(static_cast<int64_t>(duration), rec.duration_ms);
        for (const Mp4Patch& p : rec.patches) EXPECT_LE(p.offset + p.bytes.size(), rec.length);
    }
    // Only the moov: no fragment, nothing to patch.
    const std::string init = r.file.substr(0, r.ends[0]);
    Mp4Recovery rec;
    ASSERT_TRUE(ok(mp4_scan_recovery(init.size(), reader_of(init), &rec)));
    EXPECT_TRUE(rec.patches.empty());
    EXPECT_EQ(-1, rec.duration_ms);
}

TEST(Mp4Recovery, BrokenIndexBoxesAreNotPatchedFrom) {
    Recording r = record_av(2);
    // A trun whose sample_count runs past its box: that fragment gives no
    // time, the walk and the cut are as before, and nothing is read past a box.
    std::string broken = r.file;
    size_t trun = broken.find("trun", r.ends[0]);
    ASSERT_NE(std::string::npos, trun);
    store_be32(reinterpret_cast<uint8_t*>(&broken[trun + 8]), 0x7fffffffu);
    Mp4Recovery rec;
    ASSERT_TRUE(ok(mp4_scan_recovery(broken.size(), reader_of(broken), &rec)));
    EXPECT_EQ(2u, rec.fragments);
    EXPECT_EQ(broken.size(), rec.length);
    // A moov without mvhd: nothing to patch.
    std::string no_mvhd = r.file;
    size_t mvhd = no_mvhd.find("mvhd");
    no_mvhd.replace(mvhd, 4, "free");
    ASSERT_TRUE(ok(mp4_scan_recovery(no_mvhd.size(), reader_of(no_mvhd), &rec)));
    EXPECT_TRUE(rec.patches.empty());
    EXPECT_EQ(2u, rec.fragments);
}

TEST(Mp4Recovery, NonsenseAndErrors) {
    // A box size below its header ends the walk; nothing before a moov is kept.
    std::string junk = unhex_string("0000000466726565" "00000008" "6d6f6f76");
    Mp4Recovery r;
    ASSERT_TRUE(ok(mp4_scan_recovery(junk.size(), reader_of(junk), &r)));
    EXPECT_EQ(r.length, 0u);
    EXPECT_TRUE(r.truncated);
    // A moof before any moov is not a fragment we can use.
    std::string early = unhex_string("000000086d6f6f66" "000000086d646174");
    ASSERT_TRUE(ok(mp4_scan_recovery(early.size(), reader_of(early), &r)));
    EXPECT_EQ(r.length, 0u);
    Mp4ReadAt failing = [](uint64_t, size_t, uint8_t*, size_t*) { return SRS_ERR(kErrorFileRead, "disk"); };
    EXPECT_EQ(code(mp4_scan_recovery(100, failing, &r)), kErrorFileRead);
}

}  // namespace
