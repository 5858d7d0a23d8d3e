#include "protocol/rtc/send_stats.hpp"

namespace srs {

uint64_t ntp_from_unix_us(int64_t unix_us) {
    // Floor division, so a time before 1970 still gets a fraction in [0, 1).
    int64_t sec = unix_us / kUsPerSecond;
    int64_t us = unix_us % kUsPerSecond;
    if (us < 0) {
        us += kUsPerSecond;
        sec -= 1;
    }
    uint64_t ntp_sec = static_cast<uint64_t>(sec) + kNtpUnixOffset;
    uint64_t frac = (static_cast<uint64_t>(us) << 32) / kUsPerSecond;
    return ntp_sec << 32 | frac;
}

uint32_t ntp_middle32(uint64_t ntp) { return static_cast<uint32_t>(ntp >> 16); }

RtpSendStats::RtpSendStats(uint32_t ssrc, uint32_t clock_rate) : ssrc_(ssrc), clock_rate_(clock_rate) {}

void RtpSendStats::on_packet(uint32_t rtp_timestamp, size_t payload_bytes, utime_t now) {
    ++packets_;
    octets_ += payload_bytes;
    last_timestamp_ = rtp_timestamp;
    last_at_ = now;
}

bool RtpSendStats::build_sr(int64_t wall_us, utime_t now, RtcpSenderReport* out) const {
    if (packets_ == 0) return false;
    // Elapsed in timestamp units, split so a long gap cannot overflow; negative
    // if `now` is before the last packet (the caller's clock read earlier).
    utime_t elapsed = now - last_at_;
    int64_t rate = clock_rate_;
    int64_t units = elapsed / kUsPerSecond * rate + elapsed % kUsPerSecond * rate / kUsPerSecond;
    out->ssrc = ssrc_;
    out->ntp = ntp_from_unix_us(wall_us);
    out->rtp_timestamp = last_timestamp_ + static_cast<uint32_t>(units);
    out->packet_count = static_cast<uint32_t>(packets_);
    out->octet_count = static_cast<uint32_t>(octets_);
    return true;
}

void RtpSendStats::on_report_block(const RtcpReportBlock& b, int64_t wall_us) {
    if (b.ssrc != ssrc_) return;
    fraction_lost_ = b.fraction_lost;
    cumulative_lost_ = b.cumulative_lost;
    if (b.lsr == 0) return;
    uint32_t now32 = ntp_middle32(ntp_from_unix_us(wall_us));
    int32_t units = static_cast<int32_t>(now32 - b.lsr - b.dlsr);
    if (units < 0) return;
    utime_t rtt = static_cast<utime_t>(units) * kUsPerSecond / 65536;
    rtt_ = rtt > 0 ? rtt : 1;
}

utime_t RtpSendStats::rtt() const { return rtt_; }
uint64_t RtpSendStats::packets() const { return packets_; }
uint64_t RtpSendStats::octets() const { return octets_; }

}  // namespace srs
