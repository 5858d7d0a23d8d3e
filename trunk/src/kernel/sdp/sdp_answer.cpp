// Offer checks, codec choice and the answer (see sdp_answer.hpp).
#include "kernel/sdp/sdp_answer.hpp"

#include <string>

#include "core/strings.hpp"

namespace srs {

const char* const kSdpExtTransportCc = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01";
const char* const kSdpExtAbsSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time";
const char* const kSdpExtSdesMid = "urn:ietf:params:rtp-hdrext:sdes:mid";

namespace {

bool is_av(const SdpMedia& m) { return (m.kind == "audio" || m.kind == "video") && m.port != 0; }

// ice-char = ALPHA / DIGIT / "+" / "/"  (RFC 8839 §5.4)
bool ice_chars(const std::string& s, size_t min, size_t max) {
    if (s.size() < min || s.size() > max) return false;
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_ascii_digit(c) || c == '+' || c == '/';
        if (!ok) return false;
    }
    return true;
}

// The digest length of a hash-func of RFC 8122 §5, 0 when unknown.
size_t digest_bytes(const std::string& algorithm) {
    if (algorithm == "sha-1") return 20;
    if (algorithm == "sha-224") return 28;
    if (algorithm == "sha-256") return 32;
    if (algorithm == "sha-384") return 48;
    if (algorithm == "sha-512") return 64;
    return 0;
}

// fingerprint = 2UHEX *(":" 2UHEX) with exactly `bytes` pairs (lower case accepted too).
bool hex_pairs(const std::string& v, size_t bytes) {
    if (v.size() != bytes * 3 - 1) return false;
    for (size_t i = 0; i < v.size(); i++) {
        if (i % 3 == 2) {
            if (v[i] != ':') return false;
        } else if (hex_digit_value(v[i]) < 0) {
            return false;
        }
    }
    return true;
}

bool in_formats(const SdpMedia& m, int pt) {
    std::string s = std::to_string(pt);
    for (const std::string& f : m.formats) {
        if (f == s) return true;
    }
    return false;
}

const char* rtp_name_of(const std::string& pref) {
    if (iequals(pref, "h264")) return "H264";
    if (iequals(pref, "h265")) return "H265";
    if (iequals(pref, "vp8")) return "VP8";
    if (iequals(pref, "vp9")) return "VP9";
    if (iequals(pref, "av1")) return "AV1";
    return nullptr;
}

const SdpCodec* pick_video(const SdpMedia& m, const SdpCodecPreference& prefer) {
    for (const std::string& p : prefer.video) {
        const char* name = rtp_name_of(p);
        if (!name) continue;
        const SdpCodec* first = nullptr;
        const SdpCodec* same_family = nullptr;
        // profile_idc 66 (Baseline) has no B-frames; Main, High and the rest
        // may: a player of a High stream is better served by Main than by
        // Baseline (the server drops B-frames for a Baseline player).
        auto baseline = [](const std::string& plid) { return plid.size() >= 2 && iequals(plid.substr(0, 2), "42"); };
        for (const SdpCodec& c : m.codecs) {
            if (!iequals(c.name, name) || c.clock_rate != 90000 || !in_formats(m, c.pt)) continue;
            if (iequals(name, "H264")) {
                const std::string* mode = c.param("packetization-mode");
                if (!mode || *mode != "1") continue;
                const std::string* profile = c.param("profile-level-id");
                if (profile && iequals(*profile, prefer.h264_profile)) return &c;
                if (profile && !prefer.h264_profile.empty() && !same_family &&
                    baseline(*profile) == baseline(prefer.h264_profile)) {
                    same_family = &c;
                }
            }
            if (!first) first = &c;
        }
        if (same_family) return same_family;
        if (first) return first;
    }
    return nullptr;
}

const SdpCodec* pick_audio(const SdpMedia& m) {
    for (const SdpCodec& c : m.codecs) {
        if (iequals(c.name, "opus") && c.clock_rate == 48000 && c.channels == 2 && in_formats(m, c.pt)) return &c;
    }
    return nullptr;
}

bool supported_fb(const std::string& fb) {
    return fb == "nack" || fb == "nack pli" || fb == "transport-cc" || fb == "goog-remb";
}

bool supported_ext(const std::string& uri) {
    return uri == kSdpExtTransportCc || uri == kSdpExtAbsSendTime || uri == kSdpExtSdesMid;
}

std::string offered_names(const SdpMedia& m) {
    std::string s;
    for (const SdpCodec& c : m.codecs) {
        if (c.name.empty()) continue;
        if (!s.empty()) s += ' ';
        s += c.name + "/" + std::to_string(c.clock_rate);
        if (const std::string* mode = c.param("packetization-mode")) s += "(mode " + *mode + ")";
    }
    return s.empty() ? "nothing" : s;
}

void add_fb(std::vector<std::string>* out, const std::string& fb) {
    if (!supported_fb(fb)) return;
    for (const std::string& f : *out) {
        if (f == fb) return;
    }
    out->push_back(fb);
}

}  // namespace

Error check_offer(const SessionDescription& offer) {
    if (offer.media.empty()) return SRS_ERR(kErrorSdpNoMedia, "the offer has no m= section");
    size_t av = 0;
    for (size_t i = 0; i < offer.media.size(); i++) {
        const SdpMedia& m = offer.media[i];
        if (!is_av(m)) continue;
        av++;
        const char* kind = m.kind.c_str();
        if (m.mid.empty()) return SRS_ERR(kErrorSdpMissingLine, "%s section %zu has no a=mid", kind, i);
        for (size_t j = 0; j < i; j++) {
            if (offer.media[j].mid == m.mid) return SRS_ERR(kErrorSdpSyntax, "mid %s used twice", m.mid.c_str());
        }
        const std::string& ufrag = offer.ice_ufrag_of(m);
        const std::string& pwd = offer.ice_pwd_of(m);
        if (ufrag.empty()) return SRS_ERR(kErrorSdpIce, "%s section %zu (mid %s) has no a=ice-ufrag", kind, i, m.mid.c_str());
        if (pwd.empty()) return SRS_ERR(kErrorSdpIce, "%s section %zu (mid %s) has no a=ice-pwd", kind, i, m.mid.c_str());
        if (!ice_chars(ufrag, 4, 256)) return SRS_ERR(kErrorSdpIce, "ice-ufrag is not 4..256 ice-chars");
        if (!ice_chars(pwd, 22, 256)) return SRS_ERR(kErrorSdpIce, "ice-pwd is not 22..256 ice-chars");
        const SdpFingerprint& f = offer.fingerprint_of(m);
        if (f.empty()) return SRS_ERR(kErrorSdpFingerprint, "%s section %zu (mid %s) has no a=fingerprint", kind, i, m.mid.c_str());
        size_t bytes = digest_bytes(f.algorithm);
        if (!bytes) return SRS_ERR(kErrorSdpFingerprint, "fingerprint hash \"%s\" is not sha-1/224/256/384/512", f.algorithm.c_str());
        if (!hex_pairs(f.value, bytes)) {
            return SRS_ERR(kErrorSdpFingerprint, "%s fingerprint is not %zu colon-separated hex bytes", f.algorithm.c_str(), bytes);
        }
        if (offer.setup_of(m) == SdpSetup::kInvalid) {
            return SRS_ERR(kErrorSdpSetup, "a=setup:%s is not actpass, active or passive", offer.setup_text_of(m).c_str());
        }
    }
    if (!av) return SRS_ERR(kErrorSdpNoMedia, "the offer has no audio or video section");
    return Error();
}

Error choose_codecs(const SessionDescription& offer, const SdpCodecPreference& prefer, std::vector<SdpMediaChoice>* out) {
    out->clear();
    size_t accepted = 0;
    for (size_t i = 0; i < offer.media.size(); i++) {
        const SdpMedia& m = offer.media[i];
        SdpMediaChoice ch;
        ch.kind = m.kind;
        ch.mid = m.mid;
        if (is_av(m)) {
            const SdpCodec* c = m.kind == "audio" ? pick_audio(m) : pick_video(m, prefer);
            if (!c) {
                std::string wants = "opus/48000/2";
                if (m.kind == "video") {
                    wants.clear();
                    for (const std::string& p : prefer.video) wants += (wants.empty() ? "" : "|") + p;
                }
                return SRS_ERR(kErrorSdpNoCodec, "%s section %zu (mid %s): no usable codec; the server takes %s, the offer has %s",
                               m.kind.c_str(), i, m.mid.c_str(), wants.c_str(), offered_names(m).c_str());
            }
            SdpChosenCodec& k = ch.codec;
            k.pt = c->pt;
            k.name = c->name;
            k.clock_rate = c->clock_rate;
            k.channels = c->channels;
            k.fmtp = c->fmtp;
            for (const std::string& fb : c->rtcp_fb) add_fb(&k.rtcp_fb, fb);
            for (const std::string& fb : m.rtcp_fb_all) add_fb(&k.rtcp_fb, fb);
            std::string apt = std::to_string(c->pt);
            for (const SdpCodec& r : m.codecs) {
                const std::string* a = r.param("apt");
                if (iequals(r.name, "rtx") && a && *a == apt && in_formats(m, r.pt)) {
                    k.rtx_pt = r.pt;
                    k.rtx_clock_rate = r.clock_rate;
                    break;
                }
            }
            for (const SdpExtmap& e : m.extmaps) {
                if (supported_ext(e.uri)) ch.extmaps.push_back(e);
            }
            ch.accepted = true;
            accepted++;
        }
        out->push_back(std::move(ch));
    }
    if (!accepted) return SRS_ERR(kErrorSdpNoMedia, "the offer has no audio or video section to accept");
    return Error();
}

namespace {

SdpCandidate host_candidate(const SdpHostCandidate& h, size_t index) {
    SdpCandidate c;
    c.foundation = std::to_string(index + 1);
    c.component = 1;
    c.transport = h.transport;
    // priority = 2^24 * type preference + 2^8 * local preference + (256 - component)  (RFC 8445 §5.1.2.1)
    uint32_t type_pref = h.transport == "udp" ? 126 : 100;
    uint32_t local_pref = 65535 - static_cast<uint32_t>(index);
    c.priority = (type_pref << 24) | (local_pref << 8) | (256 - 1);
    c.address = h.ip;
    c.port = h.port;
    c.type = "host";
    if (h.transport == "tcp") c.extra = "tcptype passive";
    return c;
}

}  // namespace

Error build_answer(const SessionDescription& offer, const std::vector<SdpMediaChoice>& choice,
                   const SdpAnswerOptions& o, SessionDescription* answer) {
    if (choice.size() != offer.media.size()) {
        return SRS_ERR(kErrorSdpAnswer, "%zu choices for %zu offered sections", choice.size(), offer.media.size());
    }
    if (!ice_chars(o.ice_ufrag, 4, 256) || !ice_chars(o.ice_pwd, 22, 256)) {
        return SRS_ERR(kErrorSdpAnswer, "the server's ice-ufrag/pwd are not 4+/22+ ice-chars");
    }
    size_t bytes = digest_bytes(o.fingerprint.algorithm);
    if (!bytes || !hex_pairs(o.fingerprint.value, bytes)) return SRS_ERR(kErrorSdpAnswer, "the server's fingerprint is malformed");
    for (const SdpHostCandidate& h : o.candidates) {
        if ((h.transport != "udp" && h.transport != "tcp") || h.ip.empty() || h.port == 0 ||
            h.ip.find_first_of(" \t") != std::string::npos) {
            return SRS_ERR(kErrorSdpAnswer, "candidate %s:%u/%s is unusable", h.ip.c_str(), h.port, h.transport.c_str());
        }
    }

    SessionDescription& a = *answer;
    a = SessionDescription();
    a.origin_username = "-";
    a.origin_session_id = std::to_string(o.session_id);
    a.origin_session_version = "2";
    a.origin_address = "IN IP4 127.0.0.1";
    a.session_name = "-";
    a.timing = "0 0";
    a.ice_lite = true;
    a.extmap_allow_mixed = offer.extmap_allow_mixed;
    a.msid_semantic = o.publisher || o.stream_id.empty() ? "WMS" : "WMS " + o.stream_id;

    for (size_t i = 0; i < offer.media.size(); i++) {
        const SdpMedia& om = offer.media[i];
        const SdpMediaChoice& ch = choice[i];
        SdpMedia m;
        m.kind = om.kind;
        m.proto = om.proto;
        m.mid = om.mid;
        if (!ch.accepted) {
            m.port = 0;  // rejected (RFC 8866 §5.14; JSEP §5.3.1)
            m.formats = om.formats;
            a.media.push_back(std::move(m));
            continue;
        }
        if (ch.kind != om.kind || ch.mid != om.mid || ch.codec.pt < 0) {
            return SRS_ERR(kErrorSdpAnswer, "choice %zu does not match the offered %s section", i, om.kind.c_str());
        }
        m.port = 9;
        m.connection = "IN IP4 0.0.0.0";
        m.ice_ufrag = o.ice_ufrag;
        m.ice_pwd = o.ice_pwd;
        m.fingerprint = o.fingerprint;
        m.setup = offer.setup_of(om) == SdpSetup::kPassive ? SdpSetup::kActive : SdpSetup::kPassive;
        m.extmaps = ch.extmaps;
        for (SdpExtmap& e : m.extmaps) {  // the answerer's view of a one-way extension (RFC 8285 §6)
            if (e.direction == "sendonly") {
                e.direction = "recvonly";
            } else if (e.direction == "recvonly") {
                e.direction = "sendonly";
            }
        }
        m.direction = o.publisher ? SdpDirection::kRecvOnly : SdpDirection::kSendOnly;
        m.rtcp_mux = true;
        m.rtcp_rsize = om.rtcp_rsize;

        const SdpChosenCodec& k = ch.codec;
        m.formats.push_back(std::to_string(k.pt));
        SdpCodec c;
        c.pt = k.pt;
        c.name = k.name;
        c.clock_rate = k.clock_rate;
        c.channels = k.channels;
        c.fmtp = k.fmtp;
        c.rtcp_fb = k.rtcp_fb;
        m.codecs.push_back(std::move(c));
        if (k.rtx_pt >= 0) {
            m.formats.push_back(std::to_string(k.rtx_pt));
            SdpCodec r;
            r.pt = k.rtx_pt;
            r.name = "rtx";
            r.clock_rate = k.rtx_clock_rate ? k.rtx_clock_rate : k.clock_rate;
            r.fmtp = "apt=" + std::to_string(k.pt);
            m.codecs.push_back(std::move(r));
        }
        for (SdpCodec& x : m.codecs) sdp_split_fmtp(x.fmtp, &x.params);

        if (!o.publisher) {
            const SdpSendTrack& t = om.kind == "audio" ? o.audio : o.video;
            if (!t.ssrc) return SRS_ERR(kErrorSdpAnswer, "no ssrc for the %s track the server sends", om.kind.c_str());
            std::string stream = o.stream_id.empty() ? "-" : o.stream_id;
            std::string track = t.track_id.empty() ? om.kind : t.track_id;
            m.msid = stream + " " + track;
            SdpSsrc s;
            s.ssrc = t.ssrc;
            s.cname = o.cname;
            s.msid_stream = stream;
            s.msid_track = track;
            m.ssrcs.push_back(s);
            if (k.rtx_pt >= 0 && t.rtx_ssrc) {
                s.ssrc = t.rtx_ssrc;
                m.ssrcs.push_back(s);
                SdpSsrcGroup g;
                g.semantics = "FID";
                g.ssrcs = {t.ssrc, t.rtx_ssrc};
                m.ssrc_groups.push_back(std::move(g));
            }
        }
        for (size_t j = 0; j < o.candidates.size(); j++) m.candidates.push_back(host_candidate(o.candidates[j], j));
        if (!o.candidates.empty()) m.end_of_candidates = true;
        a.bundle.push_back(m.mid);
        a.media.push_back(std::move(m));
    }
    return Error();
}

}  // namespace srs
