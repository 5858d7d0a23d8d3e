// Tests for kernel/mp4/mp4_codec_boxes with real codec configurations:
// avcC from an SPS/PPS that x264 wrote, hvcC from x265, esds from ffmpeg's AAC
// AudioSpecificConfigs, dOps from a libopus OpusHead, and the broken OpusHeads.
#include <gtest/gtest.h>

#include <string>

#include "kernel/mp4/mp4_codec_boxes.hpp"
#include "kernel/mp4/mp4_muxer.hpp"
#include "kernel/rtp/rtp_h264.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {


// x264 (ffmpeg 5.1, testsrc 160x96, Main profile, level 1.1): SPS and PPS, and
// the AVCDecoderConfigurationRecord ffmpeg's FLV muxer wrote for them.
const char* const kSps = "674d500beca146d80880000003008000000a078912cb";
const char* const kPps = "68ebecb2";
const char* const kAvcRecord = "014d500bffe10016674d500beca146d80880000003008000000a078912cb01000468ebecb2";

// x265 3.5 (ffmpeg 5.1, 160x96 Main): ffmpeg's hvcC with its VPS, SPS and PPS
// arrays (the SEI array dropped).
const char* const kHevcRecord =
    "0101600000009000000000001ef000fcfdf8f800000f03200001001840010c01ffff01600000030090000003000003001e92809021"
    "0001002942010101600000030090000003000003001ea01420616592a4932bc05a020000030002000003001410220001000744"
    "01c172b46240";

TEST(Mp4CodecBoxes, AvccFromRealSpsPps) {
    std::string record;
    ASSERT_TRUE(ok(h264_build_avcc_record(unhex_string(kSps), unhex_string(kPps), &record)));
    EXPECT_EQ(hex_string(record), kAvcRecord);  // the same record ffmpeg wrote
    std::string out;
    Mp4BoxWriter w(&out);
    mp4_write_avcc(&w, record);
    EXPECT_EQ(hex_string(out), std::string("0000002d61766343") + kAvcRecord);  // 45 bytes, 'avcC'

    Mp4TrackConfig track;
    ASSERT_TRUE(ok(mp4_video_track(VideoCodec::kH264, reinterpret_cast<const uint8_t*>(record.data()),
                                   record.size(), &track)));
    EXPECT_EQ(track.width, 160);
    EXPECT_EQ(track.height, 96);
}

TEST(Mp4CodecBoxes, VisualSampleEntryLayout) {
    std::string out;
    Mp4BoxWriter w(&out);
    mp4_write_visual_entry(&w, false, 160, 96, unhex_string(kAvcRecord));
    ASSERT_EQ(out.size(), 8u + 78u + 45u);
    EXPECT_EQ(hex_string(out.substr(0, 8)), "0000008361766331");  // avc1
    EXPECT_EQ(hex_string(out.substr(8, 8)), "0000000000000001");  // reserved, data_reference_index 1
    EXPECT_EQ(hex_string(out.substr(32, 4)), "00a00060");          // 160 x 96
    EXPECT_EQ(hex_string(out.substr(8 + 74, 4)), "0018ffff");      // depth, pre_defined -1
    EXPECT_EQ(out.substr(8 + 78 + 4, 4), "avcC");
}

TEST(Mp4CodecBoxes, HvccFromRealX265Record) {
    std::string record = unhex_string(kHevcRecord);
    Mp4TrackConfig track;
    ASSERT_TRUE(ok(mp4_video_track(VideoCodec::kH265, reinterpret_cast<const uint8_t*>(record.data()),
                                   record.size(), &track)));
    EXPECT_EQ(track.width, 160);
    EXPECT_EQ(track.height, 96);
    std::string out;
    Mp4BoxWriter w(&out);
    mp4_write_visual_entry(&w, true, track.width, track.height, track.record);
    EXPECT_EQ(out.substr(4, 4), "hvc1");
    EXPECT_EQ(out.substr(8 + 78 + 4, 4), "hvcC");
    EXPECT_EQ(out.substr(8 + 78 + 8), record);
    // A truncated record is refused.
    EXPECT_NE(code(mp4_video_track(VideoCodec::kH265, reinterpret_cast<const uint8_t*>(record.data()), 20, &track)),
              0);
    EXPECT_EQ(code(mp4_video_track(VideoCodec::kAV1, reinterpret_cast<const uint8_t*>(record.data()), record.size(),
                                   &track)),
              kErrorMp4Track);
}

TEST(Mp4CodecBoxes, EsdsFromRealAudioSpecificConfig) {
    // ffmpeg's AAC encoder, LC 22050 Hz mono: ASC 13 88.
    std::string out;
    Mp4BoxWriter w(&out);
    mp4_write_esds(&w, unhex_string("1388"));
    EXPECT_EQ(hex_string(out),
              "00000027" "65736473" "00000000"  // esds v0, 39 bytes
              "0319" "0000" "00"                // ES_Descriptor (25 bytes): ES_ID 0, flags 0
              "0411" "40" "15" "000000" "00000000" "00000000"  // DecoderConfigDescriptor (17): MPEG-4 audio
              "0502" "1388"                     // DecoderSpecificInfo: the ASC
              "0601" "02");                     // SLConfigDescriptor: predefined 2

    // LC 44100 Hz stereo (12 10) in an mp4a entry.
    Mp4TrackConfig track;
    std::string asc = unhex_string("1210");
    ASSERT_TRUE(ok(mp4_aac_track(reinterpret_cast<const uint8_t*>(asc.data()), asc.size(), &track)));
    EXPECT_EQ(track.sample_rate, 44100u);
    EXPECT_EQ(track.channels, 2);
    out.clear();
    mp4_write_mp4a_entry(&w, track.channels, track.sample_rate, track.record);
    EXPECT_EQ(hex_string(out.substr(0, 8)), "0000004b6d703461");  // mp4a, 8 + 28 + 39
    EXPECT_EQ(hex_string(out.substr(24, 12)), "000200100000" "0000ac44" "0000" + std::string());  // 2 ch, 16 bit, 44100
    EXPECT_EQ(out.substr(40, 4), "esds");
}

TEST(Mp4CodecBoxes, EsdsLongConfigUsesFourByteLengths) {
    std::string asc(200, '\x11');
    std::string out;
    Mp4BoxWriter w(&out);
    mp4_write_esds(&w, asc);
    // ES_Descriptor length 3 + (5 + 13 + 5 + 200) + 3 = 229 in 4 bytes.
    EXPECT_EQ(hex_string(out.substr(12, 5)), "03808081" "65");
    std::vector<Mp4BoxNode> nodes;
    ASSERT_TRUE(ok(mp4_walk_tree(reinterpret_cast<const uint8_t*>(out.data()), out.size(), &nodes)));
    EXPECT_EQ(nodes[0].box.box_size, out.size());
}

TEST(Mp4CodecBoxes, DopsFromRealOpusHead) {
    // libopus via ffmpeg, stereo: OpusHead version 1, 2 channels, pre-skip 312, 48000 Hz, gain 0, family 0.
    std::string head = unhex_string("4f707573486561640102380180bb0000000000");
    OpusConfig config;
    GuardedBytes g(head);
    ASSERT_TRUE(ok(mp4_parse_opus_head(g.data(), g.size(), &config)));
    EXPECT_EQ(config.channels, 2);
    EXPECT_EQ(config.pre_skip, 312);
    EXPECT_EQ(config.input_sample_rate, 48000u);
    std::string out;
    Mp4BoxWriter w(&out);
    mp4_write_dops(&w, config);
    EXPECT_EQ(hex_string(out), "00000013" "644f7073" "00" "02" "0138" "0000bb80" "0000" "00");

    out.clear();
    mp4_write_opus_entry(&w, config);
    EXPECT_EQ(out.substr(4, 4), "Opus");
    EXPECT_EQ(hex_string(out.substr(24, 12)), "000200100000" "0000bb800000");
}

TEST(Mp4CodecBoxes, DopsWithChannelMapping) {
    // 6 channels (5.1), family 1: 4 streams, 2 coupled, mapping 0 4 1 2 3 5.
    std::string head = unhex_string("4f70757348656164" "01" "06" "3801" "80bb0000" "0000" "01" "04" "02" "000401020305");
    OpusConfig config;
    GuardedBytes g(head);
    ASSERT_TRUE(ok(mp4_parse_opus_head(g.data(), g.size(), &config)));
    std::string out;
    Mp4BoxWriter w(&out);
    mp4_write_dops(&w, config);
    EXPECT_EQ(hex_string(out), "0000001b" "644f7073" "00" "06" "0138" "0000bb80" "0000" "01" "04" "02" "000401020305");
}

TEST(Mp4CodecBoxes, BrokenOpusHeads) {
    const char* cases[] = {
        "4f707573486561640102380180bb00000000",          // 18 bytes: truncated
        "4f707573546167730102380180bb0000000000",        // OpusTags, not OpusHead
        "4f707573486561641002380180bb0000000000",        // major version 1
        "4f707573486561640100380180bb0000000000",        // 0 channels
        "4f707573486561640103380180bb0000000000",        // 3 channels with family 0
        "4f707573486561640106380180bb0000000001040200",  // family 1, mapping table cut short
    };
    for (const char* c : cases) {
        std::string head = unhex_string(c);
        GuardedBytes g(head);
        OpusConfig config;
        EXPECT_EQ(code(mp4_parse_opus_head(g.data(), g.size(), &config)), kErrorMp4Track) << c;
    }
    // No OpusHead at all: the defaults.
    Mp4TrackConfig track;
    ASSERT_TRUE(ok(mp4_opus_track(nullptr, 0, &track)));
    EXPECT_EQ(track.sample_rate, 48000u);
    EXPECT_EQ(track.channels, 2);
}

}  // namespace
