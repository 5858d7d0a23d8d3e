// The diagnostics rules over fixed inputs, and the /proc pieces they read.
#include <gtest/gtest.h>

#include <fstream>

#include "app/stats/diagnostics.hpp"
#include "app/stats/proc_sampler.hpp"

using namespace srs;

namespace {

// /proc/stat of a 2-CPU machine (Linux 6.1), two samples 1 s apart:
// CPU 0 spent 30 of its 100 ticks in softirq, CPU 1 none.
const char* kStat0 =
    "cpu  1000 0 500 8000 10 0 300 0 0 0\n"
    "cpu0 500 0 250 3950 5 0 295 0 0 0\n"
    "cpu1 500 0 250 4050 5 0 5 0 0 0\n"
    "intr 12345 0 0\nctxt 999\nbtime 1700000000\n";
const char* kStat1 =
    "cpu  1050 0 520 8100 10 0 330 0 0 0\n"
    "cpu0 540 0 250 3980 5 0 325 0 0 0\n"
    "cpu1 530 0 270 4120 5 0 5 0 0 0\n"
    "intr 12400 0 0\nctxt 1999\nbtime 1700000000\n";

DiagnosticsInputs healthy() {
    DiagnosticsInputs in;
    in.pid = 4242;
    in.fd_soft_limit = 1048576;
    in.max_connections = 1000;
    in.udp_listener = true;
    in.rmem_max = in.wmem_max = in.rmem_default = in.wmem_default = 16777216;
    in.udp_at_start.ok = in.udp_now.ok = true;
    in.cpu_prev = parse_proc_stat(kStat0);
    in.cpu_now = parse_proc_stat(kStat1);
    in.cpus_prev = parse_proc_stat_cpus(kStat0);
    in.cpus_now = parse_proc_stat_cpus(kStat1);
    in.affinity = {1};  // already off the softirq CPU
    in.cpus_online = 2;
    in.build_options = "--sanitizer=off --gperf=off --gcp=off --gmc=off --gmd=off --gmp=off --gprof=off "
                       "--valgrind=off --rtc=on";
    return in;
}

const nlohmann::ordered_json& find(const nlohmann::ordered_json& data, const std::string& name) {
    for (const auto& c : data["checks"]) {
        if (c["name"] == name) return c;
    }
    static nlohmann::ordered_json none;
    ADD_FAILURE() << "no check " << name;
    return none;
}

}  // namespace

TEST(AppDiagnostics, PerCpuLinesOfProcStat) {
    std::vector<ProcSystemStat> cpus = parse_proc_stat_cpus(kStat0);
    ASSERT_EQ(cpus.size(), 2u);
    EXPECT_EQ(cpus[0].softirq, 295u);
    EXPECT_EQ(cpus[1].idle, 4050u);
    EXPECT_TRUE(parse_proc_stat_cpus("cpu0 1 2 3\n").empty());       // too few counters
    EXPECT_TRUE(parse_proc_stat_cpus("cpu1 1 2 3 4\n").empty());     // cpu0 missing
    EXPECT_TRUE(parse_proc_stat_cpus("cpu0 1 2 x 4\n").empty());     // not a number
    EXPECT_TRUE(parse_proc_stat_cpus("").empty());
    EXPECT_FALSE(read_proc_stat_cpus().empty());  // this machine
}

TEST(AppDiagnostics, SysctlNumbers) {
    EXPECT_GT(read_sysctl_int("/proc/sys/net/core/rmem_max"), 0);
    EXPECT_EQ(read_sysctl_int("/proc/sys/no/such/knob"), -1);
    std::ofstream("sysctl_test.txt") << "not a number\n";
    EXPECT_EQ(read_sysctl_int("sysctl_test.txt"), -1);
    std::ofstream("sysctl_test.txt") << " 212992\n";
    EXPECT_EQ(read_sysctl_int("sysctl_test.txt"), 212992);
    std::remove("sysctl_test.txt");
}

TEST(AppDiagnostics, UdpBufferWarningNamesTheFix) {
    EXPECT_EQ(udp_buffer_warning(16777216, 16777216), "");
    EXPECT_EQ(udp_buffer_warning(-1, 212992), "");  // unknown: say nothing
    std::string w = udp_buffer_warning(212992, 16777216);
    EXPECT_NE(w.find("net.core.rmem_max=212992"), std::string::npos) << w;
    EXPECT_NE(w.find("sysctl net.core.rmem_max=16777216"), std::string::npos) << w;
    EXPECT_NE(w.find("net.core.wmem_max=16777216"), std::string::npos) << w;
}

TEST(AppDiagnostics, UdpLossOnlyWhenTheCountersGrew) {
    SnmpStat a, b;
    a.ok = b.ok = true;
    a.udp_rcvbuf_errors = 100;
    b.udp_rcvbuf_errors = 149;
    EXPECT_EQ(udp_loss_text(a, b), "loss=(r:49,s:0)");
    b.udp_sndbuf_errors = 3;
    EXPECT_EQ(udp_loss_text(a, b), "loss=(r:49,s:3)");
    EXPECT_EQ(udp_loss_text(a, a), "");
    SnmpStat missing;
    EXPECT_EQ(udp_loss_text(missing, b), "");
}

TEST(AppDiagnostics, CpuListAsTasksetPrintsIt) {
    EXPECT_EQ(cpu_list_text({0, 1, 2, 5}), "0-2,5");
    EXPECT_EQ(cpu_list_text({3}), "3");
    EXPECT_EQ(cpu_list_text({7, 6, 9, 8}), "6-9");
    EXPECT_EQ(cpu_list_text({}), "");
}

TEST(AppDiagnostics, HealthyMachineIsOk) {
    nlohmann::ordered_json d = diagnostics_json(healthy());
    EXPECT_TRUE(d["ok"].get<bool>()) << d.dump(2);
    EXPECT_EQ(d["checks"].size(), 7u);
    for (const auto& c : d["checks"]) {
        for (const char* k : {"name", "applies", "ok", "value", "expect", "advice"}) EXPECT_TRUE(c.contains(k)) << k;
    }
    const auto& soft = find(d, "softirq");
    EXPECT_NEAR(soft["value"]["per_cpu"][0].get<double>(), 0.3, 1e-9);
    EXPECT_EQ(soft["value"]["heaviest_cpu"], 0);
    EXPECT_EQ(find(d, "cpu_affinity")["value"]["cpus"], "1");
}

TEST(AppDiagnostics, EachProblemIsReportedWithItsFix) {
    DiagnosticsInputs in = healthy();
    in.fd_soft_limit = 1024;
    in.rmem_max = 212992;
    in.udp_now.udp_rcvbuf_errors = 49;
    in.affinity = {0, 1};  // shares CPU 0 with 30% softirq
    in.nice = 5;
    in.build_options = "--sanitizer=on --gperf=off --gcp=off --gmc=off --gmd=off --gmp=off --gprof=off "
                       "--valgrind=off";
    nlohmann::ordered_json d = diagnostics_json(in);
    EXPECT_FALSE(d["ok"].get<bool>());
    EXPECT_NE(find(d, "fd_limit")["advice"].get<std::string>().find("ulimit -n 1064"), std::string::npos);
    EXPECT_NE(find(d, "udp_buffers")["advice"].get<std::string>().find("sysctl net.core.rmem_max=16777216"),
              std::string::npos);
    EXPECT_EQ(find(d, "udp_drops")["value"]["rcvbuf_errors_since_start"], 49);
    EXPECT_FALSE(find(d, "udp_drops")["ok"].get<bool>());
    EXPECT_NE(find(d, "softirq")["advice"].get<std::string>().find("taskset -a -pc 1 4242"), std::string::npos)
        << find(d, "softirq").dump();
    EXPECT_NE(find(d, "nice")["advice"].get<std::string>().find("renice -n -15 -p 4242"), std::string::npos);
    EXPECT_TRUE(find(d, "instrumentation")["value"]["sanitizer"].get<bool>());
    EXPECT_FALSE(find(d, "instrumentation")["ok"].get<bool>());
}

TEST(AppDiagnostics, UdpChecksNeedAUdpPort) {
    DiagnosticsInputs in = healthy();
    in.udp_listener = false;
    in.rmem_max = 212992;
    in.udp_now.udp_rcvbuf_errors = 49;
    nlohmann::ordered_json d = diagnostics_json(in);
    EXPECT_FALSE(find(d, "udp_buffers")["applies"].get<bool>());
    EXPECT_TRUE(find(d, "udp_buffers")["ok"].get<bool>());
    EXPECT_TRUE(find(d, "udp_drops")["ok"].get<bool>());
    EXPECT_TRUE(d["ok"].get<bool>());
}
