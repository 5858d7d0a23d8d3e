// Tests for kernel/mp4/mp4_muxer and mp4_flv_input: the init segment's box
// tree and ftyp bytes, a trun with sample flags and composition offsets, a
// 64-bit tfdt, data offsets that land on the samples, independent flags for
// LL-HLS parts, the DVR close-time patches, the calls out of order, and FLV
// tag bodies to frames.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/bytes.hpp"
#include "kernel/mp4/mp4_box.hpp"
#include "kernel/mp4/mp4_flv_input.hpp"
#include "kernel/mp4/mp4_muxer.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {


const char* const kAvcRecord = "014d500bffe10016674d500beca146d80880000003008000000a078912cb01000468ebecb2";

Mp4TrackConfig video_track() {
    std::string r = unhex_string(kAvcRecord);
    Mp4TrackConfig t;
    EXPECT_TRUE(ok(mp4_video_track(VideoCodec::kH264, reinterpret_cast<const uint8_t*>(r.data()), r.size(), &t)));
    return t;
}

Mp4TrackConfig audio_track() {
    std::string asc = unhex_string("1210");
    Mp4TrackConfig t;
    EXPECT_TRUE(ok(mp4_aac_track(reinterpret_cast<const uint8_t*>(asc.data()), asc.size(), &t)));
    return t;
}

std::vector<Mp4BoxNode> walk(const std::string& bytes) {
    std::vector<Mp4BoxNode> nodes;
    GuardedBytes g(bytes);
    Error err = mp4_walk_tree(g.data(), g.size(), &nodes);
    EXPECT_TRUE(err.ok()) << err.describe();
    err.ignore();
    // The boxes point into the guarded copy; keep offsets only.
    for (Mp4BoxNode& n : nodes) n.box.data = nullptr;
    return nodes;
}

std::string types(const std::vector<Mp4BoxNode>& nodes) {
    std::string s;
    for (const Mp4BoxNode& n : nodes) s += std::string(n.depth, '.') + n.box.type_name() + " ";
    return s;
}

const Mp4BoxNode* find(const std::vector<Mp4BoxNode>& nodes, const char* type, int nth = 0) {
    for (const Mp4BoxNode& n : nodes) {
        if (n.box.type_name() == type && nth-- == 0) return &n;
    }
    return nullptr;
}

// The payload bytes of a box found by find(), from the buffer it was walked in.
std::string payload(const std::string& bytes, const Mp4BoxNode* n) {
    return bytes.substr(n->box.offset + n->box.header_size, n->box.box_size - n->box.header_size);
}

Mp4Sample sample(int64_t dts, int32_t cts, bool key, const std::string& data) {
    Mp4Sample s;
    s.dts_ms = dts;
    s.cts_ms = cts;
    s.keyframe = key;
    s.data = reinterpret_cast<const uint8_t*>(data.data());
    s.size = data.size();
    return s;
}

TEST(Mp4Muxer, InitSegmentTree) {
    Mp4FragmentedMuxer mux;
    ASSERT_TRUE(ok(mux.set_track(video_track())));
    ASSERT_TRUE(ok(mux.set_track(audio_track())));
    std::string init;
    ASSERT_TRUE(ok(mux.write_init(&init)));
    EXPECT_EQ(hex_string(init.substr(0, 32)),
              "00000020" "66747970" "69736f36" "00000000" "69736f36" "636d6663" "69736f6d" "6d703431");
    std::vector<Mp4BoxNode> nodes = walk(init);
    EXPECT_EQ(types(nodes),
              "ftyp moov .mvhd "
              ".trak ..tkhd ..mdia ...mdhd ...hdlr ...minf ....vmhd ....dinf .....dref ......url  "
              "....stbl .....stsd ......avc1 .......avcC .....stts .....stsc .....stco .....stsz "
              ".trak ..tkhd ..mdia ...mdhd ...hdlr ...minf ....smhd ....dinf .....dref ......url  "
              "....stbl .....stsd ......mp4a .......esds .....stts .....stsc .....stco .....stsz "
              ".mvex ..trex ..trex ");
    // mdhd: version 1, the track timescales 90 kHz and 44.1 kHz.
    std::string mdhd = payload(init, find(nodes, "mdhd"));
    EXPECT_EQ(hex_string(mdhd.substr(0, 4)), "01000000");
    EXPECT_EQ(load_be32(&mdhd[20]), 90000u);
    EXPECT_EQ(load_be32(&payload(init, find(nodes, "mdhd", 1))[20]), 44100u);
    // tkhd of the video: 160x96 in 16.16.
    std::string tkhd = payload(init, find(nodes, "tkhd"));
    EXPECT_EQ(hex_string(tkhd.substr(tkhd.size() - 8)), "00a0000000600000");
}

TEST(Mp4Muxer, TrunWithFlagsAndCompositionOffsets) {
    Mp4FragmentedMuxer mux;
    ASSERT_TRUE(ok(mux.set_track(video_track())));
    std::string init, frag;
    ASSERT_TRUE(ok(mux.write_init(&init)));
    const std::string a(10, 'a'), b(7, 'b'), c(5, 'c');
    ASSERT_TRUE(ok(mux.add_video(sample(0, 80, true, a))));
    ASSERT_TRUE(ok(mux.add_video(sample(40, 120, false, b))));
    ASSERT_TRUE(ok(mux.add_video(sample(80, 0, false, c))));
    Mp4FragmentInfo info;
    ASSERT_TRUE(ok(mux.flush(&frag, &info, 120)));
    EXPECT_EQ(info.sequence_number, 1u);
    EXPECT_TRUE(info.independent);
    EXPECT_EQ(info.video_samples, 3u);
    EXPECT_EQ(info.start_ms, 0);
    EXPECT_EQ(info.end_ms, 120);
    EXPECT_EQ(info.bytes, frag.size());

    std::vector<Mp4BoxNode> nodes = walk(frag);
    EXPECT_EQ(types(nodes), "moof .mfhd .traf ..tfhd ..tfdt ..trun mdat ");
    EXPECT_EQ(hex_string(payload(frag, find(nodes, "tfhd"))), "00020000" "00000001");  // default-base-is-moof, track 1
    EXPECT_EQ(hex_string(payload(frag, find(nodes, "tfdt"))), "01000000" "0000000000000000");
    const std::string trun = payload(frag, find(nodes, "trun"));
    const uint32_t data_offset = find(nodes, "mdat")->box.offset + 8;
    char off[9];
    snprintf(off, sizeof(off), "%08x", data_offset);
    EXPECT_EQ(hex_string(trun),
              std::string("00000f01") + "00000003" + off +  // v0; data offset, duration, size, flags, cts; 3 samples
                  "00000e10" "0000000a" "02000000" "00001c20" +  // 40 ms, 10 bytes, sync, cts 80 ms
                  "00000e10" "00000007" "01010000" "00002a30" +  // non-sync, cts 120 ms
                  "00000e10" "00000005" "01010000" "00000000");  // last: 120 - 80 ms from next_dts
    EXPECT_EQ(frag.substr(data_offset), a + b + c);
}

TEST(Mp4Muxer, NegativeCompositionOffsetUsesTrunVersion1) {
    Mp4FragmentedMuxer mux;
    ASSERT_TRUE(ok(mux.set_track(video_track())));
    std::string init, frag;
    ASSERT_TRUE(ok(mux.write_init(&init)));
    const std::string a(4, 'a');
    ASSERT_TRUE(ok(mux.add_video(sample(100, -40, true, a))));
    Mp4FragmentInfo info;
    ASSERT_TRUE(ok(mux.flush(&frag, &info)));
    std::vector<Mp4BoxNode> nodes = walk(frag);
    const std::string trun = payload(frag, find(nodes, "trun"));
    EXPECT_EQ(hex_string(trun.substr(0, 4)), "01000f01");
    EXPECT_EQ(hex_string(trun.substr(12)), "00000e10" "00000004" "02000000" "fffff1f0");  // default 40 ms; -3600
}

TEST(Mp4Muxer, Tfdt64Bit) {
    Mp4FragmentedMuxer mux;
    ASSERT_TRUE(ok(mux.set_track(video_track())));
    std::string init, frag;
    ASSERT_TRUE(ok(mux.write_init(&init)));
    const std::string a(4, 'a');
    const int64_t dts = 100000000;  // 27.7 hours: 9e9 at 90 kHz, past 32 bits
    ASSERT_TRUE(ok(mux.add_video(sample(dts, 0, true, a))));
    Mp4FragmentInfo info;
    ASSERT_TRUE(ok(mux.flush(&frag, &info)));
    std::vector<Mp4BoxNode> nodes = walk(frag);
    EXPECT_EQ(hex_string(payload(frag, find(nodes, "tfdt"))), "01000000" "0000000218711a00");  // 9,000,000,000
    EXPECT_EQ(info.start_ms, dts);
}

TEST(Mp4Muxer, AudioAndVideoInOneMoofWithStyp) {
    Mp4MuxerOptions o;
    o.styp = true;
    Mp4FragmentedMuxer mux(o);
    ASSERT_TRUE(ok(mux.set_track(video_track())));
    ASSERT_TRUE(ok(mux.set_track(audio_track())));
    std::string init, frag;
    ASSERT_TRUE(ok(mux.write_init(&init)));
    const std::string v1(9, 'v'), v2(3, 'w'), a1(6, 'x'), a2(6, 'y');
    ASSERT_TRUE(ok(mux.add_video(sample(0, 0, true, v1))));
    ASSERT_TRUE(ok(mux.add_audio(sample(0, 0, true, a1))));
    ASSERT_TRUE(ok(mux.add_audio(sample(23, 0, true, a2))));
    ASSERT_TRUE(ok(mux.add_video(sample(40, 0, false, v2))));
    Mp4FragmentInfo info;
    ASSERT_TRUE(ok(mux.flush(&frag, &info, 80)));
    EXPECT_EQ(info.audio_samples, 2u);
    std::vector<Mp4BoxNode> nodes = walk(frag);
    EXPECT_EQ(types(nodes),
              "styp moof .mfhd .traf ..tfhd ..tfdt ..trun .traf ..tfhd ..tfdt ..trun mdat ");
    // Audio: default sample flags in tfhd, no per-sample flags; 23 ms -> 1014 at 44.1 kHz, the last the same.
    EXPECT_EQ(hex_string(payload(frag, find(nodes, "tfhd", 1))), "00020020" "00000002" "02000000");
    const std::string trun = payload(frag, find(nodes, "trun", 1));
    EXPECT_EQ(hex_string(trun.substr(0, 8)), "00000301" "00000002");
    const uint32_t audio_offset = load_be32(&trun[8]);
    const uint32_t moof_at = find(nodes, "moof")->box.offset;
    EXPECT_EQ(frag.substr(moof_at + audio_offset, 12), a1 + a2);
    EXPECT_EQ(hex_string(trun.substr(12)), "000003f6" "00000006" "000003f6" "00000006");
}

TEST(Mp4Muxer, PartsReportWhetherTheyAreIndependent) {
    Mp4FragmentedMuxer mux;
    ASSERT_TRUE(ok(mux.set_track(video_track())));
    std::string init, out;
    ASSERT_TRUE(ok(mux.write_init(&init)));
    const std::string f(5, 'f');
    Mp4FragmentInfo info;
    ASSERT_TRUE(ok(mux.add_video(sample(0, 0, true, f))));
    ASSERT_TRUE(ok(mux.add_video(sample(40, 0, false, f))));
    EXPECT_EQ(mux.pending_start_ms(), 0);
    ASSERT_TRUE(ok(mux.flush(&out, &info, 80)));
    EXPECT_TRUE(info.independent);
    ASSERT_TRUE(ok(mux.add_video(sample(80, 0, false, f))));
    ASSERT_TRUE(ok(mux.flush(&out, &info, 120)));
    EXPECT_FALSE(info.independent);
    EXPECT_EQ(info.sequence_number, 2u);
    // Nothing pending: nothing written.
    size_t before = out.size();
    ASSERT_TRUE(ok(mux.flush(&out, &info)));
    EXPECT_EQ(info.bytes, 0u);
    EXPECT_EQ(out.size(), before);
    EXPECT_EQ(mux.pending_start_ms(), -1);
}

TEST(Mp4Muxer, DvrFinishPatchesDurations) {
    Mp4MuxerOptions o;
    o.dvr = true;
    Mp4FragmentedMuxer mux(o);
    ASSERT_TRUE(ok(mux.set_track(video_track())));
    ASSERT_TRUE(ok(mux.set_track(audio_track())));
    std::string file;
    ASSERT_TRUE(ok(mux.write_init(&file)));
    const std::string f(5, 'f');
    Mp4FragmentInfo info;
    for (int i = 0; i < 50; i++) {
        if (i % 25 == 0 && i) {
            ASSERT_TRUE(ok(mux.flush(&file, &info, i * 40)));
        }
        ASSERT_TRUE(ok(mux.add_video(sample(i * 40, 0, i % 25 == 0, f))));
    }
    ASSERT_TRUE(ok(mux.add_audio(sample(1990, 0, true, f))));
    ASSERT_TRUE(ok(mux.flush(&file, &info)));
    std::vector<Mp4Patch> patches;
    ASSERT_TRUE(ok(mux.finish(&patches)));
    EXPECT_EQ(mux.duration_ms(), 2013);  // audio ends last: 1990 + one AAC frame (1024 / 44.1 kHz)
    for (const Mp4Patch& p : patches) {
        ASSERT_LE(p.offset + p.bytes.size(), file.size());
        file.replace(p.offset, p.bytes.size(), p.bytes);
    }
    std::vector<Mp4BoxNode> nodes = walk(file);
    EXPECT_EQ(load_be32(&payload(file, find(nodes, "mvhd"))[16]), 2013u);   // ms
    EXPECT_EQ(load_be32(&payload(file, find(nodes, "tkhd"))[20]), 2000u);   // video: 0 .. 1960 + 40
    EXPECT_EQ(load_be64(&payload(file, find(nodes, "mdhd"))[24]), 180000u);  // at 90 kHz
    EXPECT_EQ(load_be64(&payload(file, find(nodes, "mehd"))[4]), 2013u);
    EXPECT_EQ(code(mux.finish(&patches)), kErrorMp4State);
    EXPECT_EQ(code(mux.add_video(sample(3000, 0, true, f))), kErrorMp4State);
}

TEST(Mp4Muxer, CallsOutOfOrderAndBadSamples) {
    Mp4FragmentedMuxer mux;
    std::string out;
    Mp4FragmentInfo info;
    const std::string f(5, 'f');
    EXPECT_EQ(code(mux.write_init(&out)), kErrorMp4State);  // no track
    ASSERT_TRUE(ok(mux.set_track(video_track())));
    EXPECT_EQ(code(mux.add_video(sample(0, 0, true, f))), kErrorMp4State);  // before init
    EXPECT_EQ(code(mux.flush(&out, &info)), kErrorMp4State);
    ASSERT_TRUE(ok(mux.write_init(&out)));
    EXPECT_EQ(code(mux.write_init(&out)), kErrorMp4State);
    EXPECT_EQ(code(mux.set_track(audio_track())), kErrorMp4State);
    EXPECT_EQ(code(mux.add_audio(sample(0, 0, true, f))), kErrorMp4Sample);  // no audio track
    ASSERT_TRUE(ok(mux.add_video(sample(100, 0, true, f))));
    EXPECT_EQ(code(mux.add_video(sample(99, 0, false, f))), kErrorMp4Sample);  // dts back
    EXPECT_EQ(code(mux.add_video(sample(-1, 0, false, f))), kErrorMp4Sample);
    EXPECT_EQ(code(mux.add_video(sample(120, 0, false, std::string()))), kErrorMp4Sample);
    EXPECT_EQ(code(mux.finish(nullptr)), kErrorMp4State);  // not a dvr muxer

    Mp4FragmentedMuxer other;
    Mp4TrackConfig bad = video_track();
    bad.video_codec = VideoCodec::kAV1;
    EXPECT_EQ(code(other.set_track(bad)), kErrorMp4Track);
    Mp4TrackConfig mp3;
    mp3.audio_codec = AudioCodec::kMP3;
    mp3.sample_rate = 44100;
    mp3.channels = 2;
    EXPECT_EQ(code(other.set_track(mp3)), kErrorMp4Track);
}

TEST(Mp4FlvInput, TagBodiesToFrames) {
    Mp4FlvFrame f;
    // AVC sequence header (legacy): 17 00 000000 + record.
    std::string seq = unhex_string(std::string("1700000000") + kAvcRecord);
    ASSERT_TRUE(ok(mp4_frame_from_flv(9, 0, reinterpret_cast<const uint8_t*>(seq.data()), seq.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kVideoConfig);
    EXPECT_EQ(f.config.width, 160);
    // An inter frame with a composition time of 80 ms.
    std::string inter = unhex_string("2701000050" "0000000241ff");
    ASSERT_TRUE(ok(mp4_frame_from_flv(9, 1040, reinterpret_cast<const uint8_t*>(inter.data()), inter.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kVideoSample);
    EXPECT_EQ(f.sample.dts_ms, 1040);
    EXPECT_EQ(f.sample.cts_ms, 80);
    EXPECT_FALSE(f.sample.keyframe);
    EXPECT_EQ(f.sample.size, 6u);
    // AAC sequence header and a raw frame.
    std::string aseq = unhex_string("af001210");
    ASSERT_TRUE(ok(mp4_frame_from_flv(8, 0, reinterpret_cast<const uint8_t*>(aseq.data()), aseq.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kAudioConfig);
    EXPECT_EQ(f.config.sample_rate, 44100u);
    std::string raw = unhex_string("af01211a");
    ASSERT_TRUE(ok(mp4_frame_from_flv(8, 23, reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kAudioSample);
    EXPECT_EQ(f.sample.size, 2u);
    // MP3 is not muxed here; AVC end of sequence and script tags are nothing.
    std::string mp3 = unhex_string("2fffe3");
    ASSERT_TRUE(ok(mp4_frame_from_flv(8, 0, reinterpret_cast<const uint8_t*>(mp3.data()), mp3.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kNone);
    EXPECT_TRUE(f.unsupported);
    std::string eos = unhex_string("1702000000");
    ASSERT_TRUE(ok(mp4_frame_from_flv(9, 0, reinterpret_cast<const uint8_t*>(eos.data()), eos.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kNone);
    ASSERT_TRUE(ok(mp4_frame_from_flv(18, 0, reinterpret_cast<const uint8_t*>(eos.data()), eos.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kNone);
    // Enhanced RTMP Opus: SequenceStart with an OpusHead, then coded frames.
    std::string opus_seq = unhex_string("90" "4f707573" "4f707573486561640102380180bb0000000000");
    ASSERT_TRUE(ok(mp4_frame_from_flv(8, 0, reinterpret_cast<const uint8_t*>(opus_seq.data()), opus_seq.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kAudioConfig);
    EXPECT_EQ(f.config.audio_codec, AudioCodec::kOpus);
    EXPECT_EQ(f.config.opus.pre_skip, 312);
    std::string opus = unhex_string("91" "4f707573" "fc0102");
    ASSERT_TRUE(ok(mp4_frame_from_flv(8, 20, reinterpret_cast<const uint8_t*>(opus.data()), opus.size(), &f)));
    EXPECT_EQ(f.kind, Mp4FlvFrame::kAudioSample);
    EXPECT_EQ(f.sample.size, 3u);
    // Broken: a truncated sequence header and a bad record.
    std::string cut = unhex_string("1700");
    EXPECT_NE(code(mp4_frame_from_flv(9, 0, reinterpret_cast<const uint8_t*>(cut.data()), cut.size(), &f)), 0);
    std::string badrec = unhex_string("1700000000014d50");
    EXPECT_NE(code(mp4_frame_from_flv(9, 0, reinterpret_cast<const uint8_t*>(badrec.data()), badrec.size(), &f)), 0);
}

TEST(Mp4Muxer, OpusTrackInit) {
    Mp4FragmentedMuxer mux;
    Mp4TrackConfig opus;
    ASSERT_TRUE(ok(mp4_opus_track(nullptr, 0, &opus)));
    ASSERT_TRUE(ok(mux.set_track(opus)));
    std::string init, frag;
    ASSERT_TRUE(ok(mux.write_init(&init)));
    std::vector<Mp4BoxNode> nodes = walk(init);
    ASSERT_NE(find(nodes, "dOps"), nullptr);
    const std::string f(3, 'o');
    Mp4FragmentInfo info;
    ASSERT_TRUE(ok(mux.add_audio(sample(0, 0, true, f))));
    ASSERT_TRUE(ok(mux.add_audio(sample(20, 0, true, f))));
    ASSERT_TRUE(ok(mux.flush(&frag, &info)));
    EXPECT_TRUE(info.independent);
    nodes = walk(frag);
    // 20 ms at 48 kHz = 960 for both samples.
    EXPECT_EQ(hex_string(payload(frag, find(nodes, "trun")).substr(12)), "000003c0" "00000003" "000003c0" "00000003");
}

}  // namespace
