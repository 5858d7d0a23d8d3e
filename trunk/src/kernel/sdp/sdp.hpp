// SDP for WebRTC offer/answer (RFC 8866 grammar, JSEP RFC 8829), sans-IO.
//
// parse_sdp() turns the text of an offer (or an answer) into a
// SessionDescription; write_sdp() turns one back into \r\n-terminated text
// that parse_sdp() reads to the same value. Neither touches a socket.
//
//   session:  v=0  o=  s=  t=  [a=group:BUNDLE ...] [a=ice-ufrag/pwd/options]
//             [a=fingerprint] [a=setup] [a=msid-semantic] [a=extmap-allow-mixed]
//   media:    m=<kind> <port> <proto> <fmt>...  c=  a=mid  a=<direction>
//             a=ice-ufrag/pwd (these win over the session's)  a=fingerprint
//             a=setup  a=rtcp-mux  a=rtcp-rsize  a=rtpmap  a=fmtp  a=rtcp-fb
//             a=extmap  a=ssrc  a=ssrc-group  a=msid  a=rid  a=simulcast
//             a=candidate  (any other a= line is kept as text)
//
// Contract of parse_sdp():
//   - accepts \r\n and \n line ends; empty lines are skipped;
//   - rejects more than kSdpMaxBytes bytes, kSdpMaxLines lines or
//     kSdpMaxMedia m= sections (kErrorSdpTooLarge), any control byte other
//     than HT inside a line, and a line that is not "<letter>=<value>";
//   - requires v=0 first, then o=, s= and t= before the first m= (kErrorSdpMissingLine);
//   - a known attribute with a broken value (rtpmap without a clock rate, an
//     extmap id out of 1..255, a payload type over 127...) is kErrorSdpSyntax;
//   - the message of every error names the line number and what is wrong;
//   - never reads outside `text`, never throws.
// It does not judge whether the description is a usable offer: that is
// check_offer() (kernel/sdp/sdp_answer.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace srs {

constexpr size_t kSdpMaxBytes = 64 * 1024;
constexpr size_t kSdpMaxLines = 4096;
constexpr size_t kSdpMaxMedia = 32;

enum class SdpSetup { kNone, kActpass, kActive, kPassive, kInvalid };
enum class SdpDirection { kNone, kSendRecv, kSendOnly, kRecvOnly, kInactive };

const char* sdp_setup_name(SdpSetup s);          // "" for kNone/kInvalid
const char* sdp_direction_name(SdpDirection d);  // "" for kNone

// a=fingerprint:<hash-func> <fingerprint> (RFC 8122): kept as written; check_offer judges it.
struct SdpFingerprint {
    std::string algorithm;  // "sha-256" (lower-cased)
    std::string value;      // "AB:CD:..." as given
    bool empty() const { return algorithm.empty() && value.empty(); }
};

// One a=fmtp parameter, "key=value" or a bare "value" (key empty).
struct SdpFmtpParam {
    std::string key;
    std::string value;
};

// Splits an fmtp value on ';' into its parameters (spaces around each trimmed, empty ones dropped).
void sdp_split_fmtp(std::string_view fmtp, std::vector<SdpFmtpParam>* out);

// a=rtpmap:<pt> <name>/<rate>[/<channels>] with its a=fmtp and a=rtcp-fb lines.
struct SdpCodec {
    int pt = -1;
    std::string name;          // as written: "H264", "opus", "rtx"
    uint32_t clock_rate = 0;
    int channels = 0;          // 0: not written
    std::string fmtp;          // the a=fmtp value after "<pt> ", as written
    std::vector<SdpFmtpParam> params;  // fmtp split on ';'
    std::vector<std::string> rtcp_fb;  // "nack", "nack pli", "transport-cc"...

    // The value of fmtp parameter `key` (ASCII case ignored), or nullptr.
    const std::string* param(std::string_view key) const;
};

// a=extmap:<id>[/<direction>] <uri> [<attributes>]
struct SdpExtmap {
    int id = 0;
    std::string direction;  // "" or sendrecv/sendonly/recvonly/inactive
    std::string uri;
    std::string attributes;
};

// a=ssrc:<ssrc> cname:<c> / msid:<stream> <track>, merged per ssrc.
struct SdpSsrc {
    uint32_t ssrc = 0;
    std::string cname;
    std::string msid_stream;
    std::string msid_track;
};

// a=ssrc-group:<semantics> <ssrc>... (FID: primary then rtx, RFC 4588/5576).
struct SdpSsrcGroup {
    std::string semantics;
    std::vector<uint32_t> ssrcs;
};

// a=rid:<id> <send|recv> [<restrictions>] (RFC 8851).
struct SdpRid {
    std::string id;
    std::string direction;
    std::string restrictions;
};

// a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> [...]
struct SdpCandidate {
    std::string foundation;
    int component = 1;
    std::string transport;  // "udp"/"tcp" as written ("UDP" too)
    uint32_t priority = 0;
    std::string address;
    uint16_t port = 0;
    std::string type;       // host, srflx, prflx, relay
    std::string extra;      // the rest (raddr, rport, tcptype, generation...), space-joined
};

struct SdpMedia {
    std::string kind;   // audio, video, application...
    uint16_t port = 0;
    std::string proto;  // UDP/TLS/RTP/SAVPF
    std::vector<std::string> formats;  // the m= fmt list as written
    std::string connection;  // c= value ("IN IP4 0.0.0.0")
    std::string mid;
    SdpDirection direction = SdpDirection::kNone;
    std::string ice_ufrag;
    std::string ice_pwd;
    std::vector<std::string> ice_options;
    SdpFingerprint fingerprint;
    SdpSetup setup = SdpSetup::kNone;
    std::string setup_text;  // the a=setup value as written (for error messages)
    bool rtcp_mux = false;
    bool rtcp_rsize = false;
    std::string rtcp;  // a=rtcp value, kept
    std::vector<SdpCodec> codecs;          // in a=rtpmap order
    std::vector<std::string> rtcp_fb_all;  // a=rtcp-fb:* lines
    std::vector<SdpExtmap> extmaps;
    std::vector<SdpSsrc> ssrcs;
    std::vector<SdpSsrcGroup> ssrc_groups;
    std::string msid;  // a=msid value ("<stream> <track>")
    std::vector<SdpRid> rids;
    std::string simulcast;  // a=simulcast value, kept
    std::vector<SdpCandidate> candidates;
    bool end_of_candidates = false;
    std::vector<std::string> attributes;  // other a= lines, without "a="

    SdpCodec* codec(int pt);
    const SdpCodec* codec(int pt) const;
};

struct SessionDescription {
    // o=<username> <sess-id> <sess-version> <nettype> <addrtype> <address>
    std::string origin_username = "-";
    std::string origin_session_id = "0";
    std::string origin_session_version = "0";
    std::string origin_address = "IN IP4 127.0.0.1";  // nettype addrtype address
    std::string session_name = "-";
    std::string timing = "0 0";
    std::vector<std::string> bundle;  // a=group:BUNDLE mids
    std::vector<std::string> groups;  // other a=group values, kept
    std::string ice_ufrag;
    std::string ice_pwd;
    std::vector<std::string> ice_options;
    bool ice_lite = false;
    SdpFingerprint fingerprint;
    SdpSetup setup = SdpSetup::kNone;
    std::string setup_text;
    std::string msid_semantic;  // "WMS" or "WMS *" ...
    bool extmap_allow_mixed = false;
    std::vector<std::string> attributes;  // other session a= lines
    std::vector<SdpMedia> media;

    // Media-level values win over session-level ones (RFC 8839 §5.4, 8122 §5).
    const std::string& ice_ufrag_of(const SdpMedia& m) const;
    const std::string& ice_pwd_of(const SdpMedia& m) const;
    const SdpFingerprint& fingerprint_of(const SdpMedia& m) const;
    SdpSetup setup_of(const SdpMedia& m) const;
    const std::string& setup_text_of(const SdpMedia& m) const;
};

// Parses `text` (see the contract above). On failure *out is unspecified.
Error parse_sdp(std::string_view text, SessionDescription* out);

// The text of `sd`, each line ended by \r\n, in the usual order: v o s t,
// session attributes, then each m= section.
std::string write_sdp(const SessionDescription& sd);

}  // namespace srs
