// rtc_publisher.hpp: the sans-IO half of sb_rtc_publish, the WebRTC publisher
// that relays RTP packetized by ffmpeg. Nothing here reads a socket or a
// clock; the tool does the I/O around it.
//
//   - the -r URL: a WHIP endpoint (http://ip:port/rtc/v1/whip/?app=&stream=)
//     or an SRS stream URL (webrtc://ip[:port]/app/stream, published through
//     POST /rtc/v1/publish/ on that host, port 1985 unless given);
//   - the sendonly offer (what Chromium offers: Opus 111, H.264 in the
//     profiles that can carry ffmpeg's stream, both packetization modes,
//     Chromium's rtcp-fb and extmaps, a=ssrc lines for the SSRCs the tool
//     sends) and the PT the answer chose for the video it relays;
//   - the H.264 profile-level-id of ffmpeg's SDP (-sdp_file), when given;
//   - the H.264 SPS/PPS of ffmpeg's SDP (sprop-parameter-sets), sent by the
//     tool as a STAP-A before each IDR when the stream does not carry them;
//   - the rewrite of a relayed RTP packet's PT, sequence number and SSRC;
//   - the ring of packets sent, per SSRC, that NACKs are answered from;
//   - the on-purpose loss of --loss.
//
// Header-only for the reason tool_common.hpp gives. Tested by
// utest/tools/rtc_publisher_test.cpp.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/base64.hpp"
#include "core/error.hpp"
#include "kernel/sdp/sdp.hpp"
#include "rtc_player.hpp"

namespace srs::tool {

// ---- the -r URL ----

// As parse_rtc_play_url, with SRS's publish API: a webrtc:// URL is POSTed to
// http://ip[:port]/rtc/v1/publish/. An http:// URL (WHIP) is taken as given.
inline Error parse_rtc_publish_url(const std::string& url, RtcPlayUrl* out) {
    if (Error err = parse_rtc_play_url(url, out); err.failed()) return err;
    if (out->signalling == RtcSignalling::kSrsApi) out->api.target = "/rtc/v1/publish/";
    return Error();
}

// ---- the offer ----

constexpr int kPublishOpusPt = kOfferOpusPt;
constexpr int kPublishOwnProfilePt = 96;  // ffmpeg's profile when Chromium's list does not have it
constexpr const char* kDefaultProfileLevelId = "42e01f";

struct RtcPublishParams {
    RtcOfferParams ice;           // ufrag, pwd, fingerprint, session id
    uint32_t audio_ssrc = 0;
    uint32_t video_ssrc = 0;
    std::string cname;            // a=ssrc:<ssrc> cname:
    std::string stream_id;        // the msid stream ("<stream> <track>")
    std::string profile_level_id = kDefaultProfileLevelId;  // 6 hex digits
};

// Whether a stream of H.264 profile-level-id `stream` is also a valid stream
// of the offered `entry` (levels aside: the offers say
// level-asymmetry-allowed): the same profile_idc, a Constrained Baseline
// stream (profile_idc 66 with constraint_set1) under Main (77) or High (100),
// a Main stream under High: what a decoder of the entry's profile decodes.
// False for anything not six hex digits.
inline bool h264_profile_carries(std::string_view stream, std::string_view entry) {
    auto byte = [](std::string_view id, size_t at, int* out) {
        if (id.size() != 6) return false;
        int v = 0;
        for (size_t i = at; i < at + 2; i++) {
            const char c = id[i];
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) return false;
            v = v * 16 + d;
        }
        *out = v;
        return true;
    };
    int s_idc = 0, s_flags = 0, level = 0, e_idc = 0, e_flags = 0;
    if (!byte(stream, 0, &s_idc) || !byte(stream, 2, &s_flags) || !byte(stream, 4, &level) || !byte(entry, 0, &e_idc) ||
        !byte(entry, 2, &e_flags) || !byte(entry, 4, &level)) {
        return false;
    }
    if (s_idc == e_idc) return true;
    const bool constrained_baseline = s_idc == 66 && (s_flags & 0x40);
    if (constrained_baseline) return e_idc == 77 || e_idc == 100;
    return s_idc == 77 && e_idc == 100;
}

// The sendonly offer: mid 0 audio (Opus 111), mid 1 video: ffmpeg's profile
// (p.profile_level_id) with packetization-mode 1 first (under Chromium's PT
// for it, else kPublishOwnProfilePt), then the kChromiumH264 entries that can
// carry that stream (h264_profile_carries), in Chromium's order. Each section
// has an a=ssrc (cname, msid) of the SSRC we send, the extmaps and rtcp-fb
// Chromium offers; BUNDLE 0 1, rtcp-mux, rtcp-rsize, a=setup:actpass, no
// candidates (we send the first checks).
inline SessionDescription build_publish_offer(const RtcPublishParams& p) {
    SessionDescription sd;
    sd.origin_session_id = std::to_string(p.ice.session_id);
    sd.origin_session_version = "2";
    sd.bundle = {"0", "1"};
    sd.msid_semantic = "WMS";
    auto section = [&p](const char* kind, const char* mid, uint32_t ssrc, std::vector<SdpCodec> codecs) {
        SdpMedia m = offer_section(p.ice, kind, mid, SdpDirection::kSendOnly, std::move(codecs));
        const std::string track = p.stream_id + "-" + kind;
        m.msid = p.stream_id + " " + track;
        SdpSsrc s;
        s.ssrc = ssrc;
        s.cname = p.cname;
        s.msid_stream = p.stream_id;
        s.msid_track = track;
        m.ssrcs.push_back(std::move(s));
        return m;
    };
    sd.media.push_back(section("audio", "0", p.audio_ssrc, {offer_opus()}));

    std::vector<SdpCodec> video;
    int own_pt = kPublishOwnProfilePt;
    for (const OfferedH264& h : kChromiumH264) {
        if (h.packetization_mode == 1 && iequals(h.profile_level_id, p.profile_level_id)) own_pt = h.pt;
    }
    video.push_back(offer_h264(own_pt, p.profile_level_id, 1));
    for (const OfferedH264& h : kChromiumH264) {
        if (h.pt != own_pt && h264_profile_carries(p.profile_level_id, h.profile_level_id)) {
            video.push_back(offer_h264(h.pt, h.profile_level_id, h.packetization_mode));
        }
    }
    sd.media.push_back(section("video", "1", p.video_ssrc, std::move(video)));
    return sd;
}

// The video payload type to send with, from the answer: the H.264
// packetization-mode 1 entry whose profile-level-id is the stream's, else
// the first mode 1 entry (ffmpeg packetizes with FU-A: mode 0 would not do).
// -1 when the answer has no H.264 mode 1 entry.
inline int publish_video_pt(const RtcAnswerInfo& answer, std::string_view stream_profile) {
    int first = -1;
    for (const RtcAnswerInfo::H264& h : answer.video_h264) {
        if (h.packetization_mode != 1) continue;
        if (iequals(h.profile_level_id, stream_profile)) return h.pt;
        if (first < 0) first = h.pt;
    }
    return first;
}

// The profile-level-id of the first H.264 fmtp in an SDP as ffmpeg writes it
// (-sdp_file): "profile-level-id=64001f" anywhere in an a=fmtp line. The six
// hex digits lower-cased; "" when there is none or it is malformed.
inline std::string sdp_h264_profile_level_id(std::string_view sdp) {
    static constexpr std::string_view kKey = "profile-level-id=";
    for (size_t at = 0; (at = sdp.find(kKey, at)) != std::string_view::npos; at += kKey.size()) {
        const std::string_view v = sdp.substr(at + kKey.size(), 6);
        if (v.size() != 6) return "";
        std::string out;
        for (char c : v) {
            const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!hex) return "";
            out += static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
        }
        // A seventh hex digit would make it something else than a profile-level-id.
        const size_t after = at + kKey.size() + 6;
        if (after < sdp.size() && std::isxdigit(static_cast<unsigned char>(sdp[after]))) return "";
        return out;
    }
    return "";
}

// The NAL units of the first sprop-parameter-sets in an SDP (RFC 6184: base64
// NAL units separated by commas, up to the next ';', space or line end), in
// order. Empty when there is none; a unit that is not base64 or is empty
// makes the whole list empty.
inline std::vector<std::string> sdp_h264_sprop_parameter_sets(std::string_view sdp) {
    static constexpr std::string_view kKey = "sprop-parameter-sets=";
    const size_t at = sdp.find(kKey);
    if (at == std::string_view::npos) return {};
    const size_t start = at + kKey.size();
    const size_t end = sdp.find_first_of("; \r\n", start);
    const std::string_view list = sdp.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    std::vector<std::string> out;
    for (size_t from = 0; from <= list.size();) {
        size_t comma = list.find(',', from);
        if (comma == std::string_view::npos) comma = list.size();
        std::string nalu;
        if (!base64_decode(list.substr(from, comma - from), &nalu) || nalu.empty()) return {};
        out.push_back(std::move(nalu));
        from = comma + 1;
    }
    return out;
}

// ---- relayed packets ----

// The STAP-A payload (RFC 6184 5.7.1) that aggregates `nalus` (each 1..65535
// bytes): a type-24 header with the highest NRI of them, then each unit
// after its 16-bit size. Empty when there are none or one is too large.
inline std::string h264_stap_a(const std::vector<std::string>& nalus) {
    if (nalus.empty()) return "";
    uint8_t nri = 0;
    std::string out(1, '\0');
    for (const std::string& n : nalus) {
        if (n.empty() || n.size() > 0xffff) return "";
        nri = std::max<uint8_t>(nri, static_cast<uint8_t>(n[0]) & 0x60);
        out += static_cast<char>(n.size() >> 8);
        out += static_cast<char>(n.size() & 0xff);
        out += n;
    }
    out[0] = static_cast<char>(nri | kH264StapA);
    return out;
}

// Where an H.264 RTP payload stands for the SPS/PPS the tool may add: it
// starts an IDR picture (a single NAL unit of type 5, or the first FU-A
// fragment of one), or it carries parameter sets (a single SPS or PPS, or a
// STAP-A: ffmpeg's Annex B stream sends them right before its IDRs).
enum class H264PayloadKind : uint8_t { kOther, kIdrStart, kParameterSets };

inline H264PayloadKind h264_payload_kind(const uint8_t* p, size_t n) {
    if (n < 1) return H264PayloadKind::kOther;
    const uint8_t type = p[0] & 0x1f;
    if (type == kH264NalIdr) return H264PayloadKind::kIdrStart;
    if (type == kH264NalSps || type == 8 || type == kH264StapA) return H264PayloadKind::kParameterSets;
    if (type == kH264FuA && n >= 2 && (p[1] & 0x80) && (p[1] & 0x1f) == kH264NalIdr) return H264PayloadKind::kIdrStart;
    return H264PayloadKind::kOther;
}


// Rewrites an RTP packet's payload type (keeping the marker bit), sequence
// number and SSRC in place. False (packet untouched) when it is not RTP
// version 2 or shorter than the fixed 12-byte header.
inline bool rewrite_rtp_header(uint8_t* p, size_t n, uint8_t pt, uint16_t seq, uint32_t ssrc) {
    if (n < 12 || (p[0] >> 6) != 2) return false;
    p[1] = static_cast<uint8_t>((p[1] & 0x80) | (pt & 0x7f));
    p[2] = static_cast<uint8_t>(seq >> 8);
    p[3] = static_cast<uint8_t>(seq);
    p[8] = static_cast<uint8_t>(ssrc >> 24);
    p[9] = static_cast<uint8_t>(ssrc >> 16);
    p[10] = static_cast<uint8_t>(ssrc >> 8);
    p[11] = static_cast<uint8_t>(ssrc);
    return true;
}

inline uint16_t rtp_sequence_of(const uint8_t* p) { return static_cast<uint16_t>((p[2] << 8) | p[3]); }

// The size of an RTP packet's header (fixed part, CSRCs, extension); 0 when
// data[0, n) is shorter than it says.
inline size_t rtp_header_size_of(const uint8_t* p, size_t n) {
    if (n < 12) return 0;
    size_t size = 12 + 4 * static_cast<size_t>(p[0] & 0x0f);
    if (p[0] & 0x10) {
        if (n < size + 4) return 0;
        size += 4 + 4 * ((static_cast<size_t>(p[size + 2]) << 8) | p[size + 3]);
    }
    return size <= n ? size : 0;
}

// The last kSlots packets sent on one SSRC, by sequence number, unprotected:
// what a NACK asks again is protected again from here. A slot holds the
// newest packet whose seq maps to it, so a seq older than kSlots packets (or
// never sent) is not found. Fixed memory, allocated once.
class RtpSendRing {
  public:
    static constexpr size_t kSlots = 1024;  // a power of two: seq % kSlots stays right across the wrap
    static constexpr size_t kMaxPacket = 1500;

    RtpSendRing() : slots_(kSlots) {}

    // Keeps data[0, n) (an RTP packet; its seq read from it). False when it is
    // too large or shorter than an RTP header: not kept.
    bool put(const uint8_t* data, size_t n) {
        if (n < 12 || n > kMaxPacket) return false;
        Slot& s = slots_[rtp_sequence_of(data) % kSlots];
        s.seq = rtp_sequence_of(data);
        s.size = static_cast<uint16_t>(n);
        memcpy(s.data, data, n);
        return true;
    }

    // The kept packet with this seq; nullptr when it is gone or never was.
    const uint8_t* get(uint16_t seq, size_t* n) const {
        const Slot& s = slots_[seq % kSlots];
        if (s.size == 0 || s.seq != seq) return nullptr;
        *n = s.size;
        return s.data;
    }

  private:
    struct Slot {
        uint16_t seq = 0;
        uint16_t size = 0;  // 0: empty
        uint8_t data[kMaxPacket];
    };
    std::vector<Slot> slots_;
};

// --loss: whether to drop each outgoing packet, `percent` of them on average,
// from a fixed-seed xorshift (a run's drops are reproducible).
class LossDropper {
  public:
    explicit LossDropper(double percent, uint64_t seed = 0x9e3779b97f4a7c15ull)
        : threshold_(percent <= 0 ? 0 : percent >= 100 ? UINT64_MAX : static_cast<uint64_t>(percent / 100.0 * 18446744073709551615.0)),
          state_(seed ? seed : 1) {}

    bool drop() {
        if (threshold_ == 0) return false;
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return state_ < threshold_ || threshold_ == UINT64_MAX;
    }

  private:
    uint64_t threshold_;
    uint64_t state_;
};

}  // namespace srs::tool
