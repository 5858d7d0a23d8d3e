// Tests for kernel/ts: PAT/PMT bytes and CRC-32 against ffmpeg's own, PTS and
// PCR fields against hand-computed bit layouts, ADTS against ffmpeg's, PES
// stuffing at every size boundary, CC wrap, a keyframe PES with its SPS/PPS,
// H.265 parameter sets, broken inputs, and the demuxer fed whole, byte by
// byte and broken (every input placed before a PROT_NONE page).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernel/flv/flv.hpp"
#include "kernel/ts/ts_demuxer.hpp"
#include "kernel/ts/ts_es.hpp"
#include "kernel/ts/ts_muxer.hpp"
#include "kernel/ts/ts_packet.hpp"
#include "utest/kernel/ts/ts_vectors.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

const uint8_t* u8(const std::string& s) {
    return reinterpret_cast<const uint8_t*>(s.data());
}

// The first PAT and PMT packets (first 26 bytes; the rest is 0xFF) of
//   ffmpeg -i tiny.flv -c copy -f mpegts -fflags +bitexact ff.ts
// (ffmpeg 5.1; H.264 on PID 0x100, AAC on 0x101, PMT on 0x1000).
const char* const kFfmpegPat = "474000100000b00d0001c100000001f0002ab104b2";
const char* const kFfmpegPmt = "475000100002b0170001c10000e100f0001be100f0000fe101f0002f44b99b";

// The avcC of ffmpeg's tiny.flv (H.264 Main, 160x96): SPS 67 4d 50 0b ..., PPS 68 eb ec b2.
const char* const kAvcc = "014d500bffe10016674d500beca146d80880000003008000000a078912cb01000468ebecb2";
const char* const kSps = "674d500beca146d80880000003008000000a078912cb";
const char* const kPps = "68ebecb2";

std::string packet_with_fill(const char* head) {
    std::string p = unhex_string(head);
    p.resize(kTsPacketSize, static_cast<char>(0xff));
    return p;
}

std::vector<TsPes> demux_all(const std::string& ts, TsDemuxer* demux) {
    std::vector<TsPes> out;
    GuardedBytes g(ts);
    size_t used = 0;
    EXPECT_TRUE(ok(demux->feed(g.data(), g.size(), &used, &out)));
    EXPECT_EQ(used, ts.size());
    EXPECT_TRUE(ok(demux->flush(&out)));
    return out;
}

}  // namespace

TEST(TsPacket, Crc32CheckValue) {
    // CRC-32/MPEG-2's catalogued check value for "123456789".
    EXPECT_EQ(ts_crc32(reinterpret_cast<const uint8_t*>("123456789"), 9), 0x0376e6e7u);
    // A section with its CRC appended checks to 0.
    std::string pat = unhex_string(kFfmpegPat).substr(5, 16);
    EXPECT_EQ(ts_crc32(u8(pat), pat.size()), 0u);
}

TEST(TsPacket, PatAndPmtMatchFfmpeg) {
    std::string out;
    uint8_t cc = 0;
    ts_write_pat(1, 0x1000, 0, &cc, &out);
    EXPECT_EQ(out, packet_with_fill(kFfmpegPat));
    EXPECT_EQ(cc, 1);
    out.clear();
    cc = 0;
    ts_write_pmt(0x1000, 0x100, 0, {{kTsStreamH264, 0x100}, {kTsStreamAac, 0x101}}, &cc, &out);
    EXPECT_EQ(out, packet_with_fill(kFfmpegPmt));
}

TEST(TsPacket, MuxerPsiIsFfmpegsWithTheSamePids) {
    TsMuxerOptions o;
    o.pmt_pid = 0x1000;
    TsMuxer mux(o);
    ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kH264, AudioCodec::kAAC)));
    std::string out;
    mux.start_segment(&out);
    EXPECT_EQ(out, packet_with_fill(kFfmpegPat) + packet_with_fill(kFfmpegPmt));
    EXPECT_FALSE(mux.psi_pending());
}

TEST(TsPacket, TimestampAndPcrBitLayout) {
    // 33-bit 0x123456789 as '0010' + 3 bits + marker + 15 + marker + 15 + marker.
    uint8_t p[5];
    ts_write_timestamp(p, 0x2, 0x123456789ull);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(p), 5), unhex_string("298d15cf13"));
    EXPECT_EQ(ts_read_timestamp(p), 0x123456789ull);
    // Wrapped to 33 bits.
    ts_write_timestamp(p, 0x2, 0x123456789ull + (1ull << 33));
    EXPECT_EQ(ts_read_timestamp(p), 0x123456789ull);
    // PCR: base 0x123456789, six reserved 1 bits, extension 0x12b.
    uint8_t pcr[6];
    uint64_t v = 0x123456789ull * 300 + 0x12b;
    ts_write_pcr(pcr, v);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(pcr), 6), unhex_string("91a2b3c4ff2b"));
    EXPECT_EQ(ts_read_pcr(pcr), v);
}

TEST(TsPacket, StuffingAtEverySizeBoundary) {
    for (size_t n : {0, 1, 100, 181, 182, 183, 184, 185, 366, 367, 368, 369, 1000}) {
        std::string pes(n, 'x');
        std::string out;
        uint8_t cc = 14;
        TsPesPacketization how;
        how.pid = 0x101;
        ts_write_pes_packets(how, u8(pes), pes.size(), &cc, &out);
        ASSERT_EQ(out.size() % kTsPacketSize, 0u) << n;
        size_t packets = out.size() / kTsPacketSize;
        EXPECT_EQ(packets, n <= 184 ? 1 : (n + 183) / 184) << n;
        EXPECT_EQ(cc, (14 + packets) & 0x0f) << n;
        // Reassemble the payload bytes: they are the PES exactly.
        std::string again;
        for (size_t i = 0; i < packets; i++) {
            const uint8_t* p = u8(out) + i * kTsPacketSize;
            EXPECT_EQ(p[0], 0x47);
            EXPECT_EQ(!!(p[1] & 0x40), i == 0);
            size_t at = 4;
            if (p[3] & 0x20) at = 5 + p[4];
            ASSERT_LE(at, kTsPacketSize);
            // Stuffing bytes (after the flags byte) are 0xFF.
            for (size_t k = 6; k < at; k++) EXPECT_EQ(p[k], 0xff) << n;
            again.append(reinterpret_cast<const char*>(p + at), kTsPacketSize - at);
        }
        EXPECT_EQ(again, pes) << n;
    }
    // 183 bytes: an adaptation field of only its length byte (0).
    std::string out;
    uint8_t cc = 0;
    TsPesPacketization how;
    how.pid = 0x100;
    std::string pes(183, 'y');
    ts_write_pes_packets(how, u8(pes), pes.size(), &cc, &out);
    EXPECT_EQ(unhex_string("4741003000"), out.substr(0, 5));
}

TEST(TsPacket, PcrAndRandomAccessInTheFirstPacket) {
    std::string pes(400, 'z'), out;
    uint8_t cc = 0;
    TsPesPacketization how;
    how.pid = 0x100;
    how.write_pcr = true;
    how.random_access = true;
    how.pcr27m = 90000ull * 300;
    ts_write_pes_packets(how, u8(pes), pes.size(), &cc, &out);
    // 47 41 00 30 | af length 7, flags RAI|PCR, PCR base 90000.
    EXPECT_EQ(out.substr(0, 6), unhex_string("474100300750"));
    EXPECT_EQ(ts_read_pcr(u8(out) + 6), 90000ull * 300);
    // Only the first packet carries them.
    EXPECT_EQ(static_cast<uint8_t>(out[kTsPacketSize + 3]) & 0x30, 0x10);
}

TEST(TsPacket, ContinuityCounterWrapsAndStaysContinuous) {
    TsMuxer mux;
    ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kUnknown, AudioCodec::kMP3)));
    std::string out;
    std::string frame(417, 'm');
    for (int i = 0; i < 40; i++) {
        if (i % 7 == 0) mux.start_segment(&out);  // segments keep the counters going
        ASSERT_TRUE(ok(mux.write_audio(i * 26, u8(frame), frame.size(), &out)));
    }
    TsDemuxer demux;
    std::vector<TsPes> pes = demux_all(out, &demux);
    EXPECT_EQ(pes.size(), 40u);
    EXPECT_EQ(demux.stats().cc_errors, 0u);
    EXPECT_GT(demux.stats().packets, 16u * 3);  // the audio PID wrapped several times
    EXPECT_EQ(demux.stats().pcr_pid, 0x101);   // audio alone carries the PCR
    EXPECT_EQ(demux.stats().pcr_count, 40u);
    EXPECT_EQ(pes[39].pts, 39u * 26 * 90);
    EXPECT_EQ(pes[39].stream_type, kTsStreamMp3);
    EXPECT_EQ(pes[0].payload, frame);
}

TEST(TsEs, AdtsHeaderMatchesFfmpeg) {
    // AudioSpecificConfig 13 88: AAC LC, 22050 Hz, mono; ffmpeg's first ADTS
    // header for a 219-byte frame of it.
    TsAdtsConfig c;
    std::string asc = unhex_string("1388");
    ASSERT_TRUE(ok(ts_parse_adts_config(u8(asc), asc.size(), &c)));
    EXPECT_EQ(c.profile, 1);
    EXPECT_EQ(c.sampling_index, 7);
    EXPECT_EQ(c.channel_config, 1);
    uint8_t h[7];
    ts_write_adts_header(h, c, 219);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(h), 7), unhex_string("fff15c401c5ffc"));
    // LC 44.1 kHz stereo (12 10), 100 bytes: frame_length 107.
    asc = unhex_string("1210");
    ASSERT_TRUE(ok(ts_parse_adts_config(u8(asc), asc.size(), &c)));
    ts_write_adts_header(h, c, 100);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(h), 7), unhex_string("fff15080 0d7ffc"));
}

TEST(TsEs, AdtsConfigOfHeAacAndBrokenConfigs) {
    // HE-AAC, explicit hierarchical: aot 5, core 24 kHz stereo, SBR 48 kHz, core aot 2.
    TsAdtsConfig c;
    std::string asc = unhex_string("2b1188");
    ASSERT_TRUE(ok(ts_parse_adts_config(u8(asc), asc.size(), &c)));
    EXPECT_EQ(c.profile, 1);
    EXPECT_EQ(c.sampling_index, 6);
    EXPECT_EQ(c.channel_config, 2);
    for (const char* bad : {"", "12", "2b11", "f800", "1788", "2780"}) {
        std::string b = unhex_string(bad);
        GuardedBytes g(b);
        EXPECT_EQ(code(ts_parse_adts_config(g.data(), g.size(), &c)), kErrorTsMux) << bad;
    }
}

TEST(TsEs, AvcRecordAndAnnexBOfAnIdr) {
    std::string avcc = unhex_string(kAvcc);
    TsVideoParameterSets ps;
    ASSERT_TRUE(ok(ts_parse_avc_record(u8(avcc), avcc.size(), &ps)));
    EXPECT_EQ(ps.nalu_length_size, 4);
    ASSERT_EQ(ps.nalus.size(), 2u);
    EXPECT_EQ(ps.nalus[0], unhex_string(kSps));
    EXPECT_EQ(ps.nalus[1], unhex_string(kPps));

    // An IDR frame as FLV carries it: an SEI then the IDR slice, 4-byte lengths,
    // and an AUD the muxer drops (it writes its own).
    std::string frame = unhex_string("00000002 09f0  00000003 06 0501  00000005 6588840033");
    std::string out;
    bool key = false;
    GuardedBytes g(frame);
    ASSERT_TRUE(ok(ts_annexb_from_avcc(VideoCodec::kH264, ps, g.data(), g.size(), &out, &key)));
    EXPECT_TRUE(key);
    EXPECT_EQ(out, unhex_string(std::string("0000000109f0 00000001") + kSps + "00000001" + kPps +
                                "00000001060501 000000016588840033"));
    // A P frame: no parameter sets.
    frame = unhex_string("00000004 419a216c");
    out.clear();
    ASSERT_TRUE(ok(ts_annexb_from_avcc(VideoCodec::kH264, ps, u8(frame), frame.size(), &out, &key)));
    EXPECT_FALSE(key);
    EXPECT_EQ(out, unhex_string("0000000109f0 00000001419a216c"));
    // An IDR that brings its own SPS/PPS gets no second copy.
    frame = unhex_string("00000002 6742 00000002 68ce 00000002 6588");
    out.clear();
    ASSERT_TRUE(ok(ts_annexb_from_avcc(VideoCodec::kH264, ps, u8(frame), frame.size(), &out, &key)));
    EXPECT_EQ(out, unhex_string("0000000109f0 000000016742 0000000168ce 000000016588"));
}

TEST(TsEs, HevcRecordAndIrap) {
    // hvcC: 22 bytes of profile/level fields (lengthSizeMinusOne 3), 3 arrays: VPS, SPS, PPS.
    std::string hvcc = unhex_string(
        "01 01 60000000 900000000000 5d f000 fc fd f8 f8 0000 0f"
        "03 a0 0001 0004 40010c01  a1 0001 0004 42010101  a2 0001 0003 4401c1");
    TsVideoParameterSets ps;
    ASSERT_TRUE(ok(ts_parse_hevc_record(u8(hvcc), hvcc.size(), &ps)));
    EXPECT_EQ(ps.nalu_length_size, 4);
    ASSERT_EQ(ps.nalus.size(), 3u);
    EXPECT_EQ(ps.nalus[2], unhex_string("4401c1"));
    // An IDR_W_RADL (type 19: 0x26 0x01) gets AUD (type 35) + VPS/SPS/PPS.
    std::string frame = unhex_string("00000004 2601af09");
    std::string out;
    bool key = false;
    ASSERT_TRUE(ok(ts_annexb_from_avcc(VideoCodec::kH265, ps, u8(frame), frame.size(), &out, &key)));
    EXPECT_TRUE(key);
    EXPECT_EQ(out, unhex_string("00000001460150 0000000140010c01 0000000142010101 000000014401c1 000000012601af09"));
    // Truncated records.
    for (size_t n = 0; n < hvcc.size(); n++) {
        GuardedBytes g(hvcc.substr(0, n));
        EXPECT_FALSE(ok(ts_parse_hevc_record(g.data(), g.size(), &ps))) << n;
    }
}

TEST(TsEs, BrokenFramesAndRecords) {
    std::string avcc = unhex_string(kAvcc);
    TsVideoParameterSets ps;
    for (size_t n = 0; n < avcc.size(); n++) {
        GuardedBytes g(avcc.substr(0, n));
        EXPECT_EQ(code(ts_parse_avc_record(g.data(), g.size(), &ps)), kErrorTsMux) << n;
    }
    ASSERT_TRUE(ok(ts_parse_avc_record(u8(avcc), avcc.size(), &ps)));
    for (const char* bad : {"", "000000", "00000005 6588", "00000000", "ffffffff 65", "00000001 65 000000"}) {
        std::string b = unhex_string(bad), out;
        GuardedBytes g(b);
        bool key;
        EXPECT_EQ(code(ts_annexb_from_avcc(VideoCodec::kH264, ps, g.data(), g.size(), &out, &key)), kErrorTsMux)
            << bad;
        EXPECT_TRUE(out.empty()) << bad;
    }
    std::string out;
    bool key;
    std::string f = unhex_string("00000001 65");
    EXPECT_EQ(code(ts_annexb_from_avcc(VideoCodec::kAV1, ps, u8(f), f.size(), &out, &key)), kErrorTsMux);
}

TEST(TsMuxer, IdrPesWithSpsPpsRoundTrips) {
    TsMuxer mux;
    ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kH264, AudioCodec::kAAC)));
    std::string avcc = unhex_string(kAvcc), asc = unhex_string("1388");
    ASSERT_TRUE(ok(mux.set_video_sequence_header(u8(avcc), avcc.size())));
    ASSERT_TRUE(ok(mux.set_audio_sequence_header(u8(asc), asc.size())));
    std::string idr = unhex_string("00000005 6588840033"), p = unhex_string("00000004 419a216c");
    std::string aac(219, '\x21');
    std::string out;
    bool key = false;
    ASSERT_TRUE(ok(mux.write_video(0, 80, u8(idr), idr.size(), &out, &key)));
    EXPECT_TRUE(key);
    ASSERT_TRUE(ok(mux.write_audio(10, u8(aac), aac.size(), &out)));
    ASSERT_TRUE(ok(mux.write_video(40, 40, u8(p), p.size(), &out, &key)));
    EXPECT_FALSE(key);
    EXPECT_EQ(out.size() % kTsPacketSize, 0u);
    EXPECT_EQ(mux.stats().video_frames, 2u);
    EXPECT_EQ(mux.stats().audio_frames, 1u);
    EXPECT_EQ(mux.stats().bytes, out.size());

    TsDemuxer demux;
    std::vector<TsPes> pes = demux_all(out, &demux);
    ASSERT_EQ(pes.size(), 3u);
    EXPECT_EQ(demux.stats().pat_count, 1u);
    EXPECT_EQ(demux.stats().pmt_pid, 0x1001);
    EXPECT_EQ(demux.stats().pcr_pid, 0x100);
    EXPECT_EQ(demux.stats().pcr_count, 2u);
    EXPECT_EQ(demux.streams().at(0x100), kTsStreamH264);
    EXPECT_EQ(demux.streams().at(0x101), kTsStreamAac);
    // Audio completes first (bounded PES); video at the next start or the end.
    const TsPes& a = pes[0];
    EXPECT_EQ(a.pid, 0x101);
    EXPECT_EQ(a.pts, 900u);
    EXPECT_FALSE(a.has_dts);
    EXPECT_EQ(a.payload, unhex_string("fff15c401c5ffc") + aac);
    const TsPes& v = pes[1];
    EXPECT_EQ(v.pid, 0x100);
    EXPECT_EQ(v.stream_id, 0xe0);
    EXPECT_TRUE(v.random_access);
    EXPECT_TRUE(v.has_dts);
    EXPECT_EQ(v.pts, 80u * 90);
    EXPECT_EQ(v.dts, 0u);
    EXPECT_EQ(v.payload, unhex_string(std::string("0000000109f0 00000001") + kSps + "00000001" + kPps +
                                      "000000016588840033"));
    EXPECT_FALSE(pes[2].random_access);
    EXPECT_FALSE(pes[2].has_dts);  // pts == dts
    EXPECT_EQ(pes[2].pts, 40u * 90);

    // Byte by byte: the same PES packets.
    TsDemuxer slow;
    std::vector<TsPes> again;
    std::string pending;
    for (char c : out) {
        pending.push_back(c);
        size_t used = 0;
        ASSERT_TRUE(ok(slow.feed(u8(pending), pending.size(), &used, &again)));
        pending.erase(0, used);
    }
    ASSERT_TRUE(ok(slow.flush(&again)));
    ASSERT_EQ(again.size(), pes.size());
    for (size_t i = 0; i < pes.size(); i++) EXPECT_EQ(again[i].payload, pes[i].payload);
}

TEST(TsMuxer, RefusedInputAppendsNothing) {
    TsMuxer mux;
    std::string out, f = unhex_string("00000001 65");
    EXPECT_EQ(code(mux.write_video(0, 0, u8(f), f.size(), &out)), kErrorTsMux);  // no video track
    EXPECT_EQ(code(mux.set_tracks(VideoCodec::kAV1, AudioCodec::kAAC)), kErrorTsMux);
    EXPECT_EQ(code(mux.set_tracks(VideoCodec::kH264, AudioCodec::kOpus)), kErrorTsMux);
    ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kH264, AudioCodec::kAAC)));
    std::string aac(100, 'a');
    EXPECT_EQ(code(mux.write_audio(0, u8(aac), aac.size(), &out)), kErrorTsMux);  // no ASC yet
    std::string asc = unhex_string("1210");
    ASSERT_TRUE(ok(mux.set_audio_sequence_header(u8(asc), asc.size())));
    std::string huge(kTsAdtsMaxPayload + 1, 'a');
    EXPECT_EQ(code(mux.write_audio(0, u8(huge), huge.size(), &out)), kErrorTsMux);
    EXPECT_EQ(code(mux.write_audio(0, u8(aac), 0, &out)), kErrorTsMux);
    std::string bad = unhex_string("00000009 65");
    EXPECT_EQ(code(mux.write_video(0, 0, u8(bad), bad.size(), &out)), kErrorTsMux);
    EXPECT_TRUE(out.empty());
    EXPECT_TRUE(mux.psi_pending());
    EXPECT_EQ(mux.stats().errors, 5u);
    // Still usable.
    ASSERT_TRUE(ok(mux.write_audio(0, u8(aac), aac.size(), &out)));
    EXPECT_FALSE(out.empty());
}

TEST(TsMuxer, PsiRepetitionAndTrackChange) {
    TsMuxerOptions o;
    o.psi_interval_ms = 500;
    TsMuxer mux(o);
    ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kUnknown, AudioCodec::kMP3)));
    std::string out, mp3(200, 'm');
    for (int i = 0; i < 50; i++) ASSERT_TRUE(ok(mux.write_audio(i * 26, u8(mp3), mp3.size(), &out)));
    // 0..1274 ms: PSI at 0, 520, 1040.
    EXPECT_EQ(mux.stats().psi_writes, 3u);
    // Video appears: a new PMT version, before the next frame.
    ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kH264, AudioCodec::kMP3)));
    EXPECT_TRUE(mux.psi_pending());
    std::string f = unhex_string("00000004 419a216c");
    ASSERT_TRUE(ok(mux.write_video(1300, 1300, u8(f), f.size(), &out)));
    TsDemuxer demux;
    std::vector<TsPes> pes = demux_all(out, &demux);
    EXPECT_EQ(pes.size(), 51u);
    EXPECT_EQ(demux.stats().pmt_count, 4u);
    EXPECT_EQ(demux.stats().pmt_version, 1);
    EXPECT_EQ(demux.stats().pcr_pid, 0x100);
    EXPECT_EQ(demux.stats().cc_errors, 0u);
}

TEST(TsMuxer, FlvTagsIn) {
    TsMuxer mux;
    std::string out;
    bool written = true;
    // AVC sequence header, then an IDR with composition time 40 ms.
    std::string seq = unhex_string(std::string("1700000000") + kAvcc);
    ASSERT_TRUE(ok(mux.write_flv_tag(kFlvTagVideo, 0, u8(seq), seq.size(), &out, &written)));
    EXPECT_FALSE(written);
    EXPECT_EQ(mux.video_codec(), VideoCodec::kH264);
    std::string idr = unhex_string("1701000028 00000005 6588840033");
    ASSERT_TRUE(ok(mux.write_flv_tag(kFlvTagVideo, 100, u8(idr), idr.size(), &out, &written)));
    EXPECT_TRUE(written);
    // AAC sequence header and a frame; MP3 would replace the track.
    std::string aseq = unhex_string("af00 1388"), araw = unhex_string("af01 21100554");
    ASSERT_TRUE(ok(mux.write_flv_tag(kFlvTagAudio, 0, u8(aseq), aseq.size(), &out, &written)));
    ASSERT_TRUE(ok(mux.write_flv_tag(kFlvTagAudio, 100, u8(araw), araw.size(), &out, &written)));
    EXPECT_TRUE(written);
    // Script data and a video command frame: skipped, no error.
    std::string script = unhex_string("02000a6f6e4d65746144617461");
    ASSERT_TRUE(ok(mux.write_flv_tag(kFlvTagScript, 0, u8(script), script.size(), &out, &written)));
    EXPECT_FALSE(written);
    // A broken tag body: an error.
    std::string broken = unhex_string("17");
    EXPECT_FALSE(ok(mux.write_flv_tag(kFlvTagVideo, 0, u8(broken), broken.size(), &out, &written)));

    TsDemuxer demux;
    std::vector<TsPes> pes = demux_all(out, &demux);
    ASSERT_EQ(pes.size(), 2u);
    EXPECT_EQ(demux.stats().pmt_version, 1);  // audio joined after the first PMT
    EXPECT_EQ(pes[1].pid, 0x100);
    EXPECT_EQ(pes[1].pts, 140u * 90);
    EXPECT_EQ(pes[1].dts, 100u * 90);
    EXPECT_EQ(pes[0].payload, unhex_string("fff15c4001 7ffc 21100554"));
}

TEST(TsDemuxer, BrokenStreams) {
    TsMuxer mux;
    ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kUnknown, AudioCodec::kMP3)));
    std::string good, mp3(300, 'm');
    for (int i = 0; i < 3; i++) ASSERT_TRUE(ok(mux.write_audio(i * 26, u8(mp3), mp3.size(), &good)));
    auto fails = [](std::string ts) {
        TsDemuxer d;
        std::vector<TsPes> out;
        GuardedBytes g(ts);
        size_t used = 0;
        Error err = d.feed(g.data(), g.size(), &used, &out);
        if (err.ok()) err = d.flush(&out);
        return code(std::move(err));
    };
    EXPECT_EQ(fails(good), 0);
    std::string bad = good;
    bad[kTsPacketSize * 2] = 0x46;  // sync byte
    EXPECT_EQ(fails(bad), kErrorTsDemux);
    bad = good;
    bad[20] ^= 1;  // PAT CRC
    EXPECT_EQ(fails(bad), kErrorTsDemux);
    bad = good;
    bad[kTsPacketSize + 6] = static_cast<char>(0xbf);  // PMT section_length past the packet
    EXPECT_EQ(fails(bad), kErrorTsDemux);
    // The audio PES cut short of its PES_packet_length.
    EXPECT_EQ(fails(good.substr(0, kTsPacketSize * 3)), kErrorTsDemux);
    bad = good;
    bad[kTsPacketSize * 2 + 3] = 0x00;  // adaptation_field_control 00
    EXPECT_EQ(fails(bad), kErrorTsDemux);
    // A dropped packet is counted; here it also leaves the PES it belonged to
    // short of its PES_packet_length, which is an error.
    TsDemuxer d;
    std::string dropped = good.substr(0, kTsPacketSize * 3) + good.substr(kTsPacketSize * 4);
    std::vector<TsPes> out;
    size_t used = 0;
    Error err = d.feed(u8(dropped), dropped.size(), &used, &out);
    if (err.ok()) err = d.flush(&out);
    EXPECT_EQ(code(std::move(err)), kErrorTsDemux);
    EXPECT_EQ(d.stats().cc_errors, 1u);
    // A tail shorter than a packet is left for the next feed.
    TsDemuxer t;
    ASSERT_TRUE(ok(t.feed(u8(good), kTsPacketSize + 100, &used, &out)));
    EXPECT_EQ(used, kTsPacketSize);
}

TEST(TsMuxer, TimestampsWrapAt33Bits) {
    TsMuxer mux;
    ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kUnknown, AudioCodec::kMP3)));
    std::string out, mp3(100, 'm');
    const int64_t wrap_ms = ((int64_t(1) << 33) + 89) / 90;  // the first ms past 2^33 ticks
    ASSERT_TRUE(ok(mux.write_audio(wrap_ms - 1, u8(mp3), mp3.size(), &out)));
    ASSERT_TRUE(ok(mux.write_audio(wrap_ms + 100, u8(mp3), mp3.size(), &out)));
    ASSERT_TRUE(ok(mux.write_audio(-10, u8(mp3), mp3.size(), &out)));
    TsDemuxer demux;
    std::vector<TsPes> pes = demux_all(out, &demux);
    ASSERT_EQ(pes.size(), 3u);
    EXPECT_EQ(pes[0].pts, uint64_t(wrap_ms - 1) * 90);
    EXPECT_EQ(pes[1].pts, uint64_t(wrap_ms + 100) * 90 - (uint64_t(1) << 33));
    EXPECT_EQ(pes[2].pts, (uint64_t(1) << 33) - 900);
    EXPECT_EQ(demux.stats().last_pcr27m, ((uint64_t(1) << 33) - 900) * 300);
}

TEST(TsMuxer, Mp3StreamTypeFollowsTheMpegVersion) {
    // MPEG-2 Layer III (22.05 kHz: version bits 10) -> 0x04, as ffmpeg writes it;
    // MPEG-1 (44.1 kHz: 11) -> 0x03; the PMT changes version when the first
    // frame comes after PAT/PMT already went out.
    struct Case {
        const char* header;
        uint8_t type;
    } cases[] = {{"fff39064", kTsStreamMp3Mpeg2}, {"fffb9064", kTsStreamMp3}, {"fff39064", kTsStreamMp3Mpeg2},
                 {"00000000", kTsStreamMp3}};
    for (const Case& c : cases) {
        TsMuxer mux;
        ASSERT_TRUE(ok(mux.set_tracks(VideoCodec::kUnknown, AudioCodec::kMP3)));
        std::string out;
        if (&c == &cases[2]) mux.start_segment(&out);  // PMT (0x03) first, then the frame
        std::string frame = unhex_string(c.header) + std::string(100, '\0');
        ASSERT_TRUE(ok(mux.write_audio(0, u8(frame), frame.size(), &out)));
        TsDemuxer demux;
        std::vector<TsPes> pes = demux_all(out, &demux);
        ASSERT_EQ(pes.size(), 1u);
        EXPECT_EQ(demux.streams().at(0x101), c.type) << c.header;
        EXPECT_EQ(demux.stats().pmt_version, &c == &cases[2] ? 1 : 0) << c.header;
    }
}

TEST(TsDemuxer, ReadsFfmpegsOwnTs) {
    // ffmpeg's muxer does what ours does not: an SDT, PSI repeated, several
    // AAC frames in one PES, PCR-only adaptation fields. Fed whole, byte by
    // byte and in 7-byte pieces, our demuxer finds the same PES packets.
    std::string ts = unhex_string(kFfmpegTinyTs);
    ASSERT_EQ(ts.size(), 4136u);
    for (size_t piece : {ts.size(), size_t(1), size_t(7)}) {
        TsDemuxer demux;
        std::vector<TsPes> pes;
        std::string pending;
        GuardPage guard(ts.size());
        for (size_t at = 0; at < ts.size(); at += piece) {
            pending.append(ts, at, piece);
            const uint8_t* p = guard.place(u8(pending), pending.size());
            size_t used = 0;
            ASSERT_TRUE(ok(demux.feed(p, pending.size(), &used, &pes)));
            pending.erase(0, used);
        }
        ASSERT_TRUE(pending.empty());
        ASSERT_TRUE(ok(demux.flush(&pes)));
        EXPECT_EQ(demux.stats().packets, 22u);
        EXPECT_EQ(demux.stats().pat_count, 3u);
        EXPECT_EQ(demux.stats().pmt_count, 3u);
        EXPECT_EQ(demux.stats().pmt_pid, 0x1000);
        EXPECT_EQ(demux.stats().cc_errors, 0u);
        EXPECT_EQ(demux.stats().orphan_packets, 1u);  // the SDT (PID 0x11)
        EXPECT_EQ(demux.streams().at(0x100), kTsStreamH264);
        EXPECT_EQ(demux.streams().at(0x101), kTsStreamAac);
        std::vector<std::pair<uint64_t, uint64_t>> video;
        const TsPes* audio = nullptr;
        for (const TsPes& x : pes) {
            if (x.pid == 0x100) video.push_back({x.pts, x.dts});
            if (x.pid == 0x101) audio = &x;
        }
        EXPECT_EQ(video, (std::vector<std::pair<uint64_t, uint64_t>>{{144000, 126000}, {162000, 135000}, {153000, 144000}}));
        ASSERT_NE(audio, nullptr);
        EXPECT_EQ(audio->pts, 139860u);
        EXPECT_TRUE(pes[0].random_access);
        // The audio PES holds 8 whole ADTS frames.
        size_t frames = 0, at = 0;
        const std::string& a = audio->payload;
        while (at + 7 <= a.size() && static_cast<uint8_t>(a[at]) == 0xff) {
            size_t len = (uint32_t(static_cast<uint8_t>(a[at + 3]) & 0x03) << 11) |
                         (uint32_t(static_cast<uint8_t>(a[at + 4])) << 3) | (static_cast<uint8_t>(a[at + 5]) >> 5);
            ASSERT_GE(len, 7u);
            at += len;
            frames++;
        }
        EXPECT_EQ(at, a.size());
        EXPECT_EQ(frames, 8u);
    }
}

TEST(TsEs, FlaggedKeyframeWithoutIdrGetsParameterSets) {
    // An H.264 I frame that is not an IDR (slice type 1 NALU, e.g. a recovery
    // point) but that FLV marks as a keyframe: HLS may cut a segment there.
    std::string avcc = unhex_string(kAvcc);
    TsVideoParameterSets ps;
    ASSERT_TRUE(ok(ts_parse_avc_record(u8(avcc), avcc.size(), &ps)));
    std::string frame = unhex_string("00000004 419a216c"), out;
    bool key = false;
    ASSERT_TRUE(ok(ts_annexb_from_avcc(VideoCodec::kH264, ps, u8(frame), frame.size(), &out, &key, true)));
    EXPECT_TRUE(key);
    EXPECT_EQ(out, unhex_string(std::string("0000000109f0 00000001") + kSps + "00000001" + kPps + "00000001419a216c"));

    // Through FLV: frame type 1 with a non-IDR slice -> parameter sets and random_access_indicator.
    TsMuxer mux;
    std::string seq = unhex_string(std::string("1700000000") + kAvcc);
    std::string tag = unhex_string("1701000000 00000004 419a216c");
    std::string ts;
    ASSERT_TRUE(ok(mux.write_flv_tag(kFlvTagVideo, 0, u8(seq), seq.size(), &ts)));
    ASSERT_TRUE(ok(mux.write_flv_tag(kFlvTagVideo, 40, u8(tag), tag.size(), &ts)));
    TsDemuxer demux;
    std::vector<TsPes> pes = demux_all(ts, &demux);
    ASSERT_EQ(pes.size(), 1u);
    EXPECT_TRUE(pes[0].random_access);
    EXPECT_EQ(pes[0].payload, out);
}
