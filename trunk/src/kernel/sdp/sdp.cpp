// SDP text <-> SessionDescription (see sdp.hpp for the contract).
#include "kernel/sdp/sdp.hpp"

#include <string>

#include "core/strings.hpp"

namespace srs {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = ascii_lower(c);
    return out;
}

// Words of `words` from index `from`, joined by one space.
std::string join_from(const std::vector<std::string_view>& words, size_t from) {
    std::string out;
    for (size_t i = from; i < words.size(); i++) {
        if (!out.empty()) out += ' ';
        out.append(words[i].data(), words[i].size());
    }
    return out;
}

SdpSetup setup_from(std::string_view v) {
    if (v == "actpass") return SdpSetup::kActpass;
    if (v == "active") return SdpSetup::kActive;
    if (v == "passive") return SdpSetup::kPassive;
    return SdpSetup::kInvalid;
}

bool is_direction(std::string_view v) {
    return v == "sendrecv" || v == "sendonly" || v == "recvonly" || v == "inactive";
}

SdpDirection direction_from(std::string_view v) {
    if (v == "sendrecv") return SdpDirection::kSendRecv;
    if (v == "sendonly") return SdpDirection::kSendOnly;
    if (v == "recvonly") return SdpDirection::kRecvOnly;
    if (v == "inactive") return SdpDirection::kInactive;
    return SdpDirection::kNone;
}

bool parse_pt(std::string_view s, int* pt) { return parse_integer<int>(s, 0, 127, pt); }

SdpCodec* codec_or_new(SdpMedia* m, int pt) {
    if (SdpCodec* c = m->codec(pt)) return c;
    m->codecs.emplace_back();
    m->codecs.back().pt = pt;
    return &m->codecs.back();
}

SdpSsrc* ssrc_or_new(SdpMedia* m, uint32_t ssrc) {
    for (SdpSsrc& s : m->ssrcs) {
        if (s.ssrc == ssrc) return &s;
    }
    m->ssrcs.emplace_back();
    m->ssrcs.back().ssrc = ssrc;
    return &m->ssrcs.back();
}

}  // namespace

void sdp_split_fmtp(std::string_view fmtp, std::vector<SdpFmtpParam>* out) {
    out->clear();
    while (!fmtp.empty()) {
        size_t semi = fmtp.find(';');
        std::string_view item = trim(fmtp.substr(0, semi));
        fmtp.remove_prefix(semi == std::string_view::npos ? fmtp.size() : semi + 1);
        if (item.empty()) continue;
        SdpFmtpParam p;
        size_t eq = item.find('=');
        if (eq == std::string_view::npos) {
            p.value = std::string(item);
        } else {
            p.key = std::string(trim(item.substr(0, eq)));
            p.value = std::string(trim(item.substr(eq + 1)));
        }
        out->push_back(std::move(p));
    }
}

namespace {

#define SDP_SYNTAX(fmt, ...) SRS_ERR(kErrorSdpSyntax, "line %zu: " fmt, line_no, ##__VA_ARGS__)

// a= lines that may appear in a media section (and a few at session level too).
Error parse_media_attribute(size_t line_no, std::string_view name, std::string_view value, bool has_value,
                            std::string_view raw, SdpMedia* m) {
    std::vector<std::string_view> w = split_whitespace(value);
    if (name == "mid") {
        m->mid = std::string(value);
    } else if (!has_value && is_direction(name)) {
        m->direction = direction_from(name);
    } else if (name == "ice-ufrag") {
        m->ice_ufrag = std::string(value);
    } else if (name == "ice-pwd") {
        m->ice_pwd = std::string(value);
    } else if (name == "ice-options") {
        m->ice_options.clear();
        for (auto v : w) m->ice_options.emplace_back(v);
    } else if (name == "fingerprint") {
        if (m->fingerprint.empty() && !w.empty()) {
            m->fingerprint.algorithm = lower(w[0]);
            m->fingerprint.value = join_from(w, 1);
        }
    } else if (name == "setup") {
        m->setup = setup_from(value);
        m->setup_text = std::string(value);
    } else if (name == "rtcp-mux" && !has_value) {
        m->rtcp_mux = true;
    } else if (name == "rtcp-rsize" && !has_value) {
        m->rtcp_rsize = true;
    } else if (name == "rtcp") {
        m->rtcp = std::string(value);
    } else if (name == "rtpmap") {
        // a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>]
        int pt = 0;
        if (w.size() != 2 || !parse_pt(w[0], &pt)) return SDP_SYNTAX("bad rtpmap \"%.*s\"", (int)value.size(), value.data());
        std::string_view enc = w[1];
        size_t s1 = enc.find('/');
        if (s1 == 0 || s1 == std::string_view::npos) return SDP_SYNTAX("rtpmap %d without clock rate", pt);
        std::string_view rate = enc.substr(s1 + 1), channels;
        size_t s2 = rate.find('/');
        if (s2 != std::string_view::npos) {
            channels = rate.substr(s2 + 1);
            rate = rate.substr(0, s2);
        }
        SdpCodec* c = codec_or_new(m, pt);
        if (!c->name.empty()) return SDP_SYNTAX("second rtpmap for payload type %d", pt);
        if (!parse_integer<uint32_t>(rate, 1, 0xffffffffu, &c->clock_rate)) return SDP_SYNTAX("rtpmap %d: bad clock rate", pt);
        if (s2 != std::string_view::npos && !parse_integer<int>(channels, 1, 255, &c->channels))
            return SDP_SYNTAX("rtpmap %d: bad channel count", pt);
        c->name = std::string(enc.substr(0, s1));
    } else if (name == "fmtp") {
        // a=fmtp:<format> <format specific parameters>
        size_t sp = value.find_first_of(" \t");
        int pt = 0;
        if (!parse_pt(value.substr(0, sp), &pt)) return SDP_SYNTAX("bad fmtp payload type");
        std::string_view rest = sp == std::string_view::npos ? std::string_view() : trim(value.substr(sp));
        if (!rest.empty()) {
            SdpCodec* c = codec_or_new(m, pt);
            c->fmtp = std::string(rest);
            sdp_split_fmtp(rest, &c->params);
        }
    } else if (name == "rtcp-fb") {
        // a=rtcp-fb:<pt|*> <type> [<subtype>]  (RFC 4585)
        if (w.size() < 2) return SDP_SYNTAX("rtcp-fb without a type");
        std::string fb = join_from(w, 1);
        if (w[0] == "*") {
            m->rtcp_fb_all.push_back(std::move(fb));
        } else {
            int pt = 0;
            if (!parse_pt(w[0], &pt)) return SDP_SYNTAX("bad rtcp-fb payload type");
            codec_or_new(m, pt)->rtcp_fb.push_back(std::move(fb));
        }
    } else if (name == "extmap") {
        // a=extmap:<id>[/<direction>] <URI> [<extension attributes>]  (RFC 8285)
        if (w.size() < 2) return SDP_SYNTAX("extmap without a URI");
        SdpExtmap e;
        std::string_view id = w[0];
        size_t slash = id.find('/');
        if (slash != std::string_view::npos) {
            if (!is_direction(id.substr(slash + 1))) return SDP_SYNTAX("extmap with a bad direction");
            e.direction = std::string(id.substr(slash + 1));
            id = id.substr(0, slash);
        }
        if (!parse_integer<int>(id, 1, 255, &e.id)) return SDP_SYNTAX("extmap id not in 1..255");
        e.uri = std::string(w[1]);
        e.attributes = join_from(w, 2);
        m->extmaps.push_back(std::move(e));
    } else if (name == "ssrc") {
        // a=ssrc:<ssrc-id> <attribute>[:<value>]  (RFC 5576)
        size_t sp = value.find_first_of(" \t");
        uint32_t ssrc = 0;
        if (!parse_integer<uint32_t>(value.substr(0, sp), &ssrc)) return SDP_SYNTAX("bad ssrc");
        if (sp == std::string_view::npos) return SDP_SYNTAX("ssrc %u without an attribute", ssrc);
        std::string_view attr = trim(value.substr(sp));
        size_t colon = attr.find(':');
        std::string_view an = attr.substr(0, colon);
        std::string_view av = colon == std::string_view::npos ? std::string_view() : trim(attr.substr(colon + 1));
        if (an == "cname" && !av.empty()) {
            ssrc_or_new(m, ssrc)->cname = std::string(av);
        } else if (an == "msid" && !av.empty()) {
            std::vector<std::string_view> mw = split_whitespace(av);
            SdpSsrc* s = ssrc_or_new(m, ssrc);
            s->msid_stream = std::string(mw[0]);
            s->msid_track = join_from(mw, 1);
        }
    } else if (name == "ssrc-group") {
        if (w.size() < 2) return SDP_SYNTAX("ssrc-group without ssrcs");
        SdpSsrcGroup g;
        g.semantics = std::string(w[0]);
        for (size_t i = 1; i < w.size(); i++) {
            uint32_t s = 0;
            if (!parse_integer<uint32_t>(w[i], &s)) return SDP_SYNTAX("ssrc-group: bad ssrc");
            g.ssrcs.push_back(s);
        }
        m->ssrc_groups.push_back(std::move(g));
    } else if (name == "msid") {
        m->msid = std::string(value);
    } else if (name == "rid") {
        if (w.size() < 2 || (w[1] != "send" && w[1] != "recv")) return SDP_SYNTAX("bad rid");
        SdpRid r;
        r.id = std::string(w[0]);
        r.direction = std::string(w[1]);
        r.restrictions = join_from(w, 2);
        m->rids.push_back(std::move(r));
    } else if (name == "simulcast") {
        m->simulcast = std::string(value);
    } else if (name == "candidate") {
        // <foundation> <component-id> <transport> <priority> <address> <port> typ <type> [...]  (RFC 8839 §5.1)
        SdpCandidate c;
        if (w.size() < 8 || w[6] != "typ") return SDP_SYNTAX("bad candidate");
        if (!parse_integer<int>(w[1], 1, 256, &c.component)) return SDP_SYNTAX("candidate: bad component");
        if (!parse_integer<uint32_t>(w[3], &c.priority)) return SDP_SYNTAX("candidate: bad priority");
        if (!parse_integer<uint16_t>(w[5], &c.port)) return SDP_SYNTAX("candidate: bad port");
        c.foundation = std::string(w[0]);
        c.transport = std::string(w[2]);
        c.address = std::string(w[4]);
        c.type = std::string(w[7]);
        c.extra = join_from(w, 8);
        m->candidates.push_back(std::move(c));
    } else if (name == "end-of-candidates" && !has_value) {
        m->end_of_candidates = true;
    } else {
        m->attributes.emplace_back(raw);
    }
    return Error();
}

Error parse_session_attribute(size_t line_no, std::string_view name, std::string_view value, bool has_value,
                              std::string_view raw, SessionDescription* sd) {
    std::vector<std::string_view> w = split_whitespace(value);
    if (name == "group") {
        if (sd->bundle.empty() && w.size() >= 2 && w[0] == "BUNDLE") {
            for (size_t i = 1; i < w.size(); i++) sd->bundle.emplace_back(w[i]);
        } else {
            sd->groups.emplace_back(value);
        }
    } else if (name == "ice-ufrag") {
        sd->ice_ufrag = std::string(value);
    } else if (name == "ice-pwd") {
        sd->ice_pwd = std::string(value);
    } else if (name == "ice-options") {
        sd->ice_options.clear();
        for (auto v : w) sd->ice_options.emplace_back(v);
    } else if (name == "ice-lite" && !has_value) {
        sd->ice_lite = true;
    } else if (name == "fingerprint") {
        if (sd->fingerprint.empty() && !w.empty()) {
            sd->fingerprint.algorithm = lower(w[0]);
            sd->fingerprint.value = join_from(w, 1);
        }
    } else if (name == "setup") {
        sd->setup = setup_from(value);
        sd->setup_text = std::string(value);
    } else if (name == "msid-semantic") {
        sd->msid_semantic = std::string(value);
    } else if (name == "extmap-allow-mixed" && !has_value) {
        sd->extmap_allow_mixed = true;
    } else {
        sd->attributes.emplace_back(raw);
    }
    (void)line_no;
    return Error();
}

}  // namespace

const char* sdp_setup_name(SdpSetup s) {
    switch (s) {
        case SdpSetup::kActpass: return "actpass";
        case SdpSetup::kActive: return "active";
        case SdpSetup::kPassive: return "passive";
        default: return "";
    }
}

const char* sdp_direction_name(SdpDirection d) {
    switch (d) {
        case SdpDirection::kSendRecv: return "sendrecv";
        case SdpDirection::kSendOnly: return "sendonly";
        case SdpDirection::kRecvOnly: return "recvonly";
        case SdpDirection::kInactive: return "inactive";
        default: return "";
    }
}

const std::string* SdpCodec::param(std::string_view key) const {
    for (const SdpFmtpParam& p : params) {
        if (!p.key.empty() && iequals(p.key, key)) return &p.value;
    }
    return nullptr;
}

SdpCodec* SdpMedia::codec(int pt) {
    for (SdpCodec& c : codecs) {
        if (c.pt == pt) return &c;
    }
    return nullptr;
}

const SdpCodec* SdpMedia::codec(int pt) const { return const_cast<SdpMedia*>(this)->codec(pt); }

const std::string& SessionDescription::ice_ufrag_of(const SdpMedia& m) const {
    return m.ice_ufrag.empty() ? ice_ufrag : m.ice_ufrag;
}
const std::string& SessionDescription::ice_pwd_of(const SdpMedia& m) const {
    return m.ice_pwd.empty() ? ice_pwd : m.ice_pwd;
}
const SdpFingerprint& SessionDescription::fingerprint_of(const SdpMedia& m) const {
    return m.fingerprint.empty() ? fingerprint : m.fingerprint;
}
SdpSetup SessionDescription::setup_of(const SdpMedia& m) const { return m.setup == SdpSetup::kNone ? setup : m.setup; }
const std::string& SessionDescription::setup_text_of(const SdpMedia& m) const {
    return m.setup == SdpSetup::kNone ? setup_text : m.setup_text;
}

Error parse_sdp(std::string_view text, SessionDescription* out) {
    *out = SessionDescription();
    if (text.size() > kSdpMaxBytes) {
        return SRS_ERR(kErrorSdpTooLarge, "SDP of %zu bytes, over the limit of %zu", text.size(), kSdpMaxBytes);
    }
    bool seen_v = false, seen_o = false, seen_s = false, seen_t = false;
    SdpMedia* media = nullptr;
    size_t line_no = 0;
    std::string_view rest = text;
    while (!rest.empty()) {
        std::string_view line = next_line(&rest);
        if (++line_no > kSdpMaxLines) {
            return SRS_ERR(kErrorSdpTooLarge, "SDP of more than %zu lines", kSdpMaxLines);
        }
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        for (char ch : line) {
            unsigned char c = static_cast<unsigned char>(ch);
            if ((c < 0x20 && c != '\t') || c == 0x7f) return SDP_SYNTAX("control byte 0x%02x", c);
        }
        if (line.size() < 2 || line[1] != '=' || line[0] < 'a' || line[0] > 'z') {
            return SDP_SYNTAX("not <type>=<value>");
        }
        char type = line[0];
        std::string_view value = line.substr(2);
        if (!seen_v) {
            if (type != 'v') return SRS_ERR(kErrorSdpMissingLine, "line %zu: the SDP does not start with v=", line_no);
            if (trim(value) != "0") return SDP_SYNTAX("version %.*s is not 0", (int)value.size(), value.data());
            seen_v = true;
            continue;
        }
        if (type == 'm') {
            if (!seen_o || !seen_s || !seen_t) {
                return SRS_ERR(kErrorSdpMissingLine, "line %zu: m= before the session's %s line", line_no,
                               !seen_o ? "o=" : !seen_s ? "s=" : "t=");
            }
            if (out->media.size() >= kSdpMaxMedia) {
                return SRS_ERR(kErrorSdpTooLarge, "more than %zu media sections", kSdpMaxMedia);
            }
            // m=<media> <port>[/<number of ports>] <proto> <fmt> ...
            std::vector<std::string_view> w = split_whitespace(value);
            if (w.size() < 4) return SDP_SYNTAX("m= needs <media> <port> <proto> <fmt>");
            SdpMedia m;
            std::string_view port = w[1].substr(0, w[1].find('/'));
            if (!parse_integer<uint16_t>(port, &m.port)) return SDP_SYNTAX("m= with a bad port");
            m.kind = std::string(w[0]);
            m.proto = std::string(w[2]);
            for (size_t i = 3; i < w.size(); i++) m.formats.emplace_back(w[i]);
            out->media.push_back(std::move(m));
            media = &out->media.back();
            continue;
        }
        switch (type) {
            case 'v': return SDP_SYNTAX("second v=");
            case 'o': {
                // o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>
                if (media || seen_o) return SDP_SYNTAX("o= out of place");
                std::vector<std::string_view> w = split_whitespace(value);
                if (w.size() != 6) return SDP_SYNTAX("o= needs six fields");
                out->origin_username = std::string(w[0]);
                out->origin_session_id = std::string(w[1]);
                out->origin_session_version = std::string(w[2]);
                out->origin_address = join_from(w, 3);
                seen_o = true;
                break;
            }
            case 's':
                if (media || seen_s) return SDP_SYNTAX("s= out of place");
                out->session_name = std::string(value);
                seen_s = true;
                break;
            case 't':
                if (media) return SDP_SYNTAX("t= inside a media section");
                if (!seen_t) out->timing = std::string(trim(value));
                seen_t = true;
                break;
            case 'c':
                if (media) media->connection = std::string(trim(value));
                break;
            case 'a': {
                std::string_view raw = trim(value);
                size_t colon = raw.find(':');
                std::string_view name = raw.substr(0, colon);
                bool has_value = colon != std::string_view::npos;
                std::string_view v = has_value ? trim(raw.substr(colon + 1)) : std::string_view();
                Error err = media ? parse_media_attribute(line_no, name, v, has_value, raw, media)
                                  : parse_session_attribute(line_no, name, v, has_value, raw, out);
                if (err.failed()) return err;
                break;
            }
            default:
                break;  // b=, i=, u=, e=, p=, r=, z=, k=: not used by WebRTC; skipped
        }
    }
    if (!seen_v) return SRS_ERR(kErrorSdpMissingLine, "empty SDP, no v= line");
    if (!seen_o) return SRS_ERR(kErrorSdpMissingLine, "no o= line");
    if (!seen_s) return SRS_ERR(kErrorSdpMissingLine, "no s= line");
    if (!seen_t) return SRS_ERR(kErrorSdpMissingLine, "no t= line");
    return Error();
}

namespace {

void line(std::string* out, std::string_view a, std::string_view b = {}, std::string_view c = {}) {
    out->append(a.data(), a.size());
    out->append(b.data(), b.size());
    out->append(c.data(), c.size());
    out->append("\r\n");
}

void write_fingerprint(std::string* out, const SdpFingerprint& f) {
    if (!f.empty()) line(out, "a=fingerprint:", f.algorithm, " " + f.value);
}

void write_setup(std::string* out, SdpSetup s, const std::string& text) {
    if (s == SdpSetup::kNone) return;
    line(out, "a=setup:", text.empty() ? sdp_setup_name(s) : text);
}

void write_words(std::string* out, std::string_view prefix, const std::vector<std::string>& words) {
    if (words.empty()) return;
    std::string s(prefix);
    for (size_t i = 0; i < words.size(); i++) {
        if (i) s += ' ';
        s += words[i];
    }
    line(out, s);
}

void write_media(std::string* out, const SdpMedia& m) {
    std::string mline = "m=" + m.kind + " " + std::to_string(m.port) + " " + m.proto;
    for (const std::string& f : m.formats) mline += " " + f;
    line(out, mline);
    if (!m.connection.empty()) line(out, "c=", m.connection);
    if (!m.rtcp.empty()) line(out, "a=rtcp:", m.rtcp);
    if (!m.ice_ufrag.empty()) line(out, "a=ice-ufrag:", m.ice_ufrag);
    if (!m.ice_pwd.empty()) line(out, "a=ice-pwd:", m.ice_pwd);
    write_words(out, "a=ice-options:", m.ice_options);
    write_fingerprint(out, m.fingerprint);
    write_setup(out, m.setup, m.setup_text);
    if (!m.mid.empty()) line(out, "a=mid:", m.mid);
    for (const SdpExtmap& e : m.extmaps) {
        std::string s = "a=extmap:" + std::to_string(e.id);
        if (!e.direction.empty()) s += "/" + e.direction;
        s += " " + e.uri;
        if (!e.attributes.empty()) s += " " + e.attributes;
        line(out, s);
    }
    if (m.direction != SdpDirection::kNone) line(out, "a=", sdp_direction_name(m.direction));
    if (!m.msid.empty()) line(out, "a=msid:", m.msid);
    if (m.rtcp_mux) line(out, "a=rtcp-mux");
    if (m.rtcp_rsize) line(out, "a=rtcp-rsize");
    for (const std::string& fb : m.rtcp_fb_all) line(out, "a=rtcp-fb:* ", fb);
    for (const SdpCodec& c : m.codecs) {
        std::string pt = std::to_string(c.pt);
        if (!c.name.empty()) {
            std::string enc = c.name + "/" + std::to_string(c.clock_rate);
            if (c.channels) enc += "/" + std::to_string(c.channels);
            line(out, "a=rtpmap:" + pt + " ", enc);
        }
        for (const std::string& fb : c.rtcp_fb) line(out, "a=rtcp-fb:" + pt + " ", fb);
        if (!c.fmtp.empty()) line(out, "a=fmtp:" + pt + " ", c.fmtp);
    }
    for (const SdpRid& r : m.rids) {
        line(out, "a=rid:" + r.id + " " + r.direction, r.restrictions.empty() ? "" : " ", r.restrictions);
    }
    if (!m.simulcast.empty()) line(out, "a=simulcast:", m.simulcast);
    for (const SdpSsrcGroup& g : m.ssrc_groups) {
        std::string s = "a=ssrc-group:" + g.semantics;
        for (uint32_t v : g.ssrcs) s += " " + std::to_string(v);
        line(out, s);
    }
    for (const SdpSsrc& s : m.ssrcs) {
        std::string pre = "a=ssrc:" + std::to_string(s.ssrc) + " ";
        if (!s.cname.empty()) line(out, pre + "cname:", s.cname);
        if (!s.msid_stream.empty()) {
            line(out, pre + "msid:", s.msid_stream, s.msid_track.empty() ? "" : " " + s.msid_track);
        }
    }
    for (const std::string& a : m.attributes) line(out, "a=", a);
    for (const SdpCandidate& c : m.candidates) {
        std::string s = "a=candidate:" + c.foundation + " " + std::to_string(c.component) + " " + c.transport + " " +
                        std::to_string(c.priority) + " " + c.address + " " + std::to_string(c.port) + " typ " + c.type;
        if (!c.extra.empty()) s += " " + c.extra;
        line(out, s);
    }
    if (m.end_of_candidates) line(out, "a=end-of-candidates");
}

}  // namespace

std::string write_sdp(const SessionDescription& sd) {
    std::string out;
    out.reserve(2048);
    line(&out, "v=0");
    line(&out, "o=" + sd.origin_username + " " + sd.origin_session_id + " " + sd.origin_session_version + " ",
         sd.origin_address);
    line(&out, "s=", sd.session_name);
    line(&out, "t=", sd.timing);
    if (sd.ice_lite) line(&out, "a=ice-lite");
    write_words(&out, "a=group:BUNDLE ", sd.bundle);
    for (const std::string& g : sd.groups) line(&out, "a=group:", g);
    if (sd.extmap_allow_mixed) line(&out, "a=extmap-allow-mixed");
    if (!sd.msid_semantic.empty()) line(&out, "a=msid-semantic:", sd.msid_semantic);
    if (!sd.ice_ufrag.empty()) line(&out, "a=ice-ufrag:", sd.ice_ufrag);
    if (!sd.ice_pwd.empty()) line(&out, "a=ice-pwd:", sd.ice_pwd);
    write_words(&out, "a=ice-options:", sd.ice_options);
    write_fingerprint(&out, sd.fingerprint);
    write_setup(&out, sd.setup, sd.setup_text);
    for (const std::string& a : sd.attributes) line(&out, "a=", a);
    for (const SdpMedia& m : sd.media) write_media(&out, m);
    return out;
}

}  // namespace srs
