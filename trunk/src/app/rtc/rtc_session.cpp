#include "app/rtc/rtc_session.hpp"

#include <cstring>

#include "app/live/source_manager.hpp"
#include "app/rtc/rtc_player_session.hpp"
#include "app/rtc/rtc_publisher_session.hpp"
#include "core/log.hpp"

namespace srs {

void RtcSendPath::send_copy(const uint8_t* data, size_t len) {
    if (len > kRtcSlotSize) return;
    uint8_t* s = slot();
    memcpy(s, data, len);
    commit(len);
}

std::unique_ptr<RtcSession> make_rtc_session(std::string cid, RtcSessionParams params, RtcSource* source,
                                             SourceManager* live_sources, RtcSessionDeps deps) {
    if (params.publisher) {
        return std::unique_ptr<RtcSession>(
            new RtcPublisherSession(std::move(cid), std::move(params), source, live_sources, std::move(deps)));
    }
    return std::unique_ptr<RtcSession>(
        new RtcPlayerSession(std::move(cid), std::move(params), source, live_sources, std::move(deps)));
}

RtcSession::RtcSession(std::string cid, RtcSessionParams params, RtcSource* source, SourceManager* live_sources,
                       RtcSessionDeps deps)
    : cid_(std::move(cid)),
      params_(std::move(params)),
      deps_(std::move(deps)),
      peer_(params_.peer, this),
      source_(source),
      live_sources_(live_sources) {
    ClientInfo& i = info();
    i.kind = params_.publisher ? ClientKind::kRtcPublish : ClientKind::kRtcPlay;
    i.vhost = params_.vhost;
    i.app = params_.app;
    i.stream = params_.stream;
    i.tc_url = params_.tc_url;
}

// The roles' destructors detach (detach_role is theirs).
RtcSession::~RtcSession() = default;

Error RtcSession::start(utime_t now) {
    LiveSource* live = live_sources_->fetch_or_create(params_.vhost, params_.app, params_.stream);
    if (Error err = attach(live, now); err.failed()) return err;
    live_attached_ = true;
    if (Error err = peer_.start(now); err.failed()) return SRS_WRAP(err, "peer");
    return Error();
}

void RtcSession::detach() {
    if (!live_attached_) return;
    live_attached_ = false;
    detach_role(live_sources_->find(params_.vhost, params_.app, params_.stream));
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
    if (!dead_ && connected_) on_role_timer(now);
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

void RtcSession::send_feedback(const RtcFeedbackOutput& out) {
    for (size_t i = 0; i < out.size(); i++) {
        send_rtcp(out.rtcp(i));
        switch (out.kind(i)) {
            case RtcFeedbackKind::kNack: counters_.nack_out++; break;
            case RtcFeedbackKind::kPli: counters_.pli_out++; break;
            case RtcFeedbackKind::kTwcc: counters_.twcc_out++; break;
            case RtcFeedbackKind::kReceiverReport: counters_.rr_out++; break;
            case RtcFeedbackKind::kSenderReport: counters_.sr_out++; break;
        }
    }
}

void RtcSession::on_peer_address(const StunAddress& addr) {
    if (address_listener_) address_listener_->on_session_address(this, addr);
}

void RtcSession::on_peer_connected() {
    connected_ = true;
    srs_trace("RTC: session %s %s connected %s, %s/%s/%s, %s", cid_.c_str(), role_name(),
              peer_.remote_address().to_string().c_str(), params_.vhost.c_str(), params_.app.c_str(),
              params_.stream.c_str(), peer_.milestones().c_str());
    // The handshake's last flight goes before any media: a client drops
    // SRTP that arrives before its keys.
    flush_peer();
    on_connected();
}

void RtcSession::on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                              utime_t now) {
    (void)data, (void)size;
    counters_.rtcp_in++;
    for (const RtcpPacketRef& p : packets) {
        if (p.type == kRtcpBye) {
            close(now, SRS_ERR(kErrorRtcSessionClosed, "RTCP BYE from the peer"));
            return;
        }
        on_rtcp_packet(p, now);
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
              cid_.c_str(), role_name(), close_reason_.c_str(), (unsigned long long)counters_.rtp_in,
              (unsigned long long)counters_.rtp_out, (unsigned long long)counters_.nack_in,
              (unsigned long long)counters_.nack_out, (unsigned long long)counters_.retransmits,
              (unsigned long long)counters_.pli_in, (unsigned long long)counters_.pli_out,
              (unsigned long long)counters_.dropped);
}

}  // namespace srs
