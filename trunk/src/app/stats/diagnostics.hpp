// The checks SRS's performance guide asks operators to do by hand, as one
// answer (/api/v1/diagnostics) and as log lines: fd limit against
// max_connections, the kernel's UDP buffer sizes and drop counters, the
// share of CPU spent in softirq, the process's nice value and CPU affinity,
// and which instrumentation this build carries. Pure functions over inputs
// read elsewhere, so every rule is unit-tested with fixed numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/stats/proc_sampler.hpp"

namespace srs {

// What the guide recommends for WebRTC: 16 MiB socket buffers.
constexpr int64_t kUdpBufferWanted = 16 * 1024 * 1024;

struct DiagnosticsInputs {
    int64_t pid = 0;
    int64_t fd_soft_limit = -1;  // RLIMIT_NOFILE; -1 unknown
    int64_t max_connections = 0;
    bool udp_listener = false;   // a UDP port is configured (rtc_server)
    int64_t rmem_max = -1, wmem_max = -1, rmem_default = -1, wmem_default = -1;  // net.core.*, -1 unknown
    SnmpStat udp_at_start;       // kernel UDP counters when the server started
    SnmpStat udp_now;
    // CPU time split, over an interval (prev -> now): all CPUs and each one.
    ProcSystemStat cpu_prev, cpu_now;
    std::vector<ProcSystemStat> cpus_prev, cpus_now;
    int nice = 0;
    std::vector<int> affinity;   // CPUs the process may run on
    int cpus_online = 0;
    std::string build_options;   // "--sanitizer=on --gperf=off ..." (SRS_BUILD_EFFECTIVE)
    bool running_on_valgrind = false;
};

nlohmann::ordered_json diagnostics_json(const DiagnosticsInputs& in);

// "" when the buffers are big enough, else the warning with the fix.
std::string udp_buffer_warning(int64_t rmem_max, int64_t wmem_max);
// The kernel's UDP drops between two samples: "loss=(r:N,s:M)", or "" when
// neither counter grew (or a sample is missing).
std::string udp_loss_text(const SnmpStat& prev, const SnmpStat& now);
// "0-3,6": a CPU list as taskset prints it.
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace srs
