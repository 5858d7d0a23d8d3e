// After an edge joins an upstream (the first or the next origin, or the
// origin's publisher came back), video waits for a keyframe: inter frames
// before it refer to pictures the players never got. Sequence headers always
// pass (they are what the next keyframe needs). Audio is not gated.
#pragma once

#include <cstddef>
#include <cstdint>

namespace srs {

class EdgeKeyframeGate {
  public:
    // A new upstream: close until its first keyframe.
    void reset() { open_ = false; }
    // Whether this RTMP video payload passes; an undecodable one does not.
    bool pass_video(const uint8_t* data, size_t size);
    bool open() const { return open_; }
    uint64_t dropped() const { return dropped_; }

  private:
    bool open_ = false;
    uint64_t dropped_ = 0;
};

}  // namespace srs
