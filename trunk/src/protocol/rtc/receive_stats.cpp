#include "protocol/rtc/receive_stats.hpp"

#include <cstdlib>

namespace srs {

RtpReceiveStats::RtpReceiveStats(uint32_t ssrc, uint32_t clock_rate) : ssrc_(ssrc), clock_rate_(clock_rate) {}

void RtpReceiveStats::restart(uint16_t seq) {
    started_ = true;
    max_seq_ = seq;
    cycles_ = 0;
    base_seq_ = seq;
    bad_seq_ = 0x10000;
    received_ = 0;
    expected_prior_ = 0;
    received_prior_ = 0;
    has_transit_ = false;
}

void RtpReceiveStats::on_packet(uint16_t seq, uint32_t rtp_timestamp, utime_t arrival) {
    bool newer = false;
    if (!started_) {
        restart(seq);
        newer = true;
    } else {
        uint16_t step = static_cast<uint16_t>(seq - max_seq_);
        if (step == 0) {
            // A duplicate of the highest: counted, no jitter.
        } else if (step < kRtpMaxDropout) {
            if (seq < max_seq_) cycles_ += 0x10000;
            max_seq_ = seq;
            newer = true;
        } else if (step <= 0x10000 - kRtpMaxMisorder) {
            // A big jump: believed only when the next packet follows it.
            if (seq != bad_seq_) {
                bad_seq_ = static_cast<uint16_t>(seq + 1);
                return;
            }
            restart(seq);
            newer = true;
        }
        // else: late or duplicate within kRtpMaxMisorder.
    }
    ++received_;
    ++packets_;
    if (!newer) return;

    // Arrival in timestamp units (split so a long uptime cannot overflow); the
    // RTP timestamp difference is taken modulo 2^32.
    int64_t rate = clock_rate_;
    int64_t arrival_units = arrival / kUsPerSecond * rate + arrival % kUsPerSecond * rate / kUsPerSecond;
    if (has_transit_) {
        int64_t d = (arrival_units - last_arrival_units_) -
                    static_cast<int32_t>(rtp_timestamp - last_timestamp_);
        jitter_ += (static_cast<double>(std::llabs(d)) - jitter_) / 16.0;
    }
    has_transit_ = true;
    last_arrival_units_ = arrival_units;
    last_timestamp_ = rtp_timestamp;
}

void RtpReceiveStats::on_sender_report(uint64_t ntp, utime_t now) {
    lsr_ = static_cast<uint32_t>(ntp >> 16);
    lsr_at_ = now;
}

RtcpReportBlock RtpReceiveStats::report(utime_t now) {
    RtcpReportBlock b;
    b.ssrc = ssrc_;
    if (started_) {
        int64_t ext_max = static_cast<int64_t>(cycles_) + max_seq_;
        int64_t expected = ext_max - base_seq_ + 1;
        int64_t lost = expected - static_cast<int64_t>(received_);
        if (lost > 0x7fffff) lost = 0x7fffff;
        if (lost < -0x800000) lost = -0x800000;
        b.cumulative_lost = static_cast<int32_t>(lost);
        b.highest_sequence = static_cast<uint32_t>(ext_max);

        int64_t expected_interval = expected - expected_prior_;
        int64_t received_interval = static_cast<int64_t>(received_ - received_prior_);
        int64_t lost_interval = expected_interval - received_interval;
        expected_prior_ = expected;
        received_prior_ = received_;
        if (expected_interval > 0 && lost_interval > 0) {
            int64_t fraction = (lost_interval << 8) / expected_interval;
            b.fraction_lost = static_cast<uint8_t>(fraction > 255 ? 255 : fraction);
        }
        b.jitter = static_cast<uint32_t>(jitter_);
    }
    if (lsr_ != 0) {
        b.lsr = lsr_;
        utime_t since = now > lsr_at_ ? now - lsr_at_ : 0;
        b.dlsr = static_cast<uint32_t>(since * 65536 / kUsPerSecond);
    }
    return b;
}

uint32_t RtpReceiveStats::ssrc() const { return ssrc_; }
uint64_t RtpReceiveStats::packets() const { return packets_; }
uint32_t RtpReceiveStats::extended_highest() const { return cycles_ + max_seq_; }
double RtpReceiveStats::jitter() const { return jitter_; }

}  // namespace srs
