#include "app/rtc/rtc_signalling.hpp"

#include "app/live/live_source.hpp"
#include "app/rtc/rtc_random.hpp"
#include "app/rtc/rtc_session_context.hpp"
#include "app/rtc/rtc_session_deps.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"
#include "io/udp_batch.hpp"

namespace srs {

namespace {

// How often detected interface addresses are looked up again.
constexpr utime_t kDetectInterval = 60 * kUsPerSecond;

}  // namespace

void RtcSignalling::start(const RtcServerOptions& options, std::shared_ptr<DtlsCertificate> certificate) {
    options_ = options;
    certificate_ = std::move(certificate);
    started_ = true;
}

// The certificate stays: a create_session waiting on the registry still uses it.
void RtcSignalling::stop() { started_ = false; }

const std::vector<std::string>& RtcSignalling::detected_addresses(utime_t now) {
    if (detected_at_ < 0 || now - detected_at_ >= kDetectInterval) {
        detected_ = detect_interface_addresses(options_.ipv4, options_.ipv6);
        detected_at_ = now;
    }
    return detected_;
}

Error RtcSignalling::claim_for_publish(const RtcSessionRequest& req) {
    Error err = ctx_->stream_claims().claim(req.vhost, req.app, req.stream);
    if (err.ok()) return err;
    // The API answers WebRTC's own busy code whatever the registry said.
    Error busy = SRS_ERR(kErrorRtcSourceBusy, "stream /%s/%s is busy: %s", req.app.c_str(), req.stream.c_str(),
                         err.summary().c_str());
    err.ignore();
    return busy;
}

Error RtcSignalling::create_session(const RtcSessionRequest& req, RtcSessionAnswer* answer,
                                    std::unique_ptr<RtcSession>* session_out) {
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
    RtcSource* existing = sources_->find(req.vhost, req.app, req.stream);
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
    RtcCandidatePlan plan = rtc_plan_candidates(options_, req, detected_addresses(monotonic_us()));
    for (const auto& w : plan.warnings) srs_warn("RTC: %s", w.c_str());

    std::string ufrag;
    do {
        ufrag = rtc_random_string(8);
    } while (routes_->has_ufrag(ufrag));
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
        source = sources_->adopt(std::unique_ptr<RtcSource>(new RtcSource(std::move(probe))));
    }
    neg.params.peer.certificate = certificate_;
    neg.params.peer.software = "srs";
    neg.params.token = rtc_random_string(16);
    std::string cid = new_context_id();
    RtcSessionContext context(cid);
    std::unique_ptr<RtcSession> session =
        make_rtc_session(cid, std::move(neg.params), source, &ctx_->sources(), rtc_system_session_deps());
    if (Error err = session->start(monotonic_us()); err.failed()) {
        session->detach();
        sources_->release(source);
        stats_.sessions_refused++;
        return err;
    }
    claim_guard.keep = true;
    answer->sdp = neg.answer_sdp;
    answer->session_id = ufrag + ":" + session->params().peer.remote_ufrag;
    answer->token = session->params().token;
    answer->cid = cid;
    stats_.sessions_created++;
    srs_trace("RTC: session %s %s /%s/%s from %s, ufrag %s, candidates %zu, encrypt %s, nack %s", cid.c_str(),
              req.publish ? "publish" : "play", req.app.c_str(), req.stream.c_str(), req.client_ip.c_str(),
              ufrag.c_str(), plan.candidates.size(), session->params().peer.encrypt ? "on" : "off",
              rtc_nack_summary(session->params()).c_str());
    *session_out = std::move(session);
    return Error();
}

Error RtcSignalling::delete_session(const std::string& session, const std::string& token, utime_t now,
                                    bool* closed) {
    *closed = false;
    std::string ufrag = session.substr(0, session.find(':'));
    RtcSession* s = routes_->find_by_ufrag(ufrag);
    if (!s) {
        if (routes_->ended_recently(ufrag, token, now)) return Error();  // already over
        return SRS_ERR(kErrorRtcNoSession, "no session %s", session.c_str());
    }
    if (s->dead() && s->params().token == token) return Error();
    if (s->params().token != token) {
        return SRS_ERR(kErrorRtcNoSession, "session %s: the token does not match", session.c_str());
    }
    RtcSessionContext context(s->cid());
    s->close(now, SRS_ERR(kErrorRtcSessionClosed, "DELETE of its resource"));
    *closed = true;
    return Error();
}

}  // namespace srs
