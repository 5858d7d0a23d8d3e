// Bit rate over the last 30 seconds from a byte counter sampled now and
// then (the server samples every 5 s): (bytes now - bytes 30 s ago) / time.
#pragma once

#include <cstdint>

#include "core/clock.hpp"

namespace srs {

class Kbps30s {
  public:
    void sample(utime_t now_us, uint64_t total_bytes) {
        if (count_ == kSlots) {
            // Drop the oldest.
            for (int i = 1; i < kSlots; i++) slots_[i - 1] = slots_[i];
            count_--;
        }
        slots_[count_++] = {now_us, total_bytes};
    }
    int kbps() const {
        if (count_ < 2) return 0;
        const Slot& a = slots_[0];
        const Slot& b = slots_[count_ - 1];
        if (b.us <= a.us || b.bytes < a.bytes) return 0;
        return static_cast<int>((b.bytes - a.bytes) * 8 * 1000 / static_cast<uint64_t>(b.us - a.us));
    }

  private:
    struct Slot {
        utime_t us;
        uint64_t bytes;
    };
    static const int kSlots = 7;  // 30 s at one sample every 5 s, plus the newest
    Slot slots_[kSlots];
    int count_ = 0;
};

}  // namespace srs
