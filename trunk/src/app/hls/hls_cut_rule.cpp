#include "app/hls/hls_cut_rule.hpp"

namespace srs {

bool hls_video_cut_due(const HlsCutOptions& o, int64_t duration_ms, bool keyframe) {
    if (duration_ms < kHlsMinCutMs) return false;
    if (duration_ms < static_cast<int64_t>(o.fragment_s * o.td_ratio * 1000) + o.slack_ms) return false;
    return keyframe || !o.wait_keyframe;
}

bool hls_audio_cut_due(const HlsCutOptions& o, int64_t duration_ms) {
    if (duration_ms < kHlsMinCutMs) return false;
    return duration_ms >= static_cast<int64_t>(o.fragment_s * o.aof_ratio * 1000) + o.slack_ms;
}

bool HlsCodecTracker::on_sequence_header(bool video, const uint8_t* data, size_t n) {
    std::string& last = video ? video_ : audio_;
    std::string now(reinterpret_cast<const char*>(data), n);
    bool changed = !last.empty() && last != now;
    last = std::move(now);
    return changed;
}

}  // namespace srs
