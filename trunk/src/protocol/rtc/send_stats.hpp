// What a sender report (RFC 3550 section 6.4.1) says about one sent SSRC,
// and the round-trip time the peer's report blocks about it give, sans-IO.
//
// - build_sr(): NTP time from the wall clock; the RTP timestamp of the same
//   instant, extrapolated from the last packet sent by the clock rate and the
//   monotonic time elapsed (so the receiver can map RTP time to NTP time for
//   lip sync); packet and octet counts (payload only, modulo 2^32).
// - on_report_block(): RTT = A - LSR - DLSR in 1/65536 s (A: the middle 32
//   bits of the NTP time now), when LSR is not 0 and the result is not
//   negative (a peer's clock step). rtt() is the latest sample, at least 1 us.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/clock.hpp"
#include "kernel/rtp/rtcp.hpp"

namespace srs {

// Seconds from 1900-01-01 (NTP era 0) to 1970-01-01 (Unix epoch).
constexpr uint64_t kNtpUnixOffset = 2208988800ULL;

uint64_t ntp_from_unix_us(int64_t unix_us);  // NTP 64-bit (seconds since 1900 << 32 | fraction)
uint32_t ntp_middle32(uint64_t ntp);

class RtpSendStats {
  public:
    RtpSendStats(uint32_t ssrc, uint32_t clock_rate);

    void on_packet(uint32_t rtp_timestamp, size_t payload_bytes, utime_t now);
    // false before any packet. The RTP timestamp is extrapolated from the last packet by the clock rate;
    // wall_us is the wall clock (for NTP), now the monotonic clock the packets were stamped with.
    // Sets the sender fields of *out; out->reports is left as it is.
    bool build_sr(int64_t wall_us, utime_t now, RtcpSenderReport* out) const;
    // An RR block about this SSRC: RTT = now(middle 32 NTP) - LSR - DLSR when LSR != 0.
    // Blocks about another SSRC are ignored.
    void on_report_block(const RtcpReportBlock& b, int64_t wall_us);
    utime_t rtt() const;  // 0 until known

    uint32_t ssrc() const { return ssrc_; }
    uint64_t packets() const;
    uint64_t octets() const;
    // The last block's loss figures (0 until a block came).
    uint8_t fraction_lost() const { return fraction_lost_; }
    int32_t cumulative_lost() const { return cumulative_lost_; }

  private:
    uint32_t ssrc_;
    uint32_t clock_rate_;
    uint64_t packets_ = 0;
    uint64_t octets_ = 0;
    uint32_t last_timestamp_ = 0;
    utime_t last_at_ = 0;
    utime_t rtt_ = 0;
    uint8_t fraction_lost_ = 0;
    int32_t cumulative_lost_ = 0;
};

}  // namespace srs
