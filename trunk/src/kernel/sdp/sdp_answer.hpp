// The server's side of WebRTC offer/answer (JSEP, RFC 8829), sans-IO:
//
//   SessionDescription offer;
//   if (Error e = parse_sdp(body, &offer); e.failed()) -> 400 e.message()
//   if (Error e = check_offer(offer); e.failed())      -> 400
//   std::vector<SdpMediaChoice> choice;
//   if (Error e = choose_codecs(offer, SdpCodecPreference(), &choice); e.failed()) -> 400
//   SessionDescription answer;
//   build_answer(offer, choice, options, &answer);
//   write_sdp(answer) -> 201 body
//
// The server is ICE-lite, DTLS passive unless the offer is passive, bundles
// every accepted section and muxes RTCP.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/sdp/sdp.hpp"

namespace srs {

// Header extensions the server understands (RFC 8285 URIs).
extern const char* const kSdpExtTransportCc;  // transport-wide-cc-extensions-01
extern const char* const kSdpExtAbsSendTime;
extern const char* const kSdpExtSdesMid;      // urn:ietf:params:rtp-hdrext:sdes:mid

// Whether `offer` can be answered, each failure with a reason fit for a 400:
//   - no m= section (kErrorSdpNoMedia);
//   - an audio/video section with no ice-ufrag or ice-pwd, its own or the
//     session's (kErrorSdpIce);
//   - no fingerprint, a hash other than sha-1/224/256/384/512, or a value that
//     is not that hash's length in colon-separated hex pairs (kErrorSdpFingerprint);
//   - a=setup other than actpass, active or passive (kErrorSdpSetup).
// Sections other than audio/video (m=application) are not judged: the answer rejects them.
Error check_offer(const SessionDescription& offer);

// The video codecs the caller takes, best first ("h264", "h265", "vp8", "vp9",
// "av1"; ASCII case ignored). H.264 must be packetization-mode=1; among several
// H.264 entries the one whose profile-level-id is `h264_profile` wins, else the
// first of the same family (Baseline 42xxxx, or one that has B-frames: Main,
// High...), else the first in the offer's order. Audio is Opus 48000/2 only.
struct SdpCodecPreference {
    std::vector<std::string> video = {"h264"};
    std::string h264_profile = "42e01f";
};

// What the server keeps of one offered payload type.
struct SdpChosenCodec {
    int pt = -1;
    std::string name;  // as the offer wrote it ("H264", "opus")
    uint32_t clock_rate = 0;
    int channels = 0;
    std::string fmtp;                  // the offer's fmtp, as given
    std::vector<std::string> rtcp_fb;  // the supported subset: nack, nack pli, transport-cc, goog-remb
    int rtx_pt = -1;                   // the rtx whose apt is pt, -1 when none
    uint32_t rtx_clock_rate = 0;
};

// The choice for one m= section of the offer (same index).
struct SdpMediaChoice {
    bool accepted = false;  // false: answered with port 0 (m=application, say)
    std::string kind;
    std::string mid;
    SdpChosenCodec codec;
    std::vector<SdpExtmap> extmaps;  // the offer's, limited to the supported URIs
};

// One choice per offered section. An audio or video section without a codec
// the server takes fails with kErrorSdpNoCodec naming the section and what was
// offered; no accepted section at all is kErrorSdpNoMedia.
Error choose_codecs(const SessionDescription& offer, const SdpCodecPreference& prefer,
                    std::vector<SdpMediaChoice>* out);

// A host candidate of the server.
struct SdpHostCandidate {
    std::string ip;
    uint16_t port = 0;
    std::string transport = "udp";  // "udp" or "tcp" (passive)
};

// The track the server sends in one kind of section (a player's answer).
struct SdpSendTrack {
    uint32_t ssrc = 0;
    uint32_t rtx_ssrc = 0;  // used when the codec has rtx; 0: none
    std::string track_id;   // msid track part
};

struct SdpAnswerOptions {
    std::string ice_ufrag;
    std::string ice_pwd;
    SdpFingerprint fingerprint;  // the server certificate's, "sha-256"
    std::vector<SdpHostCandidate> candidates;
    bool publisher = true;       // true: recvonly (the peer publishes); false: sendonly
    uint64_t session_id = 1;     // o= sess-id
    std::string cname;           // for a=ssrc cname (player)
    std::string stream_id;       // msid stream part (player); an RFC 8866 token: no '/' for strict peers
    SdpSendTrack audio;          // player only
    SdpSendTrack video;          // player only
};

// Fills *answer for `offer` and the choices made for it. Fails with
// kErrorSdpAnswer if `choice` does not match the offer or an option is unusable
// (no ufrag/pwd/fingerprint, a candidate transport other than udp/tcp, a
// player's track without an ssrc).
Error build_answer(const SessionDescription& offer, const std::vector<SdpMediaChoice>& choice,
                   const SdpAnswerOptions& options, SessionDescription* answer);

}  // namespace srs
