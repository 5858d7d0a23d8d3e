// libFuzzer target for kernel/codec/audio_transcoder: hostile frames for each
// decoder. The first byte picks the path (AAC -> Opus, MP3 -> Opus, Opus ->
// AAC) and a timestamp step; the rest is cut into frames, each preceded by a
// one-byte length. Every output frame must be non-empty, carry the encoder's
// frame size, and follow its predecessor's pts unless a discontinuity was
// counted in between. (libavcodec itself is not instrumented: this finds what
// the transcoder does with what the decoders make of hostile input.)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "kernel/codec/audio_transcoder.hpp"

using namespace srs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    AudioTranscoderOptions o;
    switch (data[0] % 3) {
        case 0: o.from = AudioCodec::kAAC; o.from_config = std::string("\x12\x10", 2); break;
        case 1: o.from = AudioCodec::kMP3; break;
        default: o.from = AudioCodec::kOpus; o.to = AudioCodec::kAAC; o.to_sample_rate = 44100; break;
    }
    int64_t step_us = 1000 * (data[0] >> 2);  // 0..63 ms: sometimes continuous, sometimes not
    std::unique_ptr<AudioTranscoder> t;
    Error err = AudioTranscoder::create(o, &t);
    if (err.failed()) abort();

    std::vector<AudioTranscodedFrame> out;
    bool have_prev = false;
    AudioTranscodedFrame prev;
    uint64_t jumps_at_prev = 0;
    int64_t pts_us = 0;
    size_t at = 1;
    while (at < size) {
        size_t n = data[at++];
        if (n > size - at) n = size - at;
        out.clear();
        t->transcode(data + at, n, pts_us, &out).ignore();
        for (const AudioTranscodedFrame& f : out) {
            if (f.data.empty() || f.samples != t->frame_samples()) abort();
            // Continuous unless the output restarted (a discontinuity) since the previous frame.
            if (have_prev && t->discontinuities() == jumps_at_prev && f.pts != prev.pts + prev.samples) abort();
            have_prev = true;
            prev.pts = f.pts;
            prev.samples = f.samples;
            jumps_at_prev = t->discontinuities();
        }
        at += n;
        pts_us += step_us;
    }
    return 0;
}
