// Which sequence numbers of a received RTP stream (a publisher's track) to
// ask again with a generic NACK (RFC 4585 section 6.2.1), sans-IO.
//
// Every received packet goes to on_packet(); a packet newer than the highest
// seen marks the numbers skipped as missing. collect() hands out the missing
// numbers due for a NACK now: never asked, or last asked at least
// max(rtt, min_interval) ago. A number is given up after max_retries NACKs
// (once the last one had its interval to be answered) or when missing for
// longer than max_age. A forward jump leaving more than max_missing numbers
// missing, or a packet more than reset_behind numbers older than the highest
// (the sender restarted its sequence), forgets every missing number and
// restarts from that packet. Losses given up and resets raise a flag the
// owner reads with take_keyframe_needed() to ask for a keyframe (PLI).
//
// Guarantees: at most max_missing numbers are tracked (the oldest are given
// up first); collect() output is in wrap-aware increasing order (what
// rtcp_build_nack packs best); the clock is only the `now` given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "core/clock.hpp"

namespace srs {

struct NackOptions {
    int max_retries = 10;               // NACKs per missing seq before giving up
    utime_t min_interval = 20 * 1000;   // between NACKs of one seq: max(rtt, min_interval)
    utime_t max_age = 1000 * 1000;      // give up on a seq missing for longer
    size_t max_missing = 1000;          // a jump leaving more missing: forget them all, keyframe_needed()
    size_t reset_behind = 3000;         // a packet this far behind the highest restarts the sequence
    size_t max_per_collect = 256;       // seqs one collect() hands out (the oldest first): a NACK of
                                        // 256 scattered seqs is 1036 bytes, within one datagram
};

class NackGenerator {
  public:
    explicit NackGenerator(NackOptions o = NackOptions());

    // Every received packet (retransmissions too). Returns true if it filled a gap (a recovered packet).
    bool on_packet(uint16_t seq, utime_t now);
    // Appends the seqs to NACK now (wrap-aware increasing order); marks them asked.
    // Gives up (and drops) the seqs past max_retries or max_age. At most
    // max_per_collect are handed out; the others stay due for the next call.
    void collect(utime_t now, std::vector<uint16_t>* out);
    void set_rtt(utime_t rtt);
    // True once after losses were given up / a reset: the owner asks the publisher for a keyframe (PLI).
    bool take_keyframe_needed();
    size_t missing() const;

    struct Stats {
        uint64_t nacked = 0;     // seqs put in a NACK (each retry counts)
        uint64_t recovered = 0;  // missing seqs that arrived later
        uint64_t given_up = 0;   // missing seqs dropped: retries, age, too many, reset
        uint64_t resets = 0;     // jumps that restarted the tracking
    };
    const Stats& stats() const;

  private:
    struct Missing {
        utime_t since = 0;       // when the gap was seen
        utime_t last_nack = 0;   // valid when retries > 0
        int retries = 0;
    };

    void reset_to(int64_t ext);
    void give_up_oldest_over_limit();

    NackOptions opt_;
    utime_t rtt_ = 0;
    bool started_ = false;
    int64_t highest_ = 0;                 // unwrapped highest seq seen
    std::map<int64_t, Missing> missing_;  // by unwrapped seq
    bool keyframe_needed_ = false;
    Stats stats_;
};

}  // namespace srs
