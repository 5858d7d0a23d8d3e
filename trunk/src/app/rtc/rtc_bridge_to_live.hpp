// WebRTC in, RTMP/HTTP-FLV out (vhost rtc { rtc_to_rtmp on; }).
//
// Owned by a publishing session: its RTP, put back in order by a reorder
// buffer that waits a bounded time for NACKed packets, becomes FLV messages
// on the stream's LiveSource, so RTMP and HTTP-FLV players, the GOP cache,
// the API and the load tools see an ordinary live stream. H.264 frames are
// rebuilt as AVCC (a new sequence header when SPS/PPS change); Opus becomes
// AAC. Both tracks are put on one timeline from the publisher's RTCP sender
// reports (NTP <-> RTP), so RTMP players get audio and video in sync; a
// publisher that sends no SR within a few seconds is timed by arrival.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/rtc/rtc_source.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "kernel/codec/audio_transcoder.hpp"
#include "kernel/rtp/rtp.hpp"
#include "kernel/rtp/rtp_h264.hpp"
#include "protocol/rtc/rtp_reorder.hpp"

namespace srs {

class LiveSource;

struct RtcToLiveOptions {
    int aac_bitrate = 48000;
    utime_t pli_interval = 6 * kUsPerSecond;  // 0: none
    utime_t video_wait = 150 * kUsPerMs;      // how long a missing video packet is waited for
    utime_t audio_wait = 60 * kUsPerMs;
    utime_t sr_wait = 3 * kUsPerSecond;       // then time by arrival
};

class RtcToLiveBridge {
  public:
    RtcToLiveBridge(std::string cid, LiveSource* live, const RtcTrackCodec& audio, const RtcTrackCodec& video,
                    const RtcToLiveOptions& options);
    ~RtcToLiveBridge();

    // A publisher packet (SRTP removed), after the session's own checks.
    void on_rtp(RtcMediaKind kind, const uint8_t* data, size_t size, const RtpHeader& h, utime_t now);
    // An RTCP sender report of the track.
    void on_sender_report(RtcMediaKind kind, uint64_t ntp, uint32_t rtp_timestamp, utime_t now);
    // Releases packets whose wait is over; asks for keyframes (take_keyframe_wanted).
    void on_timer(utime_t now);
    // Whether a PLI should go to the publisher (periodic, or the depacketizer lost a frame).
    bool take_keyframe_wanted();

    struct Counters {
        uint64_t video_frames = 0, video_dropped = 0, audio_frames = 0, audio_errors = 0, sequence_headers = 0;
        uint64_t video_lost = 0;  // frames the depacketizer dropped (holes, waiting for a keyframe)
        uint64_t waiting_sr_dropped = 0, pli = 0;
    };
    const Counters& counters() const { return counters_; }

  private:
    struct Track {
        bool present = false;
        uint32_t clock_rate = 0;
        std::unique_ptr<RtpReorderBuffer> reorder;
        bool has_sr = false;
        int64_t sr_ntp_us = 0;   // the latest SR: NTP time in microseconds
        uint32_t sr_rtp = 0;     //  and the RTP timestamp it names
        bool has_first = false;  // arrival timing: the first packet's timestamp and arrival
        uint32_t first_rtp = 0;
        utime_t first_at = 0;
    };
    Track& track(RtcMediaKind k) { return k == RtcMediaKind::kAudio ? audio_ : video_; }
    const Track& track(RtcMediaKind k) const { return k == RtcMediaKind::kAudio ? audio_ : video_; }
    void drain(RtcMediaKind kind, utime_t now);
    void on_video_packet(const uint8_t* data, size_t size, int lost_before);
    void on_audio_packet(const uint8_t* data, size_t size);
    void emit_video(const H264Frame& frame);
    void want_keyframe();
    bool ready() const;  // every present track can be timed
    // Milliseconds on the output timeline for an RTP timestamp of the track
    // (the first call sets its origin), or false while it cannot be timed yet.
    bool timeline_ms(RtcMediaKind kind, uint32_t rtp_timestamp, int64_t* ms);

    std::string cid_;
    LiveSource* live_;
    RtcToLiveOptions options_;
    Counters counters_;
    Track audio_, video_;
    bool video_h264_ = false;
    bool audio_opus_ = false;
    bool arrival_timing_ = false;  // no SR came in time
    utime_t started_at_ = -1;
    bool has_base_ = false;
    int64_t base_us_ = 0;
    utime_t next_pli_ = 0;
    utime_t now_ = 0;
    utime_t last_loss_pli_ = -1;
    bool keyframe_wanted_ = true;  // the first frame RTMP players need is a keyframe
    H264Depacketizer depacketizer_;
    H264Frame frame_;  // reused
    std::string sps_, pps_;
    bool sent_sequence_header_ = false;
    std::unique_ptr<AudioTranscoder> transcoder_;
    bool transcoder_failed_ = false;
    bool sent_audio_header_ = false;
    std::vector<AudioTranscodedFrame> aac_;  // reused
};

}  // namespace srs
