// Tests for kernel/media_codec*: FLV/RTMP audio and video tag bodies, the
// codec configuration records, and the bit reader under them.
//
// The byte vectors are real: made by ffmpeg 5.1 (Debian 12) from lavfi
// testsrc/sine and copied out of the files it wrote (FLV tag bodies, or the
// hvcC/av1C box of an MP4 for the codecs ffmpeg's FLV muxer cannot carry).
// Expected values are what ffprobe reports for the same file, except where a
// comment says otherwise. Broken variants are derived from them, and every
// parser also runs on input placed right before a PROT_NONE page.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernel/codec/bit_reader.hpp"
#include "kernel/codec/media_codec.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

std::vector<uint8_t> cat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
    std::vector<uint8_t> out;
    for (int b : v) out.push_back(static_cast<uint8_t>(b));
    return out;
}

std::vector<uint8_t> fourcc(const char* s) { return std::vector<uint8_t>(s, s + 4); }

// An MSB-first bit writer to build broken SPSs.
class BitWriter {
  public:
    void put(int n, uint64_t v) {
        for (int i = n - 1; i >= 0; i--) bits_.push_back(((v >> i) & 1) != 0);
    }
    void ue(uint64_t v) {
        uint64_t x = v + 1;
        int len = 64 - __builtin_clzll(x);
        put(len - 1, 0);
        put(len, x);
    }
    void se(int64_t v) { ue(v > 0 ? 2 * static_cast<uint64_t>(v) - 1 : 2 * static_cast<uint64_t>(-v)); }
    // The bits so far, zero-padded to a byte boundary.
    std::vector<uint8_t> raw() const {
        std::vector<uint8_t> out((bits_.size() + 7) / 8, 0);
        for (size_t i = 0; i < bits_.size(); i++) {
            if (bits_[i]) out[i / 8] |= static_cast<uint8_t>(0x80 >> (i % 8));
        }
        return out;
    }
    // rbsp_trailing_bits, then bytes with emulation prevention inserted.
    std::vector<uint8_t> nal(uint8_t header) {
        put(1, 1);
        while (bits_.size() % 8) bits_.push_back(false);
        std::vector<uint8_t> out{header};
        int zeros = 0;
        for (size_t i = 0; i < bits_.size(); i += 8) {
            uint8_t b = 0;
            for (int j = 0; j < 8; j++) b = static_cast<uint8_t>(b << 1 | bits_[i + j]);
            if (zeros >= 2 && b <= 3) {
                out.push_back(3);
                zeros = 0;
            }
            zeros = b == 0 ? zeros + 1 : 0;
            out.push_back(b);
        }
        return out;
    }

  private:
    std::vector<bool> bits_;
};

// ---- real vectors (ffmpeg 5.1 + libx264/libx265/libaom/aac) ----

// h264_high_768x320.flv: -c:v libx264 -profile:v high -level 3.1, testsrc 768x320. Video tag body of the
// AVC sequence header (5-byte FLV video header + AVCDecoderConfigurationRecord).
const char* const kAvcHigh768x320 =
    "17000000000164001fffe100196764001facd940c029b011000003000100000300320f18319601000668ebe3cb22c0fdf8f8"
    "00";
// -profile:v baseline -level 3.0, 640x360 (height cropped from 368).
const char* const kAvcBase640x360 =
    "17000000000142c01effe100196742c01ed900a02ff97011000003000100000300320f162e4801000568cb83cb20";
// -profile:v main -level 3.1, 854x480 (width cropped from 864).
const char* const kAvcMain854x480 =
    "1700000000014d401fffe10018674d401feca06c1ef37808800000030080000019078c18cb01000568ebe3cb20";
// -profile:v high -level 4.0, 1366x768 (width cropped from 1376).
const char* const kAvcHigh1366x768 =
    "170000000001640028ffe1001b67640028acd94056061e6f011000000300100000030320f183196001000668ebe3cb22c0fd"
    "f8f800";
// -pix_fmt yuv420p10le -profile:v high10, 640x360.
const char* const kAvcHigh10 =
    "1700000000016e001effe1001b676e001ea6cd940a02ff97011000000300100000030320f162d96001000668ebe3cb22c0fd"
    "fafa00";
// -pix_fmt yuv444p -profile:v high444, 642x362 (4:4:4 crop units of 1x1).
const char* const kAvc444642x362 =
    "170000000001f4001effe1001a67f4001e919b281485fc7cf808800000030080000019078b16cb01000668ebe3c44844fff8"
    "f800";
// -x264-params cqm=jvt, 352x288: seq_scaling_matrix_present_flag with explicit lists.
const char* const kAvcCqm352x288 =
    "17000000000164000dffe100196764000dacd9416096c044000003000400000300c83c50a65801000768ebe3cb3002c0fdf8"
    "f800";
// -flags +ildct+ilme -x264-params interlaced=1, 720x576: frame_mbs_only_flag 0.
const char* const kAvcInterlaced720x576 =
    "17000000000164001effe100186764001eacd940b424d8088000000300800000190f8a14cb01000668fba3cb22c0fdf8f800";

// hevc_*.mp4 (-c:v libx265): the hvcC box with the VPS/SPS/PPS arrays only (x265's SEI array, 2.3 KB of
// its options string, dropped and numOfArrays set to 3).
const char* const kHvccMain640x360 =
    "0101600000009000000000003ff000fcfdf8f800000f03200001001840010c01ffff01600000030090000003000003003f95"
    "9809210001002a42010101600000030090000003000003003fa00502016965959a4932bc05a0200000030020000003032122"
    "000100074401c172b46240";
// -pix_fmt yuv420p10le, 854x480 (conformance window on the right).
const char* const kHvccMain10854x480 =
    "0102200000009000000000005af000fcfdfafa00000f03200001001840010c01ffff02200000030090000003000003005a95"
    "9809210001002c42010102200000030090000003000003005aa006b201e1d6d96566924caf016808000003000800000300c8"
    "4022000100074401c172b46240";
// 1920x1080 (coded 1920x1088, window at the bottom).
const char* const kHvccMain1920x1080 =
    "01016000000090000000000078f000fcfdf8f800000f03200001001840010c01ffff01600000030090000003000003007895"
    "9809210001002a420101016000000300900000030000030078a003c08010e596566924caf0168080000003008000000c8422"
    "000100074401c172b46240";

// av1_*.mp4 (-c:v libaom-av1 -cpu-used 8): the av1C box, with a sequence header OBU.
const char* const kAv1c640x360 = "81010c000a0b0000000cc4ff6736be4010";
const char* const kAv1c10bit854x480 = "81044c000a0b00000024c6abdf36be5010";

// Audio tag bodies of AAC sequence headers (-c:a aac). ffmpeg appends a sync extension saying "no SBR".
const char* const kAacLc44100Stereo = "af00121056e500";
const char* const kAacLc48000Mono = "af00118856e500";
const char* const kAacMain22050Stereo = "af000b9056e500";  // -profile:a aac_main
// First bytes of MP3 audio tags (-c:a libmp3lame): 44100 stereo, and 11025 mono.
const char* const kMp3_44100Stereo = "2ffffb90640000026b0bce9d60600000000d20a0";
const char* const kMp3_11025Mono = "26ffe320c400125002cdbf410802aaa013976db6";

// AudioSpecificConfigs built bit by bit from ISO 14496-3 (no HE-AAC encoder is installed). Wrapped in an
// FLV with ffmpeg's LC frames, ffprobe reports the sample rates and channel counts below for them (its
// "profile" then comes from the LC frames, not from the config).
const char* const kAscHeExplicit = "2b920800";          // AOT 5, 22050 -> 44100, stereo, core AOT 2
const char* const kAscHev2Explicit = "eb8a0800";        // AOT 29, 22050 -> 44100, mono core -> 2 channels
const char* const kAscHeImplicit = "139056e5a0";        // LC + sync extension 0x2b7, SBR, 44100
const char* const kAscHev2Implicit = "138856e5a54880";  // LC mono + 0x2b7 SBR + 0x548 PS
const char* const kAscExplicitRate = "1780562210";      // index 0xF, 24-bit rate 44100
const char* const kAscEscapeAot = "f94640";             // AOT 31 -> 32 + 10 = 42
const char* const kAscChannels7 = "11b8";               // LC 48000, channelConfiguration 7 = 8 channels

struct AvcCase {
    const char* hex;
    const char* profile;
    const char* level;
    int width, height, bit_depth, chroma;
};

const AvcCase kAvcCases[] = {
    {kAvcHigh768x320, "High", "3.1", 768, 320, 8, 1},
    // ffprobe says "Constrained Baseline" (constraint_set1_flag); the API names profile_idc only, like SRS.
    {kAvcBase640x360, "Baseline", "3", 640, 360, 8, 1},
    {kAvcMain854x480, "Main", "3.1", 854, 480, 8, 1},
    {kAvcHigh1366x768, "High", "4", 1366, 768, 8, 1},
    {kAvcHigh10, "High 10", "3", 640, 360, 10, 1},
    {kAvc444642x362, "High 4:4:4 Predictive", "3", 642, 362, 8, 3},
    {kAvcCqm352x288, "High", "1.3", 352, 288, 8, 1},
    {kAvcInterlaced720x576, "High", "3", 720, 576, 8, 1},
};

struct HevcCase {
    const char* hex;
    const char* profile;
    const char* level;  // ffprobe prints general_level_idc: 63, 90, 120
    int width, height, bit_depth;
};

const HevcCase kHevcCases[] = {
    {kHvccMain640x360, "Main", "2.1", 640, 360, 8},
    {kHvccMain10854x480, "Main 10", "3", 854, 480, 10},
    {kHvccMain1920x1080, "Main", "4", 1920, 1080, 8},
};

// E-RTMP video tag body: [IsExHeader|FrameType|PacketType] FourCC body.
std::vector<uint8_t> ex_video(int frame_type, int packet_type, const char* cc, const std::vector<uint8_t>& body) {
    std::vector<uint8_t> out{static_cast<uint8_t>(0x80 | frame_type << 4 | packet_type)};
    return cat(cat(out, fourcc(cc)), body);
}

// Every prefix of `v`, placed before a guard page, through `fn`.
template <typename Fn>
void for_each_prefix(const std::vector<uint8_t>& v, Fn fn) {
    GuardPage guard(v.size());
    for (size_t len = 0; len <= v.size(); len++) fn(guard.place(v.data(), len), len);
}

}  // namespace

// ---- bit reader ----

TEST(CodecBitReader, ReadsBitsAndExpGolomb) {
    // 1 | 010 | 011 | 00100 | 00101 | 0001000 | 1 ...: ue 0,1,2,3,4,7 then a flag.
    BitWriter w;
    for (uint64_t v : {0, 1, 2, 3, 4, 7, 254, 65534}) w.ue(v);
    w.se(0);
    w.se(1);
    w.se(-1);
    w.se(-100);
    w.se(1000);
    w.put(13, 0x1abc);
    std::vector<uint8_t> nal = w.nal(0);
    std::vector<uint8_t> rbsp;
    nal_to_rbsp(nal.data() + 1, nal.size() - 1, &rbsp);
    BitReader br(rbsp.data(), rbsp.size());
    for (uint32_t v : {0u, 1u, 2u, 3u, 4u, 7u, 254u, 65534u}) EXPECT_EQ(br.ue(), v);
    EXPECT_EQ(br.se(), 0);
    EXPECT_EQ(br.se(), 1);
    EXPECT_EQ(br.se(), -1);
    EXPECT_EQ(br.se(), -100);
    EXPECT_EQ(br.se(), 1000);
    EXPECT_EQ(br.u(13), 0x1abcu);
    EXPECT_EQ(br.u(1), 1u);  // rbsp_stop_one_bit
    EXPECT_TRUE(br.ok());
}

TEST(CodecBitReader, FailsInsteadOfOverReading) {
    const uint8_t one[] = {0xa5};
    BitReader br(one, 1);
    uint32_t v = 0;
    EXPECT_TRUE(br.read_bits(3, &v));
    EXPECT_EQ(v, 5u);
    EXPECT_FALSE(br.read_bits(6, &v));  // 5 bits left
    EXPECT_EQ(v, 0u);
    EXPECT_FALSE(br.ok());
    EXPECT_FALSE(br.read_bits(1, &v));  // sticky
    EXPECT_EQ(br.bits_left(), 0u);

    BitReader wide(one, 1);
    EXPECT_FALSE(wide.read_bits(33, &v));  // wider than the result

    // 40 zero bits then a 1: more than 31 leading zeros is refused, not shifted into garbage.
    const uint8_t zeros[] = {0, 0, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff};
    BitReader eg(zeros, sizeof(zeros));
    EXPECT_FALSE(eg.read_ue(&v));
    EXPECT_FALSE(eg.ok());
    // 31 zeros is the largest accepted: 2^32 - 2 ... here with a suffix of 31 bits.
    BitWriter w;
    w.ue(0xfffffffeull);
    std::vector<uint8_t> raw = w.raw();
    BitReader max(raw.data(), raw.size());
    EXPECT_EQ(max.ue(), 0xfffffffeu);
    EXPECT_TRUE(max.ok());

    // An all-zero buffer runs out: no loop past the end.
    const uint8_t empty[4] = {};
    BitReader z(empty, sizeof(empty));
    EXPECT_FALSE(z.read_ue(&v));
}

TEST(CodecBitReader, RemovesEmulationPrevention) {
    std::vector<uint8_t> in = bytes({0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x03, 0x00});
    std::vector<uint8_t> out;
    nal_to_rbsp(in.data(), in.size(), &out);
    EXPECT_EQ(out, bytes({0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00}));
    nal_to_rbsp(nullptr, 0, &out);
    EXPECT_TRUE(out.empty());
}

// ---- video tag headers ----

TEST(CodecVideoPacket, LegacyAvcSequenceHeader) {
    std::vector<uint8_t> tag = unhex(kAvcHigh768x320);
    VideoPacketInfo info;
    ASSERT_TRUE(ok(parse_video_packet(tag.data(), tag.size(), &info)));
    EXPECT_EQ(info.codec, VideoCodec::kH264);
    EXPECT_TRUE(info.keyframe);
    EXPECT_TRUE(info.sequence_header);
    EXPECT_FALSE(info.end_of_sequence);
    EXPECT_FALSE(info.enhanced);
    EXPECT_EQ(info.legacy_codec_id, 7);
    EXPECT_EQ(info.composition_time, 0);
    EXPECT_EQ(info.data, tag.data() + 5);
    EXPECT_EQ(info.size, tag.size() - 5);
    EXPECT_TRUE(is_video_keyframe(tag.data(), tag.size()));
    EXPECT_TRUE(is_video_sequence_header(tag.data(), tag.size()));

    VideoCodecConfig config;
    ASSERT_TRUE(ok(parse_avc_sequence_header(info.data, info.size, &config)));
    EXPECT_EQ(config.codec, "H264");
    EXPECT_EQ(config.profile, "High");
    EXPECT_EQ(config.level, "3.1");
    EXPECT_EQ(config.width, 768);
    EXPECT_EQ(config.height, 320);
    EXPECT_EQ(config.nalu_length_size, 4);
}

TEST(CodecVideoPacket, LegacyAvcFrames) {
    // h264_high_768x320.flv: the IDR (cts 80 ms) and a P frame (cts 200 ms) tag heads; tiny.flv's last tag
    // is ffmpeg's end of sequence.
    std::vector<uint8_t> idr = unhex("1701000050000002ac0605ffffa8dc45e9");
    std::vector<uint8_t> inter = unhex("27010000c800000254419a246c42bffe38");
    std::vector<uint8_t> eos = unhex("1702000000");
    std::vector<uint8_t> negative = unhex("2701fffff60000000141");
    VideoPacketInfo info;
    ASSERT_TRUE(ok(parse_video_packet(idr.data(), idr.size(), &info)));
    EXPECT_TRUE(info.keyframe);
    EXPECT_FALSE(info.sequence_header);
    EXPECT_EQ(info.packet_type, kVideoCodedFrames);
    EXPECT_EQ(info.composition_time, 80);
    EXPECT_EQ(info.size, idr.size() - 5);
    EXPECT_FALSE(is_video_sequence_header(idr.data(), idr.size()));

    ASSERT_TRUE(ok(parse_video_packet(inter.data(), inter.size(), &info)));
    EXPECT_FALSE(info.keyframe);
    EXPECT_EQ(info.frame_type, kVideoFrameInter);
    EXPECT_EQ(info.composition_time, 200);
    EXPECT_FALSE(is_video_keyframe(inter.data(), inter.size()));

    ASSERT_TRUE(ok(parse_video_packet(eos.data(), eos.size(), &info)));
    EXPECT_TRUE(info.end_of_sequence);
    EXPECT_FALSE(info.sequence_header);
    EXPECT_EQ(info.size, 0u);

    ASSERT_TRUE(ok(parse_video_packet(negative.data(), negative.size(), &info)));
    EXPECT_EQ(info.composition_time, -10);  // SI24
}

TEST(CodecVideoPacket, LegacyOtherCodecsAndCommands) {
    VideoPacketInfo info;
    std::vector<uint8_t> vp6 = bytes({0x24, 0x00, 0x11, 0x22});  // inter, On2 VP6
    ASSERT_TRUE(ok(parse_video_packet(vp6.data(), vp6.size(), &info)));
    EXPECT_EQ(info.codec, VideoCodec::kOther);
    EXPECT_EQ(info.legacy_codec_id, 4);
    EXPECT_EQ(info.size, 3u);

    std::vector<uint8_t> command = bytes({0x57, 0x01});  // video info/command frame, AVC, EndSeek
    ASSERT_TRUE(ok(parse_video_packet(command.data(), command.size(), &info)));
    EXPECT_TRUE(info.command);
    EXPECT_FALSE(info.keyframe);
    EXPECT_FALSE(info.sequence_header);
    EXPECT_EQ(info.size, 1u);
    EXPECT_EQ(info.data[0], 1);
    EXPECT_FALSE(is_video_sequence_header(command.data(), command.size()));

    std::vector<uint8_t> hevc = cat(bytes({0x1c, 0x00, 0, 0, 0}), unhex(kHvccMain640x360));  // legacy id 12
    ASSERT_TRUE(ok(parse_video_packet(hevc.data(), hevc.size(), &info)));
    EXPECT_EQ(info.codec, VideoCodec::kH265);
    EXPECT_TRUE(info.sequence_header);
    EXPECT_TRUE(is_video_sequence_header(hevc.data(), hevc.size()));

    for (auto bad : {bytes({0x07, 0x01, 0, 0, 0}),  // frame type 0
                     bytes({0x67, 0x01, 0, 0, 0}),  // frame type 6
                     bytes({0x17, 0x03, 0, 0, 0}),  // AVCPacketType 3
                     bytes({0x17, 0x01, 0, 0}),     // truncated cts
                     bytes({0x57}),                 // command without its byte
                     bytes({})}) {
        EXPECT_FALSE(ok(parse_video_packet(bad.data(), bad.size(), &info)));
    }
}

TEST(CodecVideoPacket, EnhancedHevcAndAv1) {
    for (const HevcCase& c : kHevcCases) {
        std::vector<uint8_t> tag = ex_video(1, kVideoSequenceStart, "hvc1", unhex(c.hex));
        VideoPacketInfo info;
        ASSERT_TRUE(ok(parse_video_packet(tag.data(), tag.size(), &info)));
        EXPECT_TRUE(info.enhanced);
        EXPECT_EQ(info.codec, VideoCodec::kH265);
        EXPECT_EQ(info.fourcc, make_fourcc("hvc1"));
        EXPECT_TRUE(info.sequence_header);
        EXPECT_TRUE(info.keyframe);
        EXPECT_EQ(info.data, tag.data() + 5);
        EXPECT_TRUE(is_video_sequence_header(tag.data(), tag.size()));
        VideoCodecConfig config;
        ASSERT_TRUE(ok(parse_hevc_sequence_header(info.data, info.size, &config))) << c.hex;
        EXPECT_EQ(config.codec, "H265");
        EXPECT_EQ(config.profile, c.profile);
        EXPECT_EQ(config.level, c.level);
        EXPECT_EQ(config.width, c.width);
        EXPECT_EQ(config.height, c.height);
        EXPECT_EQ(config.bit_depth, c.bit_depth);
        EXPECT_EQ(config.nalu_length_size, 4);
    }

    struct {
        const char* hex;
        const char* level;  // ffprobe prints seq_level_idx (1, 4); A.3 names them 2.1 and 3.0
        int width, height, bit_depth;
    } av1[] = {{kAv1c640x360, "2.1", 640, 360, 8}, {kAv1c10bit854x480, "3.0", 854, 480, 10}};
    for (const auto& c : av1) {
        std::vector<uint8_t> tag = ex_video(1, kVideoSequenceStart, "av01", unhex(c.hex));
        VideoPacketInfo info;
        ASSERT_TRUE(ok(parse_video_packet(tag.data(), tag.size(), &info)));
        EXPECT_EQ(info.codec, VideoCodec::kAV1);
        EXPECT_TRUE(info.sequence_header);
        VideoCodecConfig config;
        ASSERT_TRUE(ok(parse_av1_sequence_header(info.data, info.size, &config)));
        EXPECT_EQ(config.codec, "AV1");
        EXPECT_EQ(config.profile, "Main");
        EXPECT_EQ(config.level, c.level);
        EXPECT_EQ(config.width, c.width);
        EXPECT_EQ(config.height, c.height);
        EXPECT_EQ(config.bit_depth, c.bit_depth);
    }
}

TEST(CodecVideoPacket, EnhancedPacketTypes) {
    std::vector<uint8_t> nalus = bytes({0, 0, 0, 2, 0x26, 0x01});
    VideoPacketInfo info;

    // CodedFrames of hvc1 carry a composition time; CodedFramesX and av01/vp09 frames do not.
    std::vector<uint8_t> coded = ex_video(2, kVideoCodedFrames, "hvc1", cat(bytes({0, 0, 40}), nalus));
    ASSERT_TRUE(ok(parse_video_packet(coded.data(), coded.size(), &info)));
    EXPECT_EQ(info.composition_time, 40);
    EXPECT_FALSE(info.keyframe);
    EXPECT_EQ(info.size, nalus.size());
    EXPECT_EQ(info.data, coded.data() + 8);

    std::vector<uint8_t> coded_x = ex_video(1, kVideoCodedFramesX, "hvc1", nalus);
    ASSERT_TRUE(ok(parse_video_packet(coded_x.data(), coded_x.size(), &info)));
    EXPECT_EQ(info.composition_time, 0);
    EXPECT_TRUE(info.keyframe);
    EXPECT_EQ(info.packet_type, kVideoCodedFramesX);
    EXPECT_EQ(info.size, nalus.size());

    std::vector<uint8_t> av1 = ex_video(1, kVideoCodedFrames, "av01", bytes({0x12, 0x00, 0x0a, 0x0b}));
    ASSERT_TRUE(ok(parse_video_packet(av1.data(), av1.size(), &info)));
    EXPECT_EQ(info.codec, VideoCodec::kAV1);
    EXPECT_EQ(info.size, 4u);  // no SI24 before the OBUs

    std::vector<uint8_t> avc = ex_video(1, kVideoCodedFrames, "avc1", cat(bytes({0xff, 0xff, 0xec}), nalus));
    ASSERT_TRUE(ok(parse_video_packet(avc.data(), avc.size(), &info)));
    EXPECT_EQ(info.codec, VideoCodec::kH264);
    EXPECT_EQ(info.composition_time, -20);

    std::vector<uint8_t> vp9 = ex_video(2, kVideoCodedFrames, "vp09", bytes({0x86}));
    ASSERT_TRUE(ok(parse_video_packet(vp9.data(), vp9.size(), &info)));
    EXPECT_EQ(info.codec, VideoCodec::kVP9);
    std::vector<uint8_t> vp8 = ex_video(2, kVideoCodedFrames, "vp08", bytes({0x86}));
    ASSERT_TRUE(ok(parse_video_packet(vp8.data(), vp8.size(), &info)));
    EXPECT_EQ(info.codec, VideoCodec::kOther);

    std::vector<uint8_t> end = ex_video(1, kVideoSequenceEnd, "hvc1", {});
    ASSERT_TRUE(ok(parse_video_packet(end.data(), end.size(), &info)));
    EXPECT_TRUE(info.end_of_sequence);
    EXPECT_EQ(info.size, 0u);

    // Metadata: frame type ignored, never a keyframe.
    std::vector<uint8_t> meta = ex_video(1, kVideoMetadata, "hvc1", bytes({0x02, 0x00, 0x09}));
    ASSERT_TRUE(ok(parse_video_packet(meta.data(), meta.size(), &info)));
    EXPECT_FALSE(info.keyframe);
    EXPECT_FALSE(is_video_keyframe(meta.data(), meta.size()));
    std::vector<uint8_t> meta0 = ex_video(0, kVideoMetadata, "hvc1", {});
    EXPECT_TRUE(ok(parse_video_packet(meta0.data(), meta0.size(), &info)));

    std::vector<uint8_t> ts = ex_video(1, kVideoMpeg2TsSequenceStart, "av01", bytes({0x80, 0x04}));
    ASSERT_TRUE(ok(parse_video_packet(ts.data(), ts.size(), &info)));
    EXPECT_TRUE(info.sequence_header);
    VideoCodecConfig config;
    EXPECT_FALSE(ok(parse_av1_sequence_header(info.data, info.size, &config)));  // a TS descriptor, not av1C

    // Command frame: a VideoCommand byte, no FourCC.
    std::vector<uint8_t> command = bytes({0x80 | 5 << 4 | kVideoCodedFrames, 0x00});
    ASSERT_TRUE(ok(parse_video_packet(command.data(), command.size(), &info)));
    EXPECT_TRUE(info.command);
    EXPECT_EQ(info.fourcc, 0u);

    for (auto bad : {ex_video(1, 8, "hvc1", nalus),                  // reserved packet type
                     ex_video(0, kVideoCodedFrames, "hvc1", nalus),  // reserved frame type
                     ex_video(1, kVideoCodedFrames, "hvc1", {0, 0}),  // cts truncated
                     bytes({0x90, 'h', 'v', 'c'})}) {                 // FourCC truncated
        EXPECT_FALSE(ok(parse_video_packet(bad.data(), bad.size(), &info)));
    }
}

TEST(CodecVideoPacket, EnhancedModExAndMultitrack) {
    VideoPacketInfo info;
    std::vector<uint8_t> nalus = bytes({0, 0, 0, 2, 0x26, 0x01});
    // ModEx: size 3 (UI8 2), TimestampOffsetNano data, then modExType 0 / packet type CodedFrames.
    std::vector<uint8_t> modex = cat(bytes({0x80 | 1 << 4 | kVideoModEx, 0x02, 0x00, 0x01, 0xf4, 0x01}),
                                     cat(fourcc("hvc1"), cat(bytes({0, 0, 33}), nalus)));
    ASSERT_TRUE(ok(parse_video_packet(modex.data(), modex.size(), &info)));
    EXPECT_EQ(info.packet_type, kVideoCodedFrames);
    EXPECT_EQ(info.codec, VideoCodec::kH265);
    EXPECT_EQ(info.composition_time, 33);
    EXPECT_EQ(info.size, nalus.size());
    EXPECT_TRUE(is_video_keyframe(modex.data(), modex.size()));
    EXPECT_FALSE(is_video_sequence_header(modex.data(), modex.size()));

    // ModEx with the 16-bit size escape (UI8 255 -> UI16 + 1), chained into a SequenceStart.
    std::vector<uint8_t> big = bytes({0x80 | 1 << 4 | kVideoModEx, 0xff, 0x01, 0x2b});  // 0x12b + 1 = 300 bytes
    big.resize(big.size() + 300, 0x55);
    big.push_back(0x10 | kVideoSequenceStart);
    big = cat(cat(big, fourcc("hvc1")), unhex(kHvccMain640x360));
    ASSERT_TRUE(ok(parse_video_packet(big.data(), big.size(), &info)));
    EXPECT_TRUE(info.sequence_header);
    EXPECT_TRUE(is_video_sequence_header(big.data(), big.size()));
    VideoCodecConfig config;
    EXPECT_TRUE(ok(parse_hevc_sequence_header(info.data, info.size, &config)));

    // Multitrack, OneTrack: type byte, FourCC, track id, body.
    std::vector<uint8_t> one = cat(bytes({0x80 | 1 << 4 | kVideoMultitrack, 0x00 | kVideoCodedFrames}),
                                   cat(fourcc("avc1"), cat(bytes({7, 0, 0, 10}), nalus)));
    ASSERT_TRUE(ok(parse_video_packet(one.data(), one.size(), &info)));
    EXPECT_TRUE(info.multitrack);
    EXPECT_EQ(info.track_id, 7);
    EXPECT_EQ(info.codec, VideoCodec::kH264);
    EXPECT_EQ(info.composition_time, 10);
    EXPECT_EQ(info.size, nalus.size());

    // ManyTracks: each track has a UI24 size; data covers the first track only.
    std::vector<uint8_t> many = cat(bytes({0x80 | 2 << 4 | kVideoMultitrack, 0x10 | kVideoCodedFramesX}),
                                    cat(fourcc("hvc1"), cat(bytes({0, 0, 0, 6}), nalus)));
    many = cat(many, cat(bytes({1, 0, 0, 6}), nalus));
    ASSERT_TRUE(ok(parse_video_packet(many.data(), many.size(), &info)));
    EXPECT_EQ(info.size, 6u);
    EXPECT_EQ(info.data, many.data() + 10);
    EXPECT_FALSE(info.keyframe);

    // ManyTracksManyCodecs: the FourCC sits in each track.
    std::vector<uint8_t> codecs = cat(bytes({0x80 | 1 << 4 | kVideoMultitrack, 0x20 | kVideoSequenceStart}),
                                      cat(fourcc("av01"), cat(bytes({0, 0, 0, 17}), unhex(kAv1c640x360))));
    ASSERT_TRUE(ok(parse_video_packet(codecs.data(), codecs.size(), &info)));
    EXPECT_EQ(info.codec, VideoCodec::kAV1);
    EXPECT_TRUE(is_video_sequence_header(codecs.data(), codecs.size()));

    for (auto bad : {bytes({0x80 | 1 << 4 | kVideoModEx, 0x05, 0x00}),                      // ModEx data past the end
                     bytes({0x80 | 1 << 4 | kVideoMultitrack, 0x30, 'h', 'v', 'c', '1', 0}),  // multitrack type 3
                     bytes({0x80 | 1 << 4 | kVideoMultitrack, 0x06, 'h', 'v', 'c', '1', 0}),  // nested multitrack
                     cat(bytes({0x80 | 1 << 4 | kVideoMultitrack, 0x11}),
                         cat(fourcc("hvc1"), bytes({0, 0, 0, 99, 1, 2})))}) {  // track size past the end
        EXPECT_FALSE(ok(parse_video_packet(bad.data(), bad.size(), &info)));
        EXPECT_FALSE(is_video_sequence_header(bad.data(), bad.size()));
    }
}

TEST(CodecVideoPacket, FastHelpersAgreeWithParser) {
    std::vector<std::vector<uint8_t>> packets;
    for (const AvcCase& c : kAvcCases) packets.push_back(unhex(c.hex));
    for (const HevcCase& c : kHevcCases) {
        packets.push_back(ex_video(1, kVideoSequenceStart, "hvc1", unhex(c.hex)));
        packets.push_back(cat(bytes({0x1c, 0, 0, 0, 0}), unhex(c.hex)));
    }
    for (int frame = 0; frame < 8; frame++) {
        for (int type = 0; type < 16; type++) {
            packets.push_back(ex_video(frame, type, "hvc1", bytes({0, 0, 0, 1, 2})));
            packets.push_back(bytes({frame << 4 | 7, type, 0, 0, 0, 1}));
            packets.push_back(bytes({frame << 4 | 12, type, 0, 0, 0}));
            packets.push_back(bytes({frame << 4 | 2, type}));
        }
    }
    for (const auto& p : packets) {
        VideoPacketInfo info;
        if (!ok(parse_video_packet(p.data(), p.size(), &info))) continue;
        EXPECT_EQ(is_video_keyframe(p.data(), p.size()), info.keyframe) << std::hex << int(p[0]);
        EXPECT_EQ(is_video_sequence_header(p.data(), p.size()), info.sequence_header) << std::hex << int(p[0]);
    }
    EXPECT_FALSE(is_video_keyframe(nullptr, 0));
    EXPECT_FALSE(is_video_sequence_header(nullptr, 0));
}

// ---- codec configuration records ----

TEST(CodecAvc, RealSequenceHeaders) {
    for (const AvcCase& c : kAvcCases) {
        std::vector<uint8_t> tag = unhex(c.hex);
        VideoCodecConfig config;
        ASSERT_TRUE(ok(parse_avc_sequence_header(tag.data() + 5, tag.size() - 5, &config))) << c.hex;
        EXPECT_EQ(config.codec, "H264");
        EXPECT_EQ(config.profile, c.profile) << c.hex;
        EXPECT_EQ(config.level, c.level) << c.hex;
        EXPECT_EQ(config.width, c.width) << c.hex;
        EXPECT_EQ(config.height, c.height) << c.hex;
        EXPECT_EQ(config.bit_depth, c.bit_depth) << c.hex;
        EXPECT_EQ(config.chroma_format_idc, c.chroma) << c.hex;
    }
}

TEST(CodecAvc, TruncatedAtEveryByteBeforeAGuardPage) {
    for (const AvcCase& c : kAvcCases) {
        std::vector<uint8_t> tag = unhex(c.hex);
        std::vector<uint8_t> record(tag.begin() + 5, tag.end());
        size_t sps_end = 8 + ((static_cast<size_t>(record[6]) << 8) | record[7]);
        for_each_prefix(record, [&](const uint8_t* p, size_t n) {
            VideoCodecConfig config;
            bool good = ok(parse_avc_sequence_header(p, n, &config));
            if (n < sps_end) {
                EXPECT_FALSE(good) << c.hex << " len " << n;  // the SPS length field points past the end
            } else {
                ASSERT_TRUE(good) << c.hex << " len " << n;  // only the PPS part is missing
                EXPECT_EQ(config.width, c.width);
                EXPECT_EQ(config.height, c.height);
            }
        });
        // The SPS alone, truncated: an error or the same picture (when only VUI is cut).
        std::vector<uint8_t> sps(record.begin() + 8, record.begin() + sps_end);
        for_each_prefix(sps, [&](const uint8_t* p, size_t n) {
            VideoCodecConfig config;
            if (ok(parse_avc_sps(p, n, &config))) {
                EXPECT_EQ(config.width, c.width);
                EXPECT_EQ(config.height, c.height);
            }
        });
        for_each_prefix(tag, [&](const uint8_t* p, size_t n) {
            VideoPacketInfo info;
            if (ok(parse_video_packet(p, n, &info))) {
                EXPECT_LE(info.data + info.size, p + n);
            }
            is_video_keyframe(p, n);
            is_video_sequence_header(p, n);
        });
    }
}

TEST(CodecAvc, BrokenRecords) {
    std::vector<uint8_t> record = unhex(kAvcMain854x480);
    record.erase(record.begin(), record.begin() + 5);
    VideoCodecConfig config;
    ASSERT_TRUE(ok(parse_avc_sequence_header(record.data(), record.size(), &config)));

    std::vector<uint8_t> bad = record;
    bad[5] = 0xe0;  // numOfSequenceParameterSets 0
    EXPECT_EQ(code(parse_avc_sequence_header(bad.data(), bad.size(), &config)), kErrorAvcConfig);
    bad = record;
    bad[6] = bad[7] = 0;  // SPS length 0
    EXPECT_EQ(code(parse_avc_sequence_header(bad.data(), bad.size(), &config)), kErrorAvcConfig);
    bad = record;
    bad[6] = 0xff;  // SPS length past the end
    EXPECT_EQ(code(parse_avc_sequence_header(bad.data(), bad.size(), &config)), kErrorAvcConfig);
    bad = record;
    bad[0] = 0;  // configurationVersion
    EXPECT_FALSE(ok(parse_avc_sequence_header(bad.data(), bad.size(), &config)));
    bad = record;
    bad[4] = 0xfe;  // lengthSizeMinusOne 2
    EXPECT_FALSE(ok(parse_avc_sequence_header(bad.data(), bad.size(), &config)));
    bad = record;
    bad[8] = 0x68;  // a PPS where the SPS should be
    EXPECT_EQ(code(parse_avc_sequence_header(bad.data(), bad.size(), &config)), kErrorAvcSps);
}

namespace {

// A Baseline SPS (or High with `high`) with the fields the tests twist.
struct SpsSpec {
    uint32_t profile = 66;
    uint64_t chroma_format_idc = 1;
    uint64_t poc_type = 0;
    uint64_t poc_cycle = 0;
    uint64_t width_mbs_minus1 = 39;
    uint64_t height_units_minus1 = 22;
    bool frame_mbs_only = true;
    bool crop = true;
    uint64_t crop_left = 0, crop_right = 0, crop_top = 0, crop_bottom = 4;
    int scaling_delta = 0;  // High: one 4x4 list with this first delta (0: no matrix)
};

std::vector<uint8_t> make_sps(const SpsSpec& s) {
    BitWriter w;
    w.put(8, s.profile);
    w.put(8, 0);
    w.put(8, 30);
    w.ue(0);  // seq_parameter_set_id
    if (s.profile == 100) {
        w.ue(s.chroma_format_idc);
        if (s.chroma_format_idc == 3) w.put(1, 0);
        w.ue(0);
        w.ue(0);
        w.put(1, 0);
        w.put(1, s.scaling_delta != 0);
        if (s.scaling_delta != 0) {
            w.put(1, 1);  // list 0 present
            w.se(s.scaling_delta);
            if ((8 + s.scaling_delta + 256) % 256 != 0) {  // nextScale 0 ends the list early
                for (int i = 1; i < 16; i++) w.se(0);
            }
            for (int i = 1; i < 8; i++) w.put(1, 0);
        }
    }
    w.ue(0);  // log2_max_frame_num_minus4
    w.ue(s.poc_type);
    if (s.poc_type == 0) w.ue(2);
    if (s.poc_type == 1) {
        w.put(1, 0);
        w.se(0);
        w.se(0);
        w.ue(s.poc_cycle);
        for (uint64_t i = 0; i < s.poc_cycle && i < 300; i++) w.se(1);
    }
    w.ue(1);  // max_num_ref_frames
    w.put(1, 0);
    w.ue(s.width_mbs_minus1);
    w.ue(s.height_units_minus1);
    w.put(1, s.frame_mbs_only);
    if (!s.frame_mbs_only) w.put(1, 0);
    w.put(1, 1);
    w.put(1, s.crop);
    if (s.crop) {
        w.ue(s.crop_left);
        w.ue(s.crop_right);
        w.ue(s.crop_top);
        w.ue(s.crop_bottom);
    }
    w.put(1, 0);  // vui_parameters_present_flag
    return w.nal(0x67);
}

Error parse_sps(const SpsSpec& s, VideoCodecConfig* config) {
    std::vector<uint8_t> sps = make_sps(s);
    GuardPage guard(sps.size());
    return parse_avc_sps(guard.place(sps), sps.size(), config);
}

}  // namespace

TEST(CodecAvc, CraftedSpsFieldsAndAbsurdValues) {
    VideoCodecConfig config;
    ASSERT_TRUE(ok(parse_sps(SpsSpec(), &config)));
    EXPECT_EQ(config.profile, "Baseline");
    EXPECT_EQ(config.width, 640);
    EXPECT_EQ(config.height, 360);

    SpsSpec s;
    s.poc_type = 1;
    s.poc_cycle = 3;
    s.frame_mbs_only = false;
    s.height_units_minus1 = 11;  // 12 map units = 24 MBs of height
    s.crop_bottom = 2;           // crop unit 4 lines when interlaced 4:2:0
    ASSERT_TRUE(ok(parse_sps(s, &config)));
    EXPECT_EQ(config.height, 384 - 8);

    s = SpsSpec();
    s.profile = 100;
    s.chroma_format_idc = 0;  // monochrome: crop unit 1x1
    s.crop_right = 3;
    ASSERT_TRUE(ok(parse_sps(s, &config)));
    EXPECT_EQ(config.width, 637);
    EXPECT_EQ(config.height, 368 - 4);

    s = SpsSpec();
    s.profile = 100;
    s.scaling_delta = -8;  // nextScale 0: the list stops after one delta
    ASSERT_TRUE(ok(parse_sps(s, &config)));
    EXPECT_EQ(config.profile, "High");
    EXPECT_EQ(config.height, 360);
    s.scaling_delta = 5;  // a full list of 16 deltas
    ASSERT_TRUE(ok(parse_sps(s, &config)));
    EXPECT_EQ(config.width, 640);
    s.scaling_delta = 200;  // delta_scale must lie in -128..127
    EXPECT_EQ(code(parse_sps(s, &config)), kErrorAvcSps);

    struct {
        const char* what;
        SpsSpec spec;
    } bad[] = {
        {"width ue with 40 leading zeros", [] { SpsSpec x; x.width_mbs_minus1 = (1ull << 40); return x; }()},
        {"height ue with 33 leading zeros", [] { SpsSpec x; x.height_units_minus1 = (1ull << 33) + 5; return x; }()},
        {"width in MBs too large", [] { SpsSpec x; x.width_mbs_minus1 = 100000; return x; }()},
        {"width at the 32-bit limit", [] { SpsSpec x; x.width_mbs_minus1 = 0xfffffffeull; return x; }()},
        {"crop wider than the picture", [] { SpsSpec x; x.crop_left = 200; x.crop_right = 200; return x; }()},
        {"crop with 35 leading zeros", [] { SpsSpec x; x.crop_top = (1ull << 35); return x; }()},
        {"huge crop", [] { SpsSpec x; x.crop_bottom = 0xfffffff0ull; return x; }()},
        {"chroma_format_idc 4", [] { SpsSpec x; x.profile = 100; x.chroma_format_idc = 4; return x; }()},
        {"chroma_format_idc absurd", [] { SpsSpec x; x.profile = 100; x.chroma_format_idc = 1ull << 34; return x; }()},
        {"poc type 3", [] { SpsSpec x; x.poc_type = 3; return x; }()},
        {"poc cycle 1000", [] { SpsSpec x; x.poc_type = 1; x.poc_cycle = 1000; return x; }()},
    };
    for (const auto& b : bad) {
        EXPECT_EQ(code(parse_sps(b.spec, &config)), kErrorAvcSps) << b.what;
    }
    // Not an SPS / empty.
    std::vector<uint8_t> pps = bytes({0x68, 0xeb, 0xe3, 0xcb});
    EXPECT_FALSE(ok(parse_avc_sps(pps.data(), pps.size(), &config)));
    std::vector<uint8_t> zeros(64, 0);
    zeros[0] = 0x67;
    EXPECT_FALSE(ok(parse_avc_sps(zeros.data(), zeros.size(), &config)));
}

TEST(CodecHevc, TruncatedAndBrokenRecords) {
    for (const HevcCase& c : kHevcCases) {
        std::vector<uint8_t> record = unhex(c.hex);
        VideoCodecConfig full;
        ASSERT_TRUE(ok(parse_hevc_sequence_header(record.data(), record.size(), &full)));
        for_each_prefix(record, [&](const uint8_t* p, size_t n) {
            VideoCodecConfig config;
            if (ok(parse_hevc_sequence_header(p, n, &config))) {
                EXPECT_EQ(config.width, c.width) << n;
                EXPECT_EQ(config.height, c.height) << n;
                EXPECT_EQ(config.profile, c.profile) << n;
            }
        });
        std::vector<uint8_t> tag = ex_video(1, kVideoSequenceStart, "hvc1", record);
        for_each_prefix(tag, [&](const uint8_t* p, size_t n) {
            VideoPacketInfo info;
            if (ok(parse_video_packet(p, n, &info))) {
                EXPECT_LE(info.data + info.size, p + n);
            }
            is_video_sequence_header(p, n);
        });
    }
    std::vector<uint8_t> record = unhex(kHvccMain640x360);
    VideoCodecConfig config;
    std::vector<uint8_t> bad = record;
    bad[22] = 0;  // numOfArrays 0: no SPS
    EXPECT_EQ(code(parse_hevc_sequence_header(bad.data(), bad.size(), &config)), kErrorHevcConfig);
    bad = record;
    bad[22] = 200;  // more arrays than bytes, and no SPS among those there are
    bad[52] = 0x28;
    EXPECT_EQ(code(parse_hevc_sequence_header(bad.data(), bad.size(), &config)), kErrorHevcConfig);
    bad = record;
    bad[24] = 0xff;  // VPS array claims 65281+ NAL units
    bad[25] = 0xff;
    EXPECT_EQ(code(parse_hevc_sequence_header(bad.data(), bad.size(), &config)), kErrorHevcConfig);
    bad = record;
    bad[26] = 0x7f;  // VPS length past the end
    EXPECT_EQ(code(parse_hevc_sequence_header(bad.data(), bad.size(), &config)), kErrorHevcConfig);
    bad = record;
    bad[21] = (bad[21] & 0xfc) | 2;  // lengthSizeMinusOne 2
    EXPECT_FALSE(ok(parse_hevc_sequence_header(bad.data(), bad.size(), &config)));

    // SPS with sps_max_sub_layers_minus1 = 7 (the header's 3 bits all set).
    size_t sps_at = 23 + 3 + 2 + 0x18 + 3 + 2;  // fixed part, VPS array, SPS array header and length
    ASSERT_EQ(record[sps_at], 0x42);
    bad = record;
    bad[sps_at + 2] |= 0x0e;
    EXPECT_EQ(code(parse_hevc_sequence_header(bad.data(), bad.size(), &config)), kErrorHevcSps);
    // The SPS made of zero bytes after its header: Exp-Golomb runs out.
    std::vector<uint8_t> zeros(40, 0);
    zeros[0] = 0x42;
    zeros[1] = 0x01;
    EXPECT_EQ(code(parse_hevc_sps(zeros.data(), zeros.size(), &config)), kErrorHevcSps);
}

TEST(CodecAv1, TruncatedAndBrokenRecords) {
    for (const char* hex : {kAv1c640x360, kAv1c10bit854x480}) {
        std::vector<uint8_t> record = unhex(hex);
        for_each_prefix(record, [&](const uint8_t* p, size_t n) {
            VideoCodecConfig config;
            bool good = ok(parse_av1_sequence_header(p, n, &config));
            if (n == 4) {
                EXPECT_TRUE(good);  // no configOBUs: codec and profile only
                EXPECT_EQ(config.profile, "Main");
                EXPECT_EQ(config.width, 0);
            } else if (n < record.size()) {
                EXPECT_FALSE(good) << n;  // the OBU size points past the end
            }
        });
    }
    std::vector<uint8_t> record = unhex(kAv1c640x360);
    VideoCodecConfig config;
    std::vector<uint8_t> bad = record;
    bad[0] = 0x01;  // marker bit clear
    EXPECT_EQ(code(parse_av1_sequence_header(bad.data(), bad.size(), &config)), kErrorAv1Config);
    bad = record;
    bad[5] = 0x7f;  // OBU size past the end
    EXPECT_EQ(code(parse_av1_sequence_header(bad.data(), bad.size(), &config)), kErrorAv1Config);
    bad = record;
    bad[5] = 0xff;  // leb128 continuing past the end
    bad.resize(6);
    EXPECT_FALSE(ok(parse_av1_sequence_header(bad.data(), bad.size(), &config)));
    bad = record;
    bad[5] = 0x02;  // sequence header cut to 2 bytes
    EXPECT_FALSE(ok(parse_av1_sequence_header(bad.data(), bad.size(), &config)));
    // A temporal delimiter OBU before the sequence header is skipped.
    std::vector<uint8_t> td = cat(bytes({0x81, 0x01, 0x0c, 0x00, 0x12, 0x00}), std::vector<uint8_t>(record.begin() + 4, record.end()));
    ASSERT_TRUE(ok(parse_av1_sequence_header(td.data(), td.size(), &config)));
    EXPECT_EQ(config.width, 640);
}

TEST(CodecAv1, SequenceHeaderWithTimingAndOperatingPoints) {
    // libaom's headers above have none of these; this one is built from AV1 5.5 field by field.
    for (int uvlc_zeros : {0, 33}) {
        BitWriter w;
        w.put(3, 0);  // seq_profile
        w.put(1, 0);  // still_picture
        w.put(1, 0);  // reduced_still_picture_header
        w.put(1, 1);  // timing_info_present_flag
        w.put(32, 1001);
        w.put(32, 60000);
        w.put(1, 1);  // equal_picture_interval
        w.put(uvlc_zeros, 0);  // num_ticks_per_picture_minus_1: uvlc "1", or 33 zeros + 1 (saturated, no value bits)
        w.put(1, 1);
        w.put(1, 1);  // decoder_model_info_present_flag
        w.put(5, 9);  // buffer_delay_length_minus_1: 10-bit delays
        w.put(32, 1);
        w.put(5, 3);
        w.put(5, 3);
        w.put(1, 1);  // initial_display_delay_present_flag
        w.put(5, 1);  // two operating points
        w.put(12, 0x101);
        w.put(5, 9);  // seq_level_idx > 7: seq_tier follows
        w.put(1, 0);
        w.put(1, 1);  // decoder_model_present_for_this_op
        w.put(10, 5);
        w.put(10, 7);
        w.put(1, 0);
        w.put(1, 1);  // initial_display_delay_present_for_this_op
        w.put(4, 3);
        w.put(12, 0);
        w.put(5, 4);
        w.put(1, 0);
        w.put(1, 0);
        w.put(4, 10);  // frame_width_bits_minus_1
        w.put(4, 10);
        w.put(11, 1919);
        w.put(11, 1079);
        std::vector<uint8_t> obu = w.raw();
        std::vector<uint8_t> record = bytes({0x81, 0x09, 0x0c, 0x00, 0x0a, static_cast<int>(obu.size())});
        record = cat(record, obu);
        GuardPage guard(record.size());
        VideoCodecConfig config;
        ASSERT_TRUE(ok(parse_av1_sequence_header(guard.place(record), record.size(), &config))) << uvlc_zeros;
        EXPECT_EQ(config.level, "4.1");
        EXPECT_EQ(config.width, 1920);
        EXPECT_EQ(config.height, 1080);
        for_each_prefix(record, [&](const uint8_t* p, size_t n) {
            VideoCodecConfig partial;
            EXPECT_EQ(ok(parse_av1_sequence_header(p, n, &partial)), n == 4 || n == record.size()) << n;
        });
    }
}

// ---- audio ----

TEST(CodecAudioPacket, LegacyAacAndMp3) {
    struct {
        const char* hex;
        const char* profile;
        int object_type, sample_rate, channels, rate_index, channels_flag;
    } cases[] = {
        {kAacLc44100Stereo, "LC", 2, 44100, 2, 3, 1},
        {kAacLc48000Mono, "LC", 2, 48000, 1, 3, 1},  // ffmpeg's FLV muxer always writes 44 kHz stereo flags for AAC
        {kAacMain22050Stereo, "Main", 1, 22050, 2, 3, 1},
    };
    for (const auto& c : cases) {
        std::vector<uint8_t> tag = unhex(c.hex);
        AudioPacketInfo info;
        ASSERT_TRUE(ok(parse_audio_packet(tag.data(), tag.size(), &info)));
        EXPECT_EQ(info.codec, AudioCodec::kAAC);
        EXPECT_TRUE(info.sequence_header);
        EXPECT_TRUE(is_audio_sequence_header(tag.data(), tag.size()));
        EXPECT_EQ(info.sound_rate_index, c.rate_index);
        EXPECT_EQ(info.sound_size, 1);
        EXPECT_EQ(info.channels_flag, c.channels_flag);
        EXPECT_EQ(info.data, tag.data() + 2);
        AudioCodecConfig config;
        ASSERT_TRUE(ok(parse_aac_sequence_header(info.data, info.size, &config))) << c.hex;
        EXPECT_EQ(config.codec, "AAC");
        EXPECT_EQ(config.profile, c.profile);
        EXPECT_EQ(config.object_type, c.object_type);
        EXPECT_EQ(config.sample_rate, c.sample_rate);
        EXPECT_EQ(config.channels, c.channels);
    }
    std::vector<uint8_t> raw = unhex("af01de02004c61766335392e33372e313030");
    AudioPacketInfo info;
    ASSERT_TRUE(ok(parse_audio_packet(raw.data(), raw.size(), &info)));
    EXPECT_FALSE(info.sequence_header);
    EXPECT_FALSE(is_audio_sequence_header(raw.data(), raw.size()));
    EXPECT_EQ(info.size, raw.size() - 2);

    std::vector<uint8_t> mp3 = unhex(kMp3_44100Stereo);
    ASSERT_TRUE(ok(parse_audio_packet(mp3.data(), mp3.size(), &info)));
    EXPECT_EQ(info.codec, AudioCodec::kMP3);
    EXPECT_FALSE(info.sequence_header);
    EXPECT_EQ(info.sound_rate_index, 3);
    EXPECT_EQ(info.channels_flag, 1);
    EXPECT_EQ(info.data, mp3.data() + 1);
    EXPECT_EQ(info.data[0], 0xff);  // the MPEG audio frame sync
    mp3 = unhex(kMp3_11025Mono);
    ASSERT_TRUE(ok(parse_audio_packet(mp3.data(), mp3.size(), &info)));
    EXPECT_EQ(info.codec, AudioCodec::kMP3);
    EXPECT_EQ(info.sound_rate_index, 1);
    EXPECT_EQ(info.channels_flag, 0);
    EXPECT_FALSE(is_audio_sequence_header(mp3.data(), mp3.size()));

    std::vector<uint8_t> mp3_8k = bytes({0xe6, 0xff});
    ASSERT_TRUE(ok(parse_audio_packet(mp3_8k.data(), mp3_8k.size(), &info)));
    EXPECT_EQ(info.codec, AudioCodec::kMP3);
    std::vector<uint8_t> speex = bytes({0xb6, 0x00});
    ASSERT_TRUE(ok(parse_audio_packet(speex.data(), speex.size(), &info)));
    EXPECT_EQ(info.codec, AudioCodec::kOther);

    for (auto bad : {bytes({}), bytes({0xaf}), bytes({0xaf, 0x02})}) {
        EXPECT_FALSE(ok(parse_audio_packet(bad.data(), bad.size(), &info)));
    }
}

TEST(CodecAudioPacket, EnhancedAudio) {
    std::vector<uint8_t> opus_head = cat(std::vector<uint8_t>({'O', 'p', 'u', 's', 'H', 'e', 'a', 'd'}),
                                         bytes({1, 2, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0}));
    AudioPacketInfo info;
    std::vector<uint8_t> start = cat(cat(bytes({0x90}), fourcc("Opus")), opus_head);
    ASSERT_TRUE(ok(parse_audio_packet(start.data(), start.size(), &info)));
    EXPECT_TRUE(info.enhanced);
    EXPECT_EQ(info.codec, AudioCodec::kOpus);
    EXPECT_TRUE(info.sequence_header);
    EXPECT_EQ(info.sound_rate_index, -1);
    EXPECT_EQ(info.size, opus_head.size());
    EXPECT_TRUE(is_audio_sequence_header(start.data(), start.size()));

    std::vector<uint8_t> frame = cat(cat(bytes({0x91}), fourcc("Opus")), bytes({0xfc, 0xff, 0xfe}));
    ASSERT_TRUE(ok(parse_audio_packet(frame.data(), frame.size(), &info)));
    EXPECT_FALSE(info.sequence_header);
    EXPECT_FALSE(is_audio_sequence_header(frame.data(), frame.size()));
    EXPECT_EQ(info.size, 3u);

    std::vector<uint8_t> aac = cat(cat(bytes({0x90}), fourcc("mp4a")), unhex("1210"));
    ASSERT_TRUE(ok(parse_audio_packet(aac.data(), aac.size(), &info)));
    EXPECT_EQ(info.codec, AudioCodec::kAAC);
    AudioCodecConfig config;
    ASSERT_TRUE(ok(parse_aac_sequence_header(info.data, info.size, &config)));
    EXPECT_EQ(config.sample_rate, 44100);

    std::vector<uint8_t> mp3 = cat(cat(bytes({0x91}), fourcc(".mp3")), bytes({0xff, 0xfb}));
    ASSERT_TRUE(ok(parse_audio_packet(mp3.data(), mp3.size(), &info)));
    EXPECT_EQ(info.codec, AudioCodec::kMP3);
    std::vector<uint8_t> flac = cat(cat(bytes({0x91}), fourcc("fLaC")), bytes({0xff, 0xf8}));
    ASSERT_TRUE(ok(parse_audio_packet(flac.data(), flac.size(), &info)));
    EXPECT_EQ(info.codec, AudioCodec::kOther);
    std::vector<uint8_t> end = cat(bytes({0x92}), fourcc("Opus"));
    ASSERT_TRUE(ok(parse_audio_packet(end.data(), end.size(), &info)));
    EXPECT_TRUE(info.end_of_sequence);

    // Multitrack (OneTrack) SequenceStart; ModEx in front of a SequenceStart.
    std::vector<uint8_t> mt = cat(cat(bytes({0x95, 0x00}), fourcc("Opus")), cat(bytes({3}), opus_head));
    ASSERT_TRUE(ok(parse_audio_packet(mt.data(), mt.size(), &info)));
    EXPECT_TRUE(info.multitrack);
    EXPECT_TRUE(info.sequence_header);
    EXPECT_EQ(info.size, opus_head.size());
    EXPECT_TRUE(is_audio_sequence_header(mt.data(), mt.size()));
    std::vector<uint8_t> modex = cat(cat(bytes({0x97, 0x00, 0x00, 0x00}), fourcc("Opus")), opus_head);
    ASSERT_TRUE(ok(parse_audio_packet(modex.data(), modex.size(), &info)));
    EXPECT_TRUE(info.sequence_header);
    EXPECT_TRUE(is_audio_sequence_header(modex.data(), modex.size()));

    for (auto bad : {bytes({0x90, 'O', 'p'}), cat(bytes({0x93}), fourcc("Opus")), cat(bytes({0x9f}), fourcc("Opus")),
                     bytes({0x95, 0x05, 'O', 'p', 'u', 's', 0}), bytes({0x97, 0x09})}) {
        EXPECT_FALSE(ok(parse_audio_packet(bad.data(), bad.size(), &info)));
        EXPECT_FALSE(is_audio_sequence_header(bad.data(), bad.size()));
    }
}

TEST(CodecAac, SignaledProfiles) {
    struct {
        const char* hex;
        const char* profile;
        int object_type, sample_rate, channels;
    } cases[] = {
        {kAscHeExplicit, "HE", 5, 44100, 2},
        {kAscHev2Explicit, "HEv2", 29, 44100, 2},
        {kAscHeImplicit, "HE", 5, 44100, 2},
        {kAscHev2Implicit, "HEv2", 29, 44100, 2},
        {kAscExplicitRate, "LC", 2, 44100, 2},
        {kAscEscapeAot, "", 42, 48000, 2},
        {kAscChannels7, "LC", 2, 48000, 8},
        {"1210", "LC", 2, 44100, 2},
    };
    for (const auto& c : cases) {
        std::vector<uint8_t> asc = unhex(c.hex);
        GuardPage guard(asc.size());
        AudioCodecConfig config;
        ASSERT_TRUE(ok(parse_aac_sequence_header(guard.place(asc), asc.size(), &config))) << c.hex;
        EXPECT_EQ(config.profile, c.profile) << c.hex;
        EXPECT_EQ(config.object_type, c.object_type) << c.hex;
        EXPECT_EQ(config.sample_rate, c.sample_rate) << c.hex;
        EXPECT_EQ(config.channels, c.channels) << c.hex;
    }
    // A program_config_element (channelConfiguration 0): 1 front CPE + 1 front SCE + 1 LFE = 4 channels.
    BitWriter w;
    w.put(5, 2);
    w.put(4, 4);
    w.put(4, 0);
    w.put(3, 0);  // GASpecificConfig
    w.put(4, 0);  // element_instance_tag
    w.put(2, 1);
    w.put(4, 4);
    w.put(4, 2);  // front
    w.put(4, 0);
    w.put(4, 0);
    w.put(2, 1);  // lfe
    w.put(3, 0);
    w.put(4, 0);
    w.put(3, 0);  // no mixdowns
    w.put(5, 0x10);
    w.put(5, 0x01);
    w.put(4, 0);  // lfe element
    std::vector<uint8_t> pce = w.raw();
    AudioCodecConfig config;
    ASSERT_TRUE(ok(parse_aac_sequence_header(pce.data(), pce.size(), &config)));
    EXPECT_EQ(config.channels, 4);
    EXPECT_EQ(config.sample_rate, 44100);

    for (const char* bad : {"", "12", "0010",  // object type 0
                            "1710",            // sampling index 14 (reserved)
                            "1240",            // channelConfiguration 8 (reserved)
                            "2b9f", "178056"}) {
        std::vector<uint8_t> asc = unhex(bad);
        EXPECT_FALSE(ok(parse_aac_sequence_header(asc.data(), asc.size(), &config))) << bad;
    }
}

TEST(CodecAac, TruncatedAtEveryByteBeforeAGuardPage) {
    for (const char* hex : {kAacLc44100Stereo, kAacLc48000Mono, kAacMain22050Stereo, kMp3_44100Stereo}) {
        for_each_prefix(unhex(hex), [&](const uint8_t* p, size_t n) {
            AudioPacketInfo info;
            if (ok(parse_audio_packet(p, n, &info))) {
                EXPECT_LE(info.data + info.size, p + n);
                AudioCodecConfig config;
                if (info.sequence_header) parse_aac_sequence_header(info.data, info.size, &config).ignore();
            }
            is_audio_sequence_header(p, n);
        });
    }
    for (const char* hex : {kAscHeExplicit, kAscHev2Explicit, kAscHeImplicit, kAscHev2Implicit, kAscExplicitRate,
                            kAscEscapeAot, kAscChannels7}) {
        for_each_prefix(unhex(hex), [&](const uint8_t* p, size_t n) {
            AudioCodecConfig config;
            parse_aac_sequence_header(p, n, &config).ignore();
        });
    }
}

TEST(CodecVideoPacket, EveryPacketBeforeAGuardPage) {
    // Every 1- to 3-byte input and every first byte over a fixed tail, right before the guard page.
    GuardPage guard(16);
    uint8_t buf[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int b0 = 0; b0 < 256; b0++) {
        for (int b1 = 0; b1 < 256; b1 += 17) {
            buf[0] = static_cast<uint8_t>(b0);
            buf[1] = static_cast<uint8_t>(b1);
            for (size_t n = 0; n <= 3; n++) {
                const uint8_t* p = guard.place(buf, n);
                VideoPacketInfo v;
                AudioPacketInfo a;
                if (ok(parse_video_packet(p, n, &v))) {
                    EXPECT_LE(v.data + v.size, p + n);
                }
                if (ok(parse_audio_packet(p, n, &a))) {
                    EXPECT_LE(a.data + a.size, p + n);
                }
                is_video_keyframe(p, n);
                is_video_sequence_header(p, n);
                is_audio_sequence_header(p, n);
            }
        }
    }
}
