#include "app/rtc/rtc_session.hpp"

#include <cstring>

#include "app/live/source_manager.hpp"
#include "app/rtc/rtc_negotiate.hpp"
#include "app/rtc/rtc_random.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"
#include "kernel/rtp/rtcp.hpp"

namespace srs {

namespace {

constexpr utime_t kFeedbackInterval = 20 * kUsPerMs;
constexpr utime_t kReportInterval = 1 * kUsPerSecond;
// A player whose first keyframe has not come asks again this often.
constexpr utime_t kKeyframeRetry = 1 * kUsPerSecond;
// Retransmissions answered per NACK packet, and per player per second: a
// NACK storm costs at most this (a 2.5 Mbps stream sends ~250 packets/s).
constexpr size_t kMaxRetransmitsPerNack = 64;
constexpr uint32_t kMaxRetransmitsPerSecond = 1000;

int kind_index(RtcMediaKind k) { return k == RtcMediaKind::kAudio ? 0 : 1; }


}  // namespace

void RtcSendPath::send_copy(const uint8_t* data, size_t len) {
    if (len > kRtcSlotSize) return;
    uint8_t* s = slot();
    memcpy(s, data, len);
    commit(len);
}

RtcSession::RtcSession(std::string cid, RtcSessionParams params, RtcSource* source, SourceManager* live_sources)
    : cid_(std::move(cid)),
      params_(std::move(params)),
      peer_(params_.peer, this),
      source_(source),
      live_sources_(live_sources),
      local_ssrc_(rtc_random_u32()),
      pli_limiter_(RtcSource::kKeyframeInterval) {
    ClientInfo& i = info();
    i.kind = params_.publisher ? ClientKind::kRtcPublish : ClientKind::kRtcPlay;
    i.vhost = params_.vhost;
    i.app = params_.app;
    i.stream = params_.stream;
    i.tc_url = params_.tc_url;
    if (params_.publisher) {
        for (int k = 0; k < 2; k++) {
            const RtcSessionTrack& t = k == 0 ? params_.audio : params_.video;
            if (!t.present) continue;
            if (params_.vhost_options.nack) pub_[k].nack.reset(new NackGenerator());
            pub_[k].stats.reset(new RtpReceiveStats(t.remote_ssrc, t.clock_rate));
        }
    } else {
        for (int k = 0; k < 2; k++) {
            const RtcSessionTrack& t = k == 0 ? params_.audio : params_.video;
            RtcMediaKind kind = k == 0 ? RtcMediaKind::kAudio : RtcMediaKind::kVideo;
            if (t.present) send_stats_[k].reset(new RtpSendStats(source_->track(kind).ssrc(), t.clock_rate));
        }
    }
}

RtcSession::~RtcSession() { detach(); }

Error RtcSession::start(utime_t now) {
    LiveSource* live = live_sources_->fetch_or_create(params_.vhost, params_.app, params_.stream);
    if (params_.publisher) {
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
    } else {
        live->attach_player();
        source_->add_player(this);
    }
    live_attached_ = true;
    if (Error err = peer_.start(now); err.failed()) return SRS_WRAP(err, "peer");
    next_rr_ = now + kReportInterval;
    next_sr_ = now + kReportInterval;
    return Error();
}

void RtcSession::detach() {
    if (!live_attached_) return;
    live_attached_ = false;
    LiveSource* live = live_sources_->find(params_.vhost, params_.app, params_.stream);
    if (params_.publisher) {
        to_live_.reset();
        published_ = nullptr;
        source_->clear_publisher(this);
        if (live && live->publishing() && live->publisher_cid() == cid_) live->on_unpublish();
    } else {
        source_->remove_player(this);
        if (live) live->detach_player();
    }
}

Error RtcSession::handle_datagram(uint8_t* data, size_t size, const StunAddress& from, utime_t now,
                                  RtcSendPath* reply) {
    recv_bytes_ += size;
    clock_ = now;
    Error err = peer_.handle_datagram(data, size, from, now);
    flush_peer(reply, &from);
    if (err.failed()) counters_.dropped++;
    return err;
}

void RtcSession::flush_peer(RtcSendPath* reply, const StunAddress* reply_to) {
    RtcTransmit t;
    while (peer_.pop_transmit(&t)) {
        RtcSendPath* p = reply && reply_to && t.to == *reply_to ? reply : path_.get();
        if (!p) continue;  // nothing bound yet: nowhere verified to send to
        p->send_copy(reinterpret_cast<const uint8_t*>(t.data.data()), t.data.size());
        send_bytes_ += t.data.size();
    }
}

void RtcSession::close(utime_t now, Error reason) {
    if (dead_) {
        reason.ignore();
        return;
    }
    peer_.close(now, std::move(reason));  // calls on_peer_closed
    flush_peer();
}

void RtcSession::on_timer(utime_t now) {
    if (dead_) return;
    clock_ = now;
    if (expire_requested_) {
        close(now, SRS_ERR(kErrorRtcSessionClosed, "kicked"));
        return;
    }
    if (now >= next_peer_timer_ || now >= peer_.next_timeout()) {
        if (Error err = peer_.handle_timeout(now); err.failed()) {
            srs_warn("RTC: session %s timer: %s", cid_.c_str(), err.summary().c_str());
        }
        next_peer_timer_ = now + 100 * kUsPerMs;
    }
    if (!dead_ && connected_) {
        if (params_.publisher) {
            publisher_timer(now);
        } else {
            player_timer(now);
        }
    }
    flush_peer();
}

void RtcSession::send_rtcp(const std::string& compound) {
    if (compound.empty() || !connected_) return;
    if (Error err = peer_.send_rtcp(compound); err.failed()) {
        counters_.dropped++;
        err.ignore();
        return;
    }
    counters_.rtcp_out++;
}

void RtcSession::publisher_timer(utime_t now) {
    if (to_live_) {
        to_live_->on_timer(now);
        if (to_live_->take_keyframe_wanted()) keyframe_wanted_ = true;
    }
    for (int k = 0; k < 2; k++) {
        NackGenerator* nack = pub_[k].nack.get();
        if (!nack) continue;
        lost_.clear();
        nack->collect(now, &lost_);
        if (!lost_.empty()) {
            rtcp_.clear();
            uint32_t media = pub_[k].stats ? pub_[k].stats->ssrc() : 0;
            rtcp_build_nack(local_ssrc_, media, lost_, &rtcp_);
            send_rtcp(rtcp_);
            counters_.nack_out++;
        }
        if (nack->take_keyframe_needed() && k == 1) keyframe_wanted_ = true;
    }
    if (keyframe_wanted_ && params_.video.present && pub_[1].stats && pub_[1].stats->ssrc() != 0) {
        keyframe_wanted_ = false;
        rtcp_.clear();
        rtcp_build_pli(local_ssrc_, pub_[1].stats->ssrc(), &rtcp_);
        send_rtcp(rtcp_);
        counters_.pli_out++;
    }
    if (params_.vhost_options.twcc && params_.video.twcc_ext > 0 && twcc_.feedback_due(now)) {
        rtcp_.clear();
        uint32_t media = pub_[1].stats ? pub_[1].stats->ssrc() : 0;
        if (Error err = twcc_.build(local_ssrc_, media, &rtcp_); err.failed()) {
            err.ignore();
        } else if (!rtcp_.empty()) {
            send_rtcp(rtcp_);
            counters_.twcc_out++;
        }
    }
    if (now >= next_rr_) {
        next_rr_ = now + kReportInterval;
        RtcpReceiverReport rr;
        rr.ssrc = local_ssrc_;
        for (int k = 0; k < 2; k++) {
            if (pub_[k].stats && pub_[k].stats->packets() > 0) rr.reports.push_back(pub_[k].stats->report(now));
        }
        if (!rr.reports.empty()) {
            rtcp_.clear();
            rtcp_build_rr(rr, &rtcp_);
            send_rtcp(rtcp_);
            counters_.rr_out++;
        }
    }
}

void RtcSession::player_timer(utime_t now) {
    if (catching_up_) catch_up();
    if (waiting_keyframe_ && params_.video.present && source_->has_publisher() &&
        (keyframe_asked_ < 0 || now - keyframe_asked_ >= kKeyframeRetry)) {
        keyframe_asked_ = now;
        source_->request_keyframe(now);
    }
    if (now >= next_sr_) {
        next_sr_ = now + kReportInterval;
        int64_t wall = wall_us();
        for (int k = 0; k < 2; k++) {
            RtcpSenderReport sr;
            if (!send_stats_[k] || !send_stats_[k]->build_sr(wall, now, &sr)) continue;
            rtcp_.clear();
            rtcp_build_sr(sr, &rtcp_);
            send_rtcp(rtcp_);
            counters_.sr_out++;
        }
    }
}

void RtcSession::request_keyframe(utime_t now) {
    (void)now;
    keyframe_wanted_ = true;  // sent by the next publisher_timer (within 20 ms)
}

void RtcSession::on_peer_address(const StunAddress& addr) {
    if (address_listener_) address_listener_->on_session_address(this, addr);
}

void RtcSession::on_peer_connected() {
    connected_ = true;
    srs_trace("RTC: session %s %s connected %s, %s/%s/%s, %s", cid_.c_str(), params_.publisher ? "publisher" : "player",
              peer_.remote_address().to_string().c_str(), params_.vhost.c_str(), params_.app.c_str(),
              params_.stream.c_str(), peer_.milestones().c_str());
    // The handshake's last flight goes before any media: a client drops
    // SRTP that arrives before its keys.
    flush_peer();
    if (!params_.publisher && params_.video.present && !start_from_ring()) {
        // A keyframe on the player's behalf, so its first frame comes quickly.
        keyframe_asked_ = clock_;
        source_->request_keyframe(clock_);
    }
}

void RtcSession::on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& h, utime_t now) {
    counters_.rtp_in++;
    if (!params_.publisher) return;  // players do not send media
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
    int k = kind_index(kind);
    PublisherTrack& t = pub_[k];
    if (t.stats && t.stats->ssrc() == 0) {
        // No a=ssrc in the offer: the first packet of the kind names it.
        t.stats.reset(new RtpReceiveStats(h.ssrc, track(kind).clock_rate));
    }
    if (t.stats && h.ssrc != t.stats->ssrc()) {
        counters_.dropped++;  // another SSRC with the same payload type (simulcast is not served)
        return;
    }
    if (t.stats) t.stats->on_packet(h.sequence, h.timestamp, now);
    if (t.nack) t.nack->on_packet(h.sequence, now);
    if (params_.vhost_options.twcc && params_.video.twcc_ext > 0) {
        if (const RtpExtensionElement* e = h.find_extension(static_cast<uint8_t>(params_.video.twcc_ext))) {
            if (e->size == 2) twcc_.on_packet(load_be16(data + e->offset), now);
        }
    }
    if (published_) published_->add_recv_bytes(size);
    source_->on_publisher_rtp(kind, data, size, h, now);
    if (to_live_) to_live_->on_rtp(kind, data, size, h, now);
}

void RtcSession::on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                              utime_t now) {
    (void)data, (void)size;
    counters_.rtcp_in++;
    int64_t wall = -1;
    for (const RtcpPacketRef& p : packets) {
        switch (p.type) {
            case kRtcpSr: {
                RtcpSenderReport sr;
                if (rtcp_parse_sr(p, &sr).ok() && params_.publisher) {
                    for (int k = 0; k < 2; k++) {
                        PublisherTrack& t = pub_[k];
                        if (!t.stats || t.stats->ssrc() != sr.ssrc) continue;
                        t.stats->on_sender_report(sr.ntp, now);
                        if (to_live_) {
                            to_live_->on_sender_report(k == 0 ? RtcMediaKind::kAudio : RtcMediaKind::kVideo, sr.ntp,
                                                       sr.rtp_timestamp, now);
                        }
                    }
                }
                break;
            }
            case kRtcpRr: {
                RtcpReceiverReport rr;
                if (rtcp_parse_rr(p, &rr).ok() && !params_.publisher) {
                    if (wall < 0) wall = wall_us();
                    for (const RtcpReportBlock& b : rr.reports) {
                        for (auto& s : send_stats_) {
                            if (s && s->ssrc() == b.ssrc) s->on_report_block(b, wall);
                        }
                    }
                }
                break;
            }
            case kRtcpBye: {
                close(now, SRS_ERR(kErrorRtcSessionClosed, "RTCP BYE from the peer"));
                return;
            }
            case kRtcpRtpfb:
                if (p.count == kRtcpFmtNack && !params_.publisher) answer_nack(p);
                break;
            case kRtcpPsfb:
                if ((p.count == kRtcpFmtPli || p.count == kRtcpFmtFir) && !params_.publisher) {
                    counters_.pli_in++;
                    source_->request_keyframe(now);
                }
                break;
            default:
                break;  // SDES, XR, REMB, TWCC from players, APP: nothing to do
        }
    }
}

void RtcSession::answer_nack(const RtcpPacketRef& p) {
    if (!params_.vhost_options.nack) return;
    if (rtcp_parse_nack(p, &nack_).failed()) return;
    counters_.nack_in++;
    RtcMediaKind kind;
    if (nack_.media_ssrc == source_->track(RtcMediaKind::kVideo).ssrc()) {
        kind = RtcMediaKind::kVideo;
    } else if (nack_.media_ssrc == source_->track(RtcMediaKind::kAudio).ssrc()) {
        kind = RtcMediaKind::kAudio;
    } else {
        return;
    }
    if (clock_ - retransmit_window_ >= kUsPerSecond) {
        retransmit_window_ = clock_;
        retransmits_in_window_ = 0;
    }
    size_t n = 0;
    for (uint16_t seq : nack_.lost) {
        if (n++ >= kMaxRetransmitsPerNack) break;
        if (retransmits_in_window_ >= kMaxRetransmitsPerSecond) {
            counters_.retransmits_refused++;
            continue;
        }
        if (kind == RtcMediaKind::kVideo && skipped_ > 0) {
            // The player names its own numbering: back to the ring's.
            if (sent_seq_.empty() || sent_seq_[seq % kSentSeqHistory].sent != seq) continue;
            seq = sent_seq_[seq % kSentSeqHistory].ring;
        }
        const RtcPacket* packet = source_->track(kind).find(seq);
        if (!packet) continue;
        send_media(kind, *packet, true);
        counters_.retransmits++;
        retransmits_in_window_++;
    }
}

void RtcSession::on_peer_closed(const Error& reason) {
    if (dead_) return;
    dead_ = true;
    close_reason_ = reason.summary();
    // A close we asked for (DELETE, kick, BYE, the peer's close_notify) is a normal end.
    int code = reason.code();
    failed_ = code != kErrorRtcSessionClosed && code != kErrorRtcPeerClosedByPeer;
    srs_trace("RTC: session %s %s closed: %s (rtp in %llu out %llu, nack in %llu out %llu, retransmits %llu, "
              "pli in %llu out %llu, dropped %llu)",
              cid_.c_str(), params_.publisher ? "publisher" : "player", close_reason_.c_str(),
              (unsigned long long)counters_.rtp_in, (unsigned long long)counters_.rtp_out,
              (unsigned long long)counters_.nack_in, (unsigned long long)counters_.nack_out,
              (unsigned long long)counters_.retransmits, (unsigned long long)counters_.pli_in,
              (unsigned long long)counters_.pli_out, (unsigned long long)counters_.dropped);
}

void RtcSession::on_source_packet(RtcMediaKind kind, const RtcPacket& packet, utime_t now) {
    clock_ = now;
    if (!connected_ || dead_) return;
    check_codecs();
    if (!codec_ok_[kind_index(kind)]) return;
    if (kind == RtcMediaKind::kVideo && catching_up_) return;  // the ring has it: catch_up() sends it in turn
    if (kind == RtcMediaKind::kVideo && waiting_keyframe_) {
        if (!packet.keyframe) return;
        waiting_keyframe_ = false;
    }
    send_media(kind, packet, false);
}

void RtcSession::check_codecs() {
    if (checked_generation_ == source_->generation()) return;
    checked_generation_ = source_->generation();
    // B-frames go to players whose H.264 profile has them (not Baseline).
    std::string plid = h264_profile_level_id(params_.video.fmtp);
    skip_bframes_ = iequals(params_.video.codec, "H264") && (plid.empty() || iequals(plid.substr(0, 2), "42"));
    for (int k = 0; k < 2; k++) {
        RtcMediaKind kk = k == 0 ? RtcMediaKind::kAudio : RtcMediaKind::kVideo;
        const RtcTrackCodec& published = source_->track(kk).codec();
        codec_ok_[k] = track(kk).present && published.present && iequals(published.name, track(kk).codec);
        if (track(kk).present && published.present && !codec_ok_[k]) {
            srs_warn("RTC: session %s plays %s %s but %s is published: that track is not sent", cid_.c_str(),
                     rtc_media_kind_name(kk), track(kk).codec.c_str(), published.name.c_str());
        }
    }
}

bool RtcSession::start_from_ring() {
    if (!connected_ || dead_ || !waiting_keyframe_ || !source_->has_publisher()) return false;
    // Connected inside a fan-out batch: the batch's packets go out first, so
    // the ring holds nothing players have yet to get and catch-up sends no
    // packet that the batch would send again (an SRTP replay for the player).
    source_->fan_out(clock_);
    if (!waiting_keyframe_) return true;  // the batch had a keyframe: it started there
    check_codecs();
    if (!codec_ok_[1]) return false;
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

void RtcSession::catch_up() {
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

void RtcSession::send_media(RtcMediaKind kind, const RtcPacket& packet, bool retransmit) {
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
    uint8_t* buf = path_->slot();
    memcpy(buf, packet.data, packet.size);
    rtp_set_payload_type(buf, static_cast<uint8_t>(t.pt));
    if (seq != packet.seq) rtp_set_sequence(buf, seq);
    size_t out = 0;
    if (Error err = peer_.protect_rtp(buf, packet.size, kRtcSlotSize, &out); err.failed()) {
        counters_.dropped++;
        err.ignore();
        return;
    }
    path_->commit(out);
    send_bytes_ += out;
    counters_.rtp_out++;
    if (!retransmit) {
        if (auto& s = send_stats_[kind_index(kind)]) s->on_packet(packet.timestamp, packet.size - packet.payload_offset, clock_);
    }
}

void RtcSession::on_source_unpublish() {
    catching_up_ = false;
    // The next publisher starts with a keyframe for us too.
    waiting_keyframe_ = true;
    keyframe_asked_ = -1;
}

}  // namespace srs
