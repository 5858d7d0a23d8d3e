// sb_rtc_publish's sans-IO pieces (tools/rtc_publisher.hpp): the -r URL, the
// sendonly offer (checked by the server's own offer judge, answered by its
// answer builder and read back), what is taken from ffmpeg's real SDP (the
// profile and the SPS/PPS), the STAP-A of them, the kind of an H.264 payload,
// the header rewrite, the send ring and the on-purpose loss.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "kernel/rtp/rtp.hpp"
#include "kernel/sdp/sdp_answer.hpp"
#include "tools/rtc_publisher.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

const char kFingerprint[] =
    "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89";

// What ffmpeg 5.1 wrote (-sdp_file) for a 640x360 baseline x264 stream and Opus.
const char kFfmpegSdp[] =
    "v=0\n"
    "o=- 0 0 IN IP4 127.0.0.1\n"
    "s=No Name\n"
    "t=0 0\n"
    "a=tool:libavformat LIBAVFORMAT_VERSION\n"
    "m=video 41000 RTP/AVP 96\n"
    "c=IN IP4 127.0.0.1\n"
    "b=AS:550\n"
    "a=rtpmap:96 H264/90000\n"
    "a=fmtp:96 packetization-mode=1; sprop-parameter-sets=Z0LAHtkAoC/5cBEAAAMAAQAAAwAyDxYuSA==,aMuMsg==; "
    "profile-level-id=42C01E\n"
    "m=audio 41002 RTP/AVP 97\n"
    "c=IN IP4 127.0.0.1\n"
    "a=rtpmap:97 opus/48000/2\n"
    "a=fmtp:97 sprop-stereo=1\n";

RtcPublishParams publish_params() {
    RtcPublishParams p;
    p.ice.ice_ufrag = "pubufrag";
    p.ice.ice_pwd = "publisherpassword0123456";
    p.ice.fingerprint = kFingerprint;
    p.ice.session_id = 42;
    p.audio_ssrc = 0x11111111;
    p.video_ssrc = 0x22222222;
    p.cname = "pubcname";
    p.stream_id = "sb-stream";
    return p;
}

// A 12-byte RTP header: version 2, marker, PT 96, seq 0x1234, ts, SSRC 0xdeadbeef.
std::vector<uint8_t> rtp_packet(std::vector<uint8_t> payload) {
    std::vector<uint8_t> p = {0x80, 0x80 | 96, 0x12, 0x34, 0x00, 0x01, 0x02, 0x03, 0xde, 0xad, 0xbe, 0xef};
    p.insert(p.end(), payload.begin(), payload.end());
    return p;
}

}  // namespace

// ---- the URL ----

TEST(RtcPublisher, WhipUrlIsPostedAsGiven) {
    RtcPlayUrl u;
    ASSERT_TRUE(parse_rtc_publish_url("http://127.0.0.1:1985/rtc/v1/whip/?app=live&stream=s", &u).ok());
    EXPECT_EQ(u.signalling, RtcSignalling::kWhep);
    EXPECT_EQ(u.api.port, 1985);
    EXPECT_EQ(u.api.target, "/rtc/v1/whip/?app=live&stream=s");
}

TEST(RtcPublisher, WebrtcUrlUsesThePublishApi) {
    RtcPlayUrl u;
    ASSERT_TRUE(parse_rtc_publish_url("webrtc://127.0.0.1/live/s", &u).ok());
    EXPECT_EQ(u.signalling, RtcSignalling::kSrsApi);
    EXPECT_EQ(u.api.port, kSrsApiDefaultPort);
    EXPECT_EQ(u.api.target, "/rtc/v1/publish/");
    EXPECT_EQ(u.stream_url, "webrtc://127.0.0.1/live/s");
    Error err = parse_rtc_publish_url("webrtc://127.0.0.1/nostream", &u);
    EXPECT_EQ(err.code(), kErrorHttpBadTarget);
    err.ignore();
    err = parse_rtc_publish_url("ftp://x", &u);
    EXPECT_TRUE(err.failed());
    err.ignore();
}

// ---- the offer ----

TEST(RtcPublisher, OfferIsSendonlyWithOurSsrcsAndProfile) {
    RtcPublishParams p = publish_params();
    p.profile_level_id = "42c01e";
    const std::string text = write_sdp(build_publish_offer(p));
    SessionDescription sd;
    ASSERT_TRUE(parse_sdp(text, &sd).ok()) << text;
    ASSERT_EQ(sd.media.size(), 2u);
    EXPECT_EQ(sd.bundle, (std::vector<std::string>{"0", "1"}));
    const SdpMedia& a = sd.media[0];
    const SdpMedia& v = sd.media[1];
    EXPECT_EQ(a.kind, "audio");
    EXPECT_EQ(a.direction, SdpDirection::kSendOnly);
    ASSERT_EQ(a.codecs.size(), 1u);
    EXPECT_EQ(a.codecs[0].pt, kPublishOpusPt);
    EXPECT_EQ(a.codecs[0].channels, 2);
    ASSERT_EQ(a.ssrcs.size(), 1u);
    EXPECT_EQ(a.ssrcs[0].ssrc, 0x11111111u);
    EXPECT_EQ(a.ssrcs[0].cname, "pubcname");
    EXPECT_EQ(v.kind, "video");
    EXPECT_EQ(v.direction, SdpDirection::kSendOnly);
    // ffmpeg's profile first (not in Chromium's list: PT 96), then every
    // entry of Chromium's list (a Constrained Baseline stream is valid under all).
    ASSERT_EQ(v.codecs.size(), 1u + std::size(kChromiumH264));
    EXPECT_EQ(v.codecs[0].pt, kPublishOwnProfilePt);
    EXPECT_EQ(*v.codecs[0].param("profile-level-id"), "42c01e");
    EXPECT_EQ(*v.codecs[0].param("packetization-mode"), "1");
    EXPECT_EQ(v.codecs[0].rtcp_fb,
              (std::vector<std::string>{"goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"}));
    EXPECT_EQ(v.codecs[1].pt, 102);
    EXPECT_EQ(*v.codecs[2].param("packetization-mode"), "0");
    EXPECT_EQ(v.formats.size(), v.codecs.size());
    EXPECT_EQ(a.codecs[0].fmtp, "minptime=10;useinbandfec=1");
    for (const SdpMedia* m : {&a, &v}) {
        ASSERT_EQ(m->extmaps.size(), 3u);
        EXPECT_EQ(m->extmaps[1].uri, "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01");
        EXPECT_EQ(m->extmaps[2].uri, "urn:ietf:params:rtp-hdrext:sdes:mid");
    }
    ASSERT_EQ(v.ssrcs.size(), 1u);
    EXPECT_EQ(v.ssrcs[0].ssrc, 0x22222222u);
    EXPECT_EQ(v.ssrcs[0].msid_stream, "sb-stream");
    EXPECT_NE(text.find("a=setup:actpass\r\n"), std::string::npos);
    EXPECT_NE(text.find("a=rtcp-mux\r\n"), std::string::npos);
    EXPECT_NE(text.find("a=ice-ufrag:pubufrag\r\n"), std::string::npos);
    EXPECT_EQ(text.find("a=candidate"), std::string::npos);
}

TEST(RtcPublisher, OfferHasOnlyProfilesThatCarryTheStream) {
    auto pts = [](const char* profile) {
        RtcPublishParams p = publish_params();
        p.profile_level_id = profile;
        std::vector<int> out;
        const SessionDescription sd = build_publish_offer(p);
        for (const SdpCodec& c : sd.media[1].codecs) out.push_back(c.pt);
        return out;
    };
    EXPECT_EQ(pts("64001f"), (std::vector<int>{112, 113}));              // High: only High
    EXPECT_EQ(pts("4d001f"), (std::vector<int>{127, 39, 112, 113}));     // Main: Main and High
    EXPECT_EQ(pts("640028"), (std::vector<int>{96, 112, 113}));          // ffmpeg's level first, own PT
    EXPECT_EQ(pts("42e01f"), (std::vector<int>{106, 102, 104, 108, 127, 39, 112, 113}));
    EXPECT_EQ(pts("42001f"), (std::vector<int>{102, 104, 106, 108}));    // plain Baseline: not Main/High
}

TEST(RtcPublisher, ProfileCompatibility) {
    EXPECT_TRUE(h264_profile_carries("42e01f", "42001f"));
    EXPECT_TRUE(h264_profile_carries("42E01F", "4d001f"));
    EXPECT_TRUE(h264_profile_carries("42c01e", "64001f"));
    EXPECT_FALSE(h264_profile_carries("42001f", "64001f"));
    EXPECT_FALSE(h264_profile_carries("64001f", "42e01f"));
    EXPECT_FALSE(h264_profile_carries("4d001f", "42001f"));
    EXPECT_TRUE(h264_profile_carries("4d001f", "64001f"));
    EXPECT_TRUE(h264_profile_carries("640028", "64001f"));
    EXPECT_FALSE(h264_profile_carries("", "42e01f"));
    EXPECT_FALSE(h264_profile_carries("42e0zz", "42e01f"));
    EXPECT_FALSE(h264_profile_carries("42e01f", "42e01"));
}

// A full-ICE server's answer (Pion's layout: several H.264 entries it
// takes, mode 0 first here): the publisher sends under the mode 1 entry of
// its own profile, else the first mode 1 entry, else none.
TEST(RtcPublisher, ChoosesTheVideoPtFromTheAnswer) {
    const std::string fp = std::string(kFingerprint);
    const std::string h264 = "a=rtpmap:%d H264/90000\r\na=fmtp:%d level-asymmetry-allowed=1;packetization-mode=%d;"
                             "profile-level-id=%s\r\n";
    auto entry = [&h264](int pt, int mode, const char* profile) {
        char line[256];
        snprintf(line, sizeof(line), h264.c_str(), pt, pt, mode, profile);
        return std::string(line);
    };
    const std::string answer =
        "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n"
        "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=ice-ufrag:pion\r\n"
        "a=ice-pwd:pionpionpionpionpionpion\r\na=fingerprint:sha-256 " + fp + "\r\n"
        "a=setup:active\r\na=recvonly\r\na=rtcp-mux\r\na=rtpmap:111 opus/48000/2\r\n"
        "a=candidate:1 1 udp 2130706431 127.0.0.1 40000 typ host\r\n"
        "m=video 9 UDP/TLS/RTP/SAVPF 104 102 106 112\r\nc=IN IP4 0.0.0.0\r\na=mid:1\r\na=recvonly\r\n"
        "a=rtcp-mux\r\n" + entry(104, 0, "42001f") + entry(102, 1, "42001f") + entry(106, 1, "42e01f") +
        entry(112, 1, "64001f");
    RtcAnswerInfo info;
    ASSERT_TRUE(read_play_answer(answer, &info).ok()) << answer;
    EXPECT_EQ(info.setup, SdpSetup::kActive);
    EXPECT_EQ(info.video_pt, 102);  // the first mode 1 entry
    EXPECT_EQ(info.video_pts, (std::vector<int>{104, 102, 106, 112}));
    ASSERT_EQ(info.video_h264.size(), 4u);
    EXPECT_EQ(info.video_h264[0].packetization_mode, 0);
    EXPECT_EQ(publish_video_pt(info, "42e01f"), 106);
    EXPECT_EQ(publish_video_pt(info, "64001F"), 112);
    EXPECT_EQ(publish_video_pt(info, "4d001f"), 102);
    info.video_h264.erase(info.video_h264.begin() + 1, info.video_h264.end());
    EXPECT_EQ(publish_video_pt(info, "42001f"), -1);  // mode 0 only: FU-A cannot go there
}

// The server's judge takes the offer as a publisher's, and the answer its
// builder writes is one the publisher reads (recvonly on the server side).
TEST(RtcPublisher, TheServerAnswersTheOfferAndThePublisherReadsIt) {
    SessionDescription offer;
    ASSERT_TRUE(parse_sdp(write_sdp(build_publish_offer(publish_params())), &offer).ok());
    ASSERT_TRUE(check_offer(offer).ok());
    std::vector<SdpMediaChoice> choice;
    ASSERT_TRUE(choose_codecs(offer, SdpCodecPreference(), &choice).ok());
    ASSERT_EQ(choice.size(), 2u);
    EXPECT_TRUE(choice[0].accepted);
    EXPECT_TRUE(choice[1].accepted);
    EXPECT_EQ(choice[0].codec.pt, kPublishOpusPt);
    EXPECT_EQ(choice[1].codec.pt, 106);  // the server prefers 42e01f, the stream's

    SdpAnswerOptions o;
    o.ice_ufrag = "srvufrag";
    o.ice_pwd = "serverpassword0123456789";
    o.fingerprint.algorithm = "sha-256";
    o.fingerprint.value = kFingerprint;
    o.candidates.push_back({"127.0.0.1", 8000, "udp"});
    o.publisher = true;
    o.cname = "c";
    o.stream_id = "live-livestream";
    SessionDescription answer;
    ASSERT_TRUE(build_answer(offer, choice, o, &answer).ok());
    const std::string text = write_sdp(answer);
    EXPECT_NE(text.find("a=recvonly\r\n"), std::string::npos) << text;

    RtcAnswerInfo info;
    ASSERT_TRUE(read_play_answer(text, &info).ok()) << text;
    EXPECT_EQ(info.setup, SdpSetup::kPassive);
    EXPECT_EQ(info.candidate_port, 8000);
    EXPECT_EQ(info.audio_pt, kPublishOpusPt);
    EXPECT_EQ(info.video_pt, 106);
    EXPECT_EQ(publish_video_pt(info, kDefaultProfileLevelId), 106);
}

// ---- ffmpeg's SDP ----

TEST(RtcPublisher, ReadsTheProfileOfFfmpegsSdp) {
    EXPECT_EQ(sdp_h264_profile_level_id(kFfmpegSdp), "42c01e");
    EXPECT_EQ(sdp_h264_profile_level_id("a=fmtp:96 profile-level-id=64001f;packetization-mode=1"), "64001f");
    EXPECT_EQ(sdp_h264_profile_level_id("a=fmtp:96 packetization-mode=1"), "");
    EXPECT_EQ(sdp_h264_profile_level_id("a=fmtp:96 profile-level-id=42e0"), "");      // too short
    EXPECT_EQ(sdp_h264_profile_level_id("a=fmtp:96 profile-level-id=42e0zz\n"), "");  // not hex
    EXPECT_EQ(sdp_h264_profile_level_id("a=fmtp:96 profile-level-id=42e01f0\n"), "");  // seven digits
}

TEST(RtcPublisher, ReadsTheParameterSetsOfFfmpegsSdp) {
    const std::vector<std::string> sets = sdp_h264_sprop_parameter_sets(kFfmpegSdp);
    ASSERT_EQ(sets.size(), 2u);
    // The SPS: NAL header 0x67 (type 7), profile_idc 66 (baseline), constraint 0xc0, level 30.
    ASSERT_EQ(sets[0].size(), 25u);
    EXPECT_EQ(static_cast<uint8_t>(sets[0][0]), 0x67);
    EXPECT_EQ(static_cast<uint8_t>(sets[0][1]), 66);
    EXPECT_EQ(static_cast<uint8_t>(sets[0][2]), 0xc0);
    EXPECT_EQ(static_cast<uint8_t>(sets[0][3]), 30);
    // The PPS: 68 cb 8c b2.
    EXPECT_EQ(sets[1], std::string("\x68\xcb\x8c\xb2", 4));

    EXPECT_TRUE(sdp_h264_sprop_parameter_sets("a=fmtp:96 packetization-mode=1\n").empty());
    EXPECT_TRUE(sdp_h264_sprop_parameter_sets("sprop-parameter-sets=Z0LA,@@@@;").empty());  // not base64
    EXPECT_TRUE(sdp_h264_sprop_parameter_sets("sprop-parameter-sets=Z0LA,;").empty());      // an empty unit
    EXPECT_TRUE(sdp_h264_sprop_parameter_sets("sprop-parameter-sets=").empty());
    EXPECT_EQ(sdp_h264_sprop_parameter_sets("sprop-parameter-sets=aMuMsg==").size(), 1u);  // at the end
}

// ---- H.264 payloads ----

TEST(RtcPublisher, StapAAggregatesTheParameterSets) {
    const std::string stap = h264_stap_a({std::string("\x67\x42\xc0\x1e", 4), std::string("\x68\xcb\x8c\xb2", 4)});
    EXPECT_EQ(stap, std::string("\x78\x00\x04\x67\x42\xc0\x1e\x00\x04\x68\xcb\x8c\xb2", 13));
    // What the player's keyframe check says of it: a keyframe start.
    EXPECT_TRUE(h264_payload_starts_keyframe(reinterpret_cast<const uint8_t*>(stap.data()), stap.size()));
    EXPECT_EQ(h264_payload_kind(reinterpret_cast<const uint8_t*>(stap.data()), stap.size()),
              H264PayloadKind::kParameterSets);
    // The NRI is the highest of the units'.
    EXPECT_EQ(static_cast<uint8_t>(h264_stap_a({std::string("\x27\x42", 2), std::string("\x08\x01", 2)})[0]), 0x38);
    EXPECT_EQ(h264_stap_a({}), "");
    EXPECT_EQ(h264_stap_a({""}), "");
    EXPECT_EQ(h264_stap_a({std::string(70000, 'x')}), "");
}

TEST(RtcPublisher, KindOfAnH264Payload) {
    const uint8_t idr[] = {0x65, 0x88};
    const uint8_t sps[] = {0x67, 0x42};
    const uint8_t pps[] = {0x68, 0xcb};
    const uint8_t slice[] = {0x41, 0x9a};
    const uint8_t fu_idr_start[] = {0x7c, 0x85, 0x88};
    const uint8_t fu_idr_middle[] = {0x7c, 0x05, 0x00};
    const uint8_t fu_slice_start[] = {0x5c, 0x81, 0x9a};
    EXPECT_EQ(h264_payload_kind(idr, 2), H264PayloadKind::kIdrStart);
    EXPECT_EQ(h264_payload_kind(fu_idr_start, 3), H264PayloadKind::kIdrStart);
    EXPECT_EQ(h264_payload_kind(sps, 2), H264PayloadKind::kParameterSets);
    EXPECT_EQ(h264_payload_kind(pps, 2), H264PayloadKind::kParameterSets);
    EXPECT_EQ(h264_payload_kind(slice, 2), H264PayloadKind::kOther);
    EXPECT_EQ(h264_payload_kind(fu_idr_middle, 3), H264PayloadKind::kOther);
    EXPECT_EQ(h264_payload_kind(fu_slice_start, 3), H264PayloadKind::kOther);
    EXPECT_EQ(h264_payload_kind(fu_idr_start, 1), H264PayloadKind::kOther);  // FU header cut off
    EXPECT_EQ(h264_payload_kind(idr, 0), H264PayloadKind::kOther);
}

// ---- the relay ----

TEST(RtcPublisher, RewritesPtSeqAndSsrcKeepingTheMarker) {
    std::vector<uint8_t> p = rtp_packet({0x65, 0x88});
    ASSERT_TRUE(rewrite_rtp_header(p.data(), p.size(), kOfferH264Pt, 0xfffe, 0x01020304));
    EXPECT_EQ(p, (std::vector<uint8_t>{0x80, 0x80 | kOfferH264Pt, 0xff, 0xfe, 0x00, 0x01, 0x02, 0x03, 0x01, 0x02,
                                       0x03, 0x04, 0x65, 0x88}));
    RtpHeader h;
    ASSERT_TRUE(rtp_parse_header(p.data(), p.size(), &h).ok());
    EXPECT_TRUE(h.marker);
    EXPECT_EQ(h.payload_type, kOfferH264Pt);
    EXPECT_EQ(h.sequence, 0xfffe);
    EXPECT_EQ(h.ssrc, 0x01020304u);

    p[1] = 96;  // no marker: stays without
    ASSERT_TRUE(rewrite_rtp_header(p.data(), p.size(), kPublishOpusPt, 1, 5));
    EXPECT_EQ(p[1], kPublishOpusPt);

    std::vector<uint8_t> short_packet(11, 0x80);
    EXPECT_FALSE(rewrite_rtp_header(short_packet.data(), short_packet.size(), 1, 1, 1));
    std::vector<uint8_t> v1 = rtp_packet({});
    v1[0] = 0x40;  // version 1
    EXPECT_FALSE(rewrite_rtp_header(v1.data(), v1.size(), 1, 1, 1));
    EXPECT_EQ(v1[1], 0x80 | 96);  // untouched
}

TEST(RtcPublisher, HeaderSizeCountsCsrcsAndTheExtension) {
    std::vector<uint8_t> p = rtp_packet({1, 2, 3});
    EXPECT_EQ(rtp_header_size_of(p.data(), p.size()), 12u);
    p[0] = 0x81;  // one CSRC: 4 more bytes, 15 in all: fits
    EXPECT_EQ(rtp_header_size_of(p.data(), p.size()), 0u);  // 16 > 15
    p.push_back(4);
    EXPECT_EQ(rtp_header_size_of(p.data(), p.size()), 16u);
    // An extension of one word after the fixed header.
    std::vector<uint8_t> x = rtp_packet({0xbe, 0xde, 0x00, 0x01, 0x10, 0xff, 0x00, 0x00, 0x65});
    x[0] = 0x90;
    EXPECT_EQ(rtp_header_size_of(x.data(), x.size()), 20u);
    x[15] = 9;  // says nine words: longer than the packet
    EXPECT_EQ(rtp_header_size_of(x.data(), x.size()), 0u);
    EXPECT_EQ(rtp_header_size_of(x.data(), 11), 0u);
}

TEST(RtcPublisher, SendRingAnswersRecentSequenceNumbers) {
    RtpSendRing ring;
    size_t n = 0;
    EXPECT_EQ(ring.get(0, &n), nullptr);  // empty
    std::vector<uint8_t> p = rtp_packet({0xaa, 0xbb});
    // 65000 .. 65535, 0 .. 999 (across the wrap): 1536 packets, the ring keeps the last 1024.
    for (uint32_t i = 0; i < 1536; i++) {
        const uint16_t seq = static_cast<uint16_t>(65000 + i);
        ASSERT_TRUE(rewrite_rtp_header(p.data(), p.size(), 102, seq, 7));
        p[12] = static_cast<uint8_t>(i);
        ASSERT_TRUE(ring.put(p.data(), p.size()));
    }
    const uint8_t* got = ring.get(999, &n);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(n, p.size());
    EXPECT_EQ(rtp_sequence_of(got), 999);
    EXPECT_EQ(got[12], static_cast<uint8_t>(1535));
    got = ring.get(65535, &n);  // 1024 back from 999 is 65511: still kept
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got[12], static_cast<uint8_t>(535));
    EXPECT_NE(ring.get(static_cast<uint16_t>(999 - 1023), &n), nullptr);  // the oldest kept
    EXPECT_EQ(ring.get(static_cast<uint16_t>(999 - 1024), &n), nullptr);  // overwritten
    EXPECT_EQ(ring.get(1000, &n), nullptr);                               // never sent
    EXPECT_EQ(ring.get(65000, &n), nullptr);

    std::vector<uint8_t> big(RtpSendRing::kMaxPacket + 1, 0x80);
    EXPECT_FALSE(ring.put(big.data(), big.size()));
    EXPECT_FALSE(ring.put(p.data(), 11));
}

TEST(RtcPublisher, LossDropsAboutThePercentGiven) {
    LossDropper none(0), all(100), some(10);
    int dropped = 0;
    for (int i = 0; i < 100000; i++) {
        EXPECT_FALSE(none.drop());
        ASSERT_TRUE(all.drop());
        dropped += some.drop() ? 1 : 0;
    }
    EXPECT_GT(dropped, 9000);
    EXPECT_LT(dropped, 11000);
    // The same seed drops the same packets.
    LossDropper a(5), b(5);
    for (int i = 0; i < 1000; i++) ASSERT_EQ(a.drop(), b.drop());
}
