// Puts the RTP packets of one received track back in sequence order before a
// depacketizer (rtp_h264's H264Depacketizer) rebuilds frames from them, sans-IO.
//
// The window is [next, next + capacity): next is the sequence number to hand
// out next, and a packet lives in slot (seq & mask). A packet after a gap is
// held while the gap is waited for (a NACK may bring the missing packet back);
// the wait is measured from the arrival of the first packet held after the gap,
// so gaps found together expire together. When it expires, the missing
// numbers are skipped and reported as lost_before of the packet released next.
// A packet beyond the window (a jump of capacity or more) releases everything
// held at once, skipping every gap, and becomes the next packet: a sender that
// restarted its sequence, or a burst the buffer cannot hold, costs no more
// waiting. A packet more than a window behind is dropped as late, but a second
// one right after it with the next number is a sender that restarted its
// sequence backwards: handled as a jump too (reported as 1 lost).
//
// Guarantees: nothing is allocated after construction (capacity slots of
// kRtpReorderMaxPacket bytes, plus one for the packet that arrived beyond the
// window); packets come out in wrap-aware increasing order (RFC 1982: 65535
// then 0), each once; duplicates and packets older than the next one are
// dropped and counted; the clock is only the `now` given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/clock.hpp"

namespace srs {

// The largest packet kept; a larger one is dropped (counted in oversized()).
constexpr size_t kRtpReorderMaxPacket = 1500;

struct RtpReorderPacket {
    uint16_t seq = 0;
    const uint8_t* data = nullptr;
    size_t size = 0;
    int lost_before = 0;  // sequence numbers skipped right before this packet
};

// Puts one track's packets back in sequence order. A missing packet is waited for at most max_wait (NACKs may bring
// it); then (or when the buffer is full) the gap is skipped and reported as lost_before of the next packet.
// Duplicates and packets older than the last released one are dropped (counted). Sequence numbers wrap (RFC 1982).
class RtpReorderBuffer {
  public:
    // capacity is rounded up to a power of two in [2, 32768].
    RtpReorderBuffer(size_t capacity /* power of two, e.g. 512 */, utime_t max_wait);
    void push(uint16_t seq, const uint8_t* data, size_t size, utime_t now);  // copies (packets up to 1500 bytes)
    // The next packet in order that can be released at `now`; out->data is valid until the next push/pop.
    bool pop(utime_t now, RtpReorderPacket* out);
    utime_t next_timeout() const;  // when a waited-for gap expires (-1: none)
    uint64_t duplicates() const;
    uint64_t late() const;
    uint64_t lost() const;

    uint64_t oversized() const { return oversized_; }
    size_t capacity() const { return slots_.size(); }
    size_t buffered() const { return count_; }

  private:
    struct Slot {
        bool used = false;
        uint16_t seq = 0;
        uint16_t size = 0;
        utime_t arrival = 0;
        uint8_t data[kRtpReorderMaxPacket];
    };

    void store(Slot* slot, uint16_t seq, const uint8_t* data, size_t size, utime_t now);
    // Moves next_ to the packet held beyond the window (the ring is empty then) and puts it in the ring.
    void settle_beyond();
    // Skips the missing sequence numbers from next_ up to the first held packet (counted as lost).
    void skip_gap();
    // Sets the deadline of the gap at next_ (if next_ is missing and something is held).
    void arm_deadline();

    std::vector<Slot> slots_;
    uint16_t mask_;
    utime_t max_wait_;

    bool started_ = false;
    uint16_t next_ = 0;         // the sequence number to release next
    size_t count_ = 0;          // packets held in the ring
    bool released_ = false;     // something was released (last_released_ is valid)
    uint16_t last_released_ = 0;
    int lost_pending_ = 0;      // skipped since the last release: the next packet's lost_before
    utime_t deadline_ = -1;     // when the gap at next_ expires (-1: no gap waited for)

    // A packet that arrived beyond the window: everything before it is released
    // without waiting, then it joins the ring.
    bool has_beyond_ = false;
    bool beyond_restart_ = false;  // reached by a restart (behind), not a jump ahead
    Slot beyond_;

    // A packet far behind: if the next push is the number after it, the sender restarted.
    bool restart_pending_ = false;
    uint16_t restart_next_ = 0;

    uint64_t duplicates_ = 0, late_ = 0, lost_ = 0, oversized_ = 0;
};

}  // namespace srs
