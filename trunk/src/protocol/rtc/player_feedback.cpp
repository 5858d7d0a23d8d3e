#include "protocol/rtc/player_feedback.hpp"

namespace srs {

RtcPlayerFeedback::RtcPlayerFeedback(RtcPlayerFeedbackOptions o) : opt_(o), responder_(o.responder) {}

void RtcPlayerFeedback::add_track(int track, uint32_t ssrc, uint32_t clock_rate, bool sending, bool nack) {
    Track& t = tracks_[track];
    t.ssrc = ssrc;
    t.known = true;
    t.nack = nack;
    t.stats.reset(sending ? new RtpSendStats(ssrc, clock_rate) : nullptr);
}

void RtcPlayerFeedback::on_rtp_sent(int track, uint32_t timestamp, size_t payload_bytes, utime_t now) {
    if (RtpSendStats* s = tracks_[track].stats.get()) s->on_packet(timestamp, payload_bytes, now);
}

void RtcPlayerFeedback::on_rtcp(const RtcpPacketRef& p, utime_t now, int64_t wall_us, Sink* sink) {
    switch (p.type) {
        case kRtcpRr: {
            RtcpReceiverReport rr;
            if (rtcp_parse_rr(p, &rr).failed()) break;
            for (const RtcpReportBlock& b : rr.reports) {
                for (Track& t : tracks_) {
                    if (t.stats && t.stats->ssrc() == b.ssrc) t.stats->on_report_block(b, wall_us);
                }
            }
            break;
        }
        case kRtcpRtpfb:
            if (p.count == kRtcpFmtNack) on_nack(p, now, sink);
            break;
        case kRtcpPsfb:
            if (p.count == kRtcpFmtPli || p.count == kRtcpFmtFir) {
                stats_.keyframe_requests++;
                sink->on_keyframe_request(now);
            }
            break;
        default:
            break;  // SR, SDES, XR, REMB, TWCC from players, APP: nothing to do
    }
}

void RtcPlayerFeedback::on_nack(const RtcpPacketRef& p, utime_t now, Sink* sink) {
    if (!opt_.nack) return;
    if (rtcp_parse_nack(p, &nack_).failed()) return;
    stats_.nacks++;
    // Video first: it is the track NACKs are usually about.
    int track = -1;
    for (int k : {kRtcVideoTrack, kRtcAudioTrack}) {
        if (tracks_[k].known && tracks_[k].ssrc == nack_.media_ssrc) {
            track = k;
            break;
        }
    }
    if (track < 0 || !tracks_[track].nack) return;
    responder_.answer(nack_.lost, now, [sink, track](uint16_t seq) { return sink->resend(track, seq); });
}

void RtcPlayerFeedback::on_timer(utime_t now, int64_t wall_us, RtcFeedbackOutput* out) {
    if (!timer_due(now)) return;
    next_report_ = now + opt_.report_interval;
    for (const Track& t : tracks_) {
        RtcpSenderReport sr;
        if (!t.stats || !t.stats->build_sr(wall_us, now, &sr)) continue;
        rtcp_build_sr(sr, out->add(RtcFeedbackKind::kSenderReport));
    }
}

}  // namespace srs
