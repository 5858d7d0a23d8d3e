#include "app/hls/hls_audio_clock.hpp"

#include <algorithm>
#include <cstdlib>

#include "kernel/codec/media_codec.hpp"

namespace srs {

void HlsAudioClock::on_sequence_header(const uint8_t* body, size_t n) {
    rate_ = 0;
    started_ = false;
    if (n < 3 || (body[0] >> 4) != 10 || body[1] != 0) return;  // not an AAC sequence header
    AudioCodecConfig config;
    Error err = parse_aac_sequence_header(body + 2, n - 2, &config);
    if (!err.ok() || config.sample_rate <= 0) {
        err.ignore();
        return;
    }
    rate_ = config.sample_rate;
    // SBR (5) and PS (29) decode to twice the core's samples per frame at
    // the output rate the config reports.
    frame_samples_ = (config.object_type == 5 || config.object_type == 29) ? 2048 : 1024;
}

int64_t HlsAudioClock::next(int64_t timestamp_ms) {
    if (rate_ <= 0) return timestamp_ms;
    const int64_t counted = base_ms_ + samples_ * 1000 / rate_;
    const int64_t frame_ms = std::max<int64_t>(1, int64_t(frame_samples_) * 1000 / rate_);
    if (!started_ || std::llabs(counted - timestamp_ms) > 2 * frame_ms) {
        started_ = true;
        base_ms_ = timestamp_ms;
        samples_ = frame_samples_;
        return timestamp_ms;
    }
    samples_ += frame_samples_;
    return counted;
}

}  // namespace srs
