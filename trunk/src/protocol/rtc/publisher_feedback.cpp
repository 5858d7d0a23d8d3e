#include "protocol/rtc/publisher_feedback.hpp"

#include "kernel/rtp/rtcp.hpp"

namespace srs {

RtcPublisherFeedback::RtcPublisherFeedback(uint32_t local_ssrc, RtcPublisherFeedbackOptions o)
    : local_ssrc_(local_ssrc), opt_(o), twcc_(o.twcc_options) {}

void RtcPublisherFeedback::add_track(int track, uint32_t ssrc, uint32_t clock_rate, bool nack) {
    Track& t = tracks_[track];
    t.clock_rate = clock_rate;
    t.stats.reset(new RtpReceiveStats(ssrc, clock_rate));
    if (opt_.nack && nack) t.nack.reset(new NackGenerator(opt_.nack_options));
}

void RtcPublisherFeedback::learn_ssrc(int track, uint32_t ssrc) {
    Track& t = tracks_[track];
    if (t.stats) t.stats.reset(new RtpReceiveStats(ssrc, t.clock_rate));
}

void RtcPublisherFeedback::on_rtp(int track, uint16_t seq, uint32_t timestamp, utime_t arrival) {
    Track& t = tracks_[track];
    if (t.stats) t.stats->on_packet(seq, timestamp, arrival);
    if (t.nack) t.nack->on_packet(seq, arrival);
}

void RtcPublisherFeedback::on_transport_seq(uint16_t transport_seq, utime_t arrival) {
    if (opt_.twcc) twcc_.on_packet(transport_seq, arrival);
}

void RtcPublisherFeedback::on_sender_report(int track, uint64_t ntp, utime_t now) {
    if (tracks_[track].stats) tracks_[track].stats->on_sender_report(ntp, now);
}

void RtcPublisherFeedback::on_timer(utime_t now, RtcFeedbackOutput* out) {
    collect_nacks(now, out);
    send_pli(out);
    send_twcc(now, out);
    send_receiver_report(now, out);
}

void RtcPublisherFeedback::collect_nacks(utime_t now, RtcFeedbackOutput* out) {
    for (int k = 0; k < kRtcTracks; k++) {
        NackGenerator* nack = tracks_[k].nack.get();
        if (!nack) continue;
        lost_.clear();
        nack->collect(now, &lost_);
        if (!lost_.empty()) rtcp_build_nack(local_ssrc_, track_ssrc(k), lost_, out->add(RtcFeedbackKind::kNack));
        // Audio losses given up are not worth a keyframe; the flag is cleared all the same.
        if (nack->take_keyframe_needed() && k == kRtcVideoTrack) keyframe_wanted_ = true;
    }
}

void RtcPublisherFeedback::send_pli(RtcFeedbackOutput* out) {
    uint32_t video = track_ssrc(kRtcVideoTrack);
    if (!keyframe_wanted_ || video == 0) return;  // kept until the video SSRC is known
    keyframe_wanted_ = false;
    rtcp_build_pli(local_ssrc_, video, out->add(RtcFeedbackKind::kPli));
}

void RtcPublisherFeedback::send_twcc(utime_t now, RtcFeedbackOutput* out) {
    if (!opt_.twcc || !twcc_.feedback_due(now)) return;
    std::string* rtcp = out->add(RtcFeedbackKind::kTwcc);
    if (Error err = twcc_.build(local_ssrc_, track_ssrc(kRtcVideoTrack), rtcp); err.failed()) {
        err.ignore();  // what waited is consumed; the next feedback starts after it
        out->drop_last();
    } else if (rtcp->empty()) {
        out->drop_last();
    }
}

void RtcPublisherFeedback::send_receiver_report(utime_t now, RtcFeedbackOutput* out) {
    if (now < next_report_) return;
    next_report_ = now + opt_.report_interval;
    RtcpReceiverReport rr;
    rr.ssrc = local_ssrc_;
    for (const Track& t : tracks_) {
        if (t.stats && t.stats->packets() > 0) rr.reports.push_back(t.stats->report(now));
    }
    if (!rr.reports.empty()) rtcp_build_rr(rr, out->add(RtcFeedbackKind::kReceiverReport));
}

}  // namespace srs
