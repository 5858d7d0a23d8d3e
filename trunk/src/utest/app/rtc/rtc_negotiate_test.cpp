// Offer/answer for sessions: what a publisher and a player of Chrome's
// offers get, the knobs, candidate planning and its warnings, and refusals.
#include <gtest/gtest.h>

#include "app/rtc/rtc_negotiate.hpp"
#include "app/rtc/rtc_source.hpp"
#include "kernel/sdp/sdp.hpp"
#include "utest/kernel/sdp/sdp_captured_offers.hpp"
#include "utest/kernel/sdp/sdp_offers.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

const char* kFingerprint =
    "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99";

RtcServerOptions server_options() {
    RtcServerOptions o;
    o.enabled = true;
    o.udp_port = 8000;
    o.candidate = "192.0.2.10";
    return o;
}

RtcVhostOptions vhost_options() {
    RtcVhostOptions v;
    v.enabled = true;
    return v;
}

RtcSessionRequest request(bool publish, const std::string& offer) {
    RtcSessionRequest r;
    r.publish = publish;
    r.vhost = "__defaultVhost__";
    r.app = "live";
    r.stream = "s";
    r.offer = offer;
    r.client_ip = "127.0.0.1";
    return r;
}

Error negotiate(const RtcSessionRequest& r, const RtcSource* source, RtcNegotiation* out,
                RtcVhostOptions v = vhost_options()) {
    std::vector<SdpHostCandidate> c(1);
    c[0].ip = "192.0.2.10";
    c[0].port = 8000;
    return rtc_negotiate(r, server_options(), v, source, c, "ufrag123", "pwd0123456789abcdefghijklmnopqrs",
                         kFingerprint, out);
}

}  // namespace

TEST(RtcNegotiate, ChromePublisher) {
    RtcSource source("__defaultVhost__", "live", "s");
    RtcNegotiation n;
    Error err = negotiate(request(true, chrome_publish_offer()), &source, &n);
    ASSERT_TRUE(err.ok()) << err.describe();
    const RtcSessionParams& p = n.params;
    EXPECT_TRUE(p.publisher);
    ASSERT_TRUE(p.audio.present);
    ASSERT_TRUE(p.video.present);
    EXPECT_EQ(p.audio.codec, "opus");
    EXPECT_EQ(p.audio.pt, 111);
    EXPECT_EQ(p.video.codec, "H264");
    EXPECT_EQ(p.video.clock_rate, 90000u);
    // The primary SSRC, not the RTX partner of the FID group.
    EXPECT_EQ(p.video.remote_ssrc, 1838214506u);
    EXPECT_EQ(p.audio.remote_ssrc, 2704375326u);
    EXPECT_GT(p.video.twcc_ext, 0);
    EXPECT_EQ(p.peer.remote_ufrag, "Hn7q");
    EXPECT_EQ(p.peer.remote_pwd, "3bVt2c8K0pQx9mZr4LwYs1Ja");
    EXPECT_EQ(p.peer.local_ufrag, "ufrag123");
    EXPECT_EQ(p.peer.dtls_role, DtlsRole::kServer);
    EXPECT_TRUE(p.peer.encrypt);

    SessionDescription answer;
    ASSERT_TRUE(parse_sdp(n.answer_sdp, &answer).ok()) << n.answer_sdp;
    ASSERT_EQ(answer.media.size(), 2u);
    for (const SdpMedia& m : answer.media) {
        EXPECT_EQ(m.direction, SdpDirection::kRecvOnly);
        EXPECT_EQ(answer.setup_of(m), SdpSetup::kPassive);
        EXPECT_EQ(answer.ice_ufrag_of(m), "ufrag123");
        ASSERT_EQ(m.candidates.size(), 1u);
        EXPECT_EQ(m.candidates[0].address, "192.0.2.10");
        EXPECT_EQ(m.candidates[0].port, 8000);
        // No RTX: retransmissions come as the original packets.
        for (const SdpCodec& c : m.codecs) EXPECT_NE(c.name, "rtx");
    }
    EXPECT_NE(n.answer_sdp.find("a=ice-lite"), std::string::npos);
    EXPECT_NE(n.answer_sdp.find(kFingerprint), std::string::npos);
}

TEST(RtcNegotiate, PlayerFollowsThePublishersCodecAndGetsTheSourceSsrcs) {
    RtcSource source("__defaultVhost__", "live", "s");
    RtcSessionTrack none;
    struct P : RtcPublisherControl {
        void request_keyframe(utime_t) override {}
    } pub;
    RtcTrackCodec audio, video;
    audio.present = video.present = true;
    audio.name = "opus";
    audio.pt = 111;
    video.name = "H264";
    video.pt = 102;
    video.fmtp = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f";
    source.set_publisher(&pub, audio, video);
    RtcNegotiation n;
    Error err = negotiate(request(false, chrome_play_offer()), &source, &n);
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_FALSE(n.params.publisher);
    EXPECT_EQ(n.params.video.codec, "H264");
    EXPECT_EQ(n.params.video.fmtp.find("42e01f") != std::string::npos, true) << n.params.video.fmtp;
    SessionDescription answer;
    ASSERT_TRUE(parse_sdp(n.answer_sdp, &answer).ok());
    ASSERT_EQ(answer.media.size(), 2u);
    for (const SdpMedia& m : answer.media) {
        EXPECT_EQ(m.direction, SdpDirection::kSendOnly);
        ASSERT_FALSE(m.ssrcs.empty()) << m.kind;
        uint32_t want = m.kind == "audio" ? source.track(RtcMediaKind::kAudio).ssrc()
                                          : source.track(RtcMediaKind::kVideo).ssrc();
        EXPECT_EQ(m.ssrcs[0].ssrc, want);
        EXPECT_TRUE(m.extmaps.empty()) << "players get no header extensions";
        for (const SdpCodec& c : m.codecs) {
            for (const std::string& fb : c.rtcp_fb) EXPECT_NE(fb, "transport-cc");
        }
    }
}

// An offer without a=rtcp-fb nack (or without any rtcp-fb) is taken, as
// SRS takes it: the session goes without retransmissions for that track,
// the answer offers none, and the log line says so.
TEST(RtcNegotiate, OffersWithoutNackAreTaken) {
    auto without = [](std::string sdp, const std::string& what) {
        std::string out;
        size_t pos = 0;
        while (pos < sdp.size()) {
            size_t end = sdp.find('\n', pos);
            if (end == std::string::npos) end = sdp.size() - 1;
            std::string line = sdp.substr(pos, end + 1 - pos);
            if (line.compare(0, what.size(), what) != 0 && !(what == "nack" && line.find(" nack") != std::string::npos &&
                                                             line.compare(0, 10, "a=rtcp-fb:") == 0)) {
                out += line;
            }
            pos = end + 1;
        }
        return out;
    };
    for (const std::string& strip : {std::string("a=rtcp-fb:"), std::string("nack")}) {
        RtcSource source("__defaultVhost__", "live", "s");
        RtcNegotiation n;
        std::string offer = without(chrome_publish_offer(), strip);
        ASSERT_EQ(offer.find(" nack"), std::string::npos) << strip;
        Error err = negotiate(request(true, offer), &source, &n);
        ASSERT_TRUE(err.ok()) << strip << ": " << err.describe();
        EXPECT_TRUE(n.params.audio.present && n.params.video.present);
        EXPECT_FALSE(n.params.audio.nack);
        EXPECT_FALSE(n.params.video.nack);
        EXPECT_EQ(n.answer_sdp.find("nack"), std::string::npos) << n.answer_sdp;
        EXPECT_EQ(rtc_nack_summary(n.params),
                  "audio and video off (the offer has no a=rtcp-fb nack: no retransmissions asked)");

        RtcNegotiation p;
        err = negotiate(request(false, without(chrome_play_offer(), strip)), &source, &p);
        ASSERT_TRUE(err.ok()) << strip << ": " << err.describe();
        EXPECT_FALSE(p.params.video.nack);
        EXPECT_EQ(rtc_nack_summary(p.params),
                  "audio and video off (the offer has no a=rtcp-fb nack: no retransmissions sent)");
    }
    // With the lines: Chrome offers nack for H.264, not for Opus.
    RtcSource source("__defaultVhost__", "live", "s");
    RtcNegotiation n;
    ASSERT_TRUE(negotiate(request(true, chrome_publish_offer()), &source, &n).ok());
    EXPECT_TRUE(n.params.video.nack);
    EXPECT_FALSE(n.params.audio.nack);
    EXPECT_EQ(rtc_nack_summary(n.params), "audio off (the offer has no a=rtcp-fb nack: no retransmissions asked)");
    n.params.audio.nack = true;
    EXPECT_EQ(rtc_nack_summary(n.params), "on");
    // vhost rtc.nack off: none, and the log line names the vhost.
    RtcVhostOptions off = vhost_options();
    off.nack = false;
    RtcNegotiation q;
    ASSERT_TRUE(negotiate(request(true, chrome_publish_offer()), &source, &q, off).ok());
    EXPECT_FALSE(q.params.video.nack);
    EXPECT_NE(rtc_nack_summary(q.params).find("vhost rtc.nack off"), std::string::npos);
}

TEST(RtcNegotiate, DirectionMustFitTheRole) {
    RtcSource source("__defaultVhost__", "live", "s");
    RtcNegotiation n;
    // A recvonly offer cannot publish; a sendonly one cannot play.
    Error err = negotiate(request(true, chrome_play_offer()), &source, &n);
    EXPECT_EQ(err.code(), kErrorSdpNoMedia) << err.describe();
    RtcNegotiation m;
    Error err2 = negotiate(request(false, chrome_publish_offer()), &source, &m);
    EXPECT_EQ(err2.code(), kErrorSdpNoMedia) << err2.describe();
}

TEST(RtcNegotiate, KnobsAndRefusals) {
    RtcSource source("__defaultVhost__", "live", "s");
    RtcSessionRequest r = request(true, chrome_publish_offer());
    r.codec = "mpeg2";
    RtcNegotiation n;
    EXPECT_EQ(negotiate(r, &source, &n).code(), kErrorRtcInvalidParams);

    r = request(true, chrome_publish_offer());
    r.encrypt = false;
    r.secret = "bearer-or-secret";
    RtcNegotiation plain;
    ASSERT_TRUE(negotiate(r, &source, &plain).ok());
    EXPECT_FALSE(plain.params.peer.encrypt);
    EXPECT_EQ(plain.params.secret, "bearer-or-secret");  // kept for authentication hooks

    // twcc off: no transport-cc extension is kept.
    RtcVhostOptions v = vhost_options();
    v.twcc = false;
    RtcNegotiation no_twcc;
    ASSERT_TRUE(negotiate(request(true, chrome_publish_offer()), &source, &no_twcc, v).ok());
    EXPECT_EQ(no_twcc.params.video.twcc_ext, 0);
    EXPECT_EQ(no_twcc.answer_sdp.find("transport-cc"), std::string::npos);

    // dtls_role active with an actpass offer: we take the client role.
    v = vhost_options();
    v.dtls_active = true;
    RtcNegotiation active;
    ASSERT_TRUE(negotiate(request(true, chrome_publish_offer()), &source, &active, v).ok());
    EXPECT_EQ(active.params.peer.dtls_role, DtlsRole::kClient);
    EXPECT_NE(active.answer_sdp.find("a=setup:active"), std::string::npos);

    // Broken offers: the reason names the problem.
    std::string no_ice = chrome_publish_offer();
    for (size_t at; (at = no_ice.find("a=ice-pwd:")) != std::string::npos;) no_ice.erase(at, no_ice.find('\n', at) - at + 1);
    RtcNegotiation bad;
    EXPECT_EQ(negotiate(request(true, no_ice), &source, &bad).code(), kErrorSdpIce);
    EXPECT_EQ(negotiate(request(true, "v=0\n"), &source, &bad).code(), kErrorSdpMissingLine);
    EXPECT_EQ(negotiate(request(true, std::string(70000, 'a')), &source, &bad).code(), kErrorSdpTooLarge);
    std::string sha1 = chrome_publish_offer();
    for (size_t at = 0; (at = sha1.find("sha-256", at)) != std::string::npos;) sha1.replace(at, 7, "sha-1");
    EXPECT_NE(negotiate(request(true, sha1), &source, &bad).code(), 0);
}

TEST(RtcCandidates, PlanAndWarnings) {
    RtcServerOptions s = server_options();
    RtcSessionRequest r = request(false, "");
    // A fixed candidate, plus eip first, plus the API host when it is an address.
    r.eip = "203.0.113.5:18000";
    r.api_host = "198.51.100.7";
    RtcCandidatePlan plan = rtc_plan_candidates(s, r, {});
    ASSERT_EQ(plan.candidates.size(), 3u);
    EXPECT_EQ(plan.candidates[0].ip, "203.0.113.5");
    EXPECT_EQ(plan.candidates[0].port, 18000);
    EXPECT_EQ(plan.candidates[1].ip, "192.0.2.10");
    EXPECT_EQ(plan.candidates[2].ip, "198.51.100.7");
    EXPECT_TRUE(plan.warnings.empty());

    // "*": the detected addresses; a name is kept but warned about.
    s.candidate = "*";
    r = request(false, "");
    plan = rtc_plan_candidates(s, r, {"10.0.0.2", "192.168.1.3"});
    ASSERT_EQ(plan.candidates.size(), 2u);
    s.candidate = "media.example.com";
    plan = rtc_plan_candidates(s, r, {});
    ASSERT_EQ(plan.warnings.size(), 1u);

    // A client from elsewhere and only loopback/private candidates: black screen warned.
    s.candidate = "127.0.0.1";
    r.client_ip = "203.0.113.9";
    plan = rtc_plan_candidates(s, r, {});
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_NE(plan.warnings[0].find("black"), std::string::npos);
    s.candidate = "192.168.1.3";
    plan = rtc_plan_candidates(s, r, {});
    ASSERT_EQ(plan.warnings.size(), 1u);
    // The same private candidate for a client on the same LAN is fine.
    r.client_ip = "192.168.1.50";
    plan = rtc_plan_candidates(s, r, {});
    EXPECT_TRUE(plan.warnings.empty());

    // protocol all with TCP enabled: a TCP candidate beside each UDP one.
    s.candidate = "192.0.2.10";
    s.offer_tcp = true;
    s.tcp_port = 8443;
    plan = rtc_plan_candidates(s, r, {});
    ASSERT_EQ(plan.candidates.size(), 2u);
    EXPECT_EQ(plan.candidates[1].transport, "tcp");
    EXPECT_EQ(plan.candidates[1].port, 8443);
    // No candidate at all is a warning, not a crash.
    s.candidate = "*";
    s.auto_detect_ip = false;
    s.api_as_candidates = false;
    plan = rtc_plan_candidates(s, r, {});
    EXPECT_TRUE(plan.candidates.empty());
    EXPECT_EQ(plan.warnings.size(), 1u);
}

// Offers captured from Chromium 156 and aiortc 1.16.0 (not hand-written).
TEST(RtcNegotiate, CapturedOffersFromRealStacks) {
    struct Case {
        const char* name;
        const char* offer;
        bool publish;
    };
    const Case cases[] = {
        {"chromium publish", captured_chromium_publish_offer(), true},
        {"chromium play", captured_chromium_play_offer(), false},
        {"aiortc publish", captured_aiortc_publish_offer(), true},
        {"aiortc play", captured_aiortc_play_offer(), false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        RtcSource source("__defaultVhost__", "live", "s");
        RtcNegotiation n;
        Error err = negotiate(request(c.publish, c.offer), &source, &n);
        ASSERT_TRUE(err.ok()) << err.describe();
        EXPECT_EQ(n.params.audio.codec, "opus");
        EXPECT_EQ(n.params.audio.clock_rate, 48000u);
        EXPECT_EQ(n.params.video.codec, "H264");  // preferred over VP8 even where VP8 comes first
        EXPECT_NE(n.params.video.fmtp.find("packetization-mode=1"), std::string::npos) << n.params.video.fmtp;
        if (c.publish) {
            EXPECT_NE(n.params.audio.remote_ssrc, 0u);
            EXPECT_NE(n.params.video.remote_ssrc, 0u);
        }
        EXPECT_EQ(n.params.peer.remote_fingerprint.size(), 95u);  // SHA-256: 32 hex pairs and colons
        SessionDescription answer;
        ASSERT_TRUE(parse_sdp(n.answer_sdp, &answer).ok()) << n.answer_sdp;
        ASSERT_EQ(answer.media.size(), 2u);
        for (const SdpMedia& m : answer.media) {
            EXPECT_NE(m.port, 0);
            EXPECT_EQ(m.direction, c.publish ? SdpDirection::kRecvOnly : SdpDirection::kSendOnly);
        }
    }
}
