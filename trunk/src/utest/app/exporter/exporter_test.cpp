// The exporter's side of the server: its config block, the snapshot it
// collects from a (fake) server, and which paths it takes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <map>
#include <memory>
#include <string>

#include "app/exporter/exporter.hpp"
#include "io/runtime.hpp"
#include "utest/app/conn/fake_live_context.hpp"

using namespace srs;

namespace {

std::shared_ptr<const Config> load(const std::string& text) {
    std::shared_ptr<const Config> conf;
    Error err = Config::load_text(text, "t.conf", &conf);
    EXPECT_TRUE(err.ok()) << err.summary();
    return conf;
}

class AppExporterTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(init_runtime().ok());
        Config::set_env_getter([this](const char* name) -> const char* {
            auto it = env_.find(name);
            return it == env_.end() ? nullptr : it->second.c_str();
        });
    }
    void TearDown() override { Config::set_env_getter(nullptr); }
    std::map<std::string, std::string> env_;
};

}  // namespace

TEST_F(AppExporterTest, OptionsDefaultsConfAndEnvironment) {
    ExporterOptions d = read_exporter_options(*load("listen 1935;\n"));
    EXPECT_FALSE(d.enabled);
    ASSERT_EQ(d.listen.size(), 1u);
    EXPECT_EQ(d.listen[0].port, 9972);
    EXPECT_EQ(d.listen[0].ip, "0.0.0.0");
    EXPECT_EQ(d.label, "");
    EXPECT_EQ(d.tag, "");

    ExporterOptions o = read_exporter_options(
        *load("listen 1935;\nexporter {\n enabled on;\n listen 127.0.0.1:9100;\n label cn;\n tag edge1;\n}\n"));
    EXPECT_TRUE(o.enabled);
    ASSERT_EQ(o.listen.size(), 1u);
    EXPECT_EQ(o.listen[0].ip, "127.0.0.1");
    EXPECT_EQ(o.listen[0].port, 9100);
    EXPECT_EQ(o.label, "cn");
    EXPECT_EQ(o.tag, "edge1");
    EXPECT_FALSE(o == d);

    env_["SRS_EXPORTER_ENABLED"] = "on";
    env_["SRS_EXPORTER_LISTEN"] = "9200";
    ExporterOptions e = read_exporter_options(*load("listen 1935;\n"));
    EXPECT_TRUE(e.enabled);
    EXPECT_EQ(e.listen[0].port, 9200);
}

TEST_F(AppExporterTest, ReloadCanChangeEveryRow) {
    for (const char* path : {"exporter.enabled", "exporter.listen", "exporter.label", "exporter.tag"}) {
        EXPECT_TRUE(Config::reloadable(path)) << path;
    }
}

TEST_F(AppExporterTest, CollectsFromTheServer) {
    FakeLiveContext ctx("listen 1935;\nserver_id my-origin;\n");
    ProcSnapshot snap;
    snap.self.ok = true;
    snap.self.rss = 1000;  // pages
    snap.snmp.ok = true;
    snap.snmp.udp_rcvbuf_errors = 11;
    snap.snmp.udp_sndbuf_errors = 12;
    ctx.mutable_stats().update(snap);
    LiveSource* s = ctx.sources().fetch_or_create("__defaultVhost__", "live", "a");
    ASSERT_TRUE(s->on_publish("pub", SourceOptions()).ok());
    ctx.sources().fetch_or_create("__defaultVhost__", "live", "b");

    ExporterOptions opts;
    opts.label = "L";
    opts.tag = "T";
    MetricsSnapshot m = collect_metrics(&ctx, opts, "srvc1234abc");
    EXPECT_EQ(m.build.server, "my-origin");
    EXPECT_EQ(m.build.service, "srvc1234abc");
    EXPECT_EQ(m.build.pid, std::to_string(getpid()));
    EXPECT_EQ(m.build.version, "7.0.0");
    EXPECT_EQ(m.build.major, "7");
    EXPECT_FALSE(m.build.build_date.empty());
    EXPECT_EQ(m.build.label, "L");
    EXPECT_EQ(m.build.tag, "T");
    EXPECT_TRUE(m.uname.ok);
    EXPECT_EQ(m.uname.sysname, "Linux");
    EXPECT_EQ(m.memory_kb, 1000 * sysconf(_SC_PAGESIZE) / 1024);
    EXPECT_EQ(m.streams, 2);
    EXPECT_EQ(m.clients, 0);
    EXPECT_EQ(m.clients_total, 0u);
    // Every known type shows, at 0, so dashboards see the series.
    ASSERT_EQ(m.clients_by_type.size(), 4u);
    for (const auto& t : m.clients_by_type) EXPECT_EQ(t.second, 0) << t.first;
    EXPECT_EQ(m.clients_by_type[0].first, "flash-publish");
    EXPECT_TRUE(m.udp_ok);
    EXPECT_EQ(m.udp_rcvbuf_errors_total, 11u);
    EXPECT_EQ(m.udp_sndbuf_errors_total, 12u);

    // Without server_id: the API's generated one.
    FakeLiveContext plain("listen 1935;\n");
    EXPECT_EQ(collect_metrics(&plain, opts, "srvc1234abc").build.server, "vid-srvc123");
}

TEST_F(AppExporterTest, TakesOnlyMetrics) {
    FakeLiveContext ctx("listen 1935;\n");
    ExporterHandler h(&ctx, "svc");
    HttpRequest req;
    req.method = "GET";
    for (const char* path : {"/metrics"}) {
        req.path = path;
        EXPECT_TRUE(h.match(req)) << path;
    }
    for (const char* path : {"/", "/metrics/", "/metricsx", "/api/v1/summaries", "/Metrics"}) {
        req.path = path;
        EXPECT_FALSE(h.match(req)) << path;
    }
}
