// Limits keyframe requests (PLI/FIR) sent to a publisher: many players may
// ask at once (each joins, each loses a packet) but the publisher needs one
// request per interval; a keyframe answers all of them.
//
// allow() is true for the first request and then at most once per
// min_interval of the given clock; the others are counted as suppressed.
#pragma once

#include <cstdint>

#include "core/clock.hpp"

namespace srs {

class KeyframeRequestLimiter {
  public:
    explicit KeyframeRequestLimiter(utime_t min_interval = kUsPerSecond / 2) : min_interval_(min_interval) {}

    // True if a request may be sent now (and records it as sent).
    bool allow(utime_t now) {
        if (sent_ && now - last_ < min_interval_) {
            ++suppressed_;
            return false;
        }
        sent_ = true;
        last_ = now;
        return true;
    }

    // Forgets the last request: the next one is allowed (a new publisher
    // gets its first request at once). suppressed() is kept.
    void reset() { sent_ = false; }

    uint64_t suppressed() const { return suppressed_; }
    utime_t min_interval() const { return min_interval_; }

  private:
    utime_t min_interval_;
    bool sent_ = false;
    utime_t last_ = 0;
    uint64_t suppressed_ = 0;
};

}  // namespace srs
