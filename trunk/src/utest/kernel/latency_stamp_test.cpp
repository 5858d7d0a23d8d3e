// Tests for kernel/latency_stamp: the SEI that carries the latency probe's
// wall-clock stamp inside H.264/H.265 frames (research/tools/sb_latency).
//
// The expected SEI bytes below are written out by hand from H.264 7.3.2.3
// (sei_rbsp), D.1.7 (user_data_unregistered) and 7.4.1 (emulation
// prevention), not produced by the code under test. Every parser also runs
// on input placed right before a PROT_NONE page, at every prefix length.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernel/latency_stamp.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
    std::vector<uint8_t> out;
    for (int b : v) out.push_back(static_cast<uint8_t>(b));
    return out;
}

std::vector<uint8_t> cat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

const std::vector<uint8_t> kUuid = bytes({'s', 'b', '-', 'l', 'a', 't', 'e', 'n', 'c', 'y', '-', 's', 't', 'a', 'm', 'p'});

// A length prefix of `size` bytes, then the NAL unit.
std::vector<uint8_t> prefixed(const std::vector<uint8_t>& nal, int size = 4) {
    std::vector<uint8_t> out;
    for (int i = size - 1; i >= 0; i--) out.push_back(static_cast<uint8_t>(nal.size() >> (8 * i)));
    return cat(out, nal);
}

// A legacy AVC coded-frames tag body (inter frame, CTS 0x000042) with one
// slice NAL unit of `slice_size` bytes.
std::vector<uint8_t> avc_frame(int length_size = 4, size_t slice_size = 40, bool key = false) {
    std::vector<uint8_t> slice(slice_size, 0x9a);
    slice[0] = key ? 0x65 : 0x41;
    return cat(bytes({key ? 0x17 : 0x27, 0x01, 0x00, 0x00, 0x42}), prefixed(slice, length_size));
}

// An Enhanced RTMP hvc1 CodedFrames body (keyframe) with one IDR slice.
std::vector<uint8_t> hevc_ex_frame() {
    std::vector<uint8_t> slice(30, 0x55);
    slice[0] = 0x26;  // IDR_W_RADL
    slice[1] = 0x01;
    return cat(bytes({0x91, 'h', 'v', 'c', '1', 0x00, 0x00, 0x00}), prefixed(slice));
}

std::vector<uint8_t> sei_of(VideoCodec codec, uint64_t stamp) {
    uint8_t out[kLatencySeiMaxSize];
    size_t n = build_latency_sei(codec, stamp, out);
    return std::vector<uint8_t>(out, out + n);
}

std::vector<uint8_t> stamped(const std::vector<uint8_t>& body, int length_size, uint64_t stamp) {
    std::vector<uint8_t> out(body.size() + kLatencyStampMaxGrowth);
    size_t n = 0;
    EXPECT_TRUE(ok(stamp_video_tag(body.data(), body.size(), length_size, stamp, out.data(), &n)));
    out.resize(n);
    return out;
}

// find_latency_stamp on a copy that ends at a guard page.
Error find_guarded(const std::vector<uint8_t>& body, size_t n, int length_size, uint64_t* stamp, bool* found) {
    GuardPage guard(body.size() + 1);
    const uint8_t* p = guard.place(body.data(), n);
    return find_latency_stamp(p, n, length_size, stamp, found);
}

Error parse_guarded(VideoCodec codec, const std::vector<uint8_t>& nal, size_t n, uint64_t* stamp, bool* found) {
    GuardPage guard(nal.size() + 1);
    const uint8_t* p = guard.place(nal.data(), n);
    return parse_latency_sei(codec, p, n, stamp, found);
}

}  // namespace

TEST(LatencyStamp, BuildsTheH264SeiByteForByte) {
    // A time without zero runs: no emulation prevention.
    const uint64_t t = 0x0102030405060708ull;
    std::vector<uint8_t> want = cat(cat(bytes({0x06, 0x05, 0x18}), kUuid),
                                    bytes({0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x80}));
    EXPECT_EQ(want, sei_of(VideoCodec::kH264, t));
}

TEST(LatencyStamp, BuildsTheH265PrefixSei) {
    std::vector<uint8_t> sei = sei_of(VideoCodec::kH265, 0x1122334455667788ull);
    std::vector<uint8_t> want = cat(cat(bytes({0x4e, 0x01, 0x05, 0x18}), kUuid),
                                    bytes({0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x80}));
    EXPECT_EQ(want, sei);
}

TEST(LatencyStamp, OtherCodecsGetNoSei) {
    uint8_t out[kLatencySeiMaxSize];
    EXPECT_EQ(0u, build_latency_sei(VideoCodec::kAV1, 1, out));
    EXPECT_EQ(0u, build_latency_sei(VideoCodec::kUnknown, 1, out));
}

TEST(LatencyStamp, InsertsEmulationPreventionBytes) {
    // 00 00 00 00 00 00 01 02: after two zeros, any byte <= 3 gets a 0x03 first.
    std::vector<uint8_t> want = cat(cat(bytes({0x06, 0x05, 0x18}), kUuid),
                                    bytes({0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x01, 0x02, 0x80}));
    EXPECT_EQ(want, sei_of(VideoCodec::kH264, 0x0102));
    // 00 00 03 00 ...: the 03 that is data is escaped too.
    std::vector<uint8_t> sei = sei_of(VideoCodec::kH264, 0x0000030000000000ull);
    std::vector<uint8_t> tail(sei.end() - 13, sei.end());
    EXPECT_EQ(bytes({'p', 0x00, 0x00, 0x03, 0x03, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x80}), tail);
    // Nothing in the escaped NAL unit is a start code.
    for (uint64_t t : {0ull, 1ull, 0x0000000100000000ull, 0x0300000000000003ull, ~0ull}) {
        std::vector<uint8_t> s = sei_of(VideoCodec::kH265, t);
        ASSERT_LE(s.size(), kLatencySeiMaxSize);
        for (size_t i = 0; i + 2 < s.size(); i++) {
            EXPECT_FALSE(s[i] == 0 && s[i + 1] == 0 && s[i + 2] <= 2) << "t=" << t << " at " << i;
        }
    }
}

TEST(LatencyStamp, ParsesWhatItBuilds) {
    for (VideoCodec codec : {VideoCodec::kH264, VideoCodec::kH265}) {
        for (uint64_t t : {0ull, 1ull, 0x0102ull, 0x0000030000000000ull, 1767225600123456ull, 0x8000000000000000ull,
                           ~0ull}) {
            std::vector<uint8_t> sei = sei_of(codec, t);
            uint64_t got = 0;
            bool found = false;
            ASSERT_TRUE(ok(parse_guarded(codec, sei, sei.size(), &got, &found)));
            EXPECT_TRUE(found);
            EXPECT_EQ(t, got);
        }
    }
}

TEST(LatencyStamp, ParsesAHandWrittenEscapedSei) {
    // The stamp 0x0000000000000102 written with its emulation prevention bytes.
    std::vector<uint8_t> nal = cat(cat(bytes({0x06, 0x05, 0x18}), kUuid),
                                   bytes({0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x01, 0x02, 0x80}));
    uint64_t t = 0;
    bool found = false;
    ASSERT_TRUE(ok(parse_guarded(VideoCodec::kH264, nal, nal.size(), &t, &found)));
    EXPECT_TRUE(found);
    EXPECT_EQ(0x0102u, t);
}

TEST(LatencyStamp, FindsTheStampAfterOtherSeiMessages) {
    // recovery_point (type 6, 1 byte), an x264-style user_data_unregistered
    // with another UUID and a text, then ours; all in one NAL unit.
    std::vector<uint8_t> other_uuid(16, 0xdc);
    std::vector<uint8_t> text(300, 'x');  // payloadSize 316: 0xFF 0x3D
    std::vector<uint8_t> rbsp = bytes({0x06, 0x01, 0x84});
    rbsp = cat(rbsp, bytes({0x05, 0xff, 0x3d}));
    rbsp = cat(cat(rbsp, other_uuid), text);
    rbsp = cat(cat(rbsp, bytes({0x05, 0x18})), kUuid);
    rbsp = cat(rbsp, bytes({0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x80}));
    // Escape it: 00 00 00 -> 00 00 03 00.
    std::vector<uint8_t> nal = {0x06};
    int zeros = 0;
    for (uint8_t b : rbsp) {
        if (zeros >= 2 && b <= 3) {
            nal.push_back(0x03);
            zeros = 0;
        }
        nal.push_back(b);
        zeros = b == 0 ? zeros + 1 : 0;
    }
    uint64_t t = 0;
    bool found = false;
    ASSERT_TRUE(ok(parse_guarded(VideoCodec::kH264, nal, nal.size(), &t, &found)));
    EXPECT_TRUE(found);
    EXPECT_EQ(0x11223344u, t);

    // The same before a slice, in a tag body.
    std::vector<uint8_t> body = cat(bytes({0x17, 0x01, 0x00, 0x00, 0x00}), prefixed(nal));
    body = cat(body, prefixed(bytes({0x65, 0x88, 0x84})));
    ASSERT_TRUE(ok(find_guarded(body, body.size(), 4, &t, &found)));
    EXPECT_TRUE(found);
    EXPECT_EQ(0x11223344u, t);
}

TEST(LatencyStamp, AnotherUuidIsNotAStamp) {
    std::vector<uint8_t> nal = sei_of(VideoCodec::kH264, 42);
    nal[3 + 15] ^= 0x20;  // the UUID's last byte
    uint64_t t = 7;
    bool found = true;
    ASSERT_TRUE(ok(parse_guarded(VideoCodec::kH264, nal, nal.size(), &t, &found)));
    EXPECT_FALSE(found);
    EXPECT_EQ(0u, t);
    // Other SEI payload types, and NAL units that are no SEI, are skipped too.
    std::vector<uint8_t> pic_timing = bytes({0x06, 0x01, 0x02, 0x12, 0x34, 0x80});
    ASSERT_TRUE(ok(parse_guarded(VideoCodec::kH264, pic_timing, pic_timing.size(), &t, &found)));
    EXPECT_FALSE(found);
    std::vector<uint8_t> slice = bytes({0x65, 0x05, 0x18, 0x00});
    ASSERT_TRUE(ok(parse_guarded(VideoCodec::kH264, slice, slice.size(), &t, &found)));
    EXPECT_FALSE(found);
    // An H.264 SEI read as H.265 is no prefix SEI (type 3 of a 2-byte header).
    std::vector<uint8_t> avc = sei_of(VideoCodec::kH264, 42);
    ASSERT_TRUE(ok(parse_guarded(VideoCodec::kH265, avc, avc.size(), &t, &found)));
    EXPECT_FALSE(found);
}

TEST(LatencyStamp, TruncatedSeiIsAnError) {
    std::vector<uint8_t> sei = sei_of(VideoCodec::kH264, 0x0102);  // with escapes
    // Every cut that leaves the SEI header but not the whole message (the
    // trailing byte may go: it is not part of the message).
    for (size_t n = 2; n + 1 < sei.size(); n++) {
        uint64_t t = 0;
        bool found = false;
        int c = code(parse_guarded(VideoCodec::kH264, sei, n, &t, &found));
        EXPECT_EQ(kErrorVideoPacket, c) << "n=" << n;
        EXPECT_FALSE(found) << "n=" << n;
    }
    // Only the NAL header: no message at all.
    uint64_t t = 0;
    bool found = true;
    EXPECT_TRUE(ok(parse_guarded(VideoCodec::kH264, sei, 1, &t, &found)));
    EXPECT_FALSE(found);
    // Our UUID with a payloadSize too small for the time.
    std::vector<uint8_t> short_sei = cat(cat(bytes({0x06, 0x05, 0x14}), kUuid), bytes({1, 2, 3, 4, 0x80}));
    EXPECT_EQ(kErrorVideoPacket, code(parse_guarded(VideoCodec::kH264, short_sei, short_sei.size(), &t, &found)));
    // A payloadSize that runs past the NAL unit (another message).
    std::vector<uint8_t> long_sei = bytes({0x06, 0x06, 0x40, 0x01, 0x80});
    EXPECT_EQ(kErrorVideoPacket, code(parse_guarded(VideoCodec::kH264, long_sei, long_sei.size(), &t, &found)));
    // A payloadType of 0xFF bytes only.
    std::vector<uint8_t> ff(40, 0xff);
    ff[0] = 0x06;
    EXPECT_EQ(kErrorVideoPacket, code(parse_guarded(VideoCodec::kH264, ff, ff.size(), &t, &found)));
}

TEST(LatencyStamp, StampsAndFindsInTagBodies) {
    for (int length_size : {1, 2, 4}) {
        std::vector<uint8_t> body = avc_frame(length_size);
        std::vector<uint8_t> s = stamped(body, length_size, 1767225600123456ull);
        // Header, then the SEI with its length, then the original NAL units.
        std::vector<uint8_t> sei = sei_of(VideoCodec::kH264, 1767225600123456ull);
        std::vector<uint8_t> want = cat(cat(bytes({0x27, 0x01, 0x00, 0x00, 0x42}), prefixed(sei, length_size)),
                                        std::vector<uint8_t>(body.begin() + 5, body.end()));
        EXPECT_EQ(want, s) << "length size " << length_size;
        uint64_t t = 0;
        bool found = false;
        ASSERT_TRUE(ok(find_guarded(s, s.size(), length_size, &t, &found)));
        EXPECT_TRUE(found);
        EXPECT_EQ(1767225600123456ull, t);
        // The unstamped frame has none.
        ASSERT_TRUE(ok(find_guarded(body, body.size(), length_size, &t, &found)));
        EXPECT_FALSE(found);
    }
    // H.265 in Enhanced RTMP.
    std::vector<uint8_t> hevc = hevc_ex_frame();
    std::vector<uint8_t> s = stamped(hevc, 4, 99);
    EXPECT_EQ(hevc.size() + 4 + sei_of(VideoCodec::kH265, 99).size(), s.size());
    uint64_t t = 0;
    bool found = false;
    ASSERT_TRUE(ok(find_guarded(s, s.size(), 4, &t, &found)));
    EXPECT_TRUE(found);
    EXPECT_EQ(99u, t);
}

TEST(LatencyStamp, FindsInEveryPrefixThatHoldsTheSei) {
    // What an HTTP-FLV reader sees of a tag body: its first bytes.
    std::vector<uint8_t> s = stamped(avc_frame(4, 2000, true), 4, 0x0000000300000000ull);
    const size_t sei_end = 5 + 4 + sei_of(VideoCodec::kH264, 0x0000000300000000ull).size();
    ASSERT_LE(sei_end, 64u);  // what the tool keeps of a body is enough
    for (size_t n = 0; n <= s.size(); n++) {
        uint64_t t = 0;
        bool found = false;
        Error err = find_guarded(s, n, 4, &t, &found);
        if (n < 5) {
            // Not even the video header: an error, or nothing for an empty body.
            EXPECT_EQ(n == 0 ? 0 : kErrorVideoPacket, code(std::move(err))) << "n=" << n;
            EXPECT_FALSE(found);
            continue;
        }
        ASSERT_TRUE(ok(std::move(err))) << "n=" << n;
        EXPECT_EQ(n >= sei_end, found) << "n=" << n;
        if (found) {
            EXPECT_EQ(0x0000000300000000ull, t);
        }
    }
}

TEST(LatencyStamp, BrokenStampInsideAFrameIsAnError) {
    std::vector<uint8_t> s = stamped(avc_frame(), 4, 5);
    // Shorten the SEI NAL unit's length by 4: the message runs past its end.
    std::vector<uint8_t> cut = s;
    cut[8] = static_cast<uint8_t>(cut[8] - 4);
    uint64_t t = 0;
    bool found = false;
    EXPECT_EQ(kErrorVideoPacket, code(find_guarded(cut, cut.size(), 4, &t, &found)));
    EXPECT_FALSE(found);
    // A length prefix past the body: the scan stops, nothing found, no error.
    std::vector<uint8_t> huge = s;
    huge[5] = 0x7f;
    EXPECT_TRUE(ok(find_guarded(huge, huge.size(), 4, &t, &found)));
    EXPECT_FALSE(found);
    // A length size the formats do not have.
    EXPECT_EQ(kErrorVideoPacket, code(find_guarded(s, s.size(), 3, &t, &found)));
    // A malformed video header.
    std::vector<uint8_t> bad = s;
    bad[0] = 0x07;  // frame type 0 is reserved
    EXPECT_EQ(kErrorVideoPacket, code(find_guarded(bad, bad.size(), 4, &t, &found)));
}

TEST(LatencyStamp, NoStampInSequenceHeadersOrOtherCodecs) {
    // AVC sequence header (lengthSizeMinusOne 3).
    std::vector<uint8_t> avc_sh = bytes({0x17, 0x00, 0x00, 0x00, 0x00, 0x01, 0x64, 0x00, 0x1f, 0xff, 0xe1, 0x00, 0x04,
                                         0x67, 0x64, 0x00, 0x1f, 0x01, 0x00, 0x02, 0x68, 0xeb});
    uint64_t t = 0;
    bool found = true;
    ASSERT_TRUE(ok(find_guarded(avc_sh, avc_sh.size(), 4, &t, &found)));
    EXPECT_FALSE(found);
    // H.263 (codec id 2), a video command frame.
    std::vector<uint8_t> h263 = bytes({0x22, 0x00, 0x00, 0x84, 0x00, 0x00, 0x00});
    ASSERT_TRUE(ok(find_guarded(h263, h263.size(), 4, &t, &found)));
    EXPECT_FALSE(found);
    std::vector<uint8_t> command = bytes({0x57, 0x00});
    ASSERT_TRUE(ok(find_guarded(command, command.size(), 4, &t, &found)));
    EXPECT_FALSE(found);

    // None of them can be stamped either; out stays untouched.
    std::vector<uint8_t> out(64, 0xee);
    size_t n = 1;
    EXPECT_EQ(kErrorVideoPacket, code(stamp_video_tag(avc_sh.data(), avc_sh.size(), 4, 1, out.data(), &n)));
    EXPECT_EQ(0u, n);
    EXPECT_EQ(kErrorVideoPacket, code(stamp_video_tag(h263.data(), h263.size(), 4, 1, out.data(), &n)));
    EXPECT_EQ(kErrorVideoPacket, code(stamp_video_tag(command.data(), command.size(), 4, 1, out.data(), &n)));
    std::vector<uint8_t> frame = avc_frame();
    EXPECT_EQ(kErrorVideoPacket, code(stamp_video_tag(frame.data(), frame.size(), 3, 1, out.data(), &n)));
    EXPECT_EQ(kErrorVideoPacket, code(stamp_video_tag(frame.data(), 4, 4, 1, out.data(), &n)));
    EXPECT_EQ(std::vector<uint8_t>(64, 0xee), out);
}

TEST(LatencyStamp, NaluLengthSizeOfSequenceHeaders) {
    std::vector<uint8_t> avc_sh = bytes({0x17, 0x00, 0x00, 0x00, 0x00, 0x01, 0x64, 0x00, 0x1f, 0xff, 0xe1, 0x00, 0x04,
                                         0x67, 0x64, 0x00, 0x1f, 0x01, 0x00, 0x02, 0x68, 0xeb});
    GuardPage guard(64);
    EXPECT_EQ(4, video_nalu_length_size(guard.place(avc_sh), avc_sh.size()));
    avc_sh[9] = 0xfd;  // lengthSizeMinusOne 1
    EXPECT_EQ(2, video_nalu_length_size(guard.place(avc_sh), avc_sh.size()));
    avc_sh[9] = 0xfe;  // 3 bytes: not allowed
    EXPECT_EQ(0, video_nalu_length_size(guard.place(avc_sh), avc_sh.size()));
    // Too short to hold the byte, and not a sequence header at all.
    EXPECT_EQ(0, video_nalu_length_size(guard.place(avc_sh.data(), 9), 9));
    std::vector<uint8_t> frame = avc_frame();
    EXPECT_EQ(0, video_nalu_length_size(guard.place(frame), frame.size()));
    // HEVC (legacy codec id 12): lengthSizeMinusOne is the record's byte 21.
    std::vector<uint8_t> hevc_sh = bytes({0x1c, 0x00, 0x00, 0x00, 0x00});
    std::vector<uint8_t> record(23, 0);
    record[0] = 1;
    record[21] = 0xfc;  // 1 byte
    hevc_sh = cat(hevc_sh, record);
    EXPECT_EQ(1, video_nalu_length_size(guard.place(hevc_sh), hevc_sh.size()));
    EXPECT_EQ(0, video_nalu_length_size(guard.place(hevc_sh.data(), 26), 26));
}
