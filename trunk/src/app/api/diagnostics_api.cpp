#include "app/api/diagnostics_api.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <valgrind/valgrind.h>

#include "app/stats/diagnostics.hpp"
#include "build_options.h"

namespace srs {

namespace {

struct CpuSplit {
    ProcSystemStat all;
    std::vector<ProcSystemStat> each;
};

CpuSplit read_cpu_split() {
    CpuSplit s;
    s.all = read_proc_stat();
    s.each = read_proc_stat_cpus();
    return s;
}

}  // namespace

DiagnosticsEndpoint::DiagnosticsEndpoint(ServerContext* ctx) : ctx_(ctx), udp_at_start_(read_proc_net_snmp()) {
    CpuSplit s = read_cpu_split();
    cpu_prev_ = s.all;
    cpus_prev_ = s.each;
}

int DiagnosticsEndpoint::handle(const HttpRequest&, Json* body) {
    DiagnosticsInputs in;
    in.pid = getpid();
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        in.fd_soft_limit = rl.rlim_cur == RLIM_INFINITY ? INT64_MAX : static_cast<int64_t>(rl.rlim_cur);
    }
    std::shared_ptr<const Config> config = ctx_->config();
    in.max_connections = config->get(keys::max_connections);
    in.udp_listener = config->get(keys::rtc_server_enabled);
    in.rmem_max = read_sysctl_int("/proc/sys/net/core/rmem_max");
    in.wmem_max = read_sysctl_int("/proc/sys/net/core/wmem_max");
    in.rmem_default = read_sysctl_int("/proc/sys/net/core/rmem_default");
    in.wmem_default = read_sysctl_int("/proc/sys/net/core/wmem_default");
    in.udp_at_start = udp_at_start_;
    in.udp_now = read_proc_net_snmp();
    CpuSplit now = read_cpu_split();
    in.cpu_prev = cpu_prev_;
    in.cpus_prev = cpus_prev_;
    in.cpu_now = now.all;
    in.cpus_now = now.each;
    cpu_prev_ = now.all;
    cpus_prev_ = now.each;
    errno = 0;
    in.nice = getpriority(PRIO_PROCESS, 0);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; c++) {
            if (CPU_ISSET(c, &set)) in.affinity.push_back(c);
        }
    }
    in.cpus_online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    in.build_options = SRS_BUILD_EFFECTIVE;
    in.running_on_valgrind = RUNNING_ON_VALGRIND != 0;
    (*body)["data"] = diagnostics_json(in);
    return 200;
}

}  // namespace srs
