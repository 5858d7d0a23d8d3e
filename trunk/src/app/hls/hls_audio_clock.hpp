// hls_dts_directly off: audio DTS counted from samples instead of taken from
// the stream's timestamps. RTMP carries ms timestamps, so AAC frames of 1024
// samples at 44.1 kHz (23.22 ms) arrive stamped 23, 23, 24, ...; players that
// read audio DTS literally see that rounding as jitter. Counting samples from
// a base gives exact frame spacing. The count restarts from the stream's
// timestamp when the two disagree by more than two frames (a timestamp jump,
// a gap in the audio, a publisher whose clock drifts), so the counted clock
// never wanders away from the video it plays with.
#pragma once

#include <cstddef>
#include <cstdint>

namespace srs {

class HlsAudioClock {
  public:
    // From an FLV AAC sequence header body (SoundFormat 10, AACPacketType 0):
    // the sample rate and samples per frame. Other bodies leave it off.
    void on_sequence_header(const uint8_t* body, size_t n);
    // Whether frames are counted (an AAC config was seen).
    bool counting() const { return rate_ > 0; }
    // The DTS (ms) of the next frame, stamped timestamp_ms by the stream.
    // Without an AAC config the timestamp is returned as it is.
    int64_t next(int64_t timestamp_ms);

  private:
    int rate_ = 0;               // output sample rate
    int frame_samples_ = 1024;   // 2048 for HE-AAC (SBR doubles the output)
    bool started_ = false;
    int64_t base_ms_ = 0;
    int64_t samples_ = 0;        // since base_ms_
};

}  // namespace srs
