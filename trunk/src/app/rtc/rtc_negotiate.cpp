#include "app/rtc/rtc_negotiate.hpp"

#include <arpa/inet.h>

#include <algorithm>

#include "app/rtc/rtc_source.hpp"
#include "core/strings.hpp"
#include "kernel/sdp/sdp.hpp"
#include "kernel/sdp/sdp_answer.hpp"

namespace srs {

namespace {

bool is_ip_literal(const std::string& s, bool* v6) {
    uint8_t buf[16];
    if (inet_pton(AF_INET, s.c_str(), buf) == 1) {
        *v6 = false;
        return true;
    }
    if (inet_pton(AF_INET6, s.c_str(), buf) == 1) {
        *v6 = true;
        return true;
    }
    return false;
}

bool is_loopback(const std::string& ip) {
    return ip.compare(0, 4, "127.") == 0 || ip == "::1" || ip == "localhost";
}

bool is_private_v4(const std::string& ip) {
    in_addr a;
    if (inet_pton(AF_INET, ip.c_str(), &a) != 1) return false;
    uint32_t v = ntohl(a.s_addr);
    return (v >> 24) == 10 || (v >> 20) == (172u << 4 | 1) || (v >> 16) == (192u << 8 | 168) ||
           (v >> 16) == (169u << 8 | 254) || (v >> 22) == (100u << 2 | 1);  // 100.64/10 (CGNAT)
}

void add_candidate(RtcCandidatePlan* plan, const RtcServerOptions& server, const std::string& ip, int udp_port) {
    for (const auto& c : plan->candidates) {
        if (c.ip == ip) return;
    }
    if (server.offer_udp) {
        SdpHostCandidate c;
        c.ip = ip;
        c.port = static_cast<uint16_t>(udp_port);
        c.transport = "udp";
        plan->candidates.push_back(c);
    }
    if (server.offer_tcp) {
        SdpHostCandidate c;
        c.ip = ip;
        c.port = static_cast<uint16_t>(server.tcp_port);
        c.transport = "tcp";
        plan->candidates.push_back(c);
    }
}

}  // namespace

std::string h264_profile_level_id(const std::string& fmtp) {
    std::vector<SdpFmtpParam> params;
    sdp_split_fmtp(fmtp, &params);
    for (const auto& p : params) {
        if (iequals(p.key, "profile-level-id")) {
            std::string v = p.value;
            for (char& c : v) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
            return v;
        }
    }
    return "";
}

RtcCandidatePlan rtc_plan_candidates(const RtcServerOptions& server, const RtcSessionRequest& req,
                                     const std::vector<std::string>& detected) {
    RtcCandidatePlan plan;
    if (!req.eip.empty()) {
        // ip or ip:port (the port a NAT maps to ours).
        std::string ip = req.eip;
        int port = server.udp_port;
        size_t colon = ip.rfind(':');
        bool v6 = false;
        if (colon != std::string::npos && ip.find(':') == colon) {
            int64_t p = 0;
            if (parse_integer(ip.substr(colon + 1), &p) && p > 0 && p < 65536) port = static_cast<int>(p);
            ip = ip.substr(0, colon);
        }
        if (is_ip_literal(ip, &v6)) add_candidate(&plan, server, ip, port);
    }
    bool v6 = false;
    if (server.candidate != "*") {
        add_candidate(&plan, server, server.candidate, server.udp_port);
        if (!is_ip_literal(server.candidate, &v6)) {
            plan.warnings.push_back("candidate " + server.candidate +
                                    " is not an IP address: browsers ignore host names in candidates");
        }
    } else if (server.auto_detect_ip) {
        for (const std::string& ip : detected) add_candidate(&plan, server, ip, server.udp_port);
    }
    if (server.api_as_candidates && !req.api_host.empty() && is_ip_literal(req.api_host, &v6) &&
        !(req.api_host == "0.0.0.0" || req.api_host == "::")) {
        add_candidate(&plan, server, req.api_host, server.udp_port);
    }
    if (plan.candidates.empty()) {
        plan.warnings.push_back("no candidate: set rtc_server.candidate to the address players reach this server at");
        return plan;
    }
    bool client_remote = !req.client_ip.empty() && !is_loopback(req.client_ip);
    bool client_public = client_remote && !is_private_v4(req.client_ip) && req.client_ip.find(':') == std::string::npos;
    bool any_usable = false;
    for (const auto& c : plan.candidates) {
        bool usable = !(client_remote && is_loopback(c.ip)) && !(client_public && is_private_v4(c.ip));
        any_usable = any_usable || usable;
    }
    if (!any_usable) {
        plan.warnings.push_back("client " + req.client_ip + " came from another host but every candidate (" +
                                plan.candidates[0].ip +
                                "...) is loopback or private: its media cannot reach us and players will see black; "
                                "set rtc_server.candidate (or $CANDIDATE) to this server's reachable address");
    }
    return plan;
}

Error rtc_negotiate(const RtcSessionRequest& req, const RtcServerOptions& server, const RtcVhostOptions& vhost,
                    const RtcSource* source, const std::vector<SdpHostCandidate>& candidates,
                    const std::string& local_ufrag, const std::string& local_pwd, const std::string& fingerprint,
                    RtcNegotiation* out) {
    SessionDescription offer;
    if (Error err = parse_sdp(req.offer, &offer); err.failed()) return SRS_WRAP(err, "parse offer");
    if (Error err = check_offer(offer); err.failed()) return SRS_WRAP(err, "check offer");

    SdpCodecPreference prefer;
    std::string codec = req.codec;
    for (char& c : codec) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    if (codec == "hevc") codec = "h265";
    const RtcTrackCodec* published_video = nullptr;
    if (source && source->has_publisher() && source->track(RtcMediaKind::kVideo).codec().present) {
        published_video = &source->track(RtcMediaKind::kVideo).codec();
    }
    if (!req.publish && published_video) {
        // A player gets what is published: its codec, and for H.264 its profile.
        prefer.video = {published_video->name};
        std::string profile = h264_profile_level_id(published_video->fmtp);
        if (!profile.empty()) prefer.h264_profile = profile;
    } else if (!codec.empty()) {
        if (codec != "h264" && codec != "h265" && codec != "vp8" && codec != "vp9" && codec != "av1") {
            return SRS_ERR(kErrorRtcInvalidParams, "codec=%s is not one of h264, h265 (hevc), vp8, vp9, av1",
                           req.codec.c_str());
        }
        prefer.video = {codec};
    }
    std::vector<SdpMediaChoice> choices;
    if (Error err = choose_codecs(offer, prefer, &choices); err.failed()) return SRS_WRAP(err, "codecs");

    RtcSessionParams& p = out->params;
    p.publisher = req.publish;
    p.vhost = req.vhost;
    p.app = req.app;
    p.stream = req.stream;
    p.client_ip = req.client_ip;
    p.tc_url = req.tc_url;
    p.secret = req.secret;
    p.vhost_options = vhost;

    const SdpMedia* first = nullptr;
    for (size_t i = 0; i < choices.size(); i++) {
        SdpMediaChoice& c = choices[i];
        if (!c.accepted) continue;
        const SdpMedia& m = offer.media[i];
        // The direction must fit: a publisher sends, a player receives.
        SdpDirection d = m.direction == SdpDirection::kNone ? SdpDirection::kSendRecv : m.direction;
        bool sends = d == SdpDirection::kSendRecv || d == SdpDirection::kSendOnly;
        bool receives = d == SdpDirection::kSendRecv || d == SdpDirection::kRecvOnly;
        if ((req.publish && !sends) || (!req.publish && !receives)) {
            c.accepted = false;  // answered with port 0, like any section we do not take
            continue;
        }
        RtcSessionTrack* t = c.kind == "audio" ? &p.audio : c.kind == "video" ? &p.video : nullptr;
        if (!t || t->present) {
            c.accepted = false;  // a second audio or video section: one of each is served
            continue;
        }
        if (!first) first = &m;
        // Retransmissions come as the original packets (RFC 4585), not RTX.
        c.codec.rtx_pt = -1;
        std::vector<std::string> fb;
        for (const std::string& f : c.codec.rtcp_fb) {
            if (f == "transport-cc" && (!req.publish || !vhost.twcc)) continue;
            if (f == "goog-remb") continue;
            if ((f == "nack") && !vhost.nack) continue;
            fb.push_back(f);
        }
        c.codec.rtcp_fb = fb;
        t->nack = std::find(fb.begin(), fb.end(), "nack") != fb.end();
        t->present = true;
        t->pt = c.codec.pt;
        t->codec = c.codec.name;
        t->clock_rate = c.codec.clock_rate;
        t->fmtp = c.codec.fmtp;
        if (req.publish) {
            std::vector<SdpExtmap> keep;
            for (const SdpExtmap& e : c.extmaps) {
                if (e.uri == kSdpExtTransportCc) {
                    if (!vhost.twcc) continue;
                    t->twcc_ext = e.id;
                }
                keep.push_back(e);
            }
            c.extmaps = keep;
            // The media SSRC: the first a=ssrc that is not an RTX/FEC partner.
            std::vector<uint32_t> secondary;
            for (const SdpSsrcGroup& g : m.ssrc_groups) {
                for (size_t j = 1; j < g.ssrcs.size(); j++) secondary.push_back(g.ssrcs[j]);
            }
            for (const SdpSsrc& s : m.ssrcs) {
                if (std::find(secondary.begin(), secondary.end(), s.ssrc) == secondary.end()) {
                    t->remote_ssrc = s.ssrc;
                    break;
                }
            }
        } else {
            c.extmaps.clear();  // players get packets without header extensions
        }
    }
    if (!first) {
        return SRS_ERR(kErrorSdpNoMedia, "no audio or video section to %s", req.publish ? "receive (the offer must send)"
                                                                                          : "send (the offer must receive)");
    }
    if (req.publish && p.video.present && published_video == nullptr) {
        // nothing: the publisher defines the stream's codec
    }

    const SdpFingerprint& fp = offer.fingerprint_of(*first);
    if (fp.algorithm != "sha-256") {
        return SRS_ERR(kErrorSdpFingerprint, "a=fingerprint:%s: only sha-256 fingerprints are checked here",
                       fp.algorithm.c_str());
    }

    SdpAnswerOptions o;
    o.ice_ufrag = local_ufrag;
    o.ice_pwd = local_pwd;
    o.fingerprint.algorithm = "sha-256";
    o.fingerprint.value = fingerprint;
    o.candidates = candidates;
    o.publisher = req.publish;
    o.session_id = 0;
    for (char ch : local_ufrag) o.session_id = o.session_id * 31 + static_cast<unsigned char>(ch);
    o.cname = local_ufrag;
    o.stream_id = req.app + "-" + req.stream;
    if (!req.publish) {
        o.audio.ssrc = source ? source->track(RtcMediaKind::kAudio).ssrc() : 0;
        o.audio.track_id = "audio";
        o.video.ssrc = source ? source->track(RtcMediaKind::kVideo).ssrc() : 0;
        o.video.track_id = "video";
    }
    SessionDescription answer;
    if (Error err = build_answer(offer, choices, o, &answer); err.failed()) return SRS_WRAP(err, "answer");

    // dtls_role active: take the client role when the offer lets us choose.
    SdpSetup offered = offer.setup_of(*first);
    bool we_are_client = offered == SdpSetup::kPassive || (offered == SdpSetup::kActpass && vhost.dtls_active);
    if (we_are_client) {
        for (auto& m : answer.media) {
            if (m.port != 0) m.setup = SdpSetup::kActive;
        }
    }
    p.peer.local_ufrag = local_ufrag;
    p.peer.local_pwd = local_pwd;
    p.peer.remote_ufrag = offer.ice_ufrag_of(*first);
    p.peer.remote_pwd = offer.ice_pwd_of(*first);
    p.peer.remote_fingerprint = fp.value;
    p.peer.dtls_role = we_are_client ? DtlsRole::kClient : DtlsRole::kServer;
    p.peer.encrypt = server.encrypt && req.encrypt;
    p.peer.stun_timeout = vhost.stun_timeout;
    out->answer_sdp = write_sdp(answer);
    return Error();
}

std::string rtc_nack_summary(const RtcSessionParams& params) {
    std::string off;
    for (const RtcSessionTrack* t : {&params.audio, &params.video}) {
        if (!t->present || t->nack) continue;
        if (!off.empty()) off += " and ";
        off += t == &params.audio ? "audio" : "video";
    }
    if (off.empty()) return "on";
    const char* why = params.vhost_options.nack ? "the offer has no a=rtcp-fb nack" : "vhost rtc.nack off";
    return off + " off (" + why + ": no retransmissions" + (params.publisher ? " asked" : " sent") + ")";
}

}  // namespace srs
