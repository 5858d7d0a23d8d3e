// Tests for app/security and the security/refer rows of the config: what a
// conf says (and what `-t` refuses, with file:line), SRS's flat refer forms,
// the environment, and the errors the handlers answer with.
#include "app/security/access_check.hpp"
#include "utest/app/config/config_fixture.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

using namespace srs;

namespace {

class AccessCheckTest : public ConfigFixture {
  protected:
    // 0 when allowed, else the error's code; *message gets its text.
    int security(const Config& conf, AccessAction action, const std::string& ip, std::string* message = nullptr,
                 const std::string& vhost = "__defaultVhost__") {
        Error err = check_security(conf, vhost, action, ip);
        int code = err.ok() ? 0 : err.code();
        if (message) *message = err.ok() ? "" : err.summary();
        err.ignore();
        return code;
    }
    int refer(const Config& conf, ReferStage stage, const std::string& page_url) {
        Error err = check_refer(conf, "__defaultVhost__", stage, page_url);
        int code = err.ok() ? 0 : err.code();
        err.ignore();
        return code;
    }

};

const AccessAction kPub = AccessAction::kPublish;
const AccessAction kPlay = AccessAction::kPlay;

}  // namespace

TEST_F(AccessCheckTest, OffChecksNothing) {
    auto conf = load("vhost __defaultVhost__ { security { enabled off; deny play all; } }");
    EXPECT_EQ(0, security(*conf, kPlay, "127.0.0.1"));
    auto none = load("");
    EXPECT_EQ(0, security(*none, kPub, "127.0.0.1"));
}

TEST_F(AccessCheckTest, OnWithoutRulesRefusesEveryone) {
    auto conf = load("vhost __defaultVhost__ { security { enabled on; } }");
    std::string msg;
    EXPECT_EQ(kErrorSecurityAllow, security(*conf, kPlay, "127.0.0.1", &msg));
    EXPECT_NE(std::string::npos, msg.find("no rule")) << msg;
    EXPECT_EQ(kErrorSecurityAllow, security(*conf, kPub, "10.0.0.1"));
}

TEST_F(AccessCheckTest, RulesInConfOrderAndTheirErrors) {
    auto conf = load(
        "vhost __defaultVhost__ {\n"
        "    security {\n"
        "        enabled on;\n"
        "        allow play all;\n"
        "        deny play 127.0.0.2;\n"
        "        deny play 10.0.0.0/8;\n"
        "        allow publish 127.0.0.1;\n"
        "        allow publish ::1;\n"
        "    }\n"
        "}\n");
    std::string msg;
    EXPECT_EQ(0, security(*conf, kPlay, "127.0.0.1"));
    EXPECT_EQ(kErrorSecurityDeny, security(*conf, kPlay, "127.0.0.2", &msg));
    EXPECT_NE(std::string::npos, msg.find("deny play 127.0.0.2")) << msg;
    EXPECT_EQ(kErrorSecurityDeny, security(*conf, kPlay, "::ffff:10.9.8.7", &msg));
    EXPECT_NE(std::string::npos, msg.find("deny play 10.0.0.0/8")) << msg;
    EXPECT_EQ(0, security(*conf, kPub, "127.0.0.1"));
    EXPECT_EQ(0, security(*conf, kPub, "::1"));
    EXPECT_EQ(kErrorSecurityAllow, security(*conf, kPub, "127.0.0.2", &msg));
    EXPECT_NE(std::string::npos, msg.find("no \"allow publish\" rule")) << msg;
    // Every rule line is kept, in order.
    EXPECT_EQ((std::vector<std::string>{"play", "127.0.0.2", "play", "10.0.0.0/8"}),
              conf->get("__defaultVhost__", keys::vhost_security_deny));
}

TEST_F(AccessCheckTest, PerVhost) {
    auto conf = load(
        "vhost __defaultVhost__ { }\n"
        "vhost locked { security { enabled on; allow publish all; } }\n");
    EXPECT_EQ(0, security(*conf, kPlay, "127.0.0.1"));
    EXPECT_EQ(kErrorSecurityAllow, security(*conf, kPlay, "127.0.0.1", nullptr, "locked"));
    EXPECT_EQ(0, security(*conf, kPub, "127.0.0.1", nullptr, "locked"));
}

TEST_F(AccessCheckTest, BrokenRulesAreRefusedWithTheirLine) {
    struct Case {
        const char* rule;
        const char* want;
    } cases[] = {
        {"allow play 10.0.0.0/33;", "t.conf:3: vhost.security.allow play 10.0.0.0/33: target must be all, an IP"},
        {"deny publish 1.2.3;", "t.conf:3: vhost.security.deny publish 1.2.3: target"},
        {"deny publish garbage;", "\"garbage\" is not an IPv4 or IPv6 address"},
        {"allow view all;", "t.conf:3: vhost.security.allow view all: action \"view\" is not publish or play"},
        {"allow play;", "t.conf:3: vhost.security.allow takes an action and a target"},
        {"allow play all 1.2.3.4;", "t.conf:3: vhost.security.allow takes an action and a target"},
        {"allow play all publish all;", "t.conf:3: vhost.security.allow takes 2 arguments"},
        {"allow play all { }", "t.conf:3: vhost.security.allow takes no block"},
        {"permit play all;", "t.conf:3: unknown directive \"permit\" in vhost.security"},
    };
    for (const Case& c : cases) {
        std::string text = std::string("vhost __defaultVhost__ {\n    security {\n        ") + c.rule +
                           "\n        enabled on;\n    }\n}\n";
        std::string err = load_error(text);
        EXPECT_NE(std::string::npos, err.find(c.want)) << c.rule << " -> " << err;
    }
}

TEST_F(AccessCheckTest, RulesFromTheEnvironment) {
    env_["SRS_VHOST_SECURITY_ENABLED"] = "on";
    env_["SRS_VHOST_SECURITY_DENY"] = "play 127.0.0.2  publish 10.0.0.0/8";
    auto conf = load("");
    EXPECT_EQ(kErrorSecurityDeny, security(*conf, kPlay, "127.0.0.2"));
    EXPECT_EQ(kErrorSecurityDeny, security(*conf, kPub, "10.1.1.1"));
    EXPECT_EQ(0, security(*conf, kPlay, "127.0.0.1"));
    env_["SRS_VHOST_SECURITY_DENY"] = "play 127.0.0.2 publish";
    EXPECT_NE(std::string::npos, load_error("").find("SRS_VHOST_SECURITY_DENY")) << load_error("");
    env_["SRS_VHOST_SECURITY_DENY"] = "play 300.0.0.1";
    EXPECT_NE(std::string::npos, load_error("").find("300.0.0.1")) << load_error("");
}

TEST_F(AccessCheckTest, RulesReloadAsADiff) {
    auto a = load("vhost __defaultVhost__ { security { enabled on; allow play all; } }");
    auto b = load("vhost __defaultVhost__ { security { enabled on; allow play all; deny play 127.0.0.1; } }");
    std::vector<std::string> d = Config::diff(*a, *b);
    ASSERT_EQ(1u, d.size());
    EXPECT_EQ("vhost.__defaultVhost__.security.deny", d[0]);
    EXPECT_TRUE(Config::reloadable(d[0]));
    EXPECT_EQ(0, security(*a, kPlay, "127.0.0.1"));
    EXPECT_EQ(kErrorSecurityDeny, security(*b, kPlay, "127.0.0.1"));
}

TEST_F(AccessCheckTest, ReferBlock) {
    auto conf = load(
        "vhost __defaultVhost__ { refer { enabled on; all a.com b.com; publish pub.a.com; } }");
    EXPECT_EQ(0, refer(*conf, ReferStage::kConnect, "http://www.a.com/player.html"));
    EXPECT_EQ(0, refer(*conf, ReferStage::kConnect, "http://b.com:8080/"));
    EXPECT_EQ(kErrorReferDenied, refer(*conf, ReferStage::kConnect, "http://c.com/"));
    EXPECT_EQ(kErrorReferDenied, refer(*conf, ReferStage::kConnect, ""));
    EXPECT_EQ(0, refer(*conf, ReferStage::kPublish, "http://pub.a.com/"));
    EXPECT_EQ(kErrorReferDenied, refer(*conf, ReferStage::kPublish, "http://www.a.com/"));
    // No play list: players are not checked at play.
    EXPECT_EQ(0, refer(*conf, ReferStage::kPlay, ""));
    // Off: nothing is checked.
    auto off = load("vhost __defaultVhost__ { refer { enabled off; all a.com; } }");
    EXPECT_EQ(0, refer(*off, ReferStage::kConnect, "http://c.com/"));
    Error err = check_refer(*conf, "__defaultVhost__", ReferStage::kConnect, "http://c.com/x");
    EXPECT_NE(std::string::npos, err.summary().find("refer.all [a.com b.com]")) << err.summary();
    err.ignore();
}

TEST_F(AccessCheckTest, ReferOldFlatFormsTurnItOn) {
    std::shared_ptr<const Config> conf;
    ASSERT_TRUE(Config::load_text("vhost __defaultVhost__ {\n refer a.com;\n refer_play p.com;\n"
                                  " refer_publish q.com;\n}\n",
                                  "t.conf", &conf)
                    .ok());
    EXPECT_TRUE(conf->get("__defaultVhost__", keys::vhost_refer_enabled));
    EXPECT_EQ(std::vector<std::string>{"a.com"}, conf->get("__defaultVhost__", keys::vhost_refer_all));
    EXPECT_EQ(std::vector<std::string>{"p.com"}, conf->get("__defaultVhost__", keys::vhost_refer_play));
    EXPECT_EQ(std::vector<std::string>{"q.com"}, conf->get("__defaultVhost__", keys::vhost_refer_publish));
    bool warned = false;
    for (const std::string& w : conf->warnings()) warned = warned || w.find("t.conf:2: directive refer is the old") == 0;
    EXPECT_TRUE(warned);
    EXPECT_EQ(kErrorReferDenied, refer(*conf, ReferStage::kPlay, "http://a.com/"));
    // refer_play alone turns the check on too; an explicit `enabled off` in a block wins.
    auto play_only = load("vhost __defaultVhost__ { refer_play p.com; }");
    EXPECT_TRUE(play_only->get("__defaultVhost__", keys::vhost_refer_enabled));
    auto explicit_off = load("vhost __defaultVhost__ { refer { enabled off; } refer_play p.com; }");
    EXPECT_FALSE(explicit_off->get("__defaultVhost__", keys::vhost_refer_enabled));
    EXPECT_EQ(std::vector<std::string>{"p.com"}, explicit_off->get("__defaultVhost__", keys::vhost_refer_play));
}
