// How much of a receiver's generic NACK (RFC 4585 6.2.1) a sender answers,
// sans-IO: the sender keeps the packets (a ring), this decides which asks
// get a retransmission so a NACK storm costs a bounded amount.
//
// answer() walks the lost list in order: it stops after max_per_nack numbers
// (answered or not), refuses every number once max_per_second
// retransmissions were made in the current one-second window (a window
// starts at the first answer() at least a second after the last window's
// start; the first window starts at time 0), and calls resend(seq) for the
// others; resend returns whether it sent the packet (false: no longer kept),
// and only those count against the budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/clock.hpp"

namespace srs {

struct NackResponderOptions {
    size_t max_per_nack = 64;         // numbers looked at per NACK packet
    uint32_t max_per_second = 1000;   // retransmissions per window
};

class NackResponder {
  public:
    explicit NackResponder(NackResponderOptions o = NackResponderOptions()) : opt_(o) {}

    template <class Resend>
    void answer(const std::vector<uint16_t>& lost, utime_t now, Resend&& resend) {
        if (now - window_start_ >= kUsPerSecond) {
            window_start_ = now;
            in_window_ = 0;
        }
        size_t looked = 0;
        for (uint16_t seq : lost) {
            if (looked++ >= opt_.max_per_nack) break;
            if (in_window_ >= opt_.max_per_second) {
                ++stats_.refused;
                continue;
            }
            if (!resend(seq)) {
                ++stats_.not_kept;
                continue;
            }
            ++stats_.retransmits;
            ++in_window_;
        }
    }

    struct Stats {
        uint64_t retransmits = 0;  // resend() calls that sent
        uint64_t refused = 0;      // over the per-second budget
        uint64_t not_kept = 0;     // resend() had nothing to send
    };
    const Stats& stats() const { return stats_; }

  private:
    NackResponderOptions opt_;
    utime_t window_start_ = 0;
    uint32_t in_window_ = 0;
    Stats stats_;
};

}  // namespace srs
