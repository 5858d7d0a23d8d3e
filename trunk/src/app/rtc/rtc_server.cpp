#include "app/rtc/rtc_server.hpp"

#include "app/conn/client.hpp"
#include <unordered_set>

#include "app/config/config_keys.hpp"
#include "app/live/live_source.hpp"
#include "app/rtc/rtc_session_context.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"
#include "protocol/rtc/srtp.hpp"

namespace srs {

namespace {

constexpr utime_t kTick = 20 * kUsPerMs;
constexpr utime_t kStatsInterval = 10 * kUsPerSecond;

}  // namespace

RtcServer::RtcServer(LiveContext* ctx) : ctx_(ctx) { router_.set_listener(&verified_listener_); }

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
    signalling_.start(options, certificate_);
    ctx_->sources().set_bridge_factory(&bridge_factory_);
    std::string cands;
    for (const auto& ip : signalling_.detected_addresses(monotonic_us())) cands += (cands.empty() ? "" : ",") + ip;
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
    signalling_.stop();
}

Error RtcServer::create_session(const RtcSessionRequest& req, RtcSessionAnswer* answer) {
    if (!started_) return SRS_ERR(kErrorRtcDisabled, "WebRTC is disabled (rtc_server.enabled off)");
    // The place is taken before the offer is worked on, as that may yield
    // (a publisher's claim): offers in flight count against the bounds too.
    std::string address = rtc_pending_address_key(req.signal_ip);
    std::shared_ptr<const Config> config = ctx_->config();
    if (Error err = admit(*config, address, monotonic_us()); err.failed()) return err;
    std::unique_ptr<RtcSession> session;
    if (Error err = signalling_.create_session(req, answer, &session); err.failed()) {
        pending_.cancel(address);
        return err;
    }
    // Not a client until its first verified STUN binding (on_session_verified).
    pending_.start(session->cid(), address, monotonic_us());
    if (req.end_hook) {
        HookRequest h;
        h.client_id = req.hook_cid;
        h.ip = req.client_ip;
        h.vhost = req.vhost;
        h.app = req.app;
        h.stream = req.stream;
        h.param = req.param;
        h.tc_url = req.tc_url;
        end_hooks_[session.get()] = {req.publish ? HookAction::kUnpublish : HookAction::kStop, std::move(h)};
    }
    routes_.add(session.get());
    sessions_.push_back(std::move(session));
    if (!req.publish) check_player_reach(req, answer);
    return Error();
}

void RtcServer::check_player_reach(const RtcSessionRequest& req, RtcSessionAnswer* answer) {
    RtcPlayReach r = play_reach(req.vhost, req.app, req.stream);
    RtcSessionContext context(answer->cid);
    if (!r.play) {
        answer->no_media = r.reason;
        srs_warn("RTC: player %s of /%s/%s gets no media: %s; %s", answer->cid.c_str(), req.app.c_str(),
                 req.stream.c_str(), r.reason.c_str(), r.hint.c_str());
    } else if (r.waiting) {
        srs_trace("RTC: player %s of /%s/%s waits: %s", answer->cid.c_str(), req.app.c_str(), req.stream.c_str(),
                  r.reason.c_str());
    }
}

RtcPlayReach RtcServer::play_reach(const std::string& vhost, const std::string& app, const std::string& stream) {
    RtcPlayFacts f;
    f.server_enabled = started_;
    f.vhost = vhost;
    RtcVhostOptions options = read_rtc_vhost_options(*ctx_->config(), vhost);
    f.vhost_enabled = options.enabled;
    f.rtmp_to_rtc = options.rtmp_to_rtc;
    LiveSource* live = ctx_->sources().find(vhost, app, stream);
    f.published = live && live->publishing();
    f.bridged = live && live->bridged();
    const RtcSource* rtc = sources_.find(vhost, app, stream);
    f.rtc_publisher = rtc && rtc->has_publisher();
    if (f.published) {
        const Client* c = ctx_->clients().find(live->publisher_cid());
        if (c && c->info().kind == ClientKind::kEdgeIngest) {
            f.how = "pulled from the origin over " + c->protocol();
        } else if (c) {
            f.how = "published over " + c->protocol();
        }
    }
    return rtc_play_reach(f);
}

Error RtcServer::admit(const Config& config, const std::string& address, utime_t now) {
    pending_.set_limits(read_rtc_pending_limits(config));
    size_t max = static_cast<size_t>(config.get(keys::max_connections));
    Error err;
    if (ctx_->clients().size() >= max) {
        refused_full_++;
        err = SRS_ERR(kErrorExceedConnections, "max_connections=%zu reached", max);
    } else {
        err = pending_.reserve(address);
    }
    if (err.ok()) return err;
    // A flood is thousands of these a second: one line a second says it.
    refusals_unlogged_++;
    if (refusal_logged_at_ < 0 || now - refusal_logged_at_ >= kUsPerSecond) {
        srs_warn("RTC: refuse an offer signalled from %s with 503 (code %d): %s; %llu offers refused like this "
                 "since the last such line, %zu pending sessions in all",
                 address.c_str(), err.code(), err.summary().c_str(), (unsigned long long)refusals_unlogged_,
                 pending_.sessions());
        refusal_logged_at_ = now;
        refusals_unlogged_ = 0;
    }
    return err;
}

void RtcServer::expire_pending(utime_t now) {
    std::vector<std::string> expired = pending_.expired(now);
    if (expired.empty()) return;
    std::unordered_set<std::string> cids(expired.begin(), expired.end());
    for (auto& s : sessions_) {
        if (!cids.count(s->cid())) continue;
        RtcSessionContext context(s->cid());
        s->close(now, SRS_ERR(kErrorRtcPeerStunTimeout, "no verified STUN binding within its pending_timeout "
                                                        "(rtc_server.pending_timeout), freed"));
    }
}

void RtcServer::on_session_verified(RtcSession* session, utime_t now) {
    if (!pending_.verify(session->cid())) return;
    std::shared_ptr<const Config> config = ctx_->config();
    size_t max = static_cast<size_t>(config->get(keys::max_connections));
    if (ctx_->clients().size() >= max) {
        session->close(now, SRS_ERR(kErrorExceedConnections, "max_connections=%zu reached as its STUN binding "
                                                             "verified",
                                    max));
        return;
    }
    ctx_->clients().add(session);
}

Error RtcServer::delete_session(const std::string& session, const std::string& token) {
    bool closed = false;
    if (Error err = signalling_.delete_session(session, token, monotonic_us(), &closed); err.failed()) return err;
    // The close_notify leaves now, not with the next tick (the API's
    // coroutine never runs inside a listener's batch).
    if (closed) udp_.flush();
    return Error();
}

std::unique_ptr<LiveSourceBridge> RtcServer::create_live_bridge(LiveSource* source) {
    if (!started_) return nullptr;
    std::shared_ptr<const Config> config = ctx_->config();
    RtcVhostOptions vhost = read_rtc_vhost_options(*config, source->vhost());
    if (!vhost.enabled || !vhost.rtmp_to_rtc) {
        const RtcSource* waiting = sources_.find(source->vhost(), source->app(), source->stream());
        if (waiting && waiting->player_count() > 0) {
            RtcPlayReach r = play_reach(source->vhost(), source->app(), source->stream());
            size_t n = waiting->player_count();
            srs_warn("RTC: %s%s: %zu waiting WebRTC %s no media: %s; %s", source->vhost().c_str(),
                     source->url().c_str(), n, n == 1 ? "player gets" : "players get", r.reason.c_str(),
                     r.hint.c_str());
        }
        return nullptr;
    }
    RtcSource* rtc = sources_.fetch_or_create(source->vhost(), source->app(), source->stream());
    if (rtc->has_publisher()) return nullptr;  // cannot happen: a WebRTC publisher publishes the LiveSource too
    return std::unique_ptr<LiveSourceBridge>(new LiveToRtcBridge(source, rtc, &sources_, vhost, options_, [this] { udp_.flush(); }));
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
        expire_pending(now);
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
        pending_.forget(s->cid());
        ctx_->clients().remove(s, s->failed());  // nothing when it never verified: it was no client
        auto hook = end_hooks_.find(s);
        if (hook != end_hooks_.end()) {
            // Queued: this coroutine serves every session and never waits for a hook server.
            HookRequest& h = hook->second.second;
            if (LiveSource* live = ctx_->sources().find(h.vhost, h.app, h.stream)) h.stream_id = live->id();
            ctx_->hooks().post_async(hook->second.first, std::move(h));
            end_hooks_.erase(hook);
        }
        sessions_closed_++;
        sessions_[i] = std::move(sessions_.back());
        sessions_.pop_back();
        sources_.release(source);
    }
}

RtcServer::Stats RtcServer::stats() const {
    Stats s;
    s.sessions_created = signalling_.stats().sessions_created;
    s.sessions_refused = signalling_.stats().sessions_refused;
    s.sessions_closed = sessions_closed_;
    s.sessions = sessions_.size();
    s.pending = pending_.sessions();
    s.pending_refused = pending_.stats().refused + refused_full_;
    s.pending_expired = pending_.stats().expired;
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
    Stats st = stats();
    srs_trace("RTC: Server conns=%zu (publish %zu, play %zu), pending=(%zu,refused:%llu,expired:%llu), streams=%zu, "
              "rpkts=(%llu,rtp:%llu,stun:%llu,dtls:%llu,drop:%llu,recvmmsg:%llu), "
              "spkts=(%llu,sendmmsg:%llu,gso:%llu/%llu,drop:%llu)",
              sessions_.size(), pubs, sessions_.size() - pubs, st.pending, (unsigned long long)st.pending_refused,
              (unsigned long long)st.pending_expired, sources_.size(), (unsigned long long)rx.rx_packets,
              (unsigned long long)rx.rx_rtp, (unsigned long long)rx.rx_stun, (unsigned long long)rx.rx_dtls,
              (unsigned long long)rx.rx_dropped, (unsigned long long)io.recv_calls, (unsigned long long)io.send_packets,
              (unsigned long long)io.send_calls, (unsigned long long)io.gso_messages, (unsigned long long)io.gso_segments,
              (unsigned long long)io.send_drops);
}

}  // namespace srs
