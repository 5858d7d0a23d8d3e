// rtc_player.hpp: the sans-IO half of sb_rtc_load's WebRTC player. Nothing
// here reads a socket or a clock; the tool does the I/O around it.
//
//   - the -r URL: a WHEP endpoint (http://ip:port/rtc/v1/whep/?app=&stream=)
//     or an SRS stream URL (webrtc://ip[:port]/app/stream, played through
//     POST /rtc/v1/play/ on that host, port 1985 unless given);
//   - the recvonly offer every player sends (what Chromium offers: Opus, H.264
//     in several profiles and both packetization modes, its rtcp-fb and
//     extmaps, BUNDLE, rtcp-mux, a=setup:actpass) and what it keeps of the
//     answer;
//   - SRS's JSON API body and reply; a client's view of an HTTP response head;
//   - the checks on what arrives: whether an H.264 RTP payload starts a
//     keyframe, and the order of sequence numbers per SSRC (gaps, late
//     packets);
//   - percentiles of the time-to-first-frame samples.
//
// Header-only for the reason tool_common.hpp gives. Tested by
// utest/tools/rtc_player_test.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "kernel/rtp/rtcp.hpp"
#include "kernel/sdp/sdp.hpp"
#include "http_client.hpp"

namespace srs::tool {

// ---- the -r URL ----

enum class RtcSignalling : uint8_t { kWhep, kSrsApi };

struct RtcPlayUrl {
    RtcSignalling signalling = RtcSignalling::kWhep;
    HttpUrl api;             // where the offer is POSTed (host, port, target)
    std::string stream_url;  // kSrsApi: the webrtc:// URL as given (the body's streamurl)
};

constexpr int kSrsApiDefaultPort = 1985;

// http://ip[:port]/path?query is a WHEP endpoint, POSTed as given;
// webrtc://ip[:port]/app/stream[?query] is played with SRS's API at
// http://ip[:port]/rtc/v1/play/. The host must be an IP address (no DNS).
inline Error parse_rtc_play_url(const std::string& url, RtcPlayUrl* out) {
    static const char kWebrtc[] = "webrtc://";
    *out = RtcPlayUrl();
    if (!istarts_with(url, kWebrtc)) {
        out->signalling = RtcSignalling::kWhep;
        return parse_http_url(url, &out->api);
    }
    out->signalling = RtcSignalling::kSrsApi;
    out->stream_url = url;
    const size_t start = sizeof(kWebrtc) - 1;
    const size_t slash = url.find('/', start);
    if (slash == std::string::npos || slash == start) {
        return SRS_ERR(kErrorHttpBadTarget, "%s is not webrtc://host[:port]/app/stream", url.c_str());
    }
    // app/stream: at least two non-empty segments before any query.
    const std::string path = url.substr(slash + 1, url.find('?', slash) - slash - 1);
    const size_t last = path.rfind('/');
    if (last == std::string::npos || last == 0 || last + 1 >= path.size()) {
        return SRS_ERR(kErrorHttpBadTarget, "%s has no /app/stream path", url.c_str());
    }
    std::string authority = url.substr(start, slash - start);
    const size_t bracket = authority.rfind(']');  // an IPv6 host: the port follows its ']'
    const bool has_port = authority.find(':', bracket == std::string::npos ? 0 : bracket) != std::string::npos;
    if (!has_port) authority += ":" + std::to_string(kSrsApiDefaultPort);
    return parse_http_url("http://" + authority + "/rtc/v1/play/", &out->api);
}

// ---- the offer and the answer ----

struct RtcOfferParams {
    std::string ice_ufrag;    // 4+ ice-chars, random per player
    std::string ice_pwd;      // 22+ ice-chars, random per player
    std::string fingerprint;  // SHA-256 of the process's certificate, "AB:CD:..."
    uint64_t session_id = 1;  // o= sess-id
};

// What Chromium offers, so that a server that checks codecs the way it
// checks a browser's takes ours (issue 23): Opus 111, and H.264 in several
// profile-level-ids, each with packetization-mode 1 and 0, under Chromium's
// payload types (without the rtx entries: the tools do not retransmit that way).
constexpr int kOfferOpusPt = 111;
constexpr int kOfferH264Pt = 106;  // 42e01f, packetization-mode 1

struct OfferedH264 {
    int pt;
    const char* profile_level_id;
    int packetization_mode;
};
constexpr OfferedH264 kChromiumH264[] = {
    {102, "42001f", 1}, {104, "42001f", 0}, {106, "42e01f", 1}, {108, "42e01f", 0},
    {127, "4d001f", 1}, {39, "4d001f", 0},  {112, "64001f", 1}, {113, "64001f", 0},
};
// The header extensions Chromium offers that a server of ours or Pion uses.
struct OfferedExtmap {
    int id;
    const char* uri;
};
constexpr OfferedExtmap kChromiumExtmaps[] = {
    {2, "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"},
    {3, "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"},
    {4, "urn:ietf:params:rtp-hdrext:sdes:mid"},
};

inline SdpCodec offer_opus() {
    SdpCodec opus;
    opus.pt = kOfferOpusPt;
    opus.name = "opus";
    opus.clock_rate = 48000;
    opus.channels = 2;
    opus.fmtp = "minptime=10;useinbandfec=1";
    opus.rtcp_fb = {"transport-cc"};
    return opus;
}

inline SdpCodec offer_h264(int pt, const std::string& profile_level_id, int packetization_mode) {
    SdpCodec h264;
    h264.pt = pt;
    h264.name = "H264";
    h264.clock_rate = 90000;
    h264.fmtp = "level-asymmetry-allowed=1;packetization-mode=" + std::to_string(packetization_mode) +
                ";profile-level-id=" + profile_level_id;
    h264.rtcp_fb = {"goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"};
    return h264;
}

// One m= section of a tool's offer: the codecs in order (m= formats follow
// them), the extmaps, a=mid, ICE and DTLS attributes, rtcp-mux, rtcp-rsize,
// a=setup:actpass, no candidates (the tools are the controlling ICE side and
// send the first checks; the server learns their address from them).
inline SdpMedia offer_section(const RtcOfferParams& p, const char* kind, const char* mid, SdpDirection direction,
                              std::vector<SdpCodec> codecs) {
    SdpMedia m;
    m.kind = kind;
    m.port = 9;
    m.proto = "UDP/TLS/RTP/SAVPF";
    for (const SdpCodec& c : codecs) m.formats.push_back(std::to_string(c.pt));
    m.connection = "IN IP4 0.0.0.0";
    m.mid = mid;
    m.direction = direction;
    m.ice_ufrag = p.ice_ufrag;
    m.ice_pwd = p.ice_pwd;
    m.fingerprint.algorithm = "sha-256";
    m.fingerprint.value = p.fingerprint;
    m.setup = SdpSetup::kActpass;
    m.rtcp_mux = true;
    m.rtcp_rsize = true;
    for (const OfferedExtmap& e : kChromiumExtmaps) {
        SdpExtmap x;
        x.id = e.id;
        x.uri = e.uri;
        m.extmaps.push_back(std::move(x));
    }
    m.codecs = std::move(codecs);
    return m;
}

// The recvonly offer of one player: mid 0 audio (Opus 111), mid 1 video (the
// kChromiumH264 list), BUNDLE 0 1.
inline SessionDescription build_play_offer(const RtcOfferParams& p) {
    SessionDescription sd;
    sd.origin_session_id = std::to_string(p.session_id);
    sd.origin_session_version = "2";
    sd.bundle = {"0", "1"};
    sd.msid_semantic = "WMS";
    sd.media.push_back(offer_section(p, "audio", "0", SdpDirection::kRecvOnly, {offer_opus()}));
    std::vector<SdpCodec> video;
    for (const OfferedH264& h : kChromiumH264) {
        video.push_back(offer_h264(h.pt, h.profile_level_id, h.packetization_mode));
    }
    sd.media.push_back(offer_section(p, "video", "1", SdpDirection::kRecvOnly, std::move(video)));
    return sd;
}

// What a player needs of the server's answer.
struct RtcAnswerInfo {
    std::string ice_ufrag;
    std::string ice_pwd;
    std::string fingerprint;     // sha-256 value, "AB:CD:..."
    SdpSetup setup = SdpSetup::kPassive;  // the server's role; active makes the player the DTLS server
    std::string candidate_ip;    // the first udp host candidate
    uint16_t candidate_port = 0;
    int audio_pt = -1;           // -1: the section was refused (port 0) or absent
    int video_pt = -1;           // the first H.264 packetization-mode 1 (else the first codec) of the section
    std::vector<int> audio_pts, video_pts;  // every payload type of each accepted section (a server may send any)
    struct H264 {
        int pt = -1;
        std::string profile_level_id;  // as written ("" none)
        int packetization_mode = 0;
    };
    std::vector<H264> video_h264;  // the video section's H.264 entries, in the answer's order
    uint32_t audio_ssrc = 0;     // 0: not announced
    uint32_t video_ssrc = 0;
};

// Reads the answer to build_play_offer()'s offer. Errors: the parse error,
// kErrorSdpIce (no ufrag/pwd), kErrorSdpFingerprint (none, or not sha-256),
// kErrorSdpSetup (actpass, or none), kErrorSdpNoMedia (neither audio nor video
// accepted), kErrorSdpAnswer (no udp host candidate).
// tcp: take the first tcp host candidate (RFC 4571 framing, rtc_server.tcp)
// instead of the first udp one.
inline Error read_play_answer(std::string_view text, RtcAnswerInfo* out, bool tcp = false) {
    *out = RtcAnswerInfo();
    SessionDescription sd;
    if (Error err = parse_sdp(text, &sd); err.failed()) return SRS_WRAP(err, "parse the answer");
    const SdpMedia* first = nullptr;
    for (const SdpMedia& m : sd.media) {
        if (m.port == 0 || m.codecs.empty()) continue;
        const bool audio = m.kind == "audio", video = m.kind == "video";
        if (!audio && !video) continue;
        if (!first) first = &m;
        for (const SdpCodec& c : m.codecs) (audio ? out->audio_pts : out->video_pts).push_back(c.pt);
        if (audio) {
            out->audio_pt = m.codecs[0].pt;
        } else {
            for (const SdpCodec& c : m.codecs) {
                if (!iequals(c.name, "H264")) continue;
                RtcAnswerInfo::H264 h;
                h.pt = c.pt;
                const std::string* plid = c.param("profile-level-id");
                const std::string* mode = c.param("packetization-mode");
                h.profile_level_id = plid ? *plid : "";
                h.packetization_mode = mode && *mode == "1" ? 1 : 0;
                if (h.packetization_mode == 1 && out->video_pt < 0) out->video_pt = h.pt;
                out->video_h264.push_back(std::move(h));
            }
            if (out->video_pt < 0) out->video_pt = m.codecs[0].pt;
        }
        if (!m.ssrcs.empty()) (audio ? out->audio_ssrc : out->video_ssrc) = m.ssrcs[0].ssrc;
        for (const SdpCandidate& c : m.candidates) {
            if (out->candidate_port == 0 && iequals(c.transport, tcp ? "tcp" : "udp") && c.type == "host" &&
                c.port != 0) {
                out->candidate_ip = c.address;
                out->candidate_port = c.port;
            }
        }
    }
    if (!first) return SRS_ERR(kErrorSdpNoMedia, "the answer accepts neither audio nor video");
    out->ice_ufrag = sd.ice_ufrag_of(*first);
    out->ice_pwd = sd.ice_pwd_of(*first);
    if (out->ice_ufrag.empty() || out->ice_pwd.empty()) return SRS_ERR(kErrorSdpIce, "the answer has no ice-ufrag/pwd");
    const SdpFingerprint& fp = sd.fingerprint_of(*first);
    if (fp.algorithm != "sha-256" || fp.value.empty()) {
        return SRS_ERR(kErrorSdpFingerprint, "the answer's fingerprint is not sha-256 (%s)", fp.algorithm.c_str());
    }
    out->fingerprint = fp.value;
    out->setup = sd.setup_of(*first);
    if (out->setup != SdpSetup::kPassive && out->setup != SdpSetup::kActive) {
        return SRS_ERR(kErrorSdpSetup, "the answer's a=setup is '%s', not active or passive",
                       sd.setup_text_of(*first).c_str());
    }
    if (out->candidate_port == 0) {
        return SRS_ERR(kErrorSdpAnswer, "the answer has no %s host candidate", tcp ? "tcp" : "udp");
    }
    if (!is_ip_literal(out->candidate_ip)) {
        return SRS_ERR(kErrorSdpAnswer, "the answer's candidate %s is not an IP address", out->candidate_ip.c_str());
    }
    return Error();
}

// ---- SRS's JSON API ----

// The body of POST /rtc/v1/play/: {api, tid, streamurl, clientip: null, sdp}.
inline std::string srs_play_request(const std::string& api_url, const std::string& tid, const std::string& stream_url,
                                    const std::string& offer) {
    nlohmann::ordered_json j;
    j["api"] = api_url;
    j["tid"] = tid;
    j["streamurl"] = stream_url;
    j["clientip"] = nullptr;
    j["sdp"] = offer;
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// Reads {code, sdp, sessionid}: a non-zero code is kErrorRtmpClientRejected
// ("rejected", the code in the message); a body that is not such an object
// kErrorRtcApiBody.
inline Error read_srs_play_reply(std::string_view body, std::string* sdp, std::string* session_id) {
    nlohmann::json j = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return SRS_ERR(kErrorRtcApiBody, "the reply is not a JSON object");
    auto code = j.find("code");
    if (code == j.end() || !code->is_number_integer()) return SRS_ERR(kErrorRtcApiBody, "the reply has no code");
    if (code->get<int64_t>() != 0) {
        return SRS_ERR(kErrorRtmpClientRejected, "code %lld", static_cast<long long>(code->get<int64_t>()));
    }
    auto s = j.find("sdp");
    if (s == j.end() || !s->is_string()) return SRS_ERR(kErrorRtcApiBody, "the reply has no sdp");
    *sdp = s->get<std::string>();
    auto id = j.find("sessionid");
    *session_id = id != j.end() && id->is_string() ? id->get<std::string>() : "";
    return Error();
}

// ---- an HTTP response head, as a client reads it ----

struct HttpResponseHead {
    int status = 0;
    std::string reason;
    std::string location;
    bool chunked = false;
    bool has_length = false;
    uint64_t length = 0;
};

// Parses "HTTP/1.x NNN reason\r\n" and the fields up to the empty line
// (`head` ends with it). Keeps Location, Content-Length and whether the last
// transfer coding is chunked. Errors: kErrorHttpBadRequestLine,
// kErrorHttpBadHeader, kErrorHttpBadContentLength.
inline Error parse_http_response_head(std::string_view head, HttpResponseHead* out) {
    *out = HttpResponseHead();
    const size_t eol = head.find("\r\n");
    const std::string_view line = head.substr(0, eol);
    if (eol == std::string_view::npos || line.size() < 12 || line.compare(0, 7, "HTTP/1.") != 0 ||
        line[8] != ' ' || !is_ascii_digit(line[9]) || !is_ascii_digit(line[10]) || !is_ascii_digit(line[11]) ||
        (line.size() > 12 && line[12] != ' ')) {
        return SRS_ERR(kErrorHttpBadRequestLine, "bad status line '%.*s'",
                       static_cast<int>(std::min<size_t>(line.size(), 80)), line.data());
    }
    out->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    if (line.size() > 13) out->reason = std::string(line.substr(13));
    for (size_t at = eol + 2; at < head.size();) {
        size_t next = head.find("\r\n", at);
        if (next == std::string_view::npos) next = head.size();
        const std::string_view field = head.substr(at, next - at);
        at = next + 2;
        if (field.empty()) break;
        const size_t colon = field.find(':');
        if (colon == std::string_view::npos || colon == 0) {
            return SRS_ERR(kErrorHttpBadHeader, "bad header field '%.*s'",
                           static_cast<int>(std::min<size_t>(field.size(), 80)), field.data());
        }
        const std::string_view name = field.substr(0, colon), value = trim_ows(field.substr(colon + 1));
        if (iequals(name, "Location")) {
            out->location = std::string(value);
        } else if (iequals(name, "Transfer-Encoding")) {
            const size_t comma = value.find_last_of(',');
            out->chunked = iequals(trim_ows(comma == std::string_view::npos ? value : value.substr(comma + 1)), "chunked");
        } else if (iequals(name, "Content-Length")) {
            if (value.empty() || value.size() > 18 || !parse_integer(value, &out->length)) {
                return SRS_ERR(kErrorHttpBadContentLength, "Content-Length: %.*s", static_cast<int>(value.size()),
                               value.data());
            }
            out->has_length = true;
        }
    }
    return Error();
}

// The target to DELETE for a WHEP Location: an absolute http:// URL's path
// and query, or the Location itself when it is a path. Empty when there is
// none or it points elsewhere than `api` (host and port).
inline std::string whep_delete_target(const std::string& location, const HttpUrl& api) {
    if (location.empty()) return "";
    if (location[0] == '/') return location;
    HttpUrl u;
    if (Error err = parse_http_url(location, &u); err.failed()) {
        err.ignore();
        return "";
    }
    if (u.host != api.host || u.port != api.port) return "";
    return u.target;
}

// ---- what arrives ----

// H.264 NAL unit types that open a keyframe: an IDR slice, or the SPS that
// precedes one.
constexpr uint8_t kH264NalIdr = 5;
constexpr uint8_t kH264NalSps = 7;
constexpr uint8_t kH264StapA = 24;
constexpr uint8_t kH264FuA = 28;

inline bool h264_nal_opens_keyframe(uint8_t nal_header) {
    const uint8_t type = nal_header & 0x1f;
    return type == kH264NalIdr || type == kH264NalSps;
}

// Whether an H.264 RTP payload (RFC 6184, packetization-mode 1) starts a
// keyframe: a single NAL unit of type 5 or 7; a STAP-A (type 24) holding one
// (every aggregated unit's 16-bit size is checked against the payload; a
// broken STAP-A is not a keyframe); an FU-A (type 28) whose start bit is set
// for a fragmented unit of type 5 or 7.
inline bool h264_payload_starts_keyframe(const uint8_t* p, size_t n) {
    if (n < 1) return false;
    const uint8_t type = p[0] & 0x1f;
    if (type >= 1 && type <= 23) return h264_nal_opens_keyframe(p[0]);
    if (type == kH264FuA) return n >= 2 && (p[1] & 0x80) && h264_nal_opens_keyframe(p[1]);
    if (type != kH264StapA) return false;
    bool key = false;
    size_t at = 1;
    while (at < n) {
        if (n - at < 2) return false;
        const size_t size = (static_cast<size_t>(p[at]) << 8) | p[at + 1];
        at += 2;
        if (size == 0 || size > n - at) return false;
        key = key || h264_nal_opens_keyframe(p[at]);
        at += size;
    }
    return key;
}

// The order of one SSRC's sequence numbers as they arrive. A packet ahead of
// the highest so far by d > 1 leaves d - 1 missing (a gap); one behind it is
// late (a reordered packet or a retransmission filling a gap); the same
// number as the highest is a duplicate. (The RTCP receiver report block is
// protocol/rtc's RtpReceiveStats, as the server computes it.)
class RtpSeqTracker {
  public:
    void on_packet(uint16_t seq) {
        received_++;
        if (!started_) {
            started_ = true;
            highest_ = seq;
            return;
        }
        const int16_t d = static_cast<int16_t>(static_cast<uint16_t>(seq - highest_));
        if (d > 0) {
            if (d > 1) {
                missing_ += static_cast<uint64_t>(d - 1);
                gap_events_++;
            }
            if (seq < highest_) cycles_ += 1u << 16;  // wrapped
            highest_ = seq;
        } else if (d == 0) {
            duplicates_++;
        } else {
            late_++;
        }
    }

    bool started() const { return started_; }
    uint64_t received() const { return received_; }
    uint64_t missing() const { return missing_; }    // sequence numbers skipped when they were passed
    uint64_t gap_events() const { return gap_events_; }
    uint64_t late() const { return late_; }
    uint64_t duplicates() const { return duplicates_; }
    uint32_t extended_highest() const { return cycles_ | highest_; }

  private:
    bool started_ = false;
    uint16_t highest_ = 0;
    uint32_t cycles_ = 0;  // wraps seen, shifted left by 16
    uint64_t received_ = 0;
    uint64_t missing_ = 0;
    uint64_t gap_events_ = 0;
    uint64_t late_ = 0;
    uint64_t duplicates_ = 0;
};

// ---- percentiles ----

// The nearest-rank p-quantile (0 < p <= 1) of `v` (sorted in place); 0 when empty.
inline int64_t percentile(std::vector<int64_t>* v, double p) {
    if (v->empty()) return 0;
    std::sort(v->begin(), v->end());
    size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v->size())));
    rank = std::clamp<size_t>(rank, 1, v->size());
    return (*v)[rank - 1];
}

// {"samples":N,"p50":..,"p90":..,"max":..} in ms, of samples in us.
inline std::string samples_json(std::vector<int64_t> v) {
    const size_t n = v.size();
    const int64_t p50 = percentile(&v, 0.5), p90 = percentile(&v, 0.9), max = percentile(&v, 1.0);
    char buf[160];
    snprintf(buf, sizeof(buf), "{\"samples\":%zu,\"p50\":%.1f,\"p90\":%.1f,\"max\":%.1f}", n, p50 / 1e3, p90 / 1e3,
             max / 1e3);
    return buf;
}

// One report line of the same.
inline void print_samples(const char* what, std::vector<int64_t> v) {
    const size_t n = v.size();
    const int64_t p50 = percentile(&v, 0.5), p90 = percentile(&v, 0.9), max = percentile(&v, 1.0);
    printf("  %-34s p50 %.1f ms, p90 %.1f ms, max %.1f ms (%zu sessions)\n", what, p50 / 1e3, p90 / 1e3, max / 1e3,
           n);
}

}  // namespace srs::tool
