// The GOP cache: the messages since the last video keyframe, so a player that
// joins starts decoding at once instead of waiting for the next keyframe.
#pragma once

#include <vector>

#include "app/live/live_message.hpp"

namespace srs {

class GopCache {
  public:
    void set_enabled(bool enabled);
    void set_max_frames(int max_frames) { max_frames_ = max_frames; }
    bool enabled() const { return enabled_; }
    // Appends an audio or video message (not sequence headers: the source
    // keeps those apart). A keyframe starts a new GOP.
    void append(const LiveMessagePtr& msg);
    void clear();
    const std::vector<LiveMessagePtr>& messages() const { return messages_; }
    bool empty() const { return messages_.empty(); }

  private:
    bool enabled_ = true;
    int max_frames_ = 2500;
    int video_frames_ = 0;
    // No video seen yet: an audio-only stream caches a bounded run of audio.
    bool has_video_ = false;
    std::vector<LiveMessagePtr> messages_;
};

}  // namespace srs
