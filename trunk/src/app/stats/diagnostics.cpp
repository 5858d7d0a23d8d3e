#include "app/stats/diagnostics.hpp"

#include <algorithm>

namespace srs {

using json = nlohmann::ordered_json;

namespace {

// Softirq above this share of one CPU is worth moving the server off that CPU.
constexpr double kSoftirqHeavy = 0.2;
// Descriptors the server needs beyond its clients: listeners, logs, pipes.
constexpr int64_t kFdHeadroom = 64;

double softirq_share(const ProcSystemStat& prev, const ProcSystemStat& now) {
    if (!prev.ok || !now.ok || now.total() <= prev.total() || now.softirq < prev.softirq) return 0;
    return static_cast<double>(now.softirq - prev.softirq) / static_cast<double>(now.total() - prev.total());
}

bool build_has(const std::string& options, const std::string& name) {
    return options.find("--" + name + "=on") != std::string::npos;
}

json check(const char* name, bool applies, bool ok, json value, const std::string& expect, const std::string& advice) {
    json c;
    c["name"] = name;
    c["applies"] = applies;
    c["ok"] = !applies || ok;
    c["value"] = std::move(value);
    c["expect"] = expect;
    c["advice"] = (!applies || ok) ? "" : advice;
    return c;
}

}  // namespace

std::string udp_buffer_warning(int64_t rmem_max, int64_t wmem_max) {
    if (rmem_max < 0 || wmem_max < 0) return "";  // unknown: nothing to say
    if (rmem_max >= kUdpBufferWanted && wmem_max >= kUdpBufferWanted) return "";
    return "net.core.rmem_max=" + std::to_string(rmem_max) + " net.core.wmem_max=" + std::to_string(wmem_max) +
           " are below 16 MiB: UDP (WebRTC) packets will be dropped under load; fix with: "
           "sysctl net.core.rmem_max=16777216 net.core.rmem_default=16777216 "
           "net.core.wmem_max=16777216 net.core.wmem_default=16777216";
}

std::string udp_loss_text(const SnmpStat& prev, const SnmpStat& now) {
    if (!prev.ok || !now.ok) return "";
    int64_t r = now.udp_rcvbuf_errors - prev.udp_rcvbuf_errors;
    int64_t s = now.udp_sndbuf_errors - prev.udp_sndbuf_errors;
    if (r <= 0 && s <= 0) return "";
    return "loss=(r:" + std::to_string(std::max<int64_t>(r, 0)) + ",s:" + std::to_string(std::max<int64_t>(s, 0)) +
           ")";
}

std::string cpu_list_text(const std::vector<int>& cpus) {
    std::vector<int> sorted(cpus);
    std::sort(sorted.begin(), sorted.end());
    std::string out;
    for (size_t i = 0; i < sorted.size();) {
        size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) j++;
        if (!out.empty()) out += ",";
        out += std::to_string(sorted[i]);
        if (j > i) out += "-" + std::to_string(sorted[j]);
        i = j + 1;
    }
    return out;
}

json diagnostics_json(const DiagnosticsInputs& in) {
    json checks = json::array();
    std::string pid = std::to_string(in.pid);

    int64_t fd_want = in.max_connections + kFdHeadroom;
    checks.push_back(check("fd_limit", in.fd_soft_limit >= 0, in.fd_soft_limit >= fd_want,
                           {{"soft_limit", in.fd_soft_limit}, {"max_connections", in.max_connections}},
                           ">= max_connections + " + std::to_string(kFdHeadroom),
                           "raise it before starting: ulimit -n " + std::to_string(fd_want) +
                               " (or LimitNOFILE= in the systemd unit), or lower max_connections"));

    bool buffers_ok = udp_buffer_warning(in.rmem_max, in.wmem_max).empty();
    checks.push_back(check("udp_buffers", in.udp_listener && in.rmem_max >= 0, buffers_ok,
                           {{"rmem_max", in.rmem_max},
                            {"wmem_max", in.wmem_max},
                            {"rmem_default", in.rmem_default},
                            {"wmem_default", in.wmem_default}},
                           "net.core.rmem_max and wmem_max >= 16777216 while a UDP port is in use",
                           "sysctl net.core.rmem_max=16777216 net.core.rmem_default=16777216 "
                           "net.core.wmem_max=16777216 net.core.wmem_default=16777216"));

    int64_t r = in.udp_now.udp_rcvbuf_errors - in.udp_at_start.udp_rcvbuf_errors;
    int64_t s = in.udp_now.udp_sndbuf_errors - in.udp_at_start.udp_sndbuf_errors;
    bool counters = in.udp_now.ok && in.udp_at_start.ok;
    checks.push_back(check("udp_drops", in.udp_listener && counters, r <= 0 && s <= 0,
                           {{"rcvbuf_errors_since_start", counters ? r : -1},
                            {"sndbuf_errors_since_start", counters ? s : -1},
                            {"rcvbuf_errors", in.udp_now.udp_rcvbuf_errors},
                            {"sndbuf_errors", in.udp_now.udp_sndbuf_errors}},
                           "no UDP packets dropped by the kernel since the server started",
                           "the kernel dropped UDP packets (netstat -suna: receive/send buffer errors): raise "
                           "net.core.rmem_max/wmem_max, or move softirq and the server to different CPUs"));

    // Softirq: all CPUs together and the busiest one, over the interval.
    double total_share = softirq_share(in.cpu_prev, in.cpu_now);
    json per_cpu = json::array();
    int heaviest = -1;
    double heaviest_share = 0;
    for (size_t i = 0; i < in.cpus_now.size() && i < in.cpus_prev.size(); i++) {
        double share = softirq_share(in.cpus_prev[i], in.cpus_now[i]);
        per_cpu.push_back(share);
        if (share > heaviest_share) heaviest_share = share, heaviest = static_cast<int>(i);
    }
    bool on_heavy_cpu = heaviest >= 0 && std::find(in.affinity.begin(), in.affinity.end(), heaviest) !=
                                             in.affinity.end();
    std::string others;
    for (int c = 0; c < in.cpus_online; c++) {
        if (c != heaviest) others += (others.empty() ? "" : ",") + std::to_string(c);
    }
    checks.push_back(check("softirq", in.cpu_now.ok && !per_cpu.empty(),
                           heaviest_share < kSoftirqHeavy || !on_heavy_cpu || others.empty(),
                           {{"share", total_share}, {"per_cpu", per_cpu}, {"heaviest_cpu", heaviest}},
                           "no CPU the server runs on spends >= 20% in softirq",
                           "CPU " + std::to_string(heaviest) + " spends " +
                               std::to_string(static_cast<int>(heaviest_share * 100)) +
                               "% in softirq: run the server on the others: taskset -a -pc " + others + " " + pid));

    checks.push_back(check("nice", true, in.nice <= 0, in.nice, "<= 0",
                           "the server runs at a lower priority than default: renice -n -15 -p " + pid));

    checks.push_back(check("cpu_affinity", in.cpus_online > 0 && !in.affinity.empty(),
                           static_cast<int>(in.affinity.size()) >= 1,
                           {{"cpus", cpu_list_text(in.affinity)}, {"cpus_online", in.cpus_online}},
                           "informational: the CPUs the server may run on (taskset -pc " + pid + ")", ""));

    json instr;
    const char* switches[] = {"sanitizer", "gperf", "gcp", "gmc", "gmd", "gmp", "gprof", "valgrind"};
    bool any = false;
    for (const char* sw : switches) {
        bool on = build_has(in.build_options, sw);
        instr[sw] = on;
        any = any || on;
    }
    instr["running_on_valgrind"] = in.running_on_valgrind;
    checks.push_back(check("instrumentation", true, !any, instr, "none in production builds",
                           "this build is instrumented and slower: for production, ./configure --sanitizer=off "
                           "without --gperf/--gprof/--valgrind"));

    bool all_ok = true;
    for (const json& c : checks) all_ok = all_ok && c["ok"].get<bool>();
    json data;
    data["ok"] = all_ok;
    data["checks"] = std::move(checks);
    data["build"] = in.build_options;
    return data;
}

}  // namespace srs
