// What a receiver report block (RFC 3550 section 6.4.1) says about one
// received SSRC, sans-IO.
//
// - Sequence tracking as RFC 3550 A.1: a step forward of less than
//   kRtpMaxDropout is in order (a wrap adds 65536 to the cycles); a step back
//   of at most kRtpMaxMisorder is a late or duplicate packet (counted as
//   received); anything else is ignored unless the next packet follows it,
//   which restarts the counts there (the sender restarted its sequence).
// - Loss as A.3: expected = extended highest - base + 1, cumulative lost =
//   expected - received (clamped to 24-bit signed), fraction lost = the lost
//   share since the previous report, in 1/256, 0 when packets came in
//   excess.
// - Interarrival jitter as A.8, in timestamp units: J += (|D| - J) / 16,
//   D being the change of transit time (arrival in clock_rate units minus the
//   RTP timestamp). Only packets that advance the highest sequence update it,
//   so a retransmission does not count its extra round trip as jitter.
// - LSR: the middle 32 bits of the last SR's NTP time; DLSR: the time since
//   then in 1/65536 s. Both 0 before an SR.
#pragma once

#include <cstdint>

#include "core/clock.hpp"
#include "kernel/rtp/rtcp.hpp"

namespace srs {

constexpr uint32_t kRtpMaxDropout = 3000;
constexpr uint32_t kRtpMaxMisorder = 100;

class RtpReceiveStats {
  public:
    RtpReceiveStats(uint32_t ssrc, uint32_t clock_rate);

    void on_packet(uint16_t seq, uint32_t rtp_timestamp, utime_t arrival);
    void on_sender_report(uint64_t ntp, utime_t now);  // for LSR/DLSR
    RtcpReportBlock report(utime_t now);               // fraction lost since the previous report

    uint32_t ssrc() const;
    uint64_t packets() const;  // received, duplicates included (as A.3 counts)
    uint32_t extended_highest() const;
    double jitter() const;  // timestamp units, unrounded

  private:
    void restart(uint16_t seq);

    uint32_t ssrc_;
    uint32_t clock_rate_;
    bool started_ = false;
    uint16_t max_seq_ = 0;
    uint32_t cycles_ = 0;  // count of wraps << 16
    uint32_t base_seq_ = 0;
    uint32_t bad_seq_ = 0x10000;  // none (out of the 16-bit range)
    uint64_t received_ = 0;
    uint64_t packets_ = 0;  // every packet since the first, for packets()
    int64_t expected_prior_ = 0;
    uint64_t received_prior_ = 0;

    bool has_transit_ = false;
    int64_t last_arrival_units_ = 0;
    uint32_t last_timestamp_ = 0;
    double jitter_ = 0;

    uint32_t lsr_ = 0;
    utime_t lsr_at_ = 0;
};

}  // namespace srs
