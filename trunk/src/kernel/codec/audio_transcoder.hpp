// The audio transcoder of the RTMP <-> WebRTC bridge: AAC or MP3 -> Opus for
// WebRTC players, Opus -> AAC for RTMP players, with libavcodec and
// libswresample (FFmpeg 5.1).
//
// Pipeline: decode one input frame -> resample to the output rate, layout and
// sample format -> a sample FIFO -> encode exactly the encoder's frame size
// (960 samples of 48 kHz Opus = 20 ms; 1024 for AAC) per output frame.
//
// Guarantees:
// - Plain computation: no sockets, no clock, no logging. Time is the caller's
//   input timestamp.
// - Output timestamps are continuous across input frame boundaries: the first
//   output pts is the first input's timestamp (in output samples), each next
//   frame follows its predecessor by its sample count. An input timestamp more
//   than 200 ms away from the expected one (a gap, a publisher restart) drops
//   the buffered samples and restarts the output timeline from that input
//   (counted in discontinuities()). Jitter below that is absorbed.
// - A frame the decoder rejects returns an error for that frame only
//   (counted in decode_errors()); the transcoder stays usable.
// - The AVFrames, AVPacket, sample buffer and FIFO are allocated once (they
//   grow to the largest frame seen) and reused; every libav object is freed
//   by the destructor.
// - The encoders prime their output: libopus with its lookahead (312 samples
//   at 48 kHz), the aac encoder with 1024 samples (and its first packet comes
//   one frame late). The timestamps above do not subtract it (they would go
//   below the first input's); delay_samples() says how much it is, for a
//   caller aligning audio with video.
// libavcodec may print to its own log (av_log) on corrupt input; routing or
// silencing that (av_log_set_callback) is the application's choice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/codec/media_codec.hpp"

struct AVCodecContext;
struct AVFrame;
struct AVPacket;
struct AVAudioFifo;
struct SwrContext;

namespace srs {

struct AudioTranscoderOptions {
    AudioCodec from = AudioCodec::kAAC;  // kAAC, kMP3 or kOpus
    std::string from_config;             // AAC: the AudioSpecificConfig (FLV sequence header body after its 2 bytes)
    int from_sample_rate = 0;            // MP3/Opus: a hint (Opus: 48000); AAC: from the config
    int from_channels = 0;               // MP3/Opus: a hint (Opus: 2)
    AudioCodec to = AudioCodec::kOpus;   // kOpus (48 kHz, 20 ms frames) or kAAC (LC, 1024-sample frames)
    int to_sample_rate = 48000;          // Opus: always 48000; AAC: a rate the aac encoder takes (44100, 48000, ...)
    int to_channels = 2;                 // 1 or 2
    int bitrate = 48000;                 // bits per second
};

struct AudioTranscodedFrame {
    std::string data;  // one Opus packet / one raw AAC frame (no ADTS)
    int64_t pts = 0;   // in samples of to_sample_rate
    int samples = 0;   // 960 for Opus at 48 kHz, 1024 for AAC
};

class AudioTranscoder {
  public:
    // Input timestamps further than this from the expected one restart the output timeline.
    static constexpr int64_t kMaxJitterUs = 200 * 1000;

    // Opens the decoder and the encoder; the resampler is set up at the first
    // decoded frame (the decoder says the real rate and layout then: HE-AAC, MP3).
    static Error create(const AudioTranscoderOptions& options, std::unique_ptr<AudioTranscoder>* out);
    ~AudioTranscoder();
    AudioTranscoder(const AudioTranscoder&) = delete;
    AudioTranscoder& operator=(const AudioTranscoder&) = delete;

    // One input frame (raw AAC frame, MP3 frame, Opus packet) with its
    // timestamp in microseconds. Appends the complete output frames now
    // available to *out (0..n).
    Error transcode(const uint8_t* data, size_t size, int64_t pts_us, std::vector<AudioTranscodedFrame>* out);

    // The output's decoder config: for AAC the AudioSpecificConfig (2 bytes
    // for LC) the FLV sequence header carries; for Opus empty.
    const std::string& output_config() const;
    uint64_t discontinuities() const;
    uint64_t decode_errors() const;

    // Samples per output frame (960 or 1024) and the output rate.
    int frame_samples() const;
    int output_sample_rate() const;
    // How far the audio in an output frame lags its pts, in output samples
    // (the encoder's priming: its initial_padding).
    int64_t delay_samples() const;

  private:
    AudioTranscoder() = default;
    Error open_decoder();
    Error open_encoder();
    Error configure_resampler(const AVFrame* frame);
    Error push_decoded(const AVFrame* frame);
    Error encode_ready(std::vector<AudioTranscodedFrame>* out);
    Error drain_packets(std::vector<AudioTranscodedFrame>* out);
    void restart(int64_t pts_us);

    AudioTranscoderOptions options_;
    AVCodecContext* decoder_ = nullptr;
    AVCodecContext* encoder_ = nullptr;
    SwrContext* resampler_ = nullptr;
    AVAudioFifo* fifo_ = nullptr;
    AVFrame* decoded_ = nullptr;   // the decoder's output, reused
    AVFrame* to_encode_ = nullptr; // frame_samples() samples in the encoder's format, reused
    AVPacket* packet_ = nullptr;   // in: the input frame; out: the encoder's packets
    std::vector<uint8_t> input_;   // the input frame plus libavcodec's padding

    // The resampler's input as last configured (it is rebuilt when a decoded frame differs).
    int resample_in_format_ = -1;
    int resample_in_rate_ = 0;
    uint64_t resample_in_layout_ = 0;  // channel mask, or the count for an unspecified layout
    int resample_in_channels_ = 0;
    // Resampled samples before they enter the FIFO (grows to the largest frame).
    uint8_t** converted_ = nullptr;
    int converted_capacity_ = 0;

    std::string output_config_;
    int frame_samples_ = 0;
    int out_rate_ = 0;

    // Input timeline: where the next input frame is expected.
    bool started_ = false;
    int64_t in_base_us_ = 0;        // timestamp of the input that started this timeline
    int64_t in_samples_ = 0;        // decoded samples since then, at in_rate_
    int in_rate_ = 0;
    // Output timeline.
    int64_t next_out_pts_ = 0;      // pts of the next output frame
    int64_t encoder_pts_ = 0;       // monotonic pts handed to the encoder (its own time base)

    uint64_t discontinuities_ = 0;
    uint64_t decode_errors_ = 0;
};

}  // namespace srs
