// The heartbeat's report, built from a conf without any IO.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <memory>

#include "app/api/heartbeat.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using srs::utest::ok;

namespace {

std::shared_ptr<const Config> load(const std::string& text) {
    Config::set_env_getter([](const char*) -> const char* { return nullptr; });
    std::shared_ptr<const Config> c;
    EXPECT_TRUE(ok(Config::load_text(text, "t.conf", &c)));
    Config::set_env_getter({});
    return c;
}

const char* kConf =
    "listen 1935 127.0.0.2:19350;\n"
    "http_api { enabled on; listen 1985; }\n"
    "http_server { enabled on; listen 8080; }\n"
    "rtc_server { enabled on; listen 8000; }\n"
    "heartbeat { enabled on; interval 9.3; url http://127.0.0.1:8085/api/v1/servers; device_id \"x\"; "
    "summaries on; ports on; }\n";

}  // namespace

TEST(Heartbeat, OptionsFromTheConf) {
    auto c = load(kConf);
    HeartbeatOptions o = read_heartbeat_options(*c);
    EXPECT_TRUE(o.enabled);
    EXPECT_EQ(o.interval, 9300 * kUsPerMs);
    EXPECT_EQ(o.url, "http://127.0.0.1:8085/api/v1/servers");
    EXPECT_EQ(o.device_id, "x");
    EXPECT_TRUE(o.summaries);
    EXPECT_TRUE(o.ports);
    HeartbeatOptions d = read_heartbeat_options(*load("listen 1935;\n"));
    EXPECT_FALSE(d.enabled);
    EXPECT_EQ(d.interval, 9900 * kUsPerMs);
}

TEST(Heartbeat, ReportWithPortsAndSummaries) {
    auto c = load(kConf);
    HeartbeatOptions o = read_heartbeat_options(*c);
    HeartbeatIdentity id;
    id.ip = "10.0.0.5";
    id.envelope = {{"code", 0}, {"server", "vid-1"}, {"service", "svc"}, {"pid", "42"}};
    nlohmann::ordered_json summaries = {{"ok", true}};
    nlohmann::ordered_json j = build_heartbeat_json(o, id, *c, &summaries);
    EXPECT_EQ(j.dump(),
              "{\"device_id\":\"x\",\"ip\":\"10.0.0.5\",\"server\":\"vid-1\",\"service\":\"svc\",\"pid\":\"42\","
              "\"summaries\":{\"data\":{\"ok\":true}},\"rtmp\":[\"1935\",\"127.0.0.2:19350\"],\"http\":[\"8080\"],"
              "\"api\":[\"1985\"],\"rtc\":[\"8000\"]}");
}

TEST(Heartbeat, ReportWithoutPortsOrSummaries) {
    auto c = load("listen 1935;\nheartbeat { enabled on; device_id d; }\n");
    HeartbeatOptions o = read_heartbeat_options(*c);
    HeartbeatIdentity id;
    id.ip = "127.0.0.1";
    nlohmann::ordered_json j = build_heartbeat_json(o, id, *c, nullptr);
    EXPECT_EQ(j.dump(), "{\"device_id\":\"d\",\"ip\":\"127.0.0.1\"}");
    // An IPv4 address: the first non-loopback one, or 127.0.0.1 without any.
    std::string ip = heartbeat_local_ip();
    in_addr a;
    EXPECT_EQ(inet_pton(AF_INET, ip.c_str(), &a), 1) << ip;
}
