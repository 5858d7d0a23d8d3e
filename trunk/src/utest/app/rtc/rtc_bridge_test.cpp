// The bridges in memory, on a real stream (bridge_test_media.hpp): FLV in ->
// the RtcSource's packets (what every WebRTC player gets) -> FLV out again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "app/live/live_consumer.hpp"
#include "app/live/live_source.hpp"
#include "app/rtc/rtc_bridge_from_live.hpp"
#include "app/rtc/rtc_bridge_to_live.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_source.hpp"
#include "core/bytes.hpp"
#include "kernel/rtp/rtp.hpp"
#include "kernel/rtp/rtp_h264.hpp"
#include "utest/app/rtc/bridge_test_media.hpp"
#include "utest/kernel/codec/audio_vectors.hpp"
#include "utest/test_util.hpp"

namespace srs {
namespace {

struct SeenPacket {
    RtcMediaKind kind;
    uint16_t seq;
    uint32_t timestamp;
    bool marker;
    bool keyframe;
    std::string bytes;  // the whole RTP packet
    uint8_t payload0() const { return static_cast<uint8_t>(bytes[kRtpFixedHeaderSize]); }
};

class RecordingPlayer : public RtcPlayerSink {
  public:
    void on_source_packet(RtcMediaKind kind, const RtcPacket& p, utime_t) override {
        packets.push_back({kind, p.seq, p.timestamp, p.marker, p.keyframe,
                           std::string(reinterpret_cast<const char*>(p.data), p.size)});
    }
    void on_source_unpublish() override { unpublished++; }
    std::vector<SeenPacket> of(RtcMediaKind kind) const {
        std::vector<SeenPacket> out;
        for (const auto& p : packets) {
            if (p.kind == kind) out.push_back(p);
        }
        return out;
    }
    std::vector<SeenPacket> packets;
    int unpublished = 0;
};

LiveMessagePtr tag_message(const bridge_media::Tag& t) {
    return LiveMessagePtr(LiveMessage::create(t.type == 8 ? LiveMessageKind::kAudio : LiveMessageKind::kVideo,
                                              t.timestamp, SharedBytes::copy_of(t.body, t.size)));
}

struct BridgeFixture {
    LiveSource live{"__defaultVhost__", "live", "s"};
    RtcSourceManager manager;
    RtcSource* rtc = manager.fetch_or_create("__defaultVhost__", "live", "s");
    RtcVhostOptions vhost;
    RtcServerOptions server;
    std::unique_ptr<LiveToRtcBridge> bridge;
    explicit BridgeFixture(bool keep_bframe = false) {
        vhost.enabled = vhost.rtmp_to_rtc = true;
        vhost.keep_bframe = keep_bframe;
        bridge.reset(new LiveToRtcBridge(&live, rtc, &manager, vhost, server));
    }
    void feed(size_t from = 0, size_t to = bridge_media::kTagCount) {
        for (size_t i = from; i < to; i++) bridge->on_live_message(tag_message(bridge_media::kTags[i]));
    }
};

// The NALUs of an AVCC frame body (after the 5-byte FLV header), 4-byte lengths.
std::vector<std::string> avcc_nalus(const uint8_t* p, size_t n) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i + 4 <= n) {
        size_t len = load_be32(p + i);
        if (i + 4 + len > n) break;
        out.emplace_back(reinterpret_cast<const char*>(p + i + 4), len);
        i += 4 + len;
    }
    return out;
}

TEST(LiveToRtcBridge, PacketizesH264OnceWithParameterSetsBeforeEachIdr) {
    BridgeFixture f;
    RecordingPlayer player;
    f.rtc->add_player(&player);
    f.feed();
    std::vector<SeenPacket> video = player.of(RtcMediaKind::kVideo);
    // The 7 I and P frames of the 15, two STAP-As, x264's SEI apart.
    ASSERT_EQ(video.size(), 10u);
    EXPECT_EQ(f.rtc->track(RtcMediaKind::kVideo).codec().name, "H264");
    // High profile from the SPS: what players negotiate.
    EXPECT_NE(f.rtc->track(RtcMediaKind::kVideo).codec().fmtp.find("profile-level-id=64"), std::string::npos);
    // The first packet is a STAP-A with SPS and PPS and starts a keyframe.
    EXPECT_EQ(video[0].payload0() & 0x1f, 24);
    EXPECT_TRUE(video[0].keyframe);
    // Sequence numbers continuous; every frame ends with a marker; the 1257-byte IDR went as FU-A.
    int stap = 0, markers = 0;
    for (size_t i = 0; i < video.size(); i++) {
        if (i > 0) {
            EXPECT_EQ(video[i].seq, static_cast<uint16_t>(video[i - 1].seq + 1));
        }
        EXPECT_LE(video[i].bytes.size(), kRtpFixedHeaderSize + 1200);
        uint8_t type = video[i].payload0() & 0x1f;
        if (type == 24) stap++;
        if (video[i].marker) markers++;
    }
    EXPECT_EQ(stap, 2);  // one per IDR (0 and 400 ms)
    EXPECT_EQ(static_cast<uint64_t>(markers), f.bridge->counters().video_frames);
    // B-frames are not sent (browsers cannot decode them over WebRTC): the
    // presentation timestamps of what is sent only go forward.
    EXPECT_GT(f.bridge->counters().bframes_dropped, 0u);
    EXPECT_EQ(f.bridge->counters().bframes, f.bridge->counters().bframes_dropped);
    EXPECT_EQ(f.bridge->counters().video_frames + f.bridge->counters().bframes_dropped, 15u);
    for (size_t i = 1; i < video.size(); i++) {
        EXPECT_GE(static_cast<int32_t>(video[i].timestamp - video[i - 1].timestamp), 0) << i;
    }
    EXPECT_EQ(f.bridge->counters().video_errors, 0u);
    f.rtc->remove_player(&player);
}

// The stream's picture types (ffprobe -show_frames): B at these decode times.
TEST(LiveToRtcBridge, FindsTheBFramesOfARealStream) {
    const std::vector<uint32_t> b_at = {80, 120, 200, 240, 320, 360, 480, 520};
    int frames = 0;
    for (size_t i = 0; i < bridge_media::kTagCount; i++) {
        const bridge_media::Tag& t = bridge_media::kTags[i];
        VideoPacketInfo vi;
        if (t.type != 9 || !parse_video_packet(t.body, t.size, &vi).ok() || vi.packet_type != kVideoCodedFrames) continue;
        frames++;
        bool want = std::find(b_at.begin(), b_at.end(), t.timestamp) != b_at.end();
        EXPECT_EQ(h264_frame_has_b_slice(vi.data, vi.size, 4), want) << "frame at " << t.timestamp;
    }
    EXPECT_EQ(frames, 15);
    // Broken input is not a B-frame: a length past the end, a bare NAL header.
    const uint8_t cut[] = {0, 0, 0, 9, 0x01, 0x9e};
    EXPECT_FALSE(h264_frame_has_b_slice(cut, sizeof(cut), 4));
    const uint8_t bare[] = {0, 0, 0, 1, 0x01};
    EXPECT_FALSE(h264_frame_has_b_slice(bare, sizeof(bare), 4));
}

TEST(LiveToRtcBridge, KeepBframeSendsThemAtTheirPresentationTime) {
    BridgeFixture f(true);
    RecordingPlayer player;
    f.rtc->add_player(&player);
    f.feed();
    std::vector<SeenPacket> video = player.of(RtcMediaKind::kVideo);
    EXPECT_EQ(f.bridge->counters().video_frames, 15u);
    EXPECT_GT(f.bridge->counters().bframes, 0u);
    EXPECT_EQ(f.bridge->counters().bframes_dropped, 0u);
    // In decoding order, presentation timestamps go back at each B-frame;
    // the ones nothing references are flagged for Baseline players to skip.
    bool back = false;
    for (size_t i = 1; i < video.size(); i++) {
        back = back || static_cast<int32_t>(video[i].timestamp - video[i - 1].timestamp) < 0;
    }
    EXPECT_TRUE(back);
    bool disposable = false;
    for (uint16_t s = video.front().seq; s != static_cast<uint16_t>(video.back().seq + 1); s++) {
        const RtcPacket* p = f.rtc->track(RtcMediaKind::kVideo).find(s);
        ASSERT_NE(p, nullptr);
        disposable = disposable || p->disposable;
    }
    EXPECT_TRUE(disposable);
    f.rtc->remove_player(&player);
}

TEST(LiveToRtcBridge, TranscodesAudioOnlyWhilePlayersListen) {
    BridgeFixture f;
    f.feed(0, 20);
    EXPECT_FALSE(f.bridge->transcoding());
    EXPECT_EQ(f.bridge->counters().audio_packets, 0u);
    RecordingPlayer player;
    f.rtc->add_player(&player);
    f.feed(20, bridge_media::kTagCount);
    EXPECT_TRUE(f.bridge->transcoding());
    EXPECT_EQ(f.bridge->counters().transcoder_starts, 1u);
    std::vector<SeenPacket> audio = player.of(RtcMediaKind::kAudio);
    ASSERT_GE(audio.size(), 5u);
    EXPECT_EQ(f.rtc->track(RtcMediaKind::kAudio).codec().name, "opus");
    // 20 ms Opus frames: 960 ticks of 48 kHz apart, continuous.
    for (size_t i = 1; i < audio.size(); i++) {
        EXPECT_EQ(audio[i].timestamp - audio[i - 1].timestamp, 960u);
        EXPECT_EQ(audio[i].seq, static_cast<uint16_t>(audio[i - 1].seq + 1));
    }
    // The last player leaves: the next audio frame stops the transcoder.
    f.rtc->remove_player(&player);
    f.feed(bridge_media::kTagCount - 3, bridge_media::kTagCount);
    EXPECT_FALSE(f.bridge->transcoding());
}

// The samples of one Opus packet (RFC 6716 3.1: the TOC's config, one frame per packet with code 0).
int opus_packet_samples(const std::string& payload) {
    uint8_t toc = static_cast<uint8_t>(payload[0]);
    int config = toc >> 3;
    if ((toc & 3) != 0) return -1;  // more than one frame: not what the bridge sends
    static const int silk[4] = {480, 960, 1920, 2880}, hybrid[2] = {480, 960}, celt[4] = {120, 240, 480, 960};
    return config < 12 ? silk[config % 4] : config < 16 ? hybrid[config % 2] : celt[config % 4];
}

// MP3 (FLV SoundFormat 2): the decoder is set up from the tag's rate and
// channel flags (no AudioSpecificConfig); the frames are real libmp3lame ones.
TEST(LiveToRtcBridge, TranscodesMp3ToOpus) {
    BridgeFixture f;
    RecordingPlayer player;
    f.rtc->add_player(&player);
    const auto& frames = utest::sine440_mp3_frames();  // 44.1 kHz mono, 1152 samples each
    const uint32_t start_ms = 1000;
    for (size_t i = 0; i < frames.size(); i++) {
        // MP3, 44 kHz (rate index 3), 16-bit, mono: 0x2e.
        std::string body("\x2e", 1);
        body.append(reinterpret_cast<const char*>(frames[i].data()), frames[i].size());
        uint32_t ts = start_ms + static_cast<uint32_t>(i * 1152 * 1000 / 44100);
        f.bridge->on_live_message(LiveMessagePtr(
            LiveMessage::create(LiveMessageKind::kAudio, ts, SharedBytes::copy_of(body.data(), body.size()))));
    }
    EXPECT_TRUE(f.bridge->transcoding());
    EXPECT_EQ(f.bridge->counters().transcoder_starts, 1u);
    EXPECT_EQ(f.bridge->counters().audio_frames_in, frames.size());
    EXPECT_EQ(f.bridge->counters().audio_errors, 0u);
    std::vector<SeenPacket> audio = player.of(RtcMediaKind::kAudio);
    // 11 x 1152 samples at 44.1 kHz are 14.4 Opus frames of 20 ms (the resampler may hold one back).
    double expected = frames.size() * 1152.0 * 48000 / 44100 / 960;
    EXPECT_LE(std::abs(static_cast<double>(audio.size()) - expected), 1.0) << audio.size();
    ASSERT_GE(audio.size(), 13u);
    EXPECT_EQ(f.rtc->track(RtcMediaKind::kAudio).codec().name, "opus");
    // On the FLV timeline at 48 kHz, one 20 ms packet after the other.
    EXPECT_EQ(audio[0].timestamp, start_ms * 48);
    for (size_t i = 0; i < audio.size(); i++) {
        EXPECT_EQ(opus_packet_samples(audio[i].bytes.substr(kRtpFixedHeaderSize)), 960) << i;
        if (i == 0) continue;
        EXPECT_EQ(audio[i].timestamp - audio[i - 1].timestamp, 960u) << i;
        EXPECT_EQ(audio[i].seq, static_cast<uint16_t>(audio[i - 1].seq + 1));
    }
    f.rtc->remove_player(&player);
}

TEST(LiveToRtcBridge, BrokenAudioDoesNotStopVideo) {
    BridgeFixture f;
    RecordingPlayer player;
    f.rtc->add_player(&player);
    for (size_t i = 0; i < bridge_media::kTagCount; i++) {
        const bridge_media::Tag& t = bridge_media::kTags[i];
        if (t.type == 8 && t.body[1] == 1) {
            // A raw AAC frame of garbage after the valid header bytes.
            std::string bad(reinterpret_cast<const char*>(t.body), 2);
            bad.append(40, '\xff');
            f.bridge->on_live_message(LiveMessagePtr(LiveMessage::create(
                LiveMessageKind::kAudio, t.timestamp, SharedBytes::copy_of(bad.data(), bad.size()))));
        } else {
            f.bridge->on_live_message(tag_message(t));
        }
    }
    EXPECT_GT(f.bridge->counters().audio_errors, 0u);
    EXPECT_EQ(f.bridge->counters().video_frames + f.bridge->counters().bframes_dropped, 15u);
    EXPECT_EQ(player.of(RtcMediaKind::kVideo).size(), 10u);
}

TEST(LiveToRtcBridge, JoiningPlayerStartsAtTheRingsKeyframe) {
    BridgeFixture f;
    f.feed(0, 30);  // past the second IDR at 400 ms
    std::vector<const RtcPacket*> start;
    f.rtc->track(RtcMediaKind::kVideo).since_keyframe(&start);
    ASSERT_FALSE(start.empty());
    EXPECT_TRUE(start[0]->keyframe);
    EXPECT_EQ(start[0]->data[kRtpFixedHeaderSize] & 0x1f, 24);  // the STAP-A of the IDR at 400 ms
    // At its presentation time: 400 ms plus its composition offset.
    int32_t cts = -1;
    for (size_t i = 0; i < bridge_media::kTagCount; i++) {
        VideoPacketInfo vi;
        const bridge_media::Tag& t = bridge_media::kTags[i];
        if (t.type == 9 && t.timestamp == 400 && parse_video_packet(t.body, t.size, &vi).ok()) cts = vi.composition_time;
    }
    ASSERT_GE(cts, 0);
    EXPECT_EQ(start[0]->timestamp, (400u + cts) * 90);
    for (size_t i = 1; i < start.size(); i++) EXPECT_EQ(start[i]->seq, static_cast<uint16_t>(start[i - 1]->seq + 1));
}

TEST(LiveToRtcBridge, GoingAwayUnpublishesTheRtcSource) {
    BridgeFixture f;
    RecordingPlayer player;
    f.rtc->add_player(&player);
    EXPECT_TRUE(f.rtc->has_publisher());
    f.bridge.reset();
    EXPECT_FALSE(f.rtc->has_publisher());
    EXPECT_EQ(player.unpublished, 1);
    f.rtc->remove_player(&player);
}

// Each frame leaves at the end of its own fan-out (not with the next
// receive batch or tick): the flush sees the frame's packets already handed
// to the player; inside an outer batch the batch's owner sends them instead.
TEST(LiveToRtcBridge, FlushesEachFrameAfterItsFanOut) {
    LiveSource live{"__defaultVhost__", "live", "s"};
    RtcSourceManager manager;
    RtcSource* rtc = manager.fetch_or_create("__defaultVhost__", "live", "s");
    RtcVhostOptions vhost;
    vhost.enabled = vhost.rtmp_to_rtc = true;
    RtcServerOptions server;
    RecordingPlayer player;
    std::vector<size_t> seen_at_flush;
    std::vector<bool> batching_at_flush;
    LiveToRtcBridge bridge(&live, rtc, &manager, vhost, server, [&] {
        seen_at_flush.push_back(player.packets.size());
        batching_at_flush.push_back(manager.batching());
    });
    rtc->add_player(&player);
    const size_t tags = 12;
    for (size_t i = 0; i < tags; i++) bridge.on_live_message(tag_message(bridge_media::kTags[i]));
    ASSERT_EQ(seen_at_flush.size(), tags);
    EXPECT_GT(player.packets.size(), 0u);
    // The last flush came after the last frame's packets reached the player.
    EXPECT_EQ(seen_at_flush.back(), player.packets.size());
    for (bool b : batching_at_flush) EXPECT_FALSE(b);
    for (size_t i = 1; i < seen_at_flush.size(); i++) EXPECT_GE(seen_at_flush[i], seen_at_flush[i - 1]);

    // Inside a listener's batch: no flush of its own.
    {
        RtcFanOutBatch outer(&manager, 0);
        bridge.on_live_message(tag_message(bridge_media::kTags[tags]));
    }
    EXPECT_EQ(seen_at_flush.size(), tags);
    rtc->remove_player(&player);
}

// A second x264 stream's sequence header, as an FLV tag body (media_codec_test.cpp's kAvcHigh768x320):
// High 3.1, 768x320, where bridge_media's stream is High 1.0, 64x48.
const char* const kAvcHigh768x320 =
    "17000000000164001fffe100196764001facd940c029b011000003000100000300320f18319601000668ebe3cb22c0fdf8f8"
    "00";
// The tag of bridge_media's second IDR (400 ms).
constexpr size_t kSecondIdrTag = 27;

// bridge_media's stream, its parameter sets replaced by kAvcHigh768x320's at the second IDR
// (the bridge does not decode slices: only the SPS/PPS it sends change).
void feed_with_new_parameter_sets(BridgeFixture& f) {
    ASSERT_EQ(bridge_media::kTags[kSecondIdrTag].timestamp, 400u);
    ASSERT_EQ(bridge_media::kTags[kSecondIdrTag].body[0], 0x17);  // a keyframe's NALUs
    f.feed(0, kSecondIdrTag);
    std::string header = utest::unhex_string(kAvcHigh768x320);
    f.bridge->on_live_message(LiveMessagePtr(LiveMessage::create(
        LiveMessageKind::kVideo, 400, SharedBytes::copy_of(header.data(), header.size()))));
    f.feed(kSecondIdrTag);
}

// A new sequence header is the same publisher going on: its packets keep
// their FLV timeline and numbering, so players and the RTMP side stay in sync.
TEST(LiveToRtcBridge, NewParameterSetsKeepTheTimeline) {
    BridgeFixture f(true);
    RecordingPlayer player;
    f.rtc->add_player(&player);
    feed_with_new_parameter_sets(f);
    EXPECT_NE(f.rtc->track(RtcMediaKind::kVideo).codec().fmtp.find("profile-level-id=64001f"), std::string::npos);
    std::vector<SeenPacket> video = player.of(RtcMediaKind::kVideo), audio = player.of(RtcMediaKind::kAudio);
    VideoPacketInfo vi;
    const bridge_media::Tag& idr = bridge_media::kTags[kSecondIdrTag];
    ASSERT_TRUE(parse_video_packet(idr.body, idr.size, &vi).ok());
    ASSERT_FALSE(video.empty());
    auto second = std::find_if(video.begin(), video.end(), [&](const SeenPacket& p) {
        return p.keyframe && p.timestamp != video[0].timestamp;  // past the first IDR's packets
    });
    ASSERT_NE(second, video.end());
    EXPECT_EQ(second->timestamp, (400u + vi.composition_time) * 90);
    for (size_t i = 1; i < video.size(); i++) EXPECT_EQ(video[i].seq, static_cast<uint16_t>(video[i - 1].seq + 1));
    ASSERT_GE(audio.size(), 5u);
    for (size_t i = 1; i < audio.size(); i++) {
        EXPECT_EQ(audio[i].timestamp - audio[i - 1].timestamp, 960u) << i;
        EXPECT_EQ(audio[i].seq, static_cast<uint16_t>(audio[i - 1].seq + 1));
    }
    f.rtc->remove_player(&player);
}

// ---- back: the packets WebRTC players got -> FLV ----

struct Collected {
    std::vector<LiveMessagePtr> messages;
};

void drain(LiveConsumer* c, Collected* out) {
    std::vector<LiveMessagePtr> got;
    c->dump(&got, 100000);
    for (auto& m : got) out->messages.push_back(m);
}

uint64_t ntp_of_ms(int64_t ms) {
    // NTP 32.32 for an arbitrary epoch plus ms.
    uint64_t us = 3900000000ull * 1000000ull + static_cast<uint64_t>(ms) * 1000;
    return ((us / 1000000) << 32) | (((us % 1000000) << 32) / 1000000);
}

// What an RtcToLiveBridge rebuilds goes to this source (as published by
// the bridge: no jitter correction, no bridge of its own); the consumer reads it.
LiveConsumer* open_output(LiveSource* out) {
    SourceOptions so;
    so.jitter = TimeJitter::kOff;
    so.bridge = false;
    if (!out->on_publish("test", so).ok()) return nullptr;
    return out->create_consumer(ConsumerOptions());
}

// Gives the bridge the packets a player got, 1 ms apart, lets its reorder
// buffer time out, and collects what it published.
void replay(RtcToLiveBridge* back, const std::vector<SeenPacket>& packets, LiveConsumer* consumer, Collected* out) {
    utime_t now = 1000;
    for (const SeenPacket& p : packets) {
        const uint8_t* bytes = reinterpret_cast<const uint8_t*>(p.bytes.data());
        RtpHeader h;
        ASSERT_TRUE(rtp_parse_header(bytes, p.bytes.size(), &h).ok());
        back->on_rtp(p.kind, bytes, p.bytes.size(), h, now);
        now += 1000;
    }
    back->on_timer(now + kUsPerSecond);
    drain(consumer, out);
}

TEST(RtcToLiveBridge, RebuildsTheStreamFromItsPackets) {
    BridgeFixture f(true);  // every frame, B-frames too
    RecordingPlayer player;
    f.rtc->add_player(&player);
    f.feed();
    f.rtc->remove_player(&player);

    LiveSource out("__defaultVhost__", "live", "back");
    LiveConsumer* consumer = open_output(&out);
    ASSERT_NE(consumer, nullptr);
    RtcToLiveOptions o;
    RtcToLiveBridge back("test", &out, f.rtc->track(RtcMediaKind::kAudio).codec(),
                         f.rtc->track(RtcMediaKind::kVideo).codec(), o);
    // The ring kept the bridge's timestamps (pts x 90 and x 48): sender
    // reports put RTP 0 of both tracks at the same instant.
    back.on_sender_report(RtcMediaKind::kVideo, ntp_of_ms(0), 0, 0);
    back.on_sender_report(RtcMediaKind::kAudio, ntp_of_ms(0), 0, 0);
    // In order, but every 7th packet held back one place (reordered).
    std::vector<SeenPacket> packets = player.packets;
    for (size_t i = 6; i + 1 < packets.size(); i += 7) std::swap(packets[i], packets[i + 1]);
    Collected c;
    replay(&back, packets, consumer, &c);

    // Video: the sequence header with the original SPS/PPS, then every frame's NALUs as sent.
    std::vector<const LiveMessage*> video, audio;
    for (auto& m : c.messages) (m->is_video() ? video : audio).push_back(m.get());
    ASSERT_FALSE(video.empty());
    EXPECT_TRUE(video[0]->is_sequence_header());
    EXPECT_EQ(video.size(), 1u + 15u);
    // Frame NALUs equal the input's (AUD and filler aside, which x264 did not make here).
    size_t vi = 1;
    for (size_t i = 0; i < bridge_media::kTagCount && vi < video.size(); i++) {
        const bridge_media::Tag& t = bridge_media::kTags[i];
        if (t.type != 9 || t.body[1] != 1) continue;
        std::vector<std::string> want = avcc_nalus(t.body + 5, t.size - 5);
        want.erase(std::remove_if(want.begin(), want.end(),
                                  [](const std::string& n) { uint8_t ty = n[0] & 0x1f; return ty == 7 || ty == 8 || ty == 9; }),
                   want.end());
        const LiveMessage* m = video[vi++];
        std::vector<std::string> got = avcc_nalus(m->payload().data() + 5, m->size() - 5);
        EXPECT_EQ(got, want) << "frame at " << t.timestamp;
        EXPECT_EQ(m->is_keyframe(), (t.body[0] >> 4) == 1) << "frame at " << t.timestamp;
    }
    // Audio: an AAC sequence header (48 kHz stereo), then 1024-sample frames.
    ASSERT_GE(audio.size(), 3u);
    EXPECT_TRUE(audio[0]->is_sequence_header());
    AudioPacketInfo info;
    ASSERT_TRUE(parse_audio_packet(audio[0]->payload().data(), audio[0]->size(), &info).ok());
    AudioCodecConfig config;
    ASSERT_TRUE(parse_aac_sequence_header(info.data, info.size, &config).ok());
    EXPECT_EQ(config.sample_rate, 48000);
    EXPECT_EQ(config.channels, 2);
    // One timeline: the first video frame (at its presentation time) and the
    // first audio frame are as far apart as in the input.
    int64_t first_video_in = -1, first_audio_in = -1;
    for (size_t i = 0; i < bridge_media::kTagCount; i++) {
        const bridge_media::Tag& t = bridge_media::kTags[i];
        VideoPacketInfo vi;
        if (first_video_in < 0 && t.type == 9 && parse_video_packet(t.body, t.size, &vi).ok() && !vi.sequence_header) {
            first_video_in = t.timestamp + vi.composition_time;
        }
        if (first_audio_in < 0 && t.type == 8 && t.body[1] == 1) first_audio_in = t.timestamp;
    }
    int64_t input_gap = first_video_in - first_audio_in;
    int64_t output_gap = static_cast<int64_t>(video[1]->timestamp()) - audio[1]->timestamp();
    EXPECT_LE(std::abs(output_gap - input_gap), 25) << output_gap << " vs " << input_gap;
    for (size_t i = 2; i < audio.size(); i++) EXPECT_GE(audio[i]->timestamp(), audio[i - 1]->timestamp());
    EXPECT_EQ(back.counters().sequence_headers, 1u);
    out.remove_consumer(consumer);
    delete consumer;
}

// The SPS of an AVCDecoderConfigurationRecord with one (its length at byte 6).
std::string avcc_sps(const uint8_t* record, size_t n) {
    if (n < 8 || 8 + static_cast<size_t>(load_be16(record + 6)) > n) return "";
    return std::string(reinterpret_cast<const char*>(record + 8), load_be16(record + 6));
}

TEST(RtcToLiveBridge, NewParameterSetsMakeANewSequenceHeader) {
    BridgeFixture f(true);
    RecordingPlayer player;
    f.rtc->add_player(&player);
    feed_with_new_parameter_sets(f);
    f.rtc->remove_player(&player);

    LiveSource out("__defaultVhost__", "live", "resized");
    LiveConsumer* consumer = open_output(&out);
    ASSERT_NE(consumer, nullptr);
    RtcTrackCodec no_audio;
    RtcToLiveBridge back("test", &out, no_audio, f.rtc->track(RtcMediaKind::kVideo).codec(), RtcToLiveOptions());
    back.on_sender_report(RtcMediaKind::kVideo, ntp_of_ms(0), 0, 0);
    Collected c;
    replay(&back, player.of(RtcMediaKind::kVideo), consumer, &c);
    out.remove_consumer(consumer);
    delete consumer;

    // Two sequence headers, each right before the keyframe it describes; no frame lost.
    std::vector<size_t> headers;
    for (size_t i = 0; i < c.messages.size(); i++) {
        if (c.messages[i]->is_sequence_header()) headers.push_back(i);
    }
    EXPECT_EQ(back.counters().sequence_headers, 2u);
    ASSERT_EQ(headers.size(), 2u);
    EXPECT_EQ(c.messages.size(), 2u + 15u);
    EXPECT_EQ(headers[0], 0u);
    ASSERT_LT(headers[1] + 1, c.messages.size());
    EXPECT_TRUE(c.messages[headers[1] + 1]->is_keyframe());
    EXPECT_EQ(c.messages[headers[1]]->timestamp(), c.messages[headers[1] + 1]->timestamp());
    // The first carries the stream's SPS, the second the new one: 768x320.
    const std::string resized = utest::unhex_string(kAvcHigh768x320).substr(5);
    std::string want[2] = {avcc_sps(bridge_media::kTags[0].body + 5, bridge_media::kTags[0].size - 5),
                           avcc_sps(reinterpret_cast<const uint8_t*>(resized.data()), resized.size())};
    int width[2] = {64, 768}, height[2] = {48, 320};
    for (int k = 0; k < 2; k++) {
        const LiveMessage& m = *c.messages[headers[k]];
        ASSERT_FALSE(want[k].empty());
        EXPECT_EQ(avcc_sps(m.payload().data() + 5, m.size() - 5), want[k]) << k;
        VideoCodecConfig config;
        ASSERT_TRUE(parse_avc_sequence_header(m.payload().data() + 5, m.size() - 5, &config).ok()) << k;
        EXPECT_EQ(config.width, width[k]) << k;
        EXPECT_EQ(config.height, height[k]) << k;
    }
}

TEST(RtcToLiveBridge, LostFragmentDropsTheFrameAndAsksForAKeyframe) {
    BridgeFixture f(true);
    RecordingPlayer player;
    f.rtc->add_player(&player);
    f.feed();
    f.rtc->remove_player(&player);
    LiveSource out("__defaultVhost__", "live", "lossy");
    SourceOptions so;
    so.bridge = false;
    ASSERT_TRUE(out.on_publish("test", so).ok());
    RtcToLiveOptions o;
    o.pli_interval = 0;
    o.video_wait = 10 * kUsPerMs;
    RtcTrackCodec no_audio;
    RtcToLiveBridge back("test", &out, no_audio, f.rtc->track(RtcMediaKind::kVideo).codec(), o);
    back.on_sender_report(RtcMediaKind::kVideo, ntp_of_ms(0), player.of(RtcMediaKind::kVideo)[0].timestamp, 0);
    EXPECT_TRUE(back.take_keyframe_wanted());  // the first one: RTMP players start at a keyframe
    std::vector<SeenPacket> video = player.of(RtcMediaKind::kVideo);
    // Lose the packet after the first IDR's STAP-A (x264's SEI, in the IDR's access unit).
    ASSERT_EQ(video[0].payload0() & 0x1f, 24);
    ASSERT_EQ(video[1].timestamp, video[0].timestamp);
    size_t lost = 1;
    utime_t now = 1000;
    for (size_t i = 0; i < video.size(); i++) {
        now += 20 * kUsPerMs;
        back.on_timer(now);
        if (i == lost) continue;
        RtpHeader h;
        ASSERT_TRUE(
            rtp_parse_header(reinterpret_cast<const uint8_t*>(video[i].bytes.data()), video[i].bytes.size(), &h).ok());
        back.on_rtp(RtcMediaKind::kVideo, reinterpret_cast<const uint8_t*>(video[i].bytes.data()),
                    video[i].bytes.size(), h, now);
    }
    back.on_timer(now + kUsPerSecond);
    EXPECT_TRUE(back.take_keyframe_wanted());
    EXPECT_GT(back.counters().video_lost, 0u);
    // The second GOP (IDR at 400 ms) came through.
    EXPECT_GE(back.counters().video_frames, 5u);
    EXPECT_EQ(back.counters().sequence_headers, 1u);
}

// The times (from the first timer) at which the bridge wants a PLI sent to
// the WebRTC publisher, with a vhost's pli_for_rtmp as the session passes it
// and the server's 20 ms timer on a fake clock, over `over`.
std::vector<utime_t> keyframe_requests(const std::string& pli_for_rtmp, utime_t over) {
    std::shared_ptr<const Config> conf;
    Error err = Config::load_text("listen 1935;\nvhost __defaultVhost__ { rtc { enabled on; rtc_to_rtmp on; pli_for_rtmp " +
                                      pli_for_rtmp + "; } }\n",
                                  "t.conf", &conf);
    EXPECT_TRUE(err.ok()) << err.summary();
    if (err.failed()) return {};
    RtcToLiveOptions o;
    o.pli_interval = read_rtc_vhost_options(*conf, "__defaultVhost__").pli_for_rtmp;
    RtcTrackCodec video;
    video.present = true;
    video.name = "H264";
    video.clock_rate = 90000;
    LiveSource out("__defaultVhost__", "live", "pli");
    RtcToLiveBridge back("test", &out, RtcTrackCodec(), video, o);
    std::vector<utime_t> at;
    const utime_t start = 7 * kUsPerSecond;  // a monotonic clock, not 0
    for (utime_t now = start; now < start + over; now += 20 * kUsPerMs) {
        back.on_timer(now);
        if (back.take_keyframe_wanted()) at.push_back(now - start);
    }
    EXPECT_EQ(back.counters().pli, at.size());
    return at;
}

TEST(RtcToLiveBridge, AsksForAKeyframeEveryPliForRtmp) {
    const utime_t s = kUsPerSecond;
    // The first at once (RTMP players start at a keyframe), then one each N s: 3 in 3N s.
    EXPECT_EQ(keyframe_requests("2", 6 * s), (std::vector<utime_t>{0, 2 * s, 4 * s}));
    EXPECT_EQ(keyframe_requests("0.5", 3 * s / 2), (std::vector<utime_t>{0, s / 2, s}));
    // 0: no periodic request; only the first keyframe the RTMP side needs.
    EXPECT_EQ(keyframe_requests("0", 6 * s), (std::vector<utime_t>{0}));
}

}  // namespace
}  // namespace srs

namespace srs {
namespace {

// Enhanced RTMP H.265 (x265's VPS/SPS/PPS): the bridge packetizes it for
// players that negotiate H.265, parameter sets as one AP before the IRAP.
using utest::unhex_string;

TEST(LiveToRtcBridge, EnhancedRtmpH265GoesOutAsRfc7798) {
    const std::string vps = unhex_string("40010c01ffff01600000030090000003000003003c959809");
    const std::string sps =
        unhex_string("42010101600000030090000003000003003ca00a080f165959a4932bc05a020000030002000003003210");
    const std::string pps = unhex_string("4401c172b46240");
    std::string hvcc = unhex_string("010160000000900000000000 3cf000fcfdf8f800000f03");
    for (auto [type, nalu] : {std::pair<int, std::string>{32, vps}, {33, sps}, {34, pps}}) {
        hvcc.push_back(static_cast<char>(0x80 | type));
        hvcc += unhex_string("0001");
        hvcc.push_back(static_cast<char>(nalu.size() >> 8));
        hvcc.push_back(static_cast<char>(nalu.size()));
        hvcc += nalu;
    }
    BridgeFixture f;
    RecordingPlayer player;
    f.rtc->add_player(&player);
    // E-RTMP: IsExHeader | frame type 1 | SequenceStart, 'hvc1', the record.
    std::string header = std::string("\x90hvc1", 5) + hvcc;
    f.bridge->on_live_message(LiveMessagePtr(LiveMessage::create(
        LiveMessageKind::kVideo, 0, SharedBytes::copy_of(header.data(), header.size()))));
    EXPECT_EQ(f.rtc->track(RtcMediaKind::kVideo).codec().name, "H265");
    // A 3000-byte IDR_W_RADL (type 19) as CodedFramesX (no composition time).
    std::string idr(3000, '\x5a');
    idr[0] = static_cast<char>(19 << 1);
    idr[1] = 1;
    std::string frame = std::string("\x93hvc1", 5);
    for (int i = 3; i >= 0; i--) frame.push_back(static_cast<char>(idr.size() >> (8 * i)));
    frame += idr;
    f.bridge->on_live_message(LiveMessagePtr(LiveMessage::create(
        LiveMessageKind::kVideo, 40, SharedBytes::copy_of(frame.data(), frame.size()))));
    std::vector<SeenPacket> video = player.of(RtcMediaKind::kVideo);
    ASSERT_GE(video.size(), 4u);  // the AP, then three FU fragments
    EXPECT_EQ((video[0].payload0() >> 1) & 0x3f, 48);
    EXPECT_TRUE(video[0].keyframe);
    EXPECT_EQ((video[1].payload0() >> 1) & 0x3f, 49);
    EXPECT_TRUE(video[1].keyframe);  // the FU's start of an IRAP
    EXPECT_TRUE(video.back().marker);
    for (const SeenPacket& p : video) EXPECT_EQ(p.timestamp, 40u * 90);
    EXPECT_EQ(f.bridge->counters().video_errors, 0u);
    f.rtc->remove_player(&player);
}


// Enhanced RTMP AV1 (libaom's av1C of a 640x360 stream, media_codec_test.cpp's
// kAv1c640x360): temporal units go out as AV1 RTP, the av1C's sequence header
// first in a keyframe's unit, the temporal delimiter left out.
TEST(LiveToRtcBridge, EnhancedRtmpAv1GoesOutAsAv1Rtp) {
    const std::string av1c = unhex_string("81010c000a0b0000000cc4ff6736be4010");
    const std::string sequence_header_obu = av1c.substr(4);  // 0x0a: type 1 with obu_size, 11 bytes
    BridgeFixture f;
    RecordingPlayer player;
    f.rtc->add_player(&player);
    // E-RTMP: IsExHeader | frame type 1 | SequenceStart, 'av01', the record.
    std::string header = std::string("\x90" "av01", 5) + av1c;
    f.bridge->on_live_message(LiveMessagePtr(LiveMessage::create(
        LiveMessageKind::kVideo, 0, SharedBytes::copy_of(header.data(), header.size()))));
    EXPECT_EQ(f.rtc->track(RtcMediaKind::kVideo).codec().name, "AV1");
    // A temporal delimiter, then a 2500-byte OBU_FRAME (type 6, obu_size as LEB128 0xc4 0x13).
    std::string frame_obu = unhex_string("32c413");
    for (int i = 0; i < 2500; i++) frame_obu.push_back(static_cast<char>(i * 7));
    std::string unit = unhex_string("1200") + frame_obu;
    auto send = [&](uint8_t first_byte, uint32_t ts) {  // CodedFrames: no composition time for av01
        std::string body = std::string(1, static_cast<char>(first_byte)) + "av01" + unit;
        f.bridge->on_live_message(LiveMessagePtr(LiveMessage::create(
            LiveMessageKind::kVideo, ts, SharedBytes::copy_of(body.data(), body.size()))));
    };
    send(0x91, 40);  // frame type 1: key
    send(0xa1, 80);  // frame type 2: inter
    std::vector<SeenPacket> video = player.of(RtcMediaKind::kVideo);
    EXPECT_EQ(f.bridge->counters().video_frames, 2u);
    EXPECT_EQ(f.bridge->counters().video_errors, 0u);

    // Each unit's elements back (W = 0: each after its LEB128 length; Y/Z join fragments).
    std::vector<std::vector<std::string>> units;
    std::vector<uint32_t> unit_ts;
    bool open = false;
    for (const SeenPacket& p : video) {
        EXPECT_LE(p.bytes.size(), kRtpFixedHeaderSize + 1200);
        std::string payload = p.bytes.substr(kRtpFixedHeaderSize);
        uint8_t agg = static_cast<uint8_t>(payload[0]);
        EXPECT_EQ(agg & 0x30, 0) << "W";
        if (!open) {
            units.emplace_back();
            unit_ts.push_back(p.timestamp);
            EXPECT_EQ(agg & 0x80, 0) << "a unit's first packet continues nothing";
            EXPECT_EQ(p.keyframe, (agg & 0x08) != 0);
        } else {
            EXPECT_EQ(p.timestamp, unit_ts.back());
            EXPECT_NE(agg & 0x80, 0) << "Z after Y";
            EXPECT_EQ(agg & 0x08, 0) << "N only on the first packet";
        }
        size_t i = 1;
        bool first_element = true;
        while (i < payload.size()) {
            size_t len = 0, shift = 0;
            while (i < payload.size()) {
                uint8_t b = static_cast<uint8_t>(payload[i++]);
                len |= static_cast<size_t>(b & 0x7f) << shift;
                shift += 7;
                if (!(b & 0x80)) break;
            }
            ASSERT_LE(i + len, payload.size());
            std::string e = payload.substr(i, len);
            if (first_element && (agg & 0x80) && !units.back().empty()) {
                units.back().back() += e;
            } else {
                units.back().push_back(e);
            }
            first_element = false;
            i += len;
        }
        open = (agg & 0x40) != 0;
        EXPECT_EQ(p.marker, !open) << "the marker ends a unit";
    }
    ASSERT_EQ(units.size(), 2u);
    EXPECT_EQ(unit_ts, (std::vector<uint32_t>{40u * 90, 80u * 90}));
    // Elements are OBUs without obu_size (header 0x32 -> 0x30, 0x0a -> 0x08).
    std::string frame_element = "\x30" + frame_obu.substr(3);
    std::string sequence_element = "\x08" + sequence_header_obu.substr(2);
    EXPECT_EQ(units[0], (std::vector<std::string>{sequence_element, frame_element}));
    EXPECT_EQ(units[1], (std::vector<std::string>{frame_element}));
    // The keyframe's first packet says N (a new coded video sequence) and is the ring's keyframe.
    ASSERT_GE(video.size(), 4u);  // 2500 bytes: three packets, then the inter unit
    EXPECT_NE(static_cast<uint8_t>(video[0].bytes[kRtpFixedHeaderSize]) & 0x08, 0);
    EXPECT_TRUE(video[0].keyframe);
    EXPECT_FALSE(video.back().keyframe);
    for (size_t i = 1; i < video.size(); i++) EXPECT_EQ(video[i].seq, static_cast<uint16_t>(video[i - 1].seq + 1));
    f.rtc->remove_player(&player);
}
}  // namespace
}  // namespace srs
