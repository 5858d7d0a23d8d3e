#include "app/rtc/rtc_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "app/live/live_source.hpp"
#include "app/rtc/rtc_random.hpp"
#include "app/rtc/rtc_session_context.hpp"
#include "app/rtc/rtc_tcp_io.hpp"
#include "app/rtc/rtc_udp_io.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"
#include "kernel/demux.hpp"
#include "kernel/stun/stun.hpp"
#include "protocol/rtc/srtp.hpp"

namespace srs {

namespace {

constexpr utime_t kTick = 20 * kUsPerMs;
constexpr utime_t kStatsInterval = 10 * kUsPerSecond;
// How often detected interface addresses are looked up again.
constexpr utime_t kDetectInterval = 60 * kUsPerSecond;

}  // namespace

RtcServer::RtcServer(LiveContext* ctx) : ctx_(ctx) {}

RtcServer::~RtcServer() { stop(); }

Error RtcServer::start(const RtcServerOptions& options) {
    options_ = options;
    if (!options.enabled) return Error();
    if (Error err = srtp_library_init(); err.failed()) return SRS_WRAP(err, "srtp");
    DtlsKeyType type = options.ecdsa ? DtlsKeyType::kEcdsaP256 : DtlsKeyType::kRsa2048;
    if (Error err = DtlsCertificate::create(type, &certificate_); err.failed()) return SRS_WRAP(err, "certificate");
    if (Error err = udp_.start(options); err.failed()) return err;
    if (Error err = tcp_.start(options); err.failed()) return err;
    timer_.reset(new Coroutine("rtc-timer", this));
    if (Error err = timer_->start(); err.failed()) return SRS_WRAP(err, "rtc timer");
    started_ = true;
    ctx_->sources().set_bridge_factory(&bridge_factory_);
    detected_ = detected_addresses();
    std::string cands;
    for (const auto& ip : detected_) cands += (cands.empty() ? "" : ",") + ip;
    size_t sockets = udp_.socket_count();
    const char* gso = udp_.gso() ? "on" : options.gso ? "off (not in this kernel)" : "off";
    srs_trace("RTC: server listen udp :%d (%zu socket%s), candidate %s%s%s, dtls %s, srtp %s, gso %s", options.udp_port,
              sockets, sockets > 1 ? "s" : "", options.candidate.c_str(), options.candidate == "*" ? " -> " : "",
              options.candidate == "*" ? cands.c_str() : "", options.ecdsa ? "ecdsa" : "rsa",
              options.encrypt ? "on" : "off", gso);
    return Error();
}

void RtcServer::stop() {
    if (started_) ctx_->sources().set_bridge_factory(nullptr);  // bridges go before the sources they feed
    tcp_.close();
    if (timer_) timer_->stop();
    udp_.stop();
    utime_t now = monotonic_us();
    for (auto& s : sessions_) s->close(now, SRS_ERR(kErrorRtcSessionClosed, "server stops"));
    udp_.flush();
    tcp_.stop_connections();
    tcp_.reap(sessions_);
    reap();
    udp_.close();
    started_ = false;
}

std::vector<std::string> RtcServer::detected_addresses() {
    utime_t now = monotonic_us();
    if (detected_at_ < 0 || now - detected_at_ >= kDetectInterval) {
        detected_ = detect_interface_addresses(options_.ipv4, options_.ipv6);
        detected_at_ = now;
    }
    return detected_;
}

Error RtcServer::claim_for_publish(const RtcSessionRequest& req) {
    Error err = ctx_->stream_claims().claim(req.vhost, req.app, req.stream);
    if (err.ok()) return err;
    // The API answers WebRTC's own busy code whatever the registry said.
    Error busy = SRS_ERR(kErrorRtcSourceBusy, "stream /%s/%s is busy: %s", req.app.c_str(), req.stream.c_str(),
                         err.summary().c_str());
    err.ignore();
    return busy;
}

Error RtcServer::create_session(const RtcSessionRequest& req, RtcSessionAnswer* answer) {
    if (!started_) {
        stats_.sessions_refused++;
        return SRS_ERR(kErrorRtcDisabled, "WebRTC is disabled (rtc_server.enabled off)");
    }
    std::shared_ptr<const Config> config = ctx_->config();
    RtcVhostOptions vhost = read_rtc_vhost_options(*config, req.vhost);
    if (!vhost.enabled) {
        stats_.sessions_refused++;
        return SRS_ERR(kErrorRtcDisabled, "WebRTC is disabled for vhost %s (vhost.rtc.enabled off)", req.vhost.c_str());
    }
    if (req.publish) {
        // Claimed across the cluster before anything else, as it may yield
        // (a Redis round trip): pointers taken before it could go stale.
        if (Error err = claim_for_publish(req); err.failed()) {
            stats_.sessions_refused++;
            return err;
        }
    }
    RtcSource* existing = sources_.find(req.vhost, req.app, req.stream);
    if (req.publish) {
        LiveSource* live = ctx_->sources().find(req.vhost, req.app, req.stream);
        if ((existing && existing->has_publisher()) || (live && live->publishing())) {
            stats_.sessions_refused++;
            return SRS_ERR(kErrorRtcSourceBusy, "stream /%s/%s is busy", req.app.c_str(), req.stream.c_str());
        }
    }
    // Gives the claim up if the session does not start (unless another publisher of ours holds the stream).
    struct ClaimGuard {
        StreamClaims* claims;
        const RtcSessionRequest& req;
        bool keep = false;
        ~ClaimGuard() {
            if (claims && !keep) claims->unclaim(req.vhost, req.app, req.stream);
        }
    } claim_guard{req.publish ? &ctx_->stream_claims() : nullptr, req};
    RtcCandidatePlan plan = rtc_plan_candidates(options_, req, detected_addresses());
    for (const auto& w : plan.warnings) srs_warn("RTC: %s", w.c_str());

    std::string ufrag;
    do {
        ufrag = rtc_random_string(8);
    } while (routes_.has_ufrag(ufrag));
    std::string pwd = rtc_random_string(32);
    // Negotiate against the source's current tracks without creating it: a
    // refused offer leaves nothing behind.
    RtcNegotiation neg;
    RtcSource probe(req.vhost, req.app, req.stream);
    const RtcSource* view = existing;
    if (!view) view = &probe;
    if (Error err = rtc_negotiate(req, options_, vhost, view, plan.candidates, ufrag, pwd,
                                  certificate_->fingerprint(), &neg);
        err.failed()) {
        stats_.sessions_refused++;
        return err;
    }
    RtcSource* source = existing;
    if (!source) {
        // The answer named the probe's SSRCs: keep them by keeping the probe.
        source = sources_.adopt(std::unique_ptr<RtcSource>(new RtcSource(std::move(probe))));
    }
    neg.params.peer.certificate = certificate_;
    neg.params.peer.software = "srs";
    neg.params.token = rtc_random_string(16);
    std::string cid = new_context_id();
    RtcSessionContext context(cid);
    std::unique_ptr<RtcSession> session(new RtcSession(cid, std::move(neg.params), source, &ctx_->sources()));
    if (Error err = session->start(monotonic_us()); err.failed()) {
        session->detach();
        sources_.release(source);
        stats_.sessions_refused++;
        return err;
    }
    claim_guard.keep = true;
    answer->sdp = neg.answer_sdp;
    answer->session_id = ufrag + ":" + session->params().peer.remote_ufrag;
    answer->token = session->params().token;
    answer->cid = cid;
    routes_.add(session.get());
    ctx_->clients().add(session.get());
    stats_.sessions_created++;
    srs_trace("RTC: session %s %s /%s/%s from %s, ufrag %s, candidates %zu, encrypt %s", cid.c_str(),
              req.publish ? "publish" : "play", req.app.c_str(), req.stream.c_str(), req.client_ip.c_str(),
              ufrag.c_str(), plan.candidates.size(), session->params().peer.encrypt ? "on" : "off");
    sessions_.push_back(std::move(session));
    return Error();
}

std::unique_ptr<LiveSourceBridge> RtcServer::create_live_bridge(LiveSource* source) {
    if (!started_) return nullptr;
    std::shared_ptr<const Config> config = ctx_->config();
    RtcVhostOptions vhost = read_rtc_vhost_options(*config, source->vhost());
    if (!vhost.enabled || !vhost.rtmp_to_rtc) return nullptr;
    RtcSource* rtc = sources_.fetch_or_create(source->vhost(), source->app(), source->stream());
    if (rtc->has_publisher()) return nullptr;  // cannot happen: a WebRTC publisher publishes the LiveSource too
    return std::unique_ptr<LiveSourceBridge>(new LiveToRtcBridge(source, rtc, &sources_, vhost, options_));
}

Error RtcServer::delete_session(const std::string& session, const std::string& token) {
    std::string ufrag = session.substr(0, session.find(':'));
    utime_t now = monotonic_us();
    RtcSession* s = routes_.find_by_ufrag(ufrag);
    if (!s) {
        if (routes_.ended_recently(ufrag, token, now)) return Error();  // already over
        return SRS_ERR(kErrorRtcNoSession, "no session %s", session.c_str());
    }
    if (s->dead() && s->params().token == token) return Error();
    if (s->params().token != token) {
        return SRS_ERR(kErrorRtcNoSession, "session %s: the token does not match", session.c_str());
    }
    RtcSessionContext context(s->cid());
    s->close(now, SRS_ERR(kErrorRtcSessionClosed, "DELETE of its resource"));
    // The close_notify leaves now, not with the next tick (the API's
    // coroutine never runs inside a listener's batch).
    udp_.flush();
    return Error();
}

Error RtcServer::cycle() {
    while (true) {
        if (Error err = timer_->pull(); err.failed()) return err;
        if (Error err = sleep_us(kTick); err.failed()) return err;
        utime_t now = monotonic_us();
        tick_++;
        for (size_t i = 0; i < sessions_.size(); i++) {
            RtcSession* s = sessions_[i].get();
            // Publishers every tick (NACK, TWCC); players every 5th, staggered.
            if (s->publisher() || (tick_ + i) % 5 == 0 || s->dead()) {
                RtcSessionContext context(s->cid());
                s->on_timer(now);
            }
        }
        tcp_.reap(sessions_);
        reap();
        udp_.flush();
        if (now >= next_stats_) {
            routes_.forget_ended(now);
            if (next_stats_ != 0) log_stats(now);
            next_stats_ = now + kStatsInterval;
        }
    }
}

void RtcServer::reap() {
    for (size_t i = 0; i < sessions_.size();) {
        RtcSession* s = sessions_[i].get();
        if (!s->dead()) {
            i++;
            continue;
        }
        s->detach();
        RtcSource* source = s->source();
        routes_.remove(s, monotonic_us());
        ctx_->clients().remove(s, s->failed());
        stats_.sessions_closed++;
        sessions_[i] = std::move(sessions_.back());
        sessions_.pop_back();
        sources_.release(source);
    }
}

RtcServer::Stats RtcServer::stats() const {
    Stats s = stats_;
    const RtcDatagramRouter::Stats& rx = router_.stats();
    s.rx_packets = rx.rx_packets;
    s.rx_stun = rx.rx_stun;
    s.rx_dtls = rx.rx_dtls;
    s.rx_rtp = rx.rx_rtp;
    s.rx_unknown_addr = rx.rx_unknown_addr;
    s.rx_dropped = rx.rx_dropped;
    return s;
}

void RtcServer::log_stats(utime_t now) {
    (void)now;
    UdpBatchSocket::Stats io = udp_.totals();
    const RtcDatagramRouter::Stats& rx = router_.stats();
    size_t pubs = 0;
    for (auto& s : sessions_) pubs += s->publisher() ? 1 : 0;
    srs_trace("RTC: Server conns=%zu (publish %zu, play %zu), streams=%zu, rpkts=(%llu,rtp:%llu,stun:%llu,dtls:%llu,"
              "drop:%llu,recvmmsg:%llu), spkts=(%llu,sendmmsg:%llu,gso:%llu/%llu,drop:%llu)",
              sessions_.size(), pubs, sessions_.size() - pubs, sources_.size(), (unsigned long long)rx.rx_packets,
              (unsigned long long)rx.rx_rtp, (unsigned long long)rx.rx_stun, (unsigned long long)rx.rx_dtls,
              (unsigned long long)rx.rx_dropped, (unsigned long long)io.recv_calls, (unsigned long long)io.send_packets,
              (unsigned long long)io.send_calls, (unsigned long long)io.gso_messages, (unsigned long long)io.gso_segments,
              (unsigned long long)io.send_drops);
}

}  // namespace srs
