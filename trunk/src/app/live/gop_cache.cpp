#include "app/live/gop_cache.hpp"

namespace srs {

// Audio-only streams: about 4 seconds of AAC at 44.1 kHz.
static const size_t kMaxPureAudioMessages = 200;

void GopCache::set_enabled(bool enabled) {
    enabled_ = enabled;
    if (!enabled_) clear();
}

void GopCache::clear() {
    messages_.clear();
    video_frames_ = 0;
}

void GopCache::append(const LiveMessagePtr& msg) {
    if (!enabled_) return;
    if (msg->is_video()) {
        has_video_ = true;
        if (msg->is_keyframe()) {
            clear();
        } else if (messages_.empty()) {
            return;  // a GOP starts at a keyframe
        }
        video_frames_++;
        if (video_frames_ > max_frames_) {
            // A GOP this long would make joining players wait on a huge burst;
            // drop it and start again at the next keyframe.
            clear();
            return;
        }
    } else if (has_video_ && messages_.empty()) {
        return;  // audio before the first keyframe is of no use to a joiner
    }
    messages_.push_back(msg);
    if (!has_video_ && messages_.size() > kMaxPureAudioMessages) {
        messages_.erase(messages_.begin(), messages_.begin() + (messages_.size() - kMaxPureAudioMessages));
    }
}

}  // namespace srs
