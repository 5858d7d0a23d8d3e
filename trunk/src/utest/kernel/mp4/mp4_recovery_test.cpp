// Tests for kernel/mp4/mp4_recovery: a recording the muxer wrote, cut at
// every byte, keeps exactly its complete fragments; read errors pass up.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernel/mp4/mp4_muxer.hpp"
#include "kernel/mp4/mp4_recovery.hpp"
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
