#include "app/rtc/rtc_player_session.hpp"

#include <cstring>

#include "app/live/source_manager.hpp"
#include "app/rtc/rtc_negotiate.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"

namespace srs {

namespace {

// A player whose first keyframe has not come asks again this often.
constexpr utime_t kKeyframeRetry = 1 * kUsPerSecond;

int track_of(RtcMediaKind k) { return k == RtcMediaKind::kAudio ? kRtcAudioTrack : kRtcVideoTrack; }

}  // namespace

RtcPlayerFeedbackOptions RtcPlayerSession::feedback_options(const RtcSessionParams& params) {
    RtcPlayerFeedbackOptions o;
    o.nack = params.vhost_options.nack;
    // A NACK storm costs at most this (a 2.5 Mbps stream sends ~250 packets/s).
    o.responder.max_per_nack = 64;
    o.responder.max_per_second = 1000;
    return o;
}

RtcPlayerSession::RtcPlayerSession(std::string cid, RtcSessionParams params, RtcSource* source,
                                   SourceManager* live_sources, RtcSessionDeps deps)
    : RtcSession(std::move(cid), std::move(params), source, live_sources, std::move(deps)),
      feedback_(feedback_options(params_)) {
    for (RtcMediaKind kind : {RtcMediaKind::kAudio, RtcMediaKind::kVideo}) {
        const RtcSessionTrack& t = track(kind);
        feedback_.add_track(track_of(kind), source_->track(kind).ssrc(), t.clock_rate, t.present, t.nack);
    }
}

RtcPlayerSession::~RtcPlayerSession() { detach(); }

Error RtcPlayerSession::attach(LiveSource* live, utime_t now) {
    live->attach_player();
    source_->add_player(this);
    feedback_.start(now);
    return Error();
}

void RtcPlayerSession::detach_role(LiveSource* live) {
    source_->remove_player(this);
    if (live) live->detach_player();
}

void RtcPlayerSession::on_peer_rtp(uint8_t*, size_t, const RtpHeader&, utime_t) { counters_.rtp_in++; }

void RtcPlayerSession::on_connected() {
    if (params_.video.present && !start_from_ring()) {
        // A keyframe on the player's behalf, so its first frame comes quickly.
        keyframe_asked_ = clock_;
        source_->request_keyframe(clock_);
    }
}

void RtcPlayerSession::on_role_timer(utime_t now) {
    if (catching_up_) catch_up();
    if (waiting_keyframe_ && params_.video.present && source_->has_publisher() &&
        (keyframe_asked_ < 0 || now - keyframe_asked_ >= kKeyframeRetry)) {
        keyframe_asked_ = now;
        source_->request_keyframe(now);
    }
    if (!feedback_.timer_due(now)) return;
    feedback_out_.clear();
    feedback_.on_timer(now, deps_.wall_clock(now), &feedback_out_);
    send_feedback(feedback_out_);
}

void RtcPlayerSession::on_rtcp_packet(const RtcpPacketRef& p, utime_t now) {
    // Only RR needs the wall clock (for the RTT).
    int64_t wall = p.type == kRtcpRr ? deps_.wall_clock(now) : 0;
    feedback_.on_rtcp(p, now, wall, this);
    counters_.nack_in = feedback_.stats().nacks;
    counters_.pli_in = feedback_.stats().keyframe_requests;
    counters_.retransmits = feedback_.responder_stats().retransmits;
    counters_.retransmits_refused = feedback_.responder_stats().refused;
}

bool RtcPlayerSession::resend(int track, uint16_t seq) {
    RtcMediaKind kind = track == kRtcAudioTrack ? RtcMediaKind::kAudio : RtcMediaKind::kVideo;
    if (kind == RtcMediaKind::kVideo && skipped_ > 0) {
        // The player names its own numbering: back to the ring's.
        if (sent_seq_.empty() || sent_seq_[seq % kSentSeqHistory].sent != seq) return false;
        seq = sent_seq_[seq % kSentSeqHistory].ring;
    }
    const RtcPacket* packet = source_->track(kind).find(seq);
    if (!packet) return false;
    send_media(kind, *packet, true);
    return true;
}

void RtcPlayerSession::on_keyframe_request(utime_t now) { source_->request_keyframe(now); }

void RtcPlayerSession::on_source_packet(RtcMediaKind kind, const RtcPacket& packet, utime_t now) {
    clock_ = now;
    if (!connected_ || dead_) return;
    check_codecs();
    if (!codec_ok_[track_of(kind)]) return;
    if (kind == RtcMediaKind::kVideo && catching_up_) return;  // the ring has it: catch_up() sends it in turn
    if (kind == RtcMediaKind::kVideo && waiting_keyframe_) {
        if (!packet.keyframe) return;
        waiting_keyframe_ = false;
    }
    send_media(kind, packet, false);
}

void RtcPlayerSession::prefetch(int stage) const {
    // What on_source_packet and send_media touch, in the order the fan-out
    // reaches it: this object's lines, then the heap objects they point to.
    if (stage == 0) {
        __builtin_prefetch(&connected_);
        __builtin_prefetch(&codec_ok_);
        __builtin_prefetch(&params_.video);
        __builtin_prefetch(&path_);
        __builtin_prefetch(&counters_);
        feedback_.prefetch_tracks();
        peer_.prefetch_send_state();
    } else {
        __builtin_prefetch(path_.get());
        feedback_.prefetch_stats();
        peer_.prefetch_send_key();
    }
}

void RtcPlayerSession::check_codecs() {
    if (checked_generation_ == source_->generation()) return;
    checked_generation_ = source_->generation();
    // B-frames go to players whose H.264 profile has them (not Baseline).
    std::string plid = h264_profile_level_id(params_.video.fmtp);
    skip_bframes_ = iequals(params_.video.codec, "H264") && (plid.empty() || iequals(plid.substr(0, 2), "42"));
    for (RtcMediaKind kind : {RtcMediaKind::kAudio, RtcMediaKind::kVideo}) {
        int k = track_of(kind);
        const RtcTrackCodec& published = source_->track(kind).codec();
        codec_ok_[k] = track(kind).present && published.present && iequals(published.name, track(kind).codec);
        if (track(kind).present && published.present && !codec_ok_[k]) {
            srs_warn("RTC: session %s plays %s %s but %s is published: that track is not sent", cid_.c_str(),
                     rtc_media_kind_name(kind), track(kind).codec.c_str(), published.name.c_str());
        }
    }
}

bool RtcPlayerSession::start_from_ring() {
    if (!connected_ || dead_ || !waiting_keyframe_ || !source_->has_publisher()) return false;
    // Connected inside a fan-out batch: the batch's packets go out first, so
    // the ring holds nothing players have yet to get and catch-up sends no
    // packet that the batch would send again (an SRTP replay for the player).
    source_->fan_out(clock_);
    if (!waiting_keyframe_) return true;  // the batch had a keyframe: it started there
    check_codecs();
    if (!codec_ok_[kRtcVideoTrack]) return false;
    uint16_t first = 0;
    if (!source_->track(RtcMediaKind::kVideo).keyframe_start(&first)) return false;
    waiting_keyframe_ = false;
    catching_up_ = true;
    catchup_next_ = first;
    srs_trace("RTC: session %s starts at the ring's keyframe (%u packets behind)", cid_.c_str(),
              static_cast<uint16_t>(source_->track(RtcMediaKind::kVideo).last_seq() - first) + 1u);
    catch_up();
    return true;
}

void RtcPlayerSession::catch_up() {
    // A GOP sent at once overflows a receiver's socket buffer (a 2 s GOP is
    // ~100 packets): kCatchupPerTick per timer tick, then live.
    const RtcTrack& t = source_->track(RtcMediaKind::kVideo);
    for (int n = 0; n < kCatchupPerTick; n++) {
        if (seq_newer(catchup_next_, t.last_seq())) break;
        if (const RtcPacket* p = t.find(catchup_next_)) send_media(RtcMediaKind::kVideo, *p, false);
        catchup_next_++;
    }
    if (seq_newer(catchup_next_, t.last_seq())) catching_up_ = false;
}

void RtcPlayerSession::send_media(RtcMediaKind kind, const RtcPacket& packet, bool retransmit) {
    const RtcSessionTrack& t = track(kind);
    if (!t.present || !path_) return;
    uint16_t seq = packet.seq;
    if (kind == RtcMediaKind::kVideo && skip_bframes_) {
        // This player's numbering has no holes where the skipped B-frames were.
        if (packet.disposable) {
            if (!retransmit) skipped_++;
            if (!bframes_logged_) {
                bframes_logged_ = true;
                srs_trace("RTC: session %s negotiated H.264 %s (Baseline): the stream's B-frames are not sent to it",
                          cid_.c_str(), h264_profile_level_id(t.fmtp).c_str());
            }
            return;
        }
        seq = static_cast<uint16_t>(packet.seq - skipped_);
        // Until a B-frame was skipped the numbering is the ring's: nothing to map.
        if (!retransmit && skipped_ > 0) {
            if (sent_seq_.empty()) sent_seq_.resize(kSentSeqHistory);
            sent_seq_[seq % kSentSeqHistory] = {seq, packet.seq};
        }
    }
    // The ring's packet is shared: only its header is copied (this player's
    // PT and numbering); the payload is encrypted from the ring into the slot.
    uint8_t* buf = path_->slot();
    memcpy(buf, packet.data, packet.payload_offset);
    rtp_set_payload_type(buf, static_cast<uint8_t>(t.pt));
    if (seq != packet.seq) rtp_set_sequence(buf, seq);
    size_t out = 0;
    if (Error err = peer_.protect_rtp_from(buf, kRtcSlotSize, packet.data, packet.payload_offset, packet.size, &out);
        err.failed()) {
        counters_.dropped++;
        err.ignore();
        return;
    }
    path_->commit(out);
    send_bytes_ += out;
    counters_.rtp_out++;
    if (!retransmit) feedback_.on_rtp_sent(track_of(kind), packet.timestamp, packet.size - packet.payload_offset, clock_);
}

void RtcPlayerSession::on_source_unpublish() {
    catching_up_ = false;
    // The next publisher starts with a keyframe for us too.
    waiting_keyframe_ = true;
    keyframe_asked_ = -1;
}

}  // namespace srs
