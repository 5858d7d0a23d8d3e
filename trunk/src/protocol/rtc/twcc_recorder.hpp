// Transport-wide congestion control feedback on the receiving side
// (draft-holmer-rmcat-transport-wide-cc-extensions-01), sans-IO.
//
// Every received packet that carries the transport-wide sequence number
// header extension goes to on_packet() with its arrival time. build() turns
// what arrived since the last feedback into RTPFB transport-cc packets
// (rtcp_build_twcc); the sender's bandwidth estimator reads the arrival
// times and the gaps (reported as not received) from them.
//
// Guarantees:
// - Each packet built covers increasing sequence numbers (placed wrap-aware
//   next to the highest seen, so 65535 then 0 is a step of one) and is split
//   where a receive delta does not fit 16 bits (over ~8 s between two
//   arrivals), where the span would pass max_span sequence numbers, and
//   before a packet passes max_size bytes.
// - No loss goes unreported at a packet boundary: rtcp_build_twcc starts a
//   packet with a received packet, so each packet (within one build and
//   across builds) starts with the last arrival the previous one reported,
//   then the numbers lost after it. That arrival is thus reported twice, with
//   the same time (a sender ignores a second report of a received packet).
//   Only where that arrival cannot open the packet (the time or span split
//   above) the numbers in between are not reported.
// - A packet whose number is not newer than what the last feedback covered is
//   dropped (stats().late): its number was already reported, as lost. One
//   more than kTwccRestartBehind behind the highest restarts the numbering.
//   A second arrival of a waiting number keeps the first (stats().duplicates).
// - Memory is bounded: at most max_pending arrivals wait; past that the
//   oldest are dropped (stats().overflow) and count as reported.
// - feedback_due(): something waits and either the oldest waiting arrival
//   is interval old or max_packets wait.
// - The feedback packet count increments per packet built (modulo 256).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/error.hpp"

namespace srs {

// A packet this far behind the highest number seen is taken as a restart of
// the numbering, not as a late packet (else everything would be dropped as
// late until the new numbers caught up).
constexpr int64_t kTwccRestartBehind = 0x4000;

struct TwccOptions {
    utime_t interval = 50 * 1000;  // feedback due once the oldest waiting arrival is this old
    size_t max_packets = 100;      // or once this many arrivals wait
    size_t max_pending = 4096;     // arrivals kept; the oldest are dropped past it
    size_t max_span = 0xffff;      // sequence numbers one feedback packet covers (at most 65535)
    size_t max_size = 1200;        // bytes of one feedback packet (one arrival always fits)
};

class TwccRecorder {
  public:
    explicit TwccRecorder(TwccOptions o = TwccOptions());

    void on_packet(uint16_t transport_seq, utime_t arrival);
    // Feedback due: 50 ms since the last or 100 packets waiting (make both options).
    bool feedback_due(utime_t now) const;
    // Appends one or more RTPFB transport-cc packets covering what arrived since the last feedback (split when a
    // delta does not fit, when the span is too long, or past ~ 1200 bytes); increments the feedback count; a packet
    // older than the last reported base is dropped (counted). Nothing appended when nothing arrived.
    // What waited is consumed even on an error (kErrorRtcpBuild, which the splitting should make impossible).
    Error build(uint32_t sender_ssrc, uint32_t media_ssrc, std::string* out);
    size_t pending() const;

    struct Stats {
        uint64_t received = 0;    // arrivals kept
        uint64_t late = 0;        // dropped: not newer than the last feedback
        uint64_t duplicates = 0;  // dropped: already waiting
        uint64_t overflow = 0;    // dropped: past max_pending
        uint64_t feedbacks = 0;   // packets built
        uint64_t restarts = 0;    // numbering restarts (a packet kTwccRestartBehind behind the highest)
    };
    const Stats& stats() const { return stats_; }
    uint8_t feedback_count() const { return fb_count_; }

  private:
    struct Entry {
        int64_t seq = 0;  // unwrapped
        utime_t arrival = 0;
    };
    // Whether all[j] may join a packet that starts at all[first] and holds
    // all[j - 1]: its delta fits 16 bits and the span max_span.
    bool can_follow(const std::vector<Entry>& all, size_t first, size_t j) const;

    TwccOptions opt_;
    bool started_ = false;
    int64_t highest_ = 0;                // unwrapped highest seq seen
    bool reported_ = false;              // whether next_base_ is set
    int64_t next_base_ = 0;              // the first seq the next feedback may cover
    std::map<int64_t, utime_t> pending_;  // unwrapped seq -> arrival
    bool has_anchor_ = false;
    Entry anchor_;                       // the last arrival reported
    utime_t oldest_arrival_ = 0;         // of what waits
    uint8_t fb_count_ = 0;
    Stats stats_;
};

}  // namespace srs
