// sb_latency's WebRTC pieces that do no I/O (tools/rtc_latency_session.hpp):
// which URLs are WHIP and WHEP, and RtcVideoToFlv, the WHEP player's way back
// from H.264 RTP to FLV tag bodies. The RTP is made by the server's own
// packetizer from stamped frames, so the round trip is the one sb_latency
// measures: in order, reordered, with a packet lost (the frame is not a
// sample, nor the ones up to the next keyframe) and with a broken payload.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/bytes.hpp"
#include "kernel/codec/media_codec.hpp"
#include "kernel/latency_stamp.hpp"
#include "kernel/rtp/rtp_h264.hpp"
#include "tools/rtc_latency_session.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

// x264's SPS and PPS of a 320x240 High profile stream (as in rtp_h264_test).
const uint8_t kSps[] = {0x67, 0x64, 0x00, 0x0d, 0xac, 0xd9, 0x41, 0x41, 0xfb, 0x01, 0x10, 0x00, 0x00,
                        0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0x20, 0xf1, 0x42, 0x99, 0x60};
const uint8_t kPps[] = {0x68, 0xeb, 0xe3, 0xcb, 0x22, 0xc0};

std::string str(const uint8_t* p, size_t n) { return std::string(reinterpret_cast<const char*>(p), n); }

// An FLV AVC NALU tag body holding one slice NALU of `size` bytes.
std::vector<uint8_t> frame_body(bool key, size_t size, uint8_t fill) {
    std::vector<uint8_t> b = {static_cast<uint8_t>(key ? 0x17 : 0x27), 0x01, 0x00, 0x00, 0x00};
    b.push_back(static_cast<uint8_t>(size >> 24));
    b.push_back(static_cast<uint8_t>(size >> 16));
    b.push_back(static_cast<uint8_t>(size >> 8));
    b.push_back(static_cast<uint8_t>(size));
    b.push_back(key ? 0x65 : 0x41);  // IDR / non-IDR slice, nal_ref_idc 3 / 2
    for (size_t i = 1; i < size; i++) b.push_back(static_cast<uint8_t>(fill + i * 7));
    return b;
}

// Stamps the body and packetizes it into whole RTP packets (seq from *seq).
class Packets : public RtpPayloadSink {
  public:
    Packets() {
        std::string record;
        EXPECT_TRUE(h264_build_avcc_record(str(kSps, sizeof(kSps)), str(kPps, sizeof(kPps)), &record).ok());
        EXPECT_TRUE(packetizer_.set_sequence_header(reinterpret_cast<const uint8_t*>(record.data()), record.size()).ok());
    }
    std::vector<std::vector<uint8_t>> frame(const std::vector<uint8_t>& body, uint64_t stamp, uint32_t ts) {
        std::vector<uint8_t> out(body.size() + kLatencyStampMaxGrowth);
        size_t n = 0;
        EXPECT_TRUE(stamp_video_tag(body.data(), body.size(), 4, stamp, out.data(), &n).ok());
        packets_.clear();
        ts_ = ts;
        EXPECT_TRUE(packetizer_.packetize(out.data() + 5, n - 5, this).ok());
        return packets_;
    }
    void on_rtp_payload(const uint8_t* data, size_t size, bool marker) override {
        std::vector<uint8_t> p(12 + size);
        p[0] = 0x80;
        p[1] = static_cast<uint8_t>((marker ? 0x80 : 0) | 102);
        store_be16(p.data() + 2, seq_++);
        store_be32(p.data() + 4, ts_);
        store_be32(p.data() + 8, 0x1234);
        memcpy(p.data() + 12, data, size);
        packets_.push_back(std::move(p));
    }

  private:
    H264Packetizer packetizer_;
    std::vector<std::vector<uint8_t>> packets_;
    uint16_t seq_ = 65530;  // wraps within the test
    uint32_t ts_ = 0;
};

struct Emitted {
    uint32_t ts = 0;
    std::vector<uint8_t> body;
};

void push_all(RtcVideoToFlv* v, const std::vector<std::vector<uint8_t>>& packets, utime_t now) {
    for (const auto& p : packets) v->push(p.data(), p.size(), load_be16(p.data() + 2), now);
}

std::vector<Emitted> drain(RtcVideoToFlv* v, utime_t now) {
    std::vector<Emitted> out;
    EXPECT_TRUE(v->drain(now, [&out](uint32_t ts, const uint8_t* p, size_t n) {
        out.push_back({ts, std::vector<uint8_t>(p, p + n)});
        return true;
    }));
    return out;
}

uint64_t stamp_of(const std::vector<uint8_t>& body) {
    uint64_t stamp = 0;
    bool found = false;
    EXPECT_TRUE(find_latency_stamp(body.data(), body.size(), 4, &stamp, &found).ok());
    EXPECT_TRUE(found);
    return stamp;
}

}  // namespace

TEST(RtcLatencyUrls, WhipAndWhepForms) {
    EXPECT_TRUE(is_whep_play_url("http://127.0.0.1:1985/rtc/v1/whep/?app=live&stream=a"));
    EXPECT_TRUE(is_whep_play_url("whep://127.0.0.1:1985/rtc/v1/whep/?app=live&stream=a"));
    EXPECT_TRUE(is_whep_play_url("webrtc://127.0.0.1/live/a"));
    // SRS's JSON API takes JSON, not an SDP body: only through webrtc://.
    EXPECT_FALSE(is_whep_play_url("http://127.0.0.1:1985/rtc/v1/play/"));
    EXPECT_FALSE(is_whip_publish_url("http://127.0.0.1:1985/rtc/v1/publish/"));
    EXPECT_FALSE(is_whep_play_url("http://127.0.0.1:8080/live/a.flv"));
    EXPECT_FALSE(is_whep_play_url("rtmp://127.0.0.1/live/a"));
    EXPECT_FALSE(is_whep_play_url("http://whep-host:8080/live/a.flv"));  // the host is not the path
    EXPECT_TRUE(is_whip_publish_url("http://127.0.0.1:1985/rtc/v1/whip/?app=live&stream=a"));
    EXPECT_TRUE(is_whip_publish_url("whip://127.0.0.1:1985/rtc/v1/whip/?app=live&stream=a"));
    EXPECT_TRUE(is_whip_publish_url("webrtc://127.0.0.1/live/a"));
    EXPECT_FALSE(is_whip_publish_url("rtmp://127.0.0.1/live/a"));
    EXPECT_FALSE(is_whip_publish_url("http://127.0.0.1:1985/rtc/v1/whep/?app=live&stream=a"));
    EXPECT_EQ("http://h:1/rtc/v1/whip/", rtc_http_form("whip://h:1/rtc/v1/whip/"));
    EXPECT_EQ("http://h:1/x", rtc_http_form("WHEP://h:1/x"));
    EXPECT_EQ("webrtc://h/live/a", rtc_http_form("webrtc://h/live/a"));
    EXPECT_EQ("", http_path_of("http://h:1"));
}

TEST(RtcVideoToFlv, RebuildsStampedFramesWithASequenceHeaderFirst) {
    Packets pk;
    RtcVideoToFlv v;
    const auto key = pk.frame(frame_body(true, 3000, 1), 1111, 90000);  // FU-A fragments
    const auto p1 = pk.frame(frame_body(false, 300, 2), 2222, 93600);   // the SEI, the slice
    ASSERT_GT(key.size(), 3u);
    ASSERT_EQ(2u, p1.size());
    push_all(&v, key, 1000);
    push_all(&v, p1, 1000);
    const auto out = drain(&v, 1000);
    ASSERT_EQ(3u, out.size());
    // The sequence header: an AVC record with the stream's SPS and PPS.
    EXPECT_TRUE(is_video_sequence_header(out[0].body.data(), out[0].body.size()));
    EXPECT_EQ(4, video_nalu_length_size(out[0].body.data(), out[0].body.size()));
    EXPECT_TRUE(is_video_keyframe(out[1].body.data(), out[1].body.size()));
    EXPECT_FALSE(is_video_keyframe(out[2].body.data(), out[2].body.size()));
    EXPECT_EQ(1111u, stamp_of(out[1].body));
    EXPECT_EQ(2222u, stamp_of(out[2].body));
    // ms since the first frame: 3600 ticks at 90 kHz are 40 ms.
    EXPECT_EQ(0u, out[1].ts);
    EXPECT_EQ(40u, out[2].ts);
    EXPECT_EQ(0u, v.frames_dropped());
    // The same parameter sets again: no second sequence header.
    push_all(&v, pk.frame(frame_body(true, 500, 3), 3333, 97200), 2000);
    const auto again = drain(&v, 2000);
    ASSERT_EQ(1u, again.size());
    EXPECT_EQ(3333u, stamp_of(again[0].body));
}

TEST(RtcVideoToFlv, PutsReorderedPacketsBackInOrder) {
    Packets pk;
    RtcVideoToFlv v;
    auto key = pk.frame(frame_body(true, 4000, 4), 4444, 0);
    ASSERT_GT(key.size(), 4u);
    std::swap(key[1], key[2]);
    push_all(&v, key, 1000);
    const auto out = drain(&v, 1000);
    ASSERT_EQ(2u, out.size());
    EXPECT_EQ(4444u, stamp_of(out[1].body));
    EXPECT_EQ(0u, v.packets_lost());
}

TEST(RtcVideoToFlv, AFrameWithAHoleIsNoSampleNorAreTheFramesUpToTheNextKeyframe) {
    Packets pk;
    RtcVideoToFlv v;
    push_all(&v, pk.frame(frame_body(true, 3000, 5), 5555, 0), 1000);
    EXPECT_EQ(2u, drain(&v, 1000).size());
    auto broken = pk.frame(frame_body(true, 3000, 6), 6666, 3600);
    broken.erase(broken.begin() + 2);  // a FU-A fragment lost
    push_all(&v, broken, 2000);
    push_all(&v, pk.frame(frame_body(false, 200, 7), 7777, 7200), 2000);
    // Held while the gap is waited for, then skipped: nothing whole.
    EXPECT_TRUE(drain(&v, 2000).empty());
    EXPECT_GE(v.next_timeout(), 2000);
    EXPECT_TRUE(drain(&v, 2000 + RtcVideoToFlv::kReorderWait).empty());
    EXPECT_EQ(1u, v.packets_lost());
    EXPECT_EQ(2u, v.frames_dropped());
    // The next keyframe is whole again.
    push_all(&v, pk.frame(frame_body(true, 800, 8), 8888, 10800), 3000);
    const auto out = drain(&v, 3000);
    ASSERT_EQ(1u, out.size());
    EXPECT_EQ(8888u, stamp_of(out[0].body));
}

TEST(RtcVideoToFlv, ABrokenPayloadDropsItsFrameNotTheStream) {
    Packets pk;
    RtcVideoToFlv v;
    push_all(&v, pk.frame(frame_body(true, 300, 9), 9999, 0), 1000);
    EXPECT_EQ(2u, drain(&v, 1000).size());
    // A frame whose slice packet is a STAP-A with a unit size running past
    // the payload, then a frame whose two packets are not RTP version 2.
    auto bad = pk.frame(frame_body(false, 100, 1), 1, 3600);
    ASSERT_EQ(2u, bad.size());
    bad[1].resize(12);
    bad[1].insert(bad[1].end(), {0x18, 0x00, 0x40, 0x41});
    push_all(&v, bad, 2000);
    auto not_rtp = pk.frame(frame_body(false, 100, 2), 2, 7200);
    for (auto& p : not_rtp) p[0] = 0x40;
    push_all(&v, not_rtp, 2000);
    EXPECT_TRUE(drain(&v, 2000).empty());
    EXPECT_EQ(3u, v.bad_payloads());
    // A keyframe after it plays.
    push_all(&v, pk.frame(frame_body(true, 300, 3), 3, 10800), 3000);
    const auto out = drain(&v, 3000);
    ASSERT_EQ(1u, out.size());
    EXPECT_EQ(3u, stamp_of(out[0].body));
}
