// What the WebRTC server reads from the config: $CANDIDATE, protocol and
// ip_family, and the vhost's rtc block with SRS's defaults.
#include <gtest/gtest.h>

#include <cstring>

#include "app/rtc/rtc_options.hpp"

using namespace srs;

namespace {

std::shared_ptr<const Config> load(const std::string& text) {
    std::shared_ptr<const Config> c;
    Error err = Config::load_text(text, "t.conf", &c);
    EXPECT_TRUE(err.ok()) << err.summary();
    return c;
}

const char* fake_env(const char* name) {
    if (strcmp(name, "CANDIDATE") == 0) return "203.0.113.4";
    if (strcmp(name, "EMPTY") == 0) return "";
    return nullptr;
}

}  // namespace

TEST(RtcOptions, DefaultsAsSrs) {
    auto c = load("listen 1935;\nvhost __defaultVhost__ { }\n");
    RtcServerOptions o = read_rtc_server_options(*c, fake_env);
    EXPECT_FALSE(o.enabled);
    EXPECT_EQ(o.udp_port, 8000);
    EXPECT_EQ(o.candidate, "*");
    EXPECT_TRUE(o.offer_udp);
    EXPECT_FALSE(o.offer_tcp);
    EXPECT_TRUE(o.ipv4);
    EXPECT_FALSE(o.ipv6);
    EXPECT_TRUE(o.ecdsa && o.encrypt && o.api_as_candidates && o.auto_detect_ip);
    EXPECT_EQ(o.reuseport, 1);
    RtcVhostOptions v = read_rtc_vhost_options(*c, "__defaultVhost__");
    EXPECT_FALSE(v.enabled);
    EXPECT_TRUE(v.nack && v.twcc);
    EXPECT_EQ(v.stun_timeout, 30 * kUsPerSecond);
    EXPECT_FALSE(v.dtls_active);
    EXPECT_EQ(v.drop_for_pt, 0);
}

TEST(RtcOptions, CandidateFromTheEnvironmentProtocolAndFamily) {
    auto c = load("listen 1935;\nrtc_server { enabled on; listen 9000; candidate $CANDIDATE; protocol all;\n"
                  "  tcp { enabled on; listen 9443; } ip_family all; ecdsa off; encrypt off; reuseport 4; }\n"
                  "vhost __defaultVhost__ { rtc { enabled on; nack off; twcc off; stun_timeout 5; dtls_role active;\n"
                  "  drop_for_pt 96; } }\n");
    RtcServerOptions o = read_rtc_server_options(*c, fake_env);
    EXPECT_EQ(o.candidate, "203.0.113.4");
    EXPECT_EQ(o.udp_port, 9000);
    EXPECT_TRUE(o.offer_udp && o.offer_tcp);
    EXPECT_EQ(o.tcp_port, 9443);
    EXPECT_TRUE(o.ipv4 && o.ipv6);
    EXPECT_FALSE(o.ecdsa || o.encrypt);
    EXPECT_EQ(o.reuseport, 4);
    RtcVhostOptions v = read_rtc_vhost_options(*c, "__defaultVhost__");
    EXPECT_TRUE(v.enabled);
    EXPECT_FALSE(v.nack || v.twcc);
    EXPECT_EQ(v.stun_timeout, 5 * kUsPerSecond);
    EXPECT_TRUE(v.dtls_active);
    EXPECT_EQ(v.drop_for_pt, 96);

    // An unset or empty variable falls back to detection; protocol tcp
    // without tcp.enabled keeps UDP rather than offering nothing.
    auto d = load("listen 1935;\nrtc_server { candidate $EMPTY; protocol tcp; ip_family ipv6; }\n");
    o = read_rtc_server_options(*d, fake_env);
    EXPECT_EQ(o.candidate, "*");
    EXPECT_TRUE(o.offer_udp);
    EXPECT_FALSE(o.offer_tcp);
    EXPECT_FALSE(o.ipv4);
    EXPECT_TRUE(o.ipv6);
    auto e = load("listen 1935;\nrtc_server { candidate $NOT_SET; }\n");
    EXPECT_EQ(read_rtc_server_options(*e, fake_env).candidate, "*");
}
