#include "app/rtc/rtc_publisher_session.hpp"

#include "app/live/source_manager.hpp"
#include "core/bytes.hpp"

namespace srs {

RtcPublisherFeedbackOptions RtcPublisherSession::feedback_options(const RtcSessionParams& params) {
    RtcPublisherFeedbackOptions o;
    o.nack = params.vhost_options.nack;
    o.twcc = params.vhost_options.twcc && params.video.twcc_ext > 0;
    return o;
}

RtcPublisherSession::RtcPublisherSession(std::string cid, RtcSessionParams params, RtcSource* source,
                                         SourceManager* live_sources, RtcSessionDeps deps)
    : RtcSession(std::move(cid), std::move(params), source, live_sources, std::move(deps)),
      feedback_(deps_.random_ssrc(), feedback_options(params_)) {
    for (int k : {kRtcAudioTrack, kRtcVideoTrack}) {
        const RtcSessionTrack& t = k == kRtcAudioTrack ? params_.audio : params_.video;
        if (t.present) feedback_.add_track(k, t.remote_ssrc, t.clock_rate, t.nack);
    }
}

RtcPublisherSession::~RtcPublisherSession() { detach(); }

Error RtcPublisherSession::attach(LiveSource* live, utime_t now) {
    if (source_->has_publisher() || live->publishing()) {
        return SRS_ERR(kErrorRtcSourceBusy, "stream %s is busy", live->url().c_str());
    }
    SourceOptions options;
    options.bridge = false;  // the stream is WebRTC already
    if (Error err = live->on_publish(cid_, options); err.failed()) return SRS_WRAP(err, "publish");
    // Published by us, so never collected while we hold it (until detach).
    published_ = live;
    RtcTrackCodec audio, video;
    audio.present = params_.audio.present;
    audio.name = params_.audio.codec;
    audio.pt = params_.audio.pt;
    audio.clock_rate = params_.audio.clock_rate;
    audio.fmtp = params_.audio.fmtp;
    video.present = params_.video.present;
    video.name = params_.video.codec;
    video.pt = params_.video.pt;
    video.clock_rate = params_.video.clock_rate;
    video.fmtp = params_.video.fmtp;
    source_->set_publisher(this, audio, video);
    if (params_.vhost_options.rtc_to_rtmp) {
        RtcToLiveOptions o;
        o.aac_bitrate = params_.vhost_options.aac_bitrate;
        o.pli_interval = params_.vhost_options.pli_for_rtmp;
        to_live_.reset(new RtcToLiveBridge(cid_, live, audio, video, o));
    }
    feedback_.start(now);
    return Error();
}

void RtcPublisherSession::detach_role(LiveSource* live) {
    to_live_.reset();
    published_ = nullptr;
    source_->clear_publisher(this);
    if (live && live->publishing() && live->publisher_cid() == cid_) live->on_unpublish();
}

void RtcPublisherSession::request_keyframe(utime_t now) {
    (void)now;
    feedback_.request_keyframe();
}

void RtcPublisherSession::on_role_timer(utime_t now) {
    if (to_live_) {
        to_live_->on_timer(now);
        if (to_live_->take_keyframe_wanted()) feedback_.request_keyframe();
    }
    feedback_out_.clear();
    feedback_.on_timer(now, &feedback_out_);
    send_feedback(feedback_out_);
}

void RtcPublisherSession::on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& h, utime_t now) {
    counters_.rtp_in++;
    if (params_.vhost_options.drop_for_pt > 0 && h.payload_type == params_.vhost_options.drop_for_pt) return;
    RtcMediaKind kind;
    if (params_.video.present && h.payload_type == params_.video.pt) {
        kind = RtcMediaKind::kVideo;
    } else if (params_.audio.present && h.payload_type == params_.audio.pt) {
        kind = RtcMediaKind::kAudio;
    } else {
        counters_.dropped++;  // a payload type we did not accept (red, ulpfec, rtx...)
        return;
    }
    int k = kind == RtcMediaKind::kAudio ? kRtcAudioTrack : kRtcVideoTrack;
    // No a=ssrc in the offer: the first packet of the kind names it.
    if (feedback_.track_ssrc(k) == 0) feedback_.learn_ssrc(k, h.ssrc);
    if (h.ssrc != feedback_.track_ssrc(k)) {
        counters_.dropped++;  // another SSRC with the same payload type (simulcast is not served)
        return;
    }
    feedback_.on_rtp(k, h.sequence, h.timestamp, now);
    if (params_.vhost_options.twcc && params_.video.twcc_ext > 0) {
        if (const RtpExtensionElement* e = h.find_extension(static_cast<uint8_t>(params_.video.twcc_ext))) {
            if (e->size == 2) feedback_.on_transport_seq(load_be16(data + e->offset), now);
        }
    }
    if (published_) published_->add_recv_bytes(size);
    source_->on_publisher_rtp(kind, data, size, h, now);
    if (to_live_) to_live_->on_rtp(kind, data, size, h, now);
}

void RtcPublisherSession::on_rtcp_packet(const RtcpPacketRef& p, utime_t now) {
    if (p.type != kRtcpSr) return;  // RR, NACK, PLI from a publisher: nothing to do
    RtcpSenderReport sr;
    if (rtcp_parse_sr(p, &sr).failed()) return;
    for (int k = 0; k < kRtcTracks; k++) {
        if (!feedback_.has_track(k) || feedback_.track_ssrc(k) != sr.ssrc) continue;
        feedback_.on_sender_report(k, sr.ntp, now);
        if (to_live_) {
            to_live_->on_sender_report(k == kRtcAudioTrack ? RtcMediaKind::kAudio : RtcMediaKind::kVideo, sr.ntp,
                                       sr.rtp_timestamp, now);
        }
    }
}

}  // namespace srs
