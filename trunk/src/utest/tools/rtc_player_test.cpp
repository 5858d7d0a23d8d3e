// sb_rtc_load's sans-IO pieces (tools/rtc_player.hpp): the -r URL, the offer
// (checked by the server's own offer judge and answered by its answer
// builder), the answer, SRS's JSON API, the HTTP response head, the H.264
// keyframe check on real NAL headers and the sequence tracker.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/sdp/sdp_answer.hpp"
#include "tools/rtc_player.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

const char kFingerprint[] =
    "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89";

// An answer as our server (and SRS) writes one for a WHEP player.
const char kAnswer[] =
    "v=0\r\n"
    "o=SRS/7.0.0 94597104 2 IN IP4 0.0.0.0\r\n"
    "s=SRSPlaySession\r\n"
    "t=0 0\r\n"
    "a=ice-lite\r\n"
    "a=group:BUNDLE 0 1\r\n"
    "a=msid-semantic: WMS live/livestream\r\n"
    "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=ice-ufrag:4s2h1k07\r\n"
    "a=ice-pwd:q3071z8d5m5r4n5y5g8172rp50p7w3c0\r\n"
    "a=fingerprint:sha-256 "
    "6E:0B:05:0F:7E:8A:D4:33:5C:62:6A:71:92:FD:B8:F3:98:5E:4B:F1:58:8F:C3:04:6C:A0:B8:1B:DC:31:1E:12\r\n"
    "a=setup:passive\r\n"
    "a=mid:0\r\n"
    "a=sendonly\r\n"
    "a=rtcp-mux\r\n"
    "a=rtcp-rsize\r\n"
    "a=rtpmap:111 opus/48000/2\r\n"
    "a=fmtp:111 minptime=10;useinbandfec=1\r\n"
    "a=ssrc:2836476152 cname:x2p1v5j8y7i7w8n6\r\n"
    "a=candidate:0 1 udp 2130706431 127.0.0.1 8000 typ host generation 0\r\n"
    "m=video 9 UDP/TLS/RTP/SAVPF 106\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=ice-ufrag:4s2h1k07\r\n"
    "a=ice-pwd:q3071z8d5m5r4n5y5g8172rp50p7w3c0\r\n"
    "a=fingerprint:sha-256 "
    "6E:0B:05:0F:7E:8A:D4:33:5C:62:6A:71:92:FD:B8:F3:98:5E:4B:F1:58:8F:C3:04:6C:A0:B8:1B:DC:31:1E:12\r\n"
    "a=setup:passive\r\n"
    "a=mid:1\r\n"
    "a=sendonly\r\n"
    "a=rtcp-mux\r\n"
    "a=rtcp-rsize\r\n"
    "a=rtpmap:106 H264/90000\r\n"
    "a=rtcp-fb:106 nack\r\n"
    "a=rtcp-fb:106 nack pli\r\n"
    "a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r\n"
    "a=ssrc:2836476153 cname:x2p1v5j8y7i7w8n6\r\n"
    "a=candidate:0 1 udp 2130706431 127.0.0.1 8000 typ host generation 0\r\n";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
        s.replace(at, from.size(), to);
    }
    return s;
}

RtcOfferParams offer_params() {
    RtcOfferParams p;
    p.ice_ufrag = "ab12cd34";
    p.ice_pwd = "0123456789abcdefghijklmn";
    p.fingerprint = kFingerprint;
    p.session_id = 4242;
    return p;
}

}  // namespace

// ---- the -r URL ----

TEST(RtcPlayer, WhepUrlIsPostedAsGiven) {
    RtcPlayUrl u;
    ASSERT_TRUE(parse_rtc_play_url("http://127.0.0.1:1985/rtc/v1/whep/?app=live&stream=livestream", &u).ok());
    EXPECT_EQ(u.signalling, RtcSignalling::kWhep);
    EXPECT_EQ(u.api.host, "127.0.0.1");
    EXPECT_EQ(u.api.port, 1985);
    EXPECT_EQ(u.api.target, "/rtc/v1/whep/?app=live&stream=livestream");
    EXPECT_TRUE(u.stream_url.empty());
}

TEST(RtcPlayer, WebrtcUrlPlaysThroughTheApi) {
    RtcPlayUrl u;
    ASSERT_TRUE(parse_rtc_play_url("webrtc://127.0.0.1:1990/live/livestream?codec=h264", &u).ok());
    EXPECT_EQ(u.signalling, RtcSignalling::kSrsApi);
    EXPECT_EQ(u.api.host, "127.0.0.1");
    EXPECT_EQ(u.api.port, 1990);
    EXPECT_EQ(u.api.target, "/rtc/v1/play/");
    EXPECT_EQ(u.stream_url, "webrtc://127.0.0.1:1990/live/livestream?codec=h264");

    ASSERT_TRUE(parse_rtc_play_url("webrtc://10.0.0.2/live/s1", &u).ok());
    EXPECT_EQ(u.api.port, kSrsApiDefaultPort);
    EXPECT_EQ(u.api.host_header, "10.0.0.2:1985");

    ASSERT_TRUE(parse_rtc_play_url("webrtc://[::1]/live/s1", &u).ok());
    EXPECT_EQ(u.api.host, "::1");
    EXPECT_EQ(u.api.port, 1985);
    ASSERT_TRUE(parse_rtc_play_url("webrtc://[::1]:2000/live/s1", &u).ok());
    EXPECT_EQ(u.api.port, 2000);
}

TEST(RtcPlayer, BadUrls) {
    RtcPlayUrl u;
    for (const char* bad : {"webrtc://127.0.0.1", "webrtc://127.0.0.1/", "webrtc://127.0.0.1/live",
                            "webrtc://127.0.0.1/live/", "webrtc:///live/s", "webrtc://example.com/live/s",
                            "webrtc://127.0.0.1:99999/live/s", "rtmp://127.0.0.1/live/s",
                            "https://127.0.0.1/rtc/v1/whep/", "http://localhost:1985/rtc/v1/whep/"}) {
        Error err = parse_rtc_play_url(bad, &u);
        EXPECT_TRUE(err.failed()) << bad;
        err.ignore();
    }
}

// ---- the offer ----

TEST(RtcPlayer, OfferReadsBackAsWritten) {
    const std::string text = write_sdp(build_play_offer(offer_params()));
    SessionDescription sd;
    ASSERT_TRUE(parse_sdp(text, &sd).ok()) << text;
    EXPECT_EQ(sd.origin_session_id, "4242");
    EXPECT_EQ(sd.bundle, (std::vector<std::string>{"0", "1"}));
    ASSERT_EQ(sd.media.size(), 2u);
    const SdpMedia& a = sd.media[0];
    const SdpMedia& v = sd.media[1];
    EXPECT_EQ(a.kind, "audio");
    EXPECT_EQ(v.kind, "video");
    for (const SdpMedia* m : {&a, &v}) {
        EXPECT_EQ(m->direction, SdpDirection::kRecvOnly);
        EXPECT_EQ(m->setup, SdpSetup::kActpass);
        EXPECT_EQ(m->ice_ufrag, "ab12cd34");
        EXPECT_EQ(m->ice_pwd, "0123456789abcdefghijklmn");
        EXPECT_EQ(m->fingerprint.algorithm, "sha-256");
        EXPECT_EQ(m->fingerprint.value, kFingerprint);
        EXPECT_TRUE(m->rtcp_mux);
        EXPECT_EQ(m->proto, "UDP/TLS/RTP/SAVPF");
        EXPECT_TRUE(m->candidates.empty());
        EXPECT_EQ(m->extmaps.size(), 3u);
    }
    ASSERT_EQ(a.codecs.size(), 1u);
    ASSERT_EQ(v.codecs.size(), std::size(kChromiumH264));
    EXPECT_EQ(a.mid, "0");
    EXPECT_EQ(a.codecs[0].name, "opus");
    EXPECT_EQ(a.codecs[0].clock_rate, 48000u);
    EXPECT_EQ(a.codecs[0].channels, 2);
    EXPECT_EQ(v.mid, "1");
    EXPECT_EQ(v.codecs[0].name, "H264");
    EXPECT_EQ(v.codecs[0].clock_rate, 90000u);
    ASSERT_NE(v.codecs[0].param("packetization-mode"), nullptr);
    EXPECT_EQ(*v.codecs[0].param("packetization-mode"), "1");
    ASSERT_NE(v.codecs[0].param("profile-level-id"), nullptr);
    EXPECT_EQ(*v.codecs[0].param("profile-level-id"), "42001f");  // Chromium's order
    EXPECT_EQ(v.codecs[0].rtcp_fb,
              (std::vector<std::string>{"goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"}));
    std::vector<std::string> profiles;
    for (const SdpCodec& c : v.codecs) {
        profiles.push_back(*c.param("profile-level-id") + "/" + *c.param("packetization-mode"));
    }
    EXPECT_EQ(profiles, (std::vector<std::string>{"42001f/1", "42001f/0", "42e01f/1", "42e01f/0", "4d001f/1",
                                                  "4d001f/0", "64001f/1", "64001f/0"}));
    EXPECT_NE(text.find("a=recvonly\r\n"), std::string::npos);
    EXPECT_NE(text.find("a=setup:actpass\r\n"), std::string::npos);
}

// The server's own judge takes the offer, and its answer builder's answer is
// one the player reads: the two halves agree.
TEST(RtcPlayer, TheServerAnswersTheOfferAndThePlayerReadsIt) {
    SessionDescription offer;
    ASSERT_TRUE(parse_sdp(write_sdp(build_play_offer(offer_params())), &offer).ok());
    ASSERT_TRUE(check_offer(offer).ok());
    std::vector<SdpMediaChoice> choice;
    ASSERT_TRUE(choose_codecs(offer, SdpCodecPreference(), &choice).ok());
    ASSERT_EQ(choice.size(), 2u);
    EXPECT_TRUE(choice[0].accepted);
    EXPECT_TRUE(choice[1].accepted);
    EXPECT_EQ(choice[1].codec.pt, kOfferH264Pt);

    SdpAnswerOptions o;
    o.ice_ufrag = "srvufrag";
    o.ice_pwd = "serverpassword0123456789";
    o.fingerprint.algorithm = "sha-256";
    o.fingerprint.value = kFingerprint;
    o.candidates.push_back({"127.0.0.1", 8000, "udp"});
    o.publisher = false;
    o.cname = "c";
    o.stream_id = "live-livestream";
    o.audio.ssrc = 1111;
    o.audio.track_id = "a";
    o.video.ssrc = 2222;
    o.video.track_id = "v";
    SessionDescription answer;
    ASSERT_TRUE(build_answer(offer, choice, o, &answer).ok());

    RtcAnswerInfo info;
    ASSERT_TRUE(read_play_answer(write_sdp(answer), &info).ok()) << write_sdp(answer);
    EXPECT_EQ(info.ice_ufrag, "srvufrag");
    EXPECT_EQ(info.ice_pwd, "serverpassword0123456789");
    EXPECT_EQ(info.fingerprint, kFingerprint);
    EXPECT_EQ(info.setup, SdpSetup::kPassive);
    EXPECT_EQ(info.candidate_ip, "127.0.0.1");
    EXPECT_EQ(info.candidate_port, 8000);
    EXPECT_EQ(info.audio_pt, kOfferOpusPt);
    EXPECT_EQ(info.video_pt, kOfferH264Pt);
    EXPECT_EQ(info.audio_ssrc, 1111u);
    EXPECT_EQ(info.video_ssrc, 2222u);
}

// ---- the answer ----

TEST(RtcPlayer, ReadsAnAnswer) {
    RtcAnswerInfo info;
    ASSERT_TRUE(read_play_answer(kAnswer, &info).ok());
    EXPECT_EQ(info.ice_ufrag, "4s2h1k07");
    EXPECT_EQ(info.ice_pwd, "q3071z8d5m5r4n5y5g8172rp50p7w3c0");
    EXPECT_EQ(info.fingerprint.substr(0, 8), "6E:0B:05");
    EXPECT_EQ(info.setup, SdpSetup::kPassive);
    EXPECT_EQ(info.candidate_ip, "127.0.0.1");
    EXPECT_EQ(info.candidate_port, 8000);
    EXPECT_EQ(info.audio_pt, 111);
    EXPECT_EQ(info.video_pt, 106);
    EXPECT_EQ(info.audio_ssrc, 2836476152u);
    EXPECT_EQ(info.video_ssrc, 2836476153u);

    // An active server makes the player the DTLS server: still usable.
    ASSERT_TRUE(read_play_answer(replaced(kAnswer, "a=setup:passive", "a=setup:active"), &info).ok());
    EXPECT_EQ(info.setup, SdpSetup::kActive);
    // A refused audio section: video alone plays.
    ASSERT_TRUE(read_play_answer(replaced(kAnswer, "m=audio 9", "m=audio 0"), &info).ok());
    EXPECT_EQ(info.audio_pt, -1);
    EXPECT_EQ(info.video_pt, 106);
    // The first udp host candidate wins; tcp ones are skipped.
    ASSERT_TRUE(read_play_answer(replaced(kAnswer, "a=candidate:0 1 udp 2130706431 127.0.0.1 8000 typ host",
                                          "a=candidate:1 1 tcp 2130706431 127.0.0.1 8000 typ host tcptype passive\r\n"
                                          "a=candidate:0 1 udp 2130706431 192.0.2.7 8001 typ host"),
                                 &info)
                    .ok());
    EXPECT_EQ(info.candidate_ip, "192.0.2.7");
    EXPECT_EQ(info.candidate_port, 8001);
}

TEST(RtcPlayer, RefusesBrokenAnswers) {
    struct Case {
        std::string text;
        int code;
    };
    const std::string a = kAnswer;
    const std::vector<Case> cases = {
        {replaced(a, "a=candidate:0 1 udp 2130706431 127.0.0.1 8000 typ host generation 0\r\n", ""), kErrorSdpAnswer},
        {replaced(a, " udp 2130706431", " tcp 2130706431"), kErrorSdpAnswer},
        {replaced(a, "127.0.0.1 8000", "srs.example 8000"), kErrorSdpAnswer},
        {replaced(a, "a=fingerprint:sha-256", "a=fingerprint:sha-1"), kErrorSdpFingerprint},
        {replaced(a, "a=setup:passive", "a=setup:actpass"), kErrorSdpSetup},
        {replaced(a, "a=ice-ufrag:4s2h1k07\r\n", ""), kErrorSdpIce},
        {replaced(replaced(a, "m=audio 9", "m=audio 0"), "m=video 9", "m=video 0"), kErrorSdpNoMedia},
        {a.substr(0, a.find("m=audio")), kErrorSdpNoMedia},
        {"v=1\r\n", kErrorSdpSyntax},
        {"", kErrorSdpMissingLine},
    };
    for (const Case& c : cases) {
        RtcAnswerInfo info;
        Error err = read_play_answer(c.text, &info);
        ASSERT_TRUE(err.failed()) << c.text;
        EXPECT_EQ(err.code(), c.code) << err.summary();
        err.ignore();
    }
}

// ---- SRS's JSON API ----

TEST(RtcPlayer, SrsApiRequestAndReply) {
    const std::string body = srs_play_request("http://127.0.0.1:1985/rtc/v1/play/", "ab12cde",
                                              "webrtc://127.0.0.1/live/livestream", "v=0\r\n");
    EXPECT_EQ(body,
              "{\"api\":\"http://127.0.0.1:1985/rtc/v1/play/\",\"tid\":\"ab12cde\",\"streamurl\":"
              "\"webrtc://127.0.0.1/live/livestream\",\"clientip\":null,\"sdp\":\"v=0\\r\\n\"}");

    std::string sdp, sid;
    ASSERT_TRUE(read_srs_play_reply(
                    "{\"code\":0,\"server\":\"vid-1\",\"service\":\"s\",\"pid\":\"7\",\"sdp\":\"v=0\\r\\n\","
                    "\"sessionid\":\"abc:def\"}",
                    &sdp, &sid)
                    .ok());
    EXPECT_EQ(sdp, "v=0\r\n");
    EXPECT_EQ(sid, "abc:def");

    struct Case {
        const char* body;
        int code;
    };
    for (const Case& c : {Case{"{\"code\":5021,\"server\":\"vid-1\"}", kErrorRtmpClientRejected},
                          Case{"{\"code\":\"0\",\"sdp\":\"v=0\"}", kErrorRtcApiBody},
                          Case{"{\"code\":0}", kErrorRtcApiBody}, Case{"{\"code\":0,\"sdp\":7}", kErrorRtcApiBody},
                          Case{"[0]", kErrorRtcApiBody}, Case{"{\"code\":0,", kErrorRtcApiBody},
                          Case{"", kErrorRtcApiBody}}) {
        Error err = read_srs_play_reply(c.body, &sdp, &sid);
        ASSERT_TRUE(err.failed()) << c.body;
        EXPECT_EQ(err.code(), c.code) << c.body;
        if (c.code == kErrorRtmpClientRejected) {
            EXPECT_NE(err.summary().find("5021"), std::string::npos);
        }
        err.ignore();
    }
}

// ---- HTTP response head ----

TEST(RtcPlayer, ResponseHead) {
    HttpResponseHead h;
    ASSERT_TRUE(parse_http_response_head("HTTP/1.1 201 Created\r\n"
                                         "Connection: Close\r\n"
                                         "content-type: application/sdp\r\n"
                                         "Location: /rtc/v1/whep/?action=delete&token=t1&app=live&stream=s&session=a:b\r\n"
                                         "Content-Length: 1234\r\n"
                                         "\r\n",
                                         &h)
                    .ok());
    EXPECT_EQ(h.status, 201);
    EXPECT_EQ(h.reason, "Created");
    EXPECT_EQ(h.location, "/rtc/v1/whep/?action=delete&token=t1&app=live&stream=s&session=a:b");
    EXPECT_TRUE(h.has_length);
    EXPECT_EQ(h.length, 1234u);
    EXPECT_FALSE(h.chunked);

    ASSERT_TRUE(parse_http_response_head("HTTP/1.0 400\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", &h).ok());
    EXPECT_EQ(h.status, 400);
    EXPECT_EQ(h.reason, "");
    EXPECT_TRUE(h.chunked);
    EXPECT_FALSE(h.has_length);

    struct Case {
        const char* head;
        int code;
    };
    for (const Case& c : {Case{"HTTP/2 200 OK\r\n\r\n", kErrorHttpBadRequestLine},
                          Case{"HTTP/1.1 20 OK\r\n\r\n", kErrorHttpBadRequestLine},
                          Case{"HTTP/1.1 2x0 OK\r\n\r\n", kErrorHttpBadRequestLine},
                          Case{"HTTP/1.1 200OK\r\n\r\n", kErrorHttpBadRequestLine},
                          Case{"HTTP/1.1 200 OK", kErrorHttpBadRequestLine},
                          Case{"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", kErrorHttpBadHeader},
                          Case{"HTTP/1.1 200 OK\r\n: empty name\r\n\r\n", kErrorHttpBadHeader},
                          Case{"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", kErrorHttpBadContentLength},
                          Case{"HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", kErrorHttpBadContentLength},
                          Case{"HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999999\r\n\r\n",
                               kErrorHttpBadContentLength}}) {
        Error err = parse_http_response_head(c.head, &h);
        ASSERT_TRUE(err.failed()) << c.head;
        EXPECT_EQ(err.code(), c.code) << c.head;
        err.ignore();
    }
}

TEST(RtcPlayer, WhepDeleteTarget) {
    HttpUrl api;
    ASSERT_TRUE(parse_http_url("http://127.0.0.1:1985/rtc/v1/whep/?app=live&stream=s", &api).ok());
    EXPECT_EQ(whep_delete_target("/rtc/v1/whep/?action=delete&session=x", api), "/rtc/v1/whep/?action=delete&session=x");
    EXPECT_EQ(whep_delete_target("http://127.0.0.1:1985/rtc/v1/whep/?session=x", api), "/rtc/v1/whep/?session=x");
    EXPECT_EQ(whep_delete_target("http://127.0.0.1:1986/rtc/v1/whep/?session=x", api), "");  // elsewhere
    EXPECT_EQ(whep_delete_target("https://127.0.0.1:1985/x", api), "");
    EXPECT_EQ(whep_delete_target("", api), "");
}

// ---- H.264 keyframes in RTP payloads (first bytes of real NAL units) ----

TEST(RtcPlayer, H264KeyframeStarts) {
    const uint8_t sps[] = {0x67, 0x42, 0xe0, 0x1f, 0xda, 0x01, 0x40, 0x16, 0xe8};
    const uint8_t idr[] = {0x65, 0x88, 0x84, 0x00, 0x33, 0xff};
    const uint8_t pps[] = {0x68, 0xce, 0x3c, 0x80};
    const uint8_t slice[] = {0x41, 0x9a, 0x02, 0x10};
    const uint8_t sei[] = {0x06, 0x05, 0x10};
    EXPECT_TRUE(h264_payload_starts_keyframe(sps, sizeof(sps)));
    EXPECT_TRUE(h264_payload_starts_keyframe(idr, sizeof(idr)));
    EXPECT_FALSE(h264_payload_starts_keyframe(pps, sizeof(pps)));
    EXPECT_FALSE(h264_payload_starts_keyframe(slice, sizeof(slice)));
    EXPECT_FALSE(h264_payload_starts_keyframe(sei, sizeof(sei)));
    EXPECT_FALSE(h264_payload_starts_keyframe(nullptr, 0));

    // STAP-A (NRI 3): SPS + PPS, as a server sends them before an IDR.
    const uint8_t stap[] = {0x78, 0x00, 0x04, 0x67, 0x42, 0xe0, 0x1f, 0x00, 0x04, 0x68, 0xce, 0x3c, 0x80};
    EXPECT_TRUE(h264_payload_starts_keyframe(stap, sizeof(stap)));
    const uint8_t stap_pps_sei[] = {0x78, 0x00, 0x04, 0x68, 0xce, 0x3c, 0x80, 0x00, 0x02, 0x06, 0x05};
    EXPECT_FALSE(h264_payload_starts_keyframe(stap_pps_sei, sizeof(stap_pps_sei)));
    // Broken STAP-A: a size past the end, a zero size, a lone size byte.
    const uint8_t stap_long[] = {0x78, 0x00, 0x09, 0x67, 0x42, 0xe0, 0x1f};
    EXPECT_FALSE(h264_payload_starts_keyframe(stap_long, sizeof(stap_long)));
    const uint8_t stap_zero[] = {0x78, 0x00, 0x00, 0x00, 0x01, 0x67};
    EXPECT_FALSE(h264_payload_starts_keyframe(stap_zero, sizeof(stap_zero)));
    const uint8_t stap_tail[] = {0x78, 0x00, 0x01, 0x67, 0x00};
    EXPECT_FALSE(h264_payload_starts_keyframe(stap_tail, sizeof(stap_tail)));
    // Cut short: broken, except at 7 bytes where it holds the whole SPS alone.
    for (size_t n = 0; n < sizeof(stap); n++) {
        EXPECT_EQ(h264_payload_starts_keyframe(stap, n), n == 7) << n;
    }

    // FU-A: indicator 0x7c (NRI 3, type 28), header S|E|R|type.
    const uint8_t fu_idr_start[] = {0x7c, 0x85, 0xb8, 0x00};
    const uint8_t fu_idr_middle[] = {0x7c, 0x05, 0x11};
    const uint8_t fu_idr_end[] = {0x7c, 0x45, 0x11};
    const uint8_t fu_slice_start[] = {0x7c, 0x81, 0x9a};
    const uint8_t fu_short[] = {0x7c};
    EXPECT_TRUE(h264_payload_starts_keyframe(fu_idr_start, sizeof(fu_idr_start)));
    EXPECT_FALSE(h264_payload_starts_keyframe(fu_idr_middle, sizeof(fu_idr_middle)));
    EXPECT_FALSE(h264_payload_starts_keyframe(fu_idr_end, sizeof(fu_idr_end)));
    EXPECT_FALSE(h264_payload_starts_keyframe(fu_slice_start, sizeof(fu_slice_start)));
    EXPECT_FALSE(h264_payload_starts_keyframe(fu_short, sizeof(fu_short)));
    // STAP-B, MTAP, FU-B and reserved types are not keyframe starts here.
    for (uint8_t t : {25, 26, 27, 29, 30, 31, 0}) {
        const uint8_t p[] = {static_cast<uint8_t>(0x60 | t), 0x85, 0x00, 0x04, 0x67, 0x42, 0xe0, 0x1f};
        EXPECT_FALSE(h264_payload_starts_keyframe(p, sizeof(p))) << int(t);
    }
}

// ---- sequence numbers ----

TEST(RtcPlayer, SeqTrackerCountsGapsLateAndDuplicates) {
    RtpSeqTracker t;
    EXPECT_FALSE(t.started());
    for (uint16_t s : {100, 101, 102}) t.on_packet(s);
    EXPECT_EQ(t.missing(), 0u);
    t.on_packet(105);  // 103, 104 missing
    EXPECT_EQ(t.missing(), 2u);
    EXPECT_EQ(t.gap_events(), 1u);
    t.on_packet(103);  // a retransmission fills one
    EXPECT_EQ(t.late(), 1u);
    t.on_packet(105);
    EXPECT_EQ(t.duplicates(), 1u);
    t.on_packet(106);
    EXPECT_EQ(t.received(), 7u);
    EXPECT_EQ(t.extended_highest(), 106u);

    // (The report block of these packets: RtpReceiveStatsTest.ToolPlayerSequences.)
    for (uint16_t s = 107; s <= 116; s++) {
        if (s != 110 && s != 111) t.on_packet(s);
    }
    EXPECT_EQ(t.missing(), 4u);
    EXPECT_EQ(t.gap_events(), 2u);
}

TEST(RtcPlayer, SeqTrackerWraps) {
    RtpSeqTracker t;
    for (uint16_t s : {65533, 65534, 65535, 0, 1}) t.on_packet(s);
    EXPECT_EQ(t.missing(), 0u);
    EXPECT_EQ(t.late(), 0u);
    EXPECT_EQ(t.extended_highest(), 65536u + 1);
    t.on_packet(65535);  // from before the wrap: late, not a jump back
    EXPECT_EQ(t.late(), 1u);
    EXPECT_EQ(t.extended_highest(), 65536u + 1);
    t.on_packet(4);  // 2, 3 missing
    EXPECT_EQ(t.missing(), 2u);
}

TEST(RtcPlayer, Percentiles) {
    std::vector<int64_t> v;
    EXPECT_EQ(percentile(&v, 0.5), 0);
    v = {50, 10, 40, 20, 30};
    EXPECT_EQ(percentile(&v, 0.5), 30);
    EXPECT_EQ(percentile(&v, 0.9), 50);
    EXPECT_EQ(percentile(&v, 1.0), 50);
    EXPECT_EQ(percentile(&v, 0.2), 10);
    EXPECT_EQ(percentile(&v, 0.01), 10);
    v.clear();
    for (int i = 1; i <= 100; i++) v.push_back(i);
    EXPECT_EQ(percentile(&v, 0.5), 50);
    EXPECT_EQ(percentile(&v, 0.9), 90);
}
