// When an HLS segment ends, and when the next one starts after a codec
// change: SRS's rules as pure functions of durations and frame kinds.
//
// - A video frame cuts once the segment is hls_fragment x hls_td_ratio long,
//   and, with hls_wait_keyframe, only at a keyframe (the keyframe opens the
//   next segment).
// - An audio frame cuts once the segment is hls_fragment x hls_aof_ratio long
//   ("absolutely overflow"): what cuts an audio-only stream, and a video
//   stream whose keyframes stopped.
// - Nothing cuts a segment shorter than 200 ms.
//
// Unlike SRS (#3191), the duration compared is up to the frame that would
// open the next segment, so a 2 s GOP with hls_fragment 2 gives 2 s segments,
// not 4 s ones.
#pragma once

#include <cstdint>
#include <string>

namespace srs {

constexpr int64_t kHlsMinSegmentMs = 100;   // shorter segments are dropped (SRS's bound)
constexpr int64_t kHlsMinCutMs = 200;       // no cut before this

struct HlsCutOptions {
    double fragment_s = 10;
    double td_ratio = 1.0;
    double aof_ratio = 2.1;
    bool wait_keyframe = true;
    int64_t slack_ms = 0;  // added to both cut lengths (hls_ts_floor's steering, hls_ts_floor.hpp)
};

// duration_ms: from the segment's first frame to the frame at hand.
bool hls_video_cut_due(const HlsCutOptions& o, int64_t duration_ms, bool keyframe);
bool hls_audio_cut_due(const HlsCutOptions& o, int64_t duration_ms);

// Whether a closed segment goes into the playlist (else it is dropped and
// its sequence number used again).
inline bool hls_segment_kept(int64_t duration_ms) { return duration_ms >= kHlsMinSegmentMs; }

// The last sequence header of each track. A header that differs from the
// one before it is a codec change (a discontinuity); the same bytes again
// (an encoder, or our WebRTC->RTMP bridge, repeating it at each IDR: SRS
// #4695) are not.
class HlsCodecTracker {
  public:
    // Returns true when this header changes a config the stream already had.
    bool on_sequence_header(bool video, const uint8_t* data, size_t n);
    bool has_video() const { return !video_.empty(); }
    bool has_audio() const { return !audio_.empty(); }

  private:
    std::string video_;
    std::string audio_;
};

}  // namespace srs
