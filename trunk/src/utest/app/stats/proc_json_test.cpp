// Tests of app/stats/proc_json: the field names and order against SRS's,
// the values and units of summaries, and names that are not UTF-8.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/api/api_json.hpp"
#include "app/stats/proc_json.hpp"
#include "app/stats/proc_sampler.hpp"
#include "core/version.hpp"
#include "utest/app/stats/proc_samples.hpp"

using namespace srs;
using namespace srs::utest::proc;

TEST(ProcJson, JsonFieldNamesMatchSrs) {
    ProcStatsSampler sampler;
    sampler.update(snapshot_from_texts(1000 * kUsPerSecond, 1, kSelfStatCat, kProcStat));

    const std::vector<std::string> rusages = {
        "ok",       "sample_time", "ru_utime", "ru_stime",  "ru_maxrss", "ru_ixrss",
        "ru_idrss", "ru_isrss",    "ru_minflt", "ru_majflt", "ru_nswap",  "ru_inblock",
        "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw"};
    EXPECT_EQ(keys_of(sampler.rusages_json()), rusages);

    const std::vector<std::string> self = {
        "ok",        "sample_time", "percent",   "pid",        "comm",        "state",       "ppid",
        "pgrp",      "session",     "tty_nr",    "tpgid",      "flags",       "minflt",      "cminflt",
        "majflt",    "cmajflt",     "utime",     "stime",      "cutime",      "cstime",      "priority",
        "nice",      "num_threads", "itrealvalue", "starttime", "vsize",      "rss",         "rsslim",
        "startcode", "endcode",     "startstack", "kstkesp",   "kstkeip",     "signal",      "blocked",
        "sigignore", "sigcatch",    "wchan",     "nswap",      "cnswap",      "exit_signal", "processor",
        "rt_priority", "policy",    "delayacct_blkio_ticks", "guest_time", "cguest_time"};
    EXPECT_EQ(keys_of(sampler.self_proc_stats_json()), self);

    const std::vector<std::string> system = {"ok",     "sample_time", "percent", "user",    "nice",  "sys",
                                             "idle",   "iowait",      "irq",     "softirq", "steal", "guest"};
    EXPECT_EQ(keys_of(sampler.system_proc_stats_json()), system);

    const std::vector<std::string> mem = {"ok",        "sample_time", "percent_ram", "percent_swap", "MemActive",
                                          "RealInUse", "NotInUse",    "MemTotal",    "MemFree",      "Buffers",
                                          "Cached",    "SwapTotal",   "SwapFree"};
    EXPECT_EQ(keys_of(sampler.meminfos_json()), mem);

    SummaryInputs in;
    in.now = 1000 * kUsPerSecond;
    nlohmann::ordered_json sum = sampler.summaries_json(in);
    EXPECT_EQ(keys_of(sum), (std::vector<std::string>{"ok", "now_ms", "self", "system"}));
    EXPECT_EQ(keys_of(sum["self"]), (std::vector<std::string>{"version", "pid", "ppid", "argv", "cwd", "mem_kbyte",
                                                             "mem_percent", "cpu_percent", "srs_uptime"}));
    const std::vector<std::string> sum_system = {
        "cpu_percent",     "disk_read_KBps",  "disk_write_KBps", "disk_busy_percent", "mem_ram_kbyte",
        "mem_ram_percent", "mem_swap_kbyte",  "mem_swap_percent", "cpus",             "cpus_online",
        "uptime",          "ilde_time",       "load_1m",         "load_5m",           "load_15m",
        "net_sample_time", "net_recv_bytes",  "net_send_bytes",  "net_recvi_bytes",   "net_sendi_bytes",
        "srs_sample_time", "srs_recv_bytes",  "srs_send_bytes",  "conn_sys",          "conn_sys_et",
        "conn_sys_tw",     "conn_sys_udp",    "conn_srs"};
    EXPECT_EQ(keys_of(sum["system"]), sum_system);
}


TEST(ProcJson, SummariesValues) {
    ProcStatsSampler sampler;
    const utime_t wall = 1795302361LL * kUsPerSecond;
    sampler.update(snapshot_from_texts(wall, 1, kSelfStatCat, kProcStat));

    SummaryInputs in;
    in.now = wall + 2 * kUsPerSecond;
    in.start_time = in.now - 12345678;  // 12.345678 s: SRS shows 12.3
    in.pid = 4242;
    in.ppid = 1;
    in.argv = "./objs/srs -c conf/srs.conf";
    in.cwd = std::string("/srs/\xff", 6);  // not UTF-8
    in.conn_srs = 3;
    in.recv_bytes = 1000;
    in.send_bytes = 2000;
    nlohmann::ordered_json j = sampler.summaries_json(in);
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_EQ(j["now_ms"].get<int64_t>(), in.now / 1000);
    const auto& self = j["self"];
    EXPECT_EQ(self["version"].get<std::string>(), SRS_VERSION_STRING);
    EXPECT_EQ(self["pid"].get<int64_t>(), 4242);
    EXPECT_EQ(self["ppid"].get<int64_t>(), 1);
    EXPECT_EQ(self["argv"].get<std::string>(), in.argv);
    EXPECT_EQ(self["cwd"].get<std::string>(), in.cwd);  // the bytes as they are
    EXPECT_EQ(self["mem_kbyte"].get<int64_t>(), 247300);
    EXPECT_NEAR(self["mem_percent"].get<double>(), 0.01, 1e-4);
    EXPECT_DOUBLE_EQ(self["srs_uptime"].get<double>(), 12.3);
    const auto& sys = j["system"];
    EXPECT_EQ(sys["mem_ram_kbyte"].get<int64_t>(), 24730032);
    EXPECT_EQ(sys["mem_swap_kbyte"].get<int64_t>(), 0);
    EXPECT_EQ(sys["cpus"].get<int64_t>(), 2);
    EXPECT_DOUBLE_EQ(sys["uptime"].get<double>(), 6710.47);
    EXPECT_DOUBLE_EQ(sys["ilde_time"].get<double>(), 4158.75);
    EXPECT_DOUBLE_EQ(sys["load_15m"].get<double>(), 2.73);
    EXPECT_EQ(sys["net_sample_time"].get<int64_t>(), wall / 1000);
    EXPECT_EQ(sys["net_recv_bytes"].get<uint64_t>(), 191553866u);
    EXPECT_EQ(sys["net_send_bytes"].get<uint64_t>(), 253728u);
    EXPECT_EQ(sys["net_recvi_bytes"].get<uint64_t>(), 84240454709ull);
    EXPECT_EQ(sys["net_sendi_bytes"].get<uint64_t>(), 84240454709ull);
    EXPECT_EQ(sys["srs_sample_time"].get<int64_t>(), in.now / 1000);
    EXPECT_EQ(sys["srs_recv_bytes"].get<uint64_t>(), 1000u);
    EXPECT_EQ(sys["srs_send_bytes"].get<uint64_t>(), 2000u);
    EXPECT_EQ(sys["conn_sys"].get<int64_t>(), 9);  // alloc 1 + tw 8
    EXPECT_EQ(sys["conn_sys_et"].get<int64_t>(), 0);
    EXPECT_EQ(sys["conn_sys_tw"].get<int64_t>(), 8);
    EXPECT_EQ(sys["conn_sys_udp"].get<int64_t>(), 0);
    EXPECT_EQ(sys["conn_srs"].get<int64_t>(), 3);
    // Written out, the bad byte is U+FFFD and the text parses back.
    std::string text = dump_api_json(j);
    EXPECT_EQ(nlohmann::json::parse(text)["self"]["cwd"].get<std::string>(), "/srs/\xef\xbf\xbd");

    // Before any sample: ok false, zeros, still the full shape.
    ProcStatsSampler empty;
    nlohmann::ordered_json e = empty.summaries_json(in);
    EXPECT_FALSE(e["ok"].get<bool>());
    EXPECT_EQ(e["system"].size(), 28u);
}


TEST(ProcJson, RusageJsonUnits) {
    RUsage u;
    u.ok = true;
    u.sample_time = 1234567890123;
    u.r.ru_utime.tv_sec = 12;
    u.r.ru_utime.tv_usec = 999999;
    u.r.ru_stime.tv_sec = 3;
    u.r.ru_maxrss = 40960;
    u.r.ru_nvcsw = 77;
    nlohmann::ordered_json j = rusages_json(u);
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_EQ(j["sample_time"].get<int64_t>(), 1234567890);  // ms
    EXPECT_EQ(j["ru_utime"].get<int64_t>(), 12);              // whole seconds, as SRS (tv_sec)
    EXPECT_EQ(j["ru_stime"].get<int64_t>(), 3);
    EXPECT_EQ(j["ru_maxrss"].get<int64_t>(), 40960);
    EXPECT_EQ(j["ru_nvcsw"].get<int64_t>(), 77);
}


TEST(ProcJson, CommNotUtf8DumpsWithReplacement) {
    std::string line = kSelfStatCat;
    line.replace(line.find("(cat)"), 5, std::string("(c\xff\xc3\xa9)", 6));
    ProcSelfStat s = parse_proc_self_stat(line);
    ASSERT_TRUE(s.ok);
    nlohmann::ordered_json j = self_proc_stats_json(s);
    EXPECT_EQ(j["comm"].get<std::string>(), std::string("(c\xff\xc3\xa9)"));  // the bytes as they are
    // nlohmann's default handler throws on them; the API's dump does not.
    EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
    std::string text;
    EXPECT_NO_THROW(text = dump_api_json(j));
    // The bad byte becomes U+FFFD; the valid é is kept.
    EXPECT_NE(text.find("\"comm\":\"(c\xef\xbf\xbd\xc3\xa9)\""), std::string::npos) << text;
    EXPECT_TRUE(nlohmann::json::parse(text).is_object());
}
