#include "app/config/config.hpp"
#include "utest/app/config/config_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <type_traits>

using namespace srs;

namespace {

// Every test sees only the environment it sets, not the developer's.
class ConfigTest : public ConfigFixture {};

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

namespace {

// Whether conf.get(key) / conf.get(vhost, key) compiles for a key type.
template <class K, class = void>
struct HasGlobalGet : std::false_type {};
template <class K>
struct HasGlobalGet<K, std::void_t<decltype(std::declval<const Config&>().get(std::declval<const K&>()))>>
    : std::true_type {};
template <class K, class = void>
struct HasVhostGet : std::false_type {};
template <class K>
struct HasVhostGet<K, std::void_t<decltype(std::declval<const Config&>().get(std::string(), std::declval<const K&>()))>>
    : std::true_type {};

// The getters take the generated keys only: no string paths, no vhost key for
// a global directive, and the value type follows the row's kind.
static_assert(HasGlobalGet<decltype(keys::max_connections)>::value, "global key");
static_assert(!HasGlobalGet<const char*>::value, "string paths are gone");
static_assert(!HasGlobalGet<std::string>::value, "string paths are gone");
static_assert(!HasGlobalGet<decltype(keys::vhost_play_gop_cache)>::value, "a vhost key needs a vhost");
static_assert(HasVhostGet<decltype(keys::vhost_play_gop_cache)>::value, "vhost key");
static_assert(!HasVhostGet<decltype(keys::max_connections)>::value, "a global key takes no vhost");
static_assert(!HasVhostGet<const char*>::value, "string paths are gone");
static_assert(std::is_same<decltype(std::declval<const Config&>().get(keys::listen)),
                           std::vector<ListenEndpoint>>::value,
              "endpoints");
static_assert(std::is_same<decltype(std::declval<const Config&>().get(keys::max_connections)), int64_t>::value,
              "integers");
static_assert(std::is_same<decltype(std::declval<const Config&>().get(keys::tcmalloc_release_rate)), double>::value,
              "numbers");
static_assert(std::is_same<decltype(std::declval<const Config&>().get(keys::srs_log_tank)), std::string>::value,
              "enums");
static_assert(std::is_same<decltype(std::declval<const Config&>().get("", keys::vhost_play_gop_cache)), bool>::value,
              "switches");

}  // namespace

TEST_F(ConfigTest, EmptyConfGivesSrsDefaults) {
    auto conf = load("");
    EXPECT_EQ((std::vector<ListenEndpoint>{{"0.0.0.0", 1935}}), conf->get(keys::listen));
    EXPECT_EQ(1000, conf->get(keys::max_connections));
    EXPECT_TRUE(conf->get(keys::daemon));
    EXPECT_EQ("./objs/srs.pid", conf->get(keys::pid));
    EXPECT_EQ("./", conf->get(keys::work_dir));
    EXPECT_EQ("file", conf->get(keys::srs_log_tank));
    EXPECT_EQ("./objs/srs.log", conf->get(keys::srs_log_file));
    EXPECT_EQ("trace", conf->log_level());
    EXPECT_FALSE(conf->get(keys::utc_time));
    EXPECT_EQ(10000, conf->get(keys::pithy_print_ms));
    EXPECT_EQ(2300, conf->get(keys::grace_start_wait));
    EXPECT_EQ(3200, conf->get(keys::grace_final_wait));
    EXPECT_FALSE(conf->get(keys::force_grace_quit));
    EXPECT_FALSE(conf->get(keys::asprocess));
    EXPECT_EQ("", conf->get(keys::server_id));
    EXPECT_EQ(60000, conf->get(keys::chunk_size));
    EXPECT_TRUE(conf->get(keys::disable_daemon_for_docker));
    EXPECT_DOUBLE_EQ(0.8, conf->get(keys::tcmalloc_release_rate));

    EXPECT_FALSE(conf->get(keys::http_api_enabled));
    EXPECT_EQ("1985", conf->text(keys::http_api_listen));
    EXPECT_TRUE(conf->get(keys::http_api_crossdomain));
    EXPECT_FALSE(conf->get(keys::http_api_raw_api_allow_reload));
    EXPECT_EQ("", conf->get(keys::http_api_auth_username));
    EXPECT_EQ("8080", conf->text(keys::http_server_listen));
    EXPECT_EQ("./objs/nginx/html", conf->get(keys::http_server_dir));
    // Rows no code reads yet have no key, but keep their SRS defaults in the table.
    EXPECT_STREQ("on", find_directive("empty_ip_ok")->default_value);
    EXPECT_STREQ("1990", find_directive("http_api.https.listen")->default_value);
    EXPECT_STREQ("8000", find_directive("rtc_server.listen")->default_value);
    EXPECT_STREQ("*", find_directive("rtc_server.candidate")->default_value);
    EXPECT_STREQ("", find_directive("stats.disk")->default_value);
    EXPECT_STREQ("9.9", find_directive("heartbeat.interval")->default_value);
    EXPECT_STREQ("90", find_directive("circuit_breaker.high_threshold")->default_value);
    EXPECT_STREQ("6.0", find_directive("vhost.rtc.pli_for_rtmp")->default_value);

    EXPECT_EQ(std::vector<std::string>{kDefaultVhost}, conf->vhosts());
    EXPECT_TRUE(conf->has_vhost(kDefaultVhost));
    EXPECT_TRUE(conf->get(kDefaultVhost, keys::vhost_enabled));
    EXPECT_TRUE(conf->get(kDefaultVhost, keys::vhost_play_gop_cache));
    EXPECT_EQ(2500, conf->get(kDefaultVhost, keys::vhost_play_gop_cache_max_frames));
    EXPECT_EQ(30, conf->get(kDefaultVhost, keys::vhost_play_queue_length));
    EXPECT_EQ("full", conf->get(kDefaultVhost, keys::vhost_play_time_jitter));
    EXPECT_EQ(350, conf->get(kDefaultVhost, keys::vhost_play_mw_latency));
    EXPECT_EQ(8, conf->get(kDefaultVhost, keys::vhost_play_mw_msgs));
    EXPECT_EQ(20000, conf->get(kDefaultVhost, keys::vhost_publish_firstpkt_timeout));
    EXPECT_EQ(5000, conf->get(kDefaultVhost, keys::vhost_publish_normal_timeout));
    EXPECT_EQ(60000, conf->get(kDefaultVhost, keys::vhost_chunk_size));
    EXPECT_EQ(2500000, conf->get(kDefaultVhost, keys::vhost_out_ack_size));
    EXPECT_FALSE(conf->get(kDefaultVhost, keys::vhost_http_remux_enabled));
    EXPECT_EQ("[vhost]/[app]/[stream].flv", conf->get(kDefaultVhost, keys::vhost_http_remux_mount));
    // An unknown vhost reads the defaults.
    EXPECT_TRUE(conf->get("nobody.example.com", keys::vhost_play_gop_cache));
    EXPECT_FALSE(conf->has_vhost("nobody.example.com"));
    EXPECT_TRUE(conf->warnings().empty());
}

TEST_F(ConfigTest, ValuesFromTheConf) {
    auto conf = load(
        "listen 1935 127.0.0.1:1936 [::]:1937 [::1]:1938;\n"
        "max_connections 10;\n"
        "daemon off;\n"
        "srs_log_tank console;\n"
        "srs_log_level WARN;\n"
        "chunk_size 4096;\n"
        "http_api { enabled on; listen 127.0.0.1:1985; auth { enabled on; username admin; password \"a b\"; } }\n"
        "stats { disk sda sdb; }\n"
        "vhost live.example.com {\n"
        "    min_latency on;\n"
        "    play { gop_cache off; time_jitter ZERO; mw_latency 100; }\n"
        "    http_remux { enabled on; mount [vhost]/[app]/[stream].ts; fast_cache 1.5; }\n"
        "}\n"
        "vhost other { chunk_size 8192; }\n");
    EXPECT_EQ((std::vector<ListenEndpoint>{{"0.0.0.0", 1935}, {"127.0.0.1", 1936}, {"::", 1937}, {"::1", 1938}}),
              conf->get(keys::listen));
    EXPECT_EQ(10, conf->get(keys::max_connections));
    EXPECT_FALSE(conf->get(keys::daemon));
    EXPECT_EQ("console", conf->get(keys::srs_log_tank));
    EXPECT_EQ("warn", conf->log_level());
    EXPECT_TRUE(conf->get(keys::http_api_enabled));
    EXPECT_EQ((std::vector<ListenEndpoint>{{"127.0.0.1", 1985}}), conf->get(keys::http_api_listen));
    EXPECT_EQ("a b", conf->get(keys::http_api_auth_password));
    // Not implemented yet: validated, then ignored with a warning.
    EXPECT_TRUE(contains(conf->warnings(), "t.conf:8: directive stats.disk is not implemented yet, ignored"));
    EXPECT_TRUE(contains(conf->warnings(), "t.conf:12: directive vhost.http_remux.fast_cache is not implemented "
                                           "yet, ignored"));

    EXPECT_EQ((std::vector<std::string>{"live.example.com", "other", kDefaultVhost}), conf->vhosts());
    const std::string v = "live.example.com";
    EXPECT_TRUE(conf->get(v, keys::vhost_min_latency));
    EXPECT_FALSE(conf->get(v, keys::vhost_play_gop_cache));
    EXPECT_EQ("zero", conf->get(v, keys::vhost_play_time_jitter));
    EXPECT_EQ(100, conf->get(v, keys::vhost_play_mw_latency));
    EXPECT_EQ(8, conf->get(v, keys::vhost_play_mw_msgs));
    EXPECT_TRUE(conf->get(v, keys::vhost_http_remux_enabled));
    EXPECT_EQ("[vhost]/[app]/[stream].ts", conf->get(v, keys::vhost_http_remux_mount));
    // A vhost without chunk_size uses the global one.
    EXPECT_EQ(4096, conf->get(v, keys::vhost_chunk_size));
    EXPECT_EQ(8192, conf->get("other", keys::vhost_chunk_size));
    EXPECT_EQ(4096, conf->get(kDefaultVhost, keys::vhost_chunk_size));
}

TEST_F(ConfigTest, FirstOccurrenceWinsAndBlocksMerge) {
    auto conf = load("listen 1935;\nlisten 1936;\nvhost a { play { mw_msgs 1; } }\nvhost a { play { mw_msgs 2; "
                     "gop_cache off; } }\n");
    EXPECT_EQ(1935, conf->get(keys::listen).at(0).port);
    EXPECT_EQ(1, conf->get("a", keys::vhost_play_mw_msgs));
    EXPECT_FALSE(conf->get("a", keys::vhost_play_gop_cache));
    EXPECT_EQ((std::vector<std::string>{"a", kDefaultVhost}), conf->vhosts());
}

TEST_F(ConfigTest, IsSetTellsConfValuesFromDefaults) {
    env_["SRS_VHOST_TCP_NODELAY"] = "on";
    auto conf = load("max_connections 1000;\nvhost a { play { mw_msgs 8; } }\n");
    EXPECT_TRUE(conf->is_set(keys::max_connections));
    EXPECT_FALSE(conf->is_set(keys::listen));
    EXPECT_TRUE(conf->is_set("a", keys::vhost_play_mw_msgs));
    EXPECT_FALSE(conf->is_set(kDefaultVhost, keys::vhost_play_mw_msgs));
    EXPECT_FALSE(conf->is_set("a", keys::vhost_play_mw_latency));
    EXPECT_TRUE(conf->is_set("b", keys::vhost_tcp_nodelay));
}

// The shape of the confs SRS users run (from SRS's docs), including features
// this server does not have yet.
TEST_F(ConfigTest, TypicalSrsConfLoads) {
    auto conf = load(
        "listen              1935;\n"
        "max_connections     1000;\n"
        "daemon              off;\n"
        "srs_log_tank        console;\n"
        "srs_log_level_v2    info;\n"
        "http_api {\n"
        "    enabled         on;\n"
        "    listen          1985;\n"
        "}\n"
        "http_server {\n"
        "    enabled         on;\n"
        "    listen          8080;\n"
        "    dir             ./objs/nginx/html;\n"
        "}\n"
        "rtc_server {\n"
        "    enabled on;\n"
        "    listen 8000; # UDP port\n"
        "    candidate $CANDIDATE;\n"
        "}\n"
        "stats { network 0; disk sda sdb xvda xvdb; }\n"
        "heartbeat { enabled off; interval 9.3; device_id \"my-srs-device\"; }\n"
        "vhost __defaultVhost__ {\n"
        "    hls {\n"
        "        enabled         on;\n"
        "        hls_fragment    10;\n"
        "        hls_window      60;\n"
        "        hls_path        ./objs/nginx/html;\n"
        "        hls_m3u8_file   [app]/[stream].m3u8;\n"
        "        hls_ts_file     [app]/[stream]-[seq].ts;\n"
        "    }\n"
        "    http_remux {\n"
        "        enabled     on;\n"
        "        mount       [vhost]/[app]/[stream].flv;\n"
        "    }\n"
        "    rtc {\n"
        "        enabled     on;\n"
        "        rtmp_to_rtc on;\n"
        "        rtc_to_rtmp on;\n"
        "    }\n"
        "    http_hooks {\n"
        "        enabled         on;\n"
        "        on_publish      http://127.0.0.1:8085/api/v1/streams http://localhost:8085/api/v1/streams;\n"
        "    }\n"
        "    ingest livestream {\n"
        "        enabled      on;\n"
        "        input { type file; url ./doc/source.flv; }\n"
        "        ffmpeg       ./objs/ffmpeg/bin/ffmpeg;\n"
        "        engine { enabled off; output rtmp://127.0.0.1:[port]/live?vhost=[vhost]/livestream; }\n"
        "    }\n"
        "}\n");
    EXPECT_TRUE(conf->get(keys::rtc_server_enabled));
    EXPECT_TRUE(conf->get(kDefaultVhost, keys::vhost_http_remux_enabled));
    // One warning per directive that is not implemented yet: stats.network and
    // .disk and four vhost.hls rows (heartbeat, rtc_server, vhost.rtc.enabled,
    // the bridges' rtmp_to_rtc and rtc_to_rtmp, vhost.ingest, http_hooks and
    // hls' enabled and hls_window are implemented).
    EXPECT_EQ(6u, conf->warnings().size());
    EXPECT_TRUE(conf->get(kDefaultVhost, keys::vhost_http_hooks_enabled));
    EXPECT_EQ((std::vector<std::string>{"http://127.0.0.1:8085/api/v1/streams", "http://localhost:8085/api/v1/streams"}),
              conf->get(kDefaultVhost, keys::vhost_http_hooks_on_publish));
    EXPECT_EQ(5000, conf->get(kDefaultVhost, keys::vhost_http_hooks_timeout));
    for (const std::string& w : conf->warnings()) EXPECT_EQ(w.find("rtc_server"), std::string::npos) << w;
    EXPECT_FALSE(contains(conf->warnings(), "t.conf:24: directive vhost.hls.enabled is not implemented yet, ignored"));
    EXPECT_TRUE(
        contains(conf->warnings(), "t.conf:25: directive vhost.hls.hls_fragment is not implemented yet, ignored"));
}

TEST_F(ConfigTest, LogLevelV2WinsOverV1) {
    EXPECT_EQ("verbose", load("srs_log_level error; srs_log_level_v2 TRACE;")->log_level());
    EXPECT_EQ("info", load("srs_log_level_v2 debug;")->log_level());
    EXPECT_EQ("trace", load("srs_log_level_v2 info;")->log_level());
    EXPECT_EQ("error", load("srs_log_level_v2 Error;")->log_level());
    EXPECT_EQ("verbose", load("srs_log_level verbose;")->log_level());
}

TEST_F(ConfigTest, EveryKindIsValidatedWithFileAndLine) {
    EXPECT_EQ("t.conf:2: daemon must be on or off, not \"yes\"", load_error("\ndaemon yes;"));
    EXPECT_EQ("t.conf:1: chunk_size 100 is out of range [128, 65536]", load_error("chunk_size 100;"));
    EXPECT_EQ("t.conf:1: chunk_size 65537 is out of range [128, 65536]", load_error("chunk_size 65537;"));
    EXPECT_EQ("t.conf:1: max_connections must be an integer, not \"10k\"", load_error("max_connections 10k;"));
    EXPECT_EQ("t.conf:1: max_connections must be an integer, not \"99999999999999999999\"",
              load_error("max_connections 99999999999999999999;"));
    EXPECT_EQ("t.conf:1: heartbeat.interval must be a number, not \"fast\"",
              load_error("heartbeat { interval fast; }"));
    EXPECT_EQ("t.conf:1: heartbeat.interval 9999 is out of range [0, 3600]",
              load_error("heartbeat { interval 9999; }"));
    EXPECT_EQ("t.conf:1: srs_log_tank must be one of console|file, not \"stdout\"",
              load_error("srs_log_tank stdout;"));
    EXPECT_EQ("t.conf:1: daemon takes 1 argument, got 2", load_error("daemon on off;"));
    EXPECT_EQ("t.conf:1: pid takes 1 argument, got 0", load_error("pid;"));
    EXPECT_EQ("t.conf:1: listen takes 1 to 64 arguments, got 0", load_error("listen;"));
    EXPECT_EQ("t.conf:1: stats.disk takes 1 to 64 arguments, got 0", load_error("stats { disk; }"));
    EXPECT_EQ("t.conf:1: listen: bad endpoint \"abc\", expecting port, ip:port or [ipv6]:port",
              load_error("listen abc;"));
    EXPECT_NE("", load_error("listen 70000;"));
    EXPECT_NE("", load_error("listen 0;"));
    EXPECT_NE("", load_error("listen 1.2.3:1935;"));
    EXPECT_NE("", load_error("listen [::1]1935;"));
    EXPECT_NE("", load_error("listen [zz]:1935;"));
    EXPECT_EQ("t.conf:1: http_api needs a block { ... }", load_error("http_api on;"));
    EXPECT_EQ("t.conf:1: daemon takes no block", load_error("daemon on { }"));
    EXPECT_EQ("t.conf:1: vhost takes 1 argument, got 0", load_error("vhost { }"));
    EXPECT_EQ("t.conf:4: vhost.play.mw_msgs 200 is out of range [0, 128]",
              load_error("vhost a {\n    play {\n        mw_msgs 8;\n        mw_msgs 200;\n    }\n}\n"));
    EXPECT_EQ("t.conf:1: vhost.play.time_jitter must be one of full|zero|off, not \"some\"",
              load_error("vhost a { play { time_jitter some; } }"));
}

TEST_F(ConfigTest, UnknownDirectiveIsAnError) {
    EXPECT_EQ("t.conf:2: unknown directive \"foo\"", load_error("listen 1935;\nfoo bar;\n"));
    EXPECT_EQ("t.conf:1: unknown directive \"foo\" in vhost.play", load_error("vhost a { play { foo on; } }"));
    EXPECT_EQ("t.conf:1: unknown directive \"gop_cache\"", load_error("gop_cache on;"));
    EXPECT_EQ("t.conf:1: unknown directive \"include_x\"", load_error("include_x a;"));
}

TEST_F(ConfigTest, NotImplementedDirectivesAreAcceptedWithOneWarningEach) {
    auto conf = load(
        "srt_server { enabled on; listen 10080; anything { goes here; } }\n"
        "vhost a {\n"
        "    hds { enabled on; hds_fragment 10; }\n"
        "    dash { enabled on; }\n"
        "}\n"
        "vhost b { hds { enabled off; } bandcheck { enabled off; } }\n"
        "srt_server { enabled off; }\n");
    const auto& w = conf->warnings();
    ASSERT_EQ(4u, w.size());
    EXPECT_EQ("t.conf:1: directive srt_server is not implemented yet, ignored", w[0]);
    EXPECT_EQ("t.conf:3: directive vhost.hds is not implemented yet, ignored", w[1]);
    EXPECT_EQ("t.conf:4: directive vhost.dash is not implemented yet, ignored", w[2]);
    EXPECT_EQ("t.conf:6: directive vhost.bandcheck is not implemented yet, ignored", w[3]);
    EXPECT_EQ((std::vector<std::string>{"a", "b", kDefaultVhost}), conf->vhosts());
}

// Rows nobody reads yet (NotYet in the table) keep their kind: a bad value is
// still an error, a good one is ignored with a warning at its file:line, and
// an SRS_* variable naming one warns too instead of being applied.
TEST_F(ConfigTest, NotYetRowsAreValidatedThenIgnoredWithAWarning) {
    env_["SRS_STATS_ENABLED"] = "on";
    env_["SRS_VHOST_RTC_STUN_STRICT_CHECK"] = "on";
    env_["SRS_VHOST_HDS"] = "on";
    auto conf = load(
        "rtc_server {\n"
        "    enabled on;\n"
        "    resolve_api_domain on;\n"
        "}\n"
        "vhost a {\n"
        "    publish { kickoff_for_idle 10; mr on; }\n"
        "    play { atc on; }\n"
        "    rtc { keep_avc_nalu_sei off; }\n"
        "}\n"
        "exporter { enabled on; listen 9972; }\n"
        "in_docker on;\n");
    EXPECT_EQ((std::vector<std::string>{
                  "t.conf:3: directive rtc_server.resolve_api_domain is not implemented yet, ignored",
                  "t.conf:6: directive vhost.publish.kickoff_for_idle is not implemented yet, ignored",
                  "t.conf:7: directive vhost.play.atc is not implemented yet, ignored",
                  "t.conf:8: directive vhost.rtc.keep_avc_nalu_sei is not implemented yet, ignored",
                  "t.conf:11: directive in_docker is not implemented yet, ignored",
                  "env SRS_STATS_ENABLED: directive stats.enabled is not implemented yet, ignored",
                  "env SRS_VHOST_RTC_STUN_STRICT_CHECK: directive vhost.rtc.stun_strict_check is not implemented yet, "
                  "ignored",
                  "env SRS_VHOST_HDS: directive vhost.hds is not implemented yet, ignored",
              }),
              conf->warnings());
    // The implemented rows around them are read as usual.
    EXPECT_TRUE(conf->get(keys::rtc_server_enabled));
    EXPECT_TRUE(conf->get("a", keys::vhost_publish_mr));

    EXPECT_EQ("t.conf:1: rtc_server.listen 70000 is out of range [1, 65535]",
              load_error("rtc_server { listen 70000; }"));
    EXPECT_EQ("t.conf:1: vhost.play.atc must be on or off, not \"yes\"", load_error("vhost a { play { atc yes; } }"));
    EXPECT_EQ("t.conf:1: stats.disk takes no block", load_error("stats { disk { } }"));
    env_["SRS_VHOST_RTC_NACK"] = "maybe";
    std::string err = load_error("");
    EXPECT_NE(std::string::npos, err.find("env SRS_VHOST_RTC_NACK: vhost.rtc.nack must be on or off")) << err;
}

TEST_F(ConfigTest, OldFlatVhostFormsAreRewritten) {
    auto conf = load(
        "vhost a {\n"
        "    gop_cache off;\n"
        "    queue_length 10;\n"
        "    mw_latency 100;\n"
        "    play { mw_latency 200; }\n"
        "    time_jitter zero;\n"
        "    mr { enabled on; latency 500; }\n"
        "    publish_1stpkt_timeout 1000;\n"
        "    publish_normal_timeout 2000;\n"
        "    http { enabled on; }\n"
        "}\n"
        "http_stream { enabled on; }\n");
    const std::string v = "a";
    EXPECT_FALSE(conf->get(v, keys::vhost_play_gop_cache));
    EXPECT_EQ(10, conf->get(v, keys::vhost_play_queue_length));
    EXPECT_EQ(200, conf->get(v, keys::vhost_play_mw_latency));  // the new form wins
    EXPECT_EQ("zero", conf->get(v, keys::vhost_play_time_jitter));
    EXPECT_TRUE(conf->get(v, keys::vhost_publish_mr));
    EXPECT_EQ(500, conf->get(v, keys::vhost_publish_mr_latency));
    EXPECT_EQ(1000, conf->get(v, keys::vhost_publish_firstpkt_timeout));
    EXPECT_EQ(2000, conf->get(v, keys::vhost_publish_normal_timeout));
    EXPECT_TRUE(conf->get(keys::http_server_enabled));
    const auto& w = conf->warnings();
    EXPECT_TRUE(contains(w, "t.conf:2: directive gop_cache is the old form of play.gop_cache, read as play.gop_cache"));
    EXPECT_TRUE(contains(w, "t.conf:7: directive mr.latency is the old form of publish.mr_latency, read as "
                            "publish.mr_latency"));
    EXPECT_TRUE(contains(w, "t.conf:10: directive vhost.http_static is not implemented yet, ignored"));

    // Old forms are validated like the new ones, at their own line.
    EXPECT_EQ("t.conf:2: vhost.play.gop_cache must be on or off, not \"maybe\"",
              load_error("vhost a {\n    gop_cache maybe;\n}\n"));
    EXPECT_EQ("t.conf:1: unknown directive \"mr\" in vhost", load_error("vhost a { mr { enabled on; bogus 1; } }"));
}

TEST_F(ConfigTest, EnvironmentOverridesTheConf) {
    env_["SRS_LISTEN"] = "1936 [::]:1937";
    env_["SRS_DAEMON"] = "off";
    env_["SRS_HTTP_API_ENABLED"] = "on";
    env_["SRS_SRS_LOG_TANK"] = "console";
    env_["SRS_VHOST_PLAY_GOP_CACHE"] = "off";
    env_["SRS_VHOST_HTTP_REMUX_ENABLED"] = "on";
    env_["SRS_SRS_LOG_LEVEL_V2"] = "warn";
    auto conf = load("listen 1935;\ndaemon on;\nvhost a { play { gop_cache on; } }\n");
    EXPECT_EQ((std::vector<ListenEndpoint>{{"0.0.0.0", 1936}, {"::", 1937}}), conf->get(keys::listen));
    EXPECT_FALSE(conf->get(keys::daemon));
    EXPECT_TRUE(conf->get(keys::http_api_enabled));
    EXPECT_EQ("console", conf->get(keys::srs_log_tank));
    EXPECT_EQ("warn", conf->log_level());
    for (const char* v : {"a", kDefaultVhost, "unknown"}) {
        EXPECT_FALSE(conf->get(v, keys::vhost_play_gop_cache)) << v;
        EXPECT_TRUE(conf->get(v, keys::vhost_http_remux_enabled)) << v;
    }
}

TEST_F(ConfigTest, BadEnvironmentValueIsAnError) {
    env_["SRS_MAX_CONNECTIONS"] = "lots";
    std::string err = load_error("");
    EXPECT_NE(std::string::npos, err.find("env SRS_MAX_CONNECTIONS: max_connections must be an integer")) << err;
    env_.clear();
    env_["SRS_VHOST_PLAY_MW_MSGS"] = "1000";
    err = load_error("");
    EXPECT_NE(std::string::npos, err.find("env SRS_VHOST_PLAY_MW_MSGS: vhost.play.mw_msgs 1000 is out of range"))
        << err;
}

TEST_F(ConfigTest, EnvOnlyMode) {
    std::shared_ptr<const Config> conf;
    Error err = Config::load_env_only(&conf);
    ASSERT_TRUE(err.ok()) << err.summary();
    EXPECT_FALSE(conf->get(keys::daemon));
    EXPECT_EQ("console", conf->get(keys::srs_log_tank));
    EXPECT_EQ(std::vector<std::string>{kDefaultVhost}, conf->vhosts());
    EXPECT_EQ(1935, conf->get(keys::listen).at(0).port);
    EXPECT_EQ("", conf->source());

    env_["SRS_DAEMON"] = "on";
    env_["SRS_SRS_LOG_TANK"] = "file";
    env_["SRS_LISTEN"] = "19350";
    env_["SRS_HTTP_API_LISTEN"] = "19850";
    env_["SRS_VHOST_PLAY_MW_LATENCY"] = "0";
    err = Config::load_env_only(&conf);
    ASSERT_TRUE(err.ok()) << err.summary();
    EXPECT_TRUE(conf->get(keys::daemon));
    EXPECT_EQ("file", conf->get(keys::srs_log_tank));
    EXPECT_EQ(19350, conf->get(keys::listen).at(0).port);
    EXPECT_EQ(19850, conf->get(keys::http_api_listen).at(0).port);
    EXPECT_EQ(0, conf->get(kDefaultVhost, keys::vhost_play_mw_latency));
}

TEST_F(ConfigTest, EnvNamesDeriveFromPaths) {
    EXPECT_EQ("SRS_LISTEN", directive_env_name("listen"));
    EXPECT_EQ("SRS_HTTP_API_ENABLED", directive_env_name("http_api.enabled"));
    EXPECT_EQ("SRS_HTTP_API_LISTEN", directive_env_name("http_api.listen"));
    EXPECT_EQ("SRS_VHOST_HTTP_REMUX_ENABLED", directive_env_name("vhost.http_remux.enabled"));
    EXPECT_EQ("SRS_VHOST_PLAY_GOP_CACHE", directive_env_name("vhost.play.gop_cache"));
    EXPECT_EQ("SRS_DAEMON", directive_env_name("daemon"));
    EXPECT_EQ("SRS_SRS_LOG_TANK", directive_env_name("srs_log_tank"));
    EXPECT_EQ("SRS_MAX_CONNECTIONS", directive_env_name("max_connections"));
}

TEST_F(ConfigTest, DiffAndReloadable) {
    auto a = load("listen 1935;\ndaemon on;\nvhost a { play { gop_cache on; } }\nvhost b { }\n");
    auto b = load("listen 1936;\ndaemon off;\nvhost a { play { gop_cache off; } rtc { keep_avc_nalu_sei off; } }\n"
                  "vhost c { }\n");
    std::vector<std::string> d = Config::diff(*a, *b);
    // vhost.rtc.keep_avc_nalu_sei is not implemented: ignored, so no difference.
    EXPECT_EQ((std::vector<std::string>{"daemon", "listen", "vhost.b", "vhost.a.play.gop_cache", "vhost.c"}), d);
    EXPECT_TRUE(Config::diff(*a, *a).empty());
    EXPECT_TRUE(Config::diff(*load("listen 1935;"), *load("")).empty());

    EXPECT_TRUE(Config::reloadable("listen"));
    EXPECT_TRUE(Config::reloadable("max_connections"));
    EXPECT_FALSE(Config::reloadable("daemon"));
    EXPECT_FALSE(Config::reloadable("pid"));
    EXPECT_TRUE(Config::reloadable("vhost.b"));
    EXPECT_TRUE(Config::reloadable("vhost.a.play.gop_cache"));
    EXPECT_FALSE(Config::reloadable("vhost.a.rtc.enabled"));
    EXPECT_TRUE(Config::reloadable("vhost.live.example.com.publish.mr"));
    EXPECT_TRUE(Config::reloadable("vhost.play.play.mw_latency"));
    EXPECT_FALSE(Config::reloadable("no_such_directive"));
    EXPECT_FALSE(Config::reloadable("srt_server"));
}

TEST_F(ConfigTest, LoadFileResolvesIncludesNextToTheConf) {
    char tmpl[] = "/tmp/srs_config_test_XXXXXX";
    std::string dir = mkdtemp(tmpl);
    std::ofstream(dir + "/main.conf") << "include vhosts.conf;\nlisten 1940;\n";
    std::ofstream(dir + "/vhosts.conf") << "vhost inc { play { mw_msgs 3; } }\n";
    std::shared_ptr<const Config> conf;
    Error err = Config::load_file(dir + "/main.conf", &conf);
    ASSERT_TRUE(err.ok()) << err.summary();
    EXPECT_EQ(1940, conf->get(keys::listen).at(0).port);
    EXPECT_EQ(3, conf->get("inc", keys::vhost_play_mw_msgs));
    EXPECT_EQ(dir + "/main.conf", conf->source());

    // load_text anchors relative includes at the directory of its name.
    err = Config::load_text("include vhosts.conf;", dir + "/virtual.conf", &conf);
    ASSERT_TRUE(err.ok()) << err.summary();
    EXPECT_TRUE(conf->has_vhost("inc"));

    std::ofstream(dir + "/bad.conf") << "vhost x {\n    include vhosts.conf;\n    bogus on;\n}\n";
    err = Config::load_file(dir + "/bad.conf", &conf);
    EXPECT_EQ(dir + "/bad.conf:3: unknown directive \"bogus\" in vhost", err.summary());
    err = Config::load_file(dir + "/none.conf", &conf);
    EXPECT_FALSE(err.ok());
    err.ignore();
    std::filesystem::remove_all(dir);
}

TEST_F(ConfigTest, TableIsConsistent) {
    std::map<std::string, int> seen;
    for (const DirectiveSpec& s : directive_table()) {
        std::string path = s.path;
        EXPECT_EQ(0, seen[path]++) << "duplicate row " << path;
        size_t dot = path.rfind('.');
        if (dot != std::string::npos) {
            const DirectiveSpec* parent = find_directive(path.substr(0, dot));
            ASSERT_NE(nullptr, parent) << path;
            EXPECT_EQ(ArgKind::kBlock, parent->kind) << path;
            EXPECT_TRUE(parent->implemented) << path;
        }
        if (s.inherit) {
            const DirectiveSpec* g = find_directive(s.inherit);
            ASSERT_NE(nullptr, g) << path;
            EXPECT_STREQ(g->default_value, s.default_value) << path;
        }
        if (!is_value_directive(s) || !*s.default_value) continue;
        std::vector<std::string> args = directive_default_args(s);
        Error err = validate_directive_args(s, "default", &args);
        EXPECT_TRUE(err.ok()) << err.summary();
    }
}

// conf/full.conf and the reference in docs/config.md are rendered from the
// table. Tests run from trunk/. `make conf-regen` rewrites them (test/conf_regen.cpp).
class ConfigFullConf : public ConfigTest {};

TEST_F(ConfigFullConf, FullConfIsRenderedFromTheTable) {
    const std::string path = "conf/full.conf";
    const std::string rendered = render_full_conf();
    // Not ASSERT_EQ: a stale file would print both texts in full.
    ASSERT_TRUE(rendered == read_file(path))
        << path << " is stale or missing (tests run from trunk/); regenerate it with make conf-regen";

    std::shared_ptr<const Config> conf;
    Error err = Config::load_file(path, &conf);
    ASSERT_TRUE(err.ok()) << err.summary();
    EXPECT_TRUE(conf->warnings().empty());
    // Every value in it is the default.
    EXPECT_TRUE(Config::diff(*conf, *load("")).empty());
}

// The typed keys are generated too; the same regeneration rewrites them.
TEST_F(ConfigFullConf, KeysHeaderIsRenderedFromTheTable) {
    const std::string path = "src/app/config/config_keys.hpp";
    const std::string rendered = render_config_keys_header();
    ASSERT_TRUE(rendered == read_file(path))
        << path << " is stale or missing (tests run from trunk/); regenerate it with make conf-regen";

    // One key per implemented value row, named after its path.
    size_t rows = 0;
    for (const DirectiveSpec& s : directive_table()) {
        if (!is_value_directive(s)) {
            EXPECT_EQ(std::string::npos, rendered.find("{\"" + std::string(s.path) + "\"}")) << s.path;
            continue;
        }
        ++rows;
        EXPECT_NE(std::string::npos, rendered.find(" " + directive_key_name(s) + "{\"" + s.path + "\"};")) << s.path;
    }
    size_t keys_in_header = 0;
    for (size_t at = rendered.find("inline constexpr"); at != std::string::npos;
         at = rendered.find("inline constexpr", at + 1)) {
        ++keys_in_header;
    }
    EXPECT_EQ(rows, keys_in_header);
    EXPECT_EQ("vhost_play_gop_cache", directive_key_name(*find_directive("vhost.play.gop_cache")));
    EXPECT_EQ("http_api_listen", directive_key_name(*find_directive("http_api.listen")));
}

TEST_F(ConfigFullConf, DocsReferenceIsRenderedFromTheTable) {
    const std::string path = "../docs/config.md";
    const std::string begin = "<!-- BEGIN GENERATED REFERENCE -->\n";
    const std::string end = "<!-- END GENERATED REFERENCE -->\n";
    std::string doc = read_file(path);
    size_t b = doc.find(begin);
    size_t e = doc.find(end);
    ASSERT_TRUE(b != std::string::npos && e != std::string::npos && b < e) << path << " lacks the markers";
    b += begin.size();
    const std::string rendered = render_reference_markdown();
    EXPECT_TRUE(rendered == doc.substr(b, e - b))
        << path << " is stale or missing (tests run from trunk/); regenerate it with make conf-regen";
}

// Numbers go through core/strings' strict parsers: the whole argument or an error.
TEST_F(ConfigTest, NumbersAreParsedWhole) {
    EXPECT_EQ(250, load("max_connections 250;")->get(keys::max_connections));
    EXPECT_DOUBLE_EQ(0.25, load("tcmalloc_release_rate 2.5e-1;")->get(keys::tcmalloc_release_rate));
    for (const char* bad : {"1e3", "+5", "5x", "99999999999999999999", "0x10", " "}) {
        std::string err = load_error(std::string("max_connections \"") + bad + "\";");
        EXPECT_NE(std::string::npos, err.find("max_connections")) << bad << ": " << err;
    }
    for (const char* bad : {"inf", "nan", "1..2", "0x1p3"}) {
        std::string err = load_error(std::string("tcmalloc_release_rate ") + bad + ";");
        EXPECT_NE(std::string::npos, err.find("tcmalloc_release_rate")) << bad << ": " << err;
    }
}
