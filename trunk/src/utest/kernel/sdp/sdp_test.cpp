// Tests for kernel/sdp: offers as Chromium (WHIP publish, WHEP play), Firefox
// and OBS 30 send them, parsed with \n and \r\n line ends; the codec choice
// for each; offers missing each mandatory line or carrying a broken value;
// limits; every prefix of an offer (by line and, before a PROT_NONE page, by
// byte); write -> parse round trips of offers and answers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/sdp/sdp.hpp"
#include "kernel/sdp/sdp_answer.hpp"
#include "utest/kernel/sdp/sdp_offers.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

std::string crlf(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

// `s` without every line that starts with `prefix`.
std::string drop_lines(const std::string& s, const std::string& prefix) {
    std::string out;
    size_t pos = 0;
    while (pos < s.size()) {
        size_t nl = s.find('\n', pos);
        size_t end = nl == std::string::npos ? s.size() : nl + 1;
        if (s.compare(pos, prefix.size(), prefix) != 0) out += s.substr(pos, end - pos);
        pos = end;
    }
    return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
}

// parse + check + choose; the code of the first failure, 0 when all pass.
int offer_code(const std::string& text, const SdpCodecPreference& prefer = SdpCodecPreference(),
               std::string* message = nullptr) {
    SessionDescription sd;
    Error err = parse_sdp(text, &sd);
    if (err.ok()) err = check_offer(sd);
    std::vector<SdpMediaChoice> ch;
    if (err.ok()) err = choose_codecs(sd, prefer, &ch);
    if (message && err.failed()) *message = err.message();
    return code(std::move(err));
}

SdpAnswerOptions server_options(bool publisher) {
    SdpAnswerOptions o;
    o.ice_ufrag = "s3rv";
    o.ice_pwd = "0123456789abcdefABCDEF+/";
    o.fingerprint.algorithm = "sha-256";
    o.fingerprint.value =
        "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF";
    o.candidates = {{"192.0.2.10", 8000, "udp"}, {"192.0.2.10", 8000, "tcp"}};
    o.publisher = publisher;
    o.session_id = 42;
    o.cname = "srscname";
    o.stream_id = "live/livestream";
    o.audio = {1111, 0, "audio0"};
    o.video = {2222, 3333, "video0"};
    return o;
}

struct Answered {
    SessionDescription offer;
    std::vector<SdpMediaChoice> choice;
    SessionDescription answer;
    std::string text;
};

Answered answer_for(const std::string& offer_text, bool publisher) {
    Answered a;
    EXPECT_TRUE(ok(parse_sdp(offer_text, &a.offer)));
    EXPECT_TRUE(ok(check_offer(a.offer)));
    EXPECT_TRUE(ok(choose_codecs(a.offer, SdpCodecPreference(), &a.choice)));
    EXPECT_TRUE(ok(build_answer(a.offer, a.choice, server_options(publisher), &a.answer)));
    a.text = write_sdp(a.answer);
    return a;
}

std::vector<std::string> all_offers() {
    return {chrome_publish_offer(), chrome_play_offer(), firefox_publish_offer(), obs_publish_offer()};
}

}  // namespace

TEST(KernelSdpTest, ChromePublishOffer) {
    for (const std::string& text : {chrome_publish_offer(), crlf(chrome_publish_offer())}) {
        SessionDescription sd;
        ASSERT_TRUE(ok(parse_sdp(text, &sd)));
        ASSERT_EQ(2u, sd.media.size());
        EXPECT_EQ((std::vector<std::string>{"0", "1"}), sd.bundle);
        EXPECT_TRUE(sd.extmap_allow_mixed);
        EXPECT_EQ("WMS 5a0f9c1e-7d2b-4c7e-9a41-3f1c2b9d8e77", sd.msid_semantic);
        const SdpMedia& a = sd.media[0];
        const SdpMedia& v = sd.media[1];
        EXPECT_EQ("audio", a.kind);
        EXPECT_EQ(9, a.port);
        EXPECT_EQ("UDP/TLS/RTP/SAVPF", a.proto);
        EXPECT_EQ(8u, a.formats.size());
        EXPECT_EQ("IN IP4 0.0.0.0", a.connection);
        EXPECT_EQ("Hn7q", sd.ice_ufrag_of(v));
        EXPECT_EQ("3bVt2c8K0pQx9mZr4LwYs1Ja", sd.ice_pwd_of(v));
        EXPECT_EQ("sha-256", sd.fingerprint_of(v).algorithm);
        EXPECT_EQ(95u, sd.fingerprint_of(v).value.size());
        EXPECT_EQ(SdpSetup::kActpass, sd.setup_of(v));
        EXPECT_EQ(SdpDirection::kSendOnly, v.direction);
        EXPECT_TRUE(v.rtcp_mux);
        EXPECT_TRUE(v.rtcp_rsize);
        EXPECT_EQ(25u, v.formats.size());
        EXPECT_EQ(25u, v.codecs.size());
        EXPECT_EQ(11u, v.extmaps.size());
        ASSERT_EQ(1u, v.ssrc_groups.size());
        EXPECT_EQ("FID", v.ssrc_groups[0].semantics);
        EXPECT_EQ((std::vector<uint32_t>{1838214506u, 3159320571u}), v.ssrc_groups[0].ssrcs);
        ASSERT_EQ(2u, v.ssrcs.size());
        EXPECT_EQ("q4FmW0xKd2Lr8JbN", v.ssrcs[1].cname);
        EXPECT_EQ("9d3e7b21-4f60-4c8a-b1e2-7a5c3d9f0b44", v.ssrcs[1].msid_track);
        const SdpCodec* h = v.codec(106);
        ASSERT_TRUE(h);
        EXPECT_EQ("H264", h->name);
        EXPECT_EQ(90000u, h->clock_rate);
        ASSERT_TRUE(h->param("profile-level-id"));
        EXPECT_EQ("42e01f", *h->param("profile-level-id"));
        EXPECT_EQ(5u, h->rtcp_fb.size());
        const SdpCodec* opus = a.codec(111);
        ASSERT_TRUE(opus);
        EXPECT_EQ(2, opus->channels);
        EXPECT_EQ("1", *opus->param("useinbandfec"));
        EXPECT_EQ("10", *opus->param("minptime"));
        EXPECT_EQ("111/111", a.codec(63)->fmtp);
        EXPECT_EQ("0c6e1f7a-58a4-4a1b-8f7c-2d4b1f9e3a10", a.ssrcs[0].msid_track);

        ASSERT_TRUE(ok(check_offer(sd)));
        std::vector<SdpMediaChoice> ch;
        ASSERT_TRUE(ok(choose_codecs(sd, SdpCodecPreference(), &ch)));
        ASSERT_EQ(2u, ch.size());
        EXPECT_EQ(111, ch[0].codec.pt);
        EXPECT_EQ(-1, ch[0].codec.rtx_pt);
        EXPECT_EQ((std::vector<std::string>{"transport-cc"}), ch[0].codec.rtcp_fb);
        EXPECT_EQ(3u, ch[0].extmaps.size());
        EXPECT_EQ(106, ch[1].codec.pt);
        EXPECT_EQ(107, ch[1].codec.rtx_pt);
        EXPECT_EQ("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f", ch[1].codec.fmtp);
        EXPECT_EQ((std::vector<std::string>{"goog-remb", "transport-cc", "nack", "nack pli"}), ch[1].codec.rtcp_fb);
        ASSERT_EQ(3u, ch[1].extmaps.size());
        EXPECT_EQ(2, ch[1].extmaps[0].id);
        EXPECT_EQ(kSdpExtAbsSendTime, ch[1].extmaps[0].uri);
        EXPECT_EQ(3, ch[1].extmaps[1].id);
        EXPECT_EQ(4, ch[1].extmaps[2].id);
    }
}

TEST(KernelSdpTest, VideoPreferenceRanks) {
    SessionDescription sd;
    ASSERT_TRUE(ok(parse_sdp(chrome_publish_offer(), &sd)));
    std::vector<SdpMediaChoice> ch;
    SdpCodecPreference p;
    p.video = {"vp8", "h264"};
    ASSERT_TRUE(ok(choose_codecs(sd, p, &ch)));
    EXPECT_EQ(96, ch[1].codec.pt);
    EXPECT_EQ(97, ch[1].codec.rtx_pt);
    p.video = {"h265", "AV1", "h264"};
    ASSERT_TRUE(ok(choose_codecs(sd, p, &ch)));
    EXPECT_EQ(45, ch[1].codec.pt);
    EXPECT_EQ(46, ch[1].codec.rtx_pt);
    p.video = {"vp9"};
    ASSERT_TRUE(ok(choose_codecs(sd, p, &ch)));
    EXPECT_EQ(98, ch[1].codec.pt);
    // Another H.264 profile asked for; mode 0 entries never taken.
    p.video = {"h264"};
    p.h264_profile = "4d001f";
    ASSERT_TRUE(ok(choose_codecs(sd, p, &ch)));
    EXPECT_EQ(127, ch[1].codec.pt);
    EXPECT_EQ(125, ch[1].codec.rtx_pt);
    // A High profile not offered: one that has B-frames too (Main), not Baseline.
    p.h264_profile = "640c1f";
    ASSERT_TRUE(ok(choose_codecs(sd, p, &ch)));
    EXPECT_EQ(127, ch[1].codec.pt);
    // A Baseline profile not offered: the first Baseline mode-1 H.264.
    p.h264_profile = "42c015";
    ASSERT_TRUE(ok(choose_codecs(sd, p, &ch)));
    EXPECT_EQ(102, ch[1].codec.pt);
    p.video = {"h265"};
    std::string msg;
    EXPECT_EQ(kErrorSdpNoCodec, offer_code(chrome_publish_offer(), p, &msg));
    EXPECT_NE(std::string::npos, msg.find("h265")) << msg;
    EXPECT_NE(std::string::npos, msg.find("H264/90000(mode 1)")) << msg;
}

TEST(KernelSdpTest, ChromePlayOffer) {
    SessionDescription sd;
    ASSERT_TRUE(ok(parse_sdp(crlf(chrome_play_offer()), &sd)));
    EXPECT_EQ(SdpDirection::kRecvOnly, sd.media[1].direction);
    EXPECT_TRUE(sd.media[1].ssrcs.empty());
    EXPECT_EQ("tZ1m", sd.ice_ufrag_of(sd.media[0]));
    EXPECT_EQ("WMS", sd.msid_semantic);
    std::vector<SdpMediaChoice> ch;
    ASSERT_TRUE(ok(check_offer(sd)));
    ASSERT_TRUE(ok(choose_codecs(sd, SdpCodecPreference(), &ch)));
    EXPECT_EQ(111, ch[0].codec.pt);
    EXPECT_EQ(106, ch[1].codec.pt);
    EXPECT_EQ(107, ch[1].codec.rtx_pt);
}

TEST(KernelSdpTest, FirefoxPublishOffer) {
    SessionDescription sd;
    ASSERT_TRUE(ok(parse_sdp(crlf(firefox_publish_offer()), &sd)));
    EXPECT_EQ("mozilla...THIS_IS_SDPARTA-99.0", sd.origin_username);
    EXPECT_EQ("IN IP4 0.0.0.0", sd.origin_address);
    EXPECT_TRUE(sd.ice_ufrag.empty());
    EXPECT_EQ("5e2b9c41", sd.ice_ufrag_of(sd.media[1]));
    EXPECT_EQ("8c1a6e0d3b9f4a27c5e8d1b0f6a3c297", sd.ice_pwd_of(sd.media[1]));
    EXPECT_TRUE(sd.media[1].fingerprint.empty());
    EXPECT_EQ("sha-256", sd.fingerprint_of(sd.media[1]).algorithm);
    EXPECT_EQ((std::vector<std::string>{"trickle"}), sd.ice_options);
    EXPECT_EQ("recvonly", sd.media[0].extmaps[1].direction);
    EXPECT_EQ(2, sd.media[0].extmaps[1].id);
    EXPECT_EQ(1, sd.media[0].codec(9)->channels);
    EXPECT_EQ("0-15", sd.media[0].codec(101)->params[0].value);
    EXPECT_TRUE(sd.media[0].codec(101)->params[0].key.empty());
    std::vector<SdpMediaChoice> ch;
    ASSERT_TRUE(ok(check_offer(sd)));
    ASSERT_TRUE(ok(choose_codecs(sd, SdpCodecPreference(), &ch)));
    EXPECT_EQ(109, ch[0].codec.pt);
    EXPECT_EQ("maxplaybackrate=48000;stereo=1;useinbandfec=1", ch[0].codec.fmtp);
    EXPECT_EQ(126, ch[1].codec.pt);  // 97 has no packetization-mode, so mode 0
    EXPECT_EQ(127, ch[1].codec.rtx_pt);
    EXPECT_EQ((std::vector<std::string>{"nack", "nack pli", "goog-remb", "transport-cc"}), ch[1].codec.rtcp_fb);
    EXPECT_EQ(3u, ch[1].extmaps.size());
}

TEST(KernelSdpTest, ObsPublishOffer) {
    SessionDescription sd;
    ASSERT_TRUE(ok(parse_sdp(crlf(obs_publish_offer()), &sd)));
    EXPECT_EQ("Yp4A", sd.ice_ufrag);
    EXPECT_EQ((std::vector<std::string>{"ice2,trickle"}), sd.ice_options);
    EXPECT_EQ(SdpSetup::kActpass, sd.setup);
    EXPECT_EQ((std::vector<std::string>{"LS 0 1"}), sd.groups);
    const SdpMedia& a = sd.media[0];
    ASSERT_EQ(2u, a.candidates.size());
    EXPECT_EQ("UDP", a.candidates[0].transport);
    EXPECT_EQ(2122317823u, a.candidates[0].priority);
    EXPECT_EQ("192.168.1.23", a.candidates[0].address);
    EXPECT_EQ(52814, a.candidates[0].port);
    EXPECT_EQ("host", a.candidates[0].type);
    EXPECT_EQ("srflx", a.candidates[1].type);
    EXPECT_EQ("raddr 0.0.0.0 rport 0", a.candidates[1].extra);
    EXPECT_TRUE(a.end_of_candidates);
    EXPECT_EQ("obs-stream obs-stream-audio", a.msid);
    std::vector<SdpMediaChoice> ch;
    ASSERT_TRUE(ok(check_offer(sd)));
    ASSERT_TRUE(ok(choose_codecs(sd, SdpCodecPreference(), &ch)));
    EXPECT_EQ(111, ch[0].codec.pt);
    EXPECT_EQ(96, ch[1].codec.pt);
    EXPECT_EQ(-1, ch[1].codec.rtx_pt);
    EXPECT_EQ((std::vector<std::string>{"nack", "nack pli", "goog-remb"}), ch[1].codec.rtcp_fb);
    EXPECT_TRUE(ch[1].extmaps.empty());
}

TEST(KernelSdpTest, MediaLevelWinsOverSession) {
    std::string s = obs_publish_offer();
    s = replace_all(s, "a=mid:1\n", "a=mid:1\na=ice-ufrag:Mv9z\na=ice-pwd:MediaLevelPassword0123456\na=setup:passive\n");
    SessionDescription sd;
    ASSERT_TRUE(ok(parse_sdp(s, &sd)));
    EXPECT_EQ("Yp4A", sd.ice_ufrag_of(sd.media[0]));
    EXPECT_EQ("Mv9z", sd.ice_ufrag_of(sd.media[1]));
    EXPECT_EQ("MediaLevelPassword0123456", sd.ice_pwd_of(sd.media[1]));
    EXPECT_EQ(SdpSetup::kPassive, sd.setup_of(sd.media[1]));
    EXPECT_EQ(SdpSetup::kActpass, sd.setup_of(sd.media[0]));
}

TEST(KernelSdpTest, MissingMandatoryLines) {
    for (const std::string& offer : all_offers()) {
        EXPECT_EQ(0, offer_code(offer));
        EXPECT_EQ(kErrorSdpMissingLine, offer_code(drop_lines(offer, "v=")));
        EXPECT_EQ(kErrorSdpMissingLine, offer_code(drop_lines(offer, "o=")));
        EXPECT_EQ(kErrorSdpMissingLine, offer_code(drop_lines(offer, "s=")));
        EXPECT_EQ(kErrorSdpMissingLine, offer_code(drop_lines(offer, "t=")));
        EXPECT_EQ(kErrorSdpMissingLine, offer_code(drop_lines(offer, "a=mid:")));
        std::string msg;
        EXPECT_EQ(kErrorSdpIce, offer_code(drop_lines(offer, "a=ice-ufrag:"), SdpCodecPreference(), &msg));
        EXPECT_NE(std::string::npos, msg.find("ice-ufrag")) << msg;
        EXPECT_EQ(kErrorSdpIce, offer_code(drop_lines(offer, "a=ice-pwd:"), SdpCodecPreference(), &msg));
        EXPECT_NE(std::string::npos, msg.find("ice-pwd")) << msg;
        EXPECT_EQ(kErrorSdpFingerprint, offer_code(drop_lines(offer, "a=fingerprint:"), SdpCodecPreference(), &msg));
        EXPECT_NE(std::string::npos, msg.find("no a=fingerprint")) << msg;
        // Without a=setup the offerer is taken as actpass.
        EXPECT_EQ(0, offer_code(drop_lines(offer, "a=setup:")));
        // No media at all: everything from the first m= dropped.
        EXPECT_EQ(kErrorSdpNoMedia, offer_code(offer.substr(0, offer.find("m=audio"))));
    }
    EXPECT_EQ(kErrorSdpMissingLine, offer_code(""));
    EXPECT_EQ(kErrorSdpMissingLine, offer_code("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\n"));
}

TEST(KernelSdpTest, BadFingerprint) {
    const std::string fp = "DA:77:99:A3:A5:1E:08:92:0B:C1:82:45:2B:2D:78:26:B6:82:F8:3A:B6:C9:FA:85:4F:A8:EC:6B:4E:34:D4:2C";
    std::string offer = obs_publish_offer();
    auto with = [&](const std::string& line) { return replace_all(offer, "a=fingerprint:sha-256 " + fp, line); };
    EXPECT_EQ(0, offer_code(with("a=fingerprint:SHA-256 " + fp)));
    EXPECT_EQ(0, offer_code(with("a=fingerprint:sha-1 DA:77:99:A3:A5:1E:08:92:0B:C1:82:45:2B:2D:78:26:B6:82:F8:3A")));
    std::string msg;
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:md5 DA:77:99:A3:A5:1E:08:92:0B:C1:82:45:2B:2D:78:26"),
                                               SdpCodecPreference(), &msg));
    EXPECT_NE(std::string::npos, msg.find("md5")) << msg;
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:sha-256")));
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:sha-256 XYZ")));
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:sha-256 " + fp.substr(0, fp.size() - 3))));
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:sha-256 " + fp + ":00")));
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:sha-256 " + replace_all(fp, ":", ""))));
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:sha-256 " + replace_all(fp, "D4:2C", "D4:2G"))));
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:sha-256 " + replace_all(fp, "D4:2C", "D4-2C"))));
    EXPECT_EQ(kErrorSdpFingerprint, offer_code(with("a=fingerprint:")));
}

TEST(KernelSdpTest, BadSetupAndIce) {
    std::string offer = chrome_publish_offer();
    std::string msg;
    EXPECT_EQ(kErrorSdpSetup, offer_code(replace_all(offer, "a=setup:actpass", "a=setup:holdconn"), SdpCodecPreference(), &msg));
    EXPECT_NE(std::string::npos, msg.find("holdconn")) << msg;
    EXPECT_EQ(kErrorSdpSetup, offer_code(replace_all(offer, "a=setup:actpass", "a=setup:")));
    EXPECT_EQ(kErrorSdpSetup, offer_code(replace_all(offer, "a=setup:actpass", "a=setup:ACTPASS")));
    EXPECT_EQ(0, offer_code(replace_all(offer, "a=setup:actpass", "a=setup:active")));
    EXPECT_EQ(kErrorSdpIce, offer_code(replace_all(offer, "a=ice-ufrag:Hn7q", "a=ice-ufrag:Hn7")));
    EXPECT_EQ(kErrorSdpIce, offer_code(replace_all(offer, "a=ice-ufrag:Hn7q", "a=ice-ufrag:Hn7q;")));
    EXPECT_EQ(kErrorSdpIce, offer_code(replace_all(offer, "a=ice-pwd:3bVt2c8K0pQx9mZr4LwYs1Ja", "a=ice-pwd:short")));
}

TEST(KernelSdpTest, NoCommonCodec) {
    std::string msg;
    std::string obs = obs_publish_offer();
    EXPECT_EQ(kErrorSdpNoCodec, offer_code(replace_all(obs, "a=rtpmap:96 H264/90000", "a=rtpmap:96 VP8/90000"),
                                           SdpCodecPreference(), &msg));
    EXPECT_NE(std::string::npos, msg.find("video section 1 (mid 1)")) << msg;
    EXPECT_NE(std::string::npos, msg.find("VP8/90000")) << msg;
    EXPECT_EQ(kErrorSdpNoCodec, offer_code(replace_all(obs, "packetization-mode=1", "packetization-mode=0")));
    EXPECT_EQ(kErrorSdpNoCodec, offer_code(replace_all(obs, "a=rtpmap:111 opus/48000/2", "a=rtpmap:111 opus/48000/1")));
    EXPECT_EQ(kErrorSdpNoCodec, offer_code(replace_all(obs, "a=rtpmap:111 opus/48000/2", "a=rtpmap:111 PCMU/8000")));
    // An rtpmap whose pt is not in the m= line is not offered.
    EXPECT_EQ(kErrorSdpNoCodec, offer_code(replace_all(obs, "m=video 9 UDP/TLS/RTP/SAVPF 96", "m=video 9 UDP/TLS/RTP/SAVPF 98")));
    // Chrome without any mode-1 H.264 entry.
    std::string chrome = chrome_publish_offer();
    chrome = replace_all(chrome, "packetization-mode=1", "packetization-mode=0");
    EXPECT_EQ(kErrorSdpNoCodec, offer_code(chrome));
    SdpCodecPreference vp8;
    vp8.video = {"h264", "vp8"};
    EXPECT_EQ(0, offer_code(chrome, vp8));
    SdpCodecPreference none;
    none.video = {"mpeg2"};
    EXPECT_EQ(kErrorSdpNoCodec, offer_code(chrome, none));
}

TEST(KernelSdpTest, SyntaxErrors) {
    std::string obs = obs_publish_offer();
    auto bad = [&](const std::string& from, const std::string& to) {
        std::string msg;
        int c = offer_code(replace_all(obs, from, to), SdpCodecPreference(), &msg);
        EXPECT_NE(std::string::npos, msg.find("line ")) << msg;
        return c;
    };
    EXPECT_EQ(kErrorSdpSyntax, bad("a=rtpmap:96 H264/90000", "a=rtpmap:96 H264"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=rtpmap:96 H264/90000", "a=rtpmap:128 H264/90000"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=rtpmap:96 H264/90000", "a=rtpmap:96 H264/0"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=rtpmap:96 H264/90000", "a=rtpmap:96 H264/90000\na=rtpmap:96 VP8/90000"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=rtpmap:111 opus/48000/2", "a=rtpmap:111 opus/48000/x"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=rtcp-fb:96 nack\n", "a=rtcp-fb:96\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=rtcp-fb:96 nack\n", "a=rtcp-fb:x nack\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=fmtp:96 ", "a=fmtp:-1 "));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\na=extmap:0 urn:ietf:params:rtp-hdrext:sdes:mid\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\na=extmap:256 urn:ietf:params:rtp-hdrext:sdes:mid\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\na=extmap:3/both urn:x\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\na=extmap:3\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=ssrc:3475191313 cname", "a=ssrc:34751913130 cname"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=ssrc:3475191313 cname:yQ7bxN3lEe0dUf9h", "a=ssrc:3475191313"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\na=ssrc-group:FID\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\na=ssrc-group:FID 1 x\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\na=rid:h both\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("typ host", "typ"));
    EXPECT_EQ(kErrorSdpSyntax, bad("52814 typ host", "65536 typ host"));
    EXPECT_EQ(kErrorSdpSyntax, bad("m=video 9 ", "m=video x "));
    EXPECT_EQ(kErrorSdpSyntax, bad("m=video 9 UDP/TLS/RTP/SAVPF 96", "m=video 9 UDP/TLS/RTP/SAVPF"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\nthis is not sdp\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\nA=upper\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", std::string("a=mid:1\na=x\0y\n", 14)));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\na=x\ry\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("v=0\n", "v=1\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("t=0 0\n", "t=0 0\nv=0\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\ns=again\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("a=mid:1\n", "a=mid:1\no=- 1 1 IN IP4 0.0.0.0\n"));
    EXPECT_EQ(kErrorSdpSyntax, bad("o=rtc 3171573513 0 IN IP4 127.0.0.1", "o=rtc 3171573513 0 IN IP4"));
    // Unknown lines and attributes are kept or skipped, not errors.
    EXPECT_EQ(0, offer_code(replace_all(obs, "a=mid:1\n", "a=mid:1\nb=AS:2500\na=x-google-flag:conference\na=foo\n")));
    SessionDescription sd;
    ASSERT_TRUE(ok(parse_sdp(replace_all(obs, "a=mid:1\n", "a=mid:1\na=x-google-flag:conference\n"), &sd)));
    EXPECT_EQ((std::vector<std::string>{"x-google-flag:conference"}), sd.media[1].attributes);
    // Empty lines are skipped.
    EXPECT_EQ(0, offer_code(replace_all(obs, "\n", "\n\n")));
}

TEST(KernelSdpTest, Limits) {
    std::string obs = obs_publish_offer();
    std::string big = obs + "a=x-pad:" + std::string(kSdpMaxBytes - obs.size() - 9, 'p') + "\n";
    ASSERT_EQ(kSdpMaxBytes, big.size());
    EXPECT_EQ(0, offer_code(big));
    EXPECT_EQ(kErrorSdpTooLarge, offer_code(big + "\n"));
    std::string lines = obs;
    for (size_t i = 0; i < kSdpMaxLines; i++) lines += "a=x\n";
    EXPECT_EQ(kErrorSdpTooLarge, offer_code(lines));
    std::string sections = obs;
    for (size_t i = 0; i < kSdpMaxMedia; i++) sections += "m=application 0 UDP/DTLS/SCTP webrtc-datachannel\n";
    EXPECT_EQ(kErrorSdpTooLarge, offer_code(sections));
    std::string sections_ok = obs;
    for (size_t i = 2; i < kSdpMaxMedia; i++) sections_ok += "m=application 0 UDP/DTLS/SCTP webrtc-datachannel\n";
    EXPECT_EQ(0, offer_code(sections_ok));
}

// Every prefix that ends at a line end: parse/check/choose fail or succeed, never crash; before
// the first m= they always fail. Every byte prefix, placed right before a PROT_NONE page.
TEST(KernelSdpTest, TruncatedOffers) {
    for (const std::string& base : all_offers()) {
        for (const std::string& offer : {base, crlf(base)}) {
            size_t first_m = offer.find("m=");
            for (size_t end = offer.find('\n'); end != std::string::npos; end = offer.find('\n', end + 1)) {
                int c = offer_code(offer.substr(0, end + 1));
                if (end < first_m) {
                    EXPECT_NE(0, c) << end;
                }
            }
            GuardPage guard(offer.size());
            for (size_t n = 0; n <= offer.size(); n += (offer.size() > 3000 ? 7 : 1)) {
                const uint8_t* p = guard.place(reinterpret_cast<const uint8_t*>(offer.data()), n);
                SessionDescription sd;
                Error err = parse_sdp(std::string_view(reinterpret_cast<const char*>(p), n), &sd);
                if (n <= first_m) {
                    EXPECT_TRUE(err.failed() || !ok(check_offer(sd)));
                }
                err.ignore();
            }
        }
    }
}

TEST(KernelSdpTest, WriteParseRoundTrip) {
    for (const std::string& offer : all_offers()) {
        SessionDescription a, b;
        ASSERT_TRUE(ok(parse_sdp(offer, &a)));
        std::string text = write_sdp(a);
        ASSERT_TRUE(ok(parse_sdp(text, &b)));
        EXPECT_EQ(text, write_sdp(b));
        EXPECT_EQ(a.media.size(), b.media.size());
        EXPECT_EQ(a.media[1].codecs.size(), b.media[1].codecs.size());
        EXPECT_EQ(a.media[1].ssrcs.size(), b.media[1].ssrcs.size());
        EXPECT_EQ(a.media[0].candidates.size(), b.media[0].candidates.size());
        EXPECT_EQ(0, offer_code(text));
        // \n, \r\n and a mix of both read the same.
        SessionDescription c, d;
        ASSERT_TRUE(ok(parse_sdp(crlf(offer), &c)));
        EXPECT_EQ(text, write_sdp(c));
        std::string mixed = offer;
        size_t n = 0;
        for (size_t p = mixed.find('\n'); p != std::string::npos; p = mixed.find('\n', p + 2)) {
            if (n++ % 2) mixed.insert(p++, "\r");  // every other line
        }
        ASSERT_TRUE(ok(parse_sdp(mixed, &d)));
        EXPECT_EQ(text, write_sdp(d));
    }
}

TEST(KernelSdpTest, PublisherAnswer) {
    Answered r = answer_for(crlf(chrome_publish_offer()), true);
    // Every line ends in \r\n.
    for (size_t p = r.text.find('\n'); p != std::string::npos; p = r.text.find('\n', p + 1)) {
        ASSERT_TRUE(p > 0 && r.text[p - 1] == '\r');
    }
    EXPECT_EQ("\r\n", r.text.substr(r.text.size() - 2));
    EXPECT_EQ(0u, r.text.find("v=0\r\no=- 42 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=ice-lite\r\na=group:BUNDLE 0 1\r\n"))
        << r.text;
    SessionDescription back;
    ASSERT_TRUE(ok(parse_sdp(r.text, &back)));
    EXPECT_EQ(r.text, write_sdp(back));
    EXPECT_TRUE(back.ice_lite);
    EXPECT_TRUE(back.extmap_allow_mixed);
    EXPECT_EQ((std::vector<std::string>{"0", "1"}), back.bundle);
    ASSERT_EQ(2u, back.media.size());
    const SdpMedia& v = back.media[1];
    EXPECT_EQ("video", v.kind);
    EXPECT_EQ(9, v.port);
    EXPECT_EQ("1", v.mid);
    EXPECT_EQ((std::vector<std::string>{"106", "107"}), v.formats);
    EXPECT_EQ(SdpDirection::kRecvOnly, v.direction);
    EXPECT_EQ(SdpSetup::kPassive, v.setup);
    EXPECT_EQ("s3rv", back.ice_ufrag_of(v));
    EXPECT_EQ("0123456789abcdefABCDEF+/", back.ice_pwd_of(v));
    EXPECT_EQ("sha-256", v.fingerprint.algorithm);
    EXPECT_TRUE(v.rtcp_mux);
    EXPECT_TRUE(v.rtcp_rsize);
    ASSERT_EQ(2u, v.codecs.size());
    EXPECT_EQ("H264", v.codecs[0].name);
    EXPECT_EQ("42e01f", *v.codecs[0].param("profile-level-id"));
    EXPECT_EQ(4u, v.codecs[0].rtcp_fb.size());
    EXPECT_EQ("rtx", v.codecs[1].name);
    EXPECT_EQ("106", *v.codecs[1].param("apt"));
    EXPECT_EQ(3u, v.extmaps.size());
    EXPECT_TRUE(v.ssrcs.empty());
    ASSERT_EQ(2u, v.candidates.size());
    EXPECT_EQ("udp", v.candidates[0].transport);
    EXPECT_EQ("192.0.2.10", v.candidates[0].address);
    EXPECT_EQ(8000, v.candidates[0].port);
    EXPECT_EQ("host", v.candidates[0].type);
    EXPECT_EQ("tcptype passive", v.candidates[1].extra);
    EXPECT_GT(v.candidates[0].priority, v.candidates[1].priority);
    EXPECT_TRUE(v.end_of_candidates);
    const SdpMedia& a = back.media[0];
    EXPECT_EQ((std::vector<std::string>{"111"}), a.formats);
    EXPECT_EQ(2, a.codecs[0].channels);
    EXPECT_EQ("minptime=10;useinbandfec=1", a.codecs[0].fmtp);
    // The answer is itself a valid offer-shaped description for our checks.
    EXPECT_TRUE(ok(check_offer(back)));
    std::vector<SdpMediaChoice> ch;
    EXPECT_TRUE(ok(choose_codecs(back, SdpCodecPreference(), &ch)));
    EXPECT_EQ(106, ch[1].codec.pt);
    EXPECT_EQ(107, ch[1].codec.rtx_pt);

    for (const std::string& offer : {firefox_publish_offer(), obs_publish_offer()}) {
        Answered x = answer_for(offer, true);
        SessionDescription y;
        ASSERT_TRUE(ok(parse_sdp(x.text, &y)));
        EXPECT_EQ(x.text, write_sdp(y));
        EXPECT_EQ(SdpDirection::kRecvOnly, y.media[0].direction);
    }
}

TEST(KernelSdpTest, PlayerAnswer) {
    Answered r = answer_for(chrome_play_offer(), false);
    SessionDescription back;
    ASSERT_TRUE(ok(parse_sdp(r.text, &back)));
    EXPECT_EQ(r.text, write_sdp(back));
    EXPECT_EQ("WMS live/livestream", back.msid_semantic);
    const SdpMedia& a = back.media[0];
    const SdpMedia& v = back.media[1];
    EXPECT_EQ(SdpDirection::kSendOnly, a.direction);
    EXPECT_EQ(SdpDirection::kSendOnly, v.direction);
    EXPECT_EQ("live/livestream audio0", a.msid);
    ASSERT_EQ(1u, a.ssrcs.size());
    EXPECT_EQ(1111u, a.ssrcs[0].ssrc);
    EXPECT_EQ("srscname", a.ssrcs[0].cname);
    EXPECT_TRUE(a.ssrc_groups.empty());
    ASSERT_EQ(2u, v.ssrcs.size());
    EXPECT_EQ(2222u, v.ssrcs[0].ssrc);
    EXPECT_EQ(3333u, v.ssrcs[1].ssrc);
    EXPECT_EQ("video0", v.ssrcs[1].msid_track);
    ASSERT_EQ(1u, v.ssrc_groups.size());
    EXPECT_EQ("FID", v.ssrc_groups[0].semantics);
    EXPECT_EQ((std::vector<uint32_t>{2222u, 3333u}), v.ssrc_groups[0].ssrcs);
    EXPECT_NE(std::string::npos, r.text.find("a=ssrc-group:FID 2222 3333\r\n"));
    EXPECT_NE(std::string::npos, r.text.find("a=ssrc:2222 cname:srscname\r\n"));
    EXPECT_NE(std::string::npos, r.text.find("a=ssrc:2222 msid:live/livestream video0\r\n"));

    // Without an ssrc for a track the server cannot answer a player.
    SdpAnswerOptions o = server_options(false);
    o.video.ssrc = 0;
    SessionDescription ans;
    EXPECT_EQ(kErrorSdpAnswer, code(build_answer(r.offer, r.choice, o, &ans)));
}

TEST(KernelSdpTest, AnswerRoles) {
    std::string passive = replace_all(chrome_publish_offer(), "a=setup:actpass", "a=setup:passive");
    Answered r = answer_for(passive, true);
    EXPECT_EQ(SdpSetup::kActive, r.answer.media[0].setup);
    EXPECT_NE(std::string::npos, r.text.find("a=setup:active\r\n"));
    std::string active = replace_all(chrome_publish_offer(), "a=setup:actpass", "a=setup:active");
    EXPECT_EQ(SdpSetup::kPassive, answer_for(active, true).answer.media[1].setup);
    // A one-way extension is answered from the server's side.
    std::string oneway = replace_all(chrome_publish_offer(), "a=extmap:4 urn", "a=extmap:4/sendonly urn");
    Answered w = answer_for(oneway, true);
    ASSERT_EQ(3u, w.answer.media[1].extmaps.size());
    EXPECT_EQ("recvonly", w.answer.media[1].extmaps[2].direction);
    EXPECT_NE(std::string::npos, w.text.find("a=extmap:4/recvonly urn:ietf:params:rtp-hdrext:sdes:mid\r\n"));
}

TEST(KernelSdpTest, AnswerRejectsDataChannel) {
    std::string offer = obs_publish_offer() +
                        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\n"
                        "c=IN IP4 0.0.0.0\n"
                        "a=mid:2\n"
                        "a=sctp-port:5000\n"
                        "a=max-message-size:262144\n";
    Answered r = answer_for(offer, true);
    ASSERT_EQ(3u, r.answer.media.size());
    EXPECT_FALSE(r.choice[2].accepted);
    EXPECT_EQ(0, r.answer.media[2].port);
    EXPECT_EQ("2", r.answer.media[2].mid);
    EXPECT_EQ((std::vector<std::string>{"0", "1"}), r.answer.bundle);
    EXPECT_NE(std::string::npos, r.text.find("m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:2\r\n")) << r.text;
    SessionDescription back;
    EXPECT_TRUE(ok(parse_sdp(r.text, &back)));
    // Only a data channel: nothing to accept.
    std::string only = offer.substr(0, offer.find("m=audio")) + offer.substr(offer.find("m=application"));
    EXPECT_EQ(kErrorSdpNoMedia, offer_code(only));
}

TEST(KernelSdpTest, AnswerBadOptions) {
    SessionDescription offer;
    ASSERT_TRUE(ok(parse_sdp(obs_publish_offer(), &offer)));
    std::vector<SdpMediaChoice> ch;
    ASSERT_TRUE(ok(choose_codecs(offer, SdpCodecPreference(), &ch)));
    SessionDescription ans;
    SdpAnswerOptions o = server_options(true);
    EXPECT_TRUE(ok(build_answer(offer, ch, o, &ans)));
    o.candidates.push_back({"192.0.2.1", 9000, "sctp"});
    EXPECT_EQ(kErrorSdpAnswer, code(build_answer(offer, ch, o, &ans)));
    o = server_options(true);
    o.candidates.push_back({"", 9000, "udp"});
    EXPECT_EQ(kErrorSdpAnswer, code(build_answer(offer, ch, o, &ans)));
    o = server_options(true);
    o.ice_pwd = "short";
    EXPECT_EQ(kErrorSdpAnswer, code(build_answer(offer, ch, o, &ans)));
    o = server_options(true);
    o.fingerprint.value = "00:11";
    EXPECT_EQ(kErrorSdpAnswer, code(build_answer(offer, ch, o, &ans)));
    o = server_options(true);
    ch.pop_back();
    EXPECT_EQ(kErrorSdpAnswer, code(build_answer(offer, ch, o, &ans)));
}
