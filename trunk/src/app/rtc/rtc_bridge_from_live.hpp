// RTMP/HTTP-FLV in, WebRTC out (vhost rtc { rtmp_to_rtc on; }).
//
// One bridge per published stream, hung on its LiveSource: it is the
// publisher of the stream's RtcSource. Each video frame is packetized once
// (H.264: single NALUs, STAP-A, FU-A; H.265; AV1) into the source's ring, so
// WebRTC players cost what they cost for a WebRTC publisher. AAC or MP3 is
// transcoded to Opus once per stream, and only while a WebRTC player is
// attached; Opus from Enhanced RTMP passes as it is. Timestamps come from the
// FLV ones: video on 90 kHz at the presentation time, audio on 48 kHz.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/live/live_bridge.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_source.hpp"
#include "kernel/codec/audio_transcoder.hpp"
#include "kernel/codec/media_codec.hpp"
#include "kernel/rtp/rtp_payload.hpp"

namespace srs {

class H264Packetizer;
class H265Packetizer;
class Av1Packetizer;

class LiveToRtcBridge : public LiveSourceBridge, public RtcPublisherControl, private RtpPayloadSink {
  public:
    // Sends what a fan-out queued in the UDP send slots (RtcUdpIo::flush).
    using SendFlush = std::function<void()>;
    // rtc: the stream's RtcSource (fetched by the caller); released to
    // `manager` when the bridge goes. `flush` (may be empty) runs after each
    // frame's fan-out: the RTMP coroutine is not the UDP listener, so without
    // it the frame would wait for full slots, a receive batch or the tick.
    LiveToRtcBridge(LiveSource* live, RtcSource* rtc, RtcSourceManager* manager, const RtcVhostOptions& vhost,
                    const RtcServerOptions& server, SendFlush flush = SendFlush());
    ~LiveToRtcBridge() override;

    void on_live_message(const LiveMessagePtr& msg) override;
    // A WebRTC player's PLI: an RTMP publisher cannot be asked; new players
    // start from the ring's last keyframe instead (counted).
    void request_keyframe(utime_t now) override;
    // So the RtcSource keeps its ring without players: the last keyframe is there.
    bool honours_keyframe_requests() const override { return false; }

    struct Counters {
        uint64_t video_frames = 0, video_packets = 0, bframes = 0, bframes_dropped = 0, video_errors = 0;
        uint64_t audio_frames_in = 0, audio_packets = 0, audio_errors = 0, transcoder_starts = 0;
        uint64_t keyframe_requests = 0;
    };
    const Counters& counters() const { return counters_; }
    bool transcoding() const { return transcoder_ != nullptr; }

  private:
    void on_video(const LiveMessage& msg);
    void on_audio(const LiveMessage& msg);
    void on_video_sequence_header(const VideoPacketInfo& info);
    void publish_codecs();
    void send_opus(const uint8_t* data, size_t size, uint32_t timestamp);
    Error start_transcoder();
    // RtpPayloadSink: one video payload of the frame being packetized.
    void on_rtp_payload(const uint8_t* data, size_t size, bool marker) override;
    void store(RtcMediaKind kind, const uint8_t* payload, size_t size, bool marker, uint32_t timestamp,
               bool disposable);

    LiveSource* live_;
    RtcSource* rtc_;
    RtcSourceManager* manager_;
    RtcVhostOptions vhost_;
    RtcServerOptions server_;
    SendFlush flush_;
    Counters counters_;

    // Video.
    VideoCodec video_codec_ = VideoCodec::kUnknown;
    std::string video_fmtp_;
    int nalu_length_size_ = 4;
    bool bframe_logged_ = false;
    bool frame_disposable_ = false;  // the frame being packetized is a B-frame some players skip
    std::unique_ptr<H264Packetizer> h264_;
    std::unique_ptr<H265Packetizer> h265_;
    std::unique_ptr<Av1Packetizer> av1_;
    uint16_t video_seq_ = 0;
    uint32_t frame_ts_ = 0;  // of the frame being packetized
    utime_t now_ = 0;

    // Audio.
    AudioCodec audio_codec_ = AudioCodec::kUnknown;
    std::string aac_config_;
    int mp3_rate_ = 44100, mp3_channels_ = 2;
    std::unique_ptr<AudioTranscoder> transcoder_;
    std::vector<AudioTranscodedFrame> opus_;  // reused
    uint16_t audio_seq_ = 0;
    bool transcoder_failed_ = false;  // create() failed for this config: not retried per frame
};

// Makes LiveToRtcBridges for the sources of vhosts with rtc.rtmp_to_rtc on.
class RtcServer;
class LiveToRtcBridgeFactory : public LiveBridgeFactory {
  public:
    explicit LiveToRtcBridgeFactory(RtcServer* server) : server_(server) {}
    std::unique_ptr<LiveSourceBridge> create_bridge(LiveSource* source) override;

  private:
    RtcServer* server_;
};

}  // namespace srs
