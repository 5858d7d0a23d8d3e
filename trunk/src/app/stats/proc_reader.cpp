// Reading the real /proc files and system calls. See proc_reader.hpp.
#include "app/stats/proc_reader.hpp"

#include <fcntl.h>
#include <ifaddrs.h>
#include <unistd.h>

#include <cerrno>

#include "core/strings.hpp"

namespace srs {

namespace {

// The whole file, or "" when it cannot be read. /proc files report size 0,
// so this reads until EOF; kMaxBytes bounds a pathological file.
std::string read_text_file(const char* path) {
    constexpr size_t kMaxBytes = 4 * 1024 * 1024;
    std::string out;
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return out;
    char buf[8192];
    while (out.size() < kMaxBytes) {
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
}

}  // namespace

std::string read_proc_self_cmdline() { return join_cmdline(read_text_file("/proc/self/cmdline")); }

ProcSelfStat read_proc_self_stat() {
    ProcSelfStat r = parse_proc_self_stat(read_text_file("/proc/self/stat"));
    r.sample_time = wall_us();
    return r;
}

std::vector<ProcSystemStat> read_proc_stat_cpus() { return parse_proc_stat_cpus(read_text_file("/proc/stat")); }

int64_t read_sysctl_int(const char* path) {
    int64_t v = 0;
    std::string text = read_text_file(path);
    return parse_integer(trim(text), &v) ? v : -1;
}

ProcSystemStat read_proc_stat() {
    ProcSystemStat r = parse_proc_stat(read_text_file("/proc/stat"));
    r.sample_time = wall_us();
    return r;
}

MemInfo read_proc_meminfo() {
    MemInfo r = parse_proc_meminfo(read_text_file("/proc/meminfo"));
    r.sample_time = wall_us();
    return r;
}

// ---- getrusage ----
RUsage read_rusage() {
    RUsage u;
    u.ok = ::getrusage(RUSAGE_SELF, &u.r) == 0;
    u.sample_time = wall_us();
    return u;
}

UptimeStat read_proc_uptime() { return parse_proc_uptime(read_text_file("/proc/uptime")); }

LoadAvg read_proc_loadavg() { return parse_proc_loadavg(read_text_file("/proc/loadavg")); }

VmStat read_proc_vmstat() { return parse_proc_vmstat(read_text_file("/proc/vmstat")); }

DiskTicks read_proc_diskstats(const std::vector<std::string>& devices) {
    return parse_proc_diskstats(read_text_file("/proc/diskstats"), devices);
}

NetDevStat read_proc_net_dev() { return parse_proc_net_dev(read_text_file("/proc/net/dev")); }

std::set<std::string> read_internet_devices() {
    std::set<std::string> names;
    struct ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) return names;
    for (struct ifaddrs* p = list; p; p = p->ifa_next) {
        if (p->ifa_name && is_internet_address(p->ifa_addr)) names.insert(p->ifa_name);
    }
    ::freeifaddrs(list);
    return names;
}

SnmpStat read_proc_net_snmp() { return parse_proc_net_snmp(read_text_file("/proc/net/snmp")); }

SockStat read_proc_net_sockstat() { return parse_proc_net_sockstat(read_text_file("/proc/net/sockstat")); }

// ---- one sample ----
ProcSnapshot read_proc_snapshot(const std::vector<std::string>& disk_devices) {
    ProcSnapshot s;
    s.wall_us = wall_us();
    s.monotonic_us = monotonic_us();
    long tck = ::sysconf(_SC_CLK_TCK);
    s.ticks_per_second = tck > 0 ? tck : 100;
    s.cpus = ::sysconf(_SC_NPROCESSORS_CONF);
    s.cpus_online = ::sysconf(_SC_NPROCESSORS_ONLN);
    s.rusage = read_rusage();
    s.self = read_proc_self_stat();
    s.system = read_proc_stat();
    s.mem = read_proc_meminfo();
    s.uptime = read_proc_uptime();
    s.loadavg = read_proc_loadavg();
    s.vmstat = read_proc_vmstat();
    s.disk_ticks = read_proc_diskstats(disk_devices);
    s.net = read_proc_net_dev();
    s.internet_devices = read_internet_devices();
    s.snmp = read_proc_net_snmp();
    s.sockstat = read_proc_net_sockstat();
    // One time for every part, so the API shows one sample_time.
    s.rusage.sample_time = s.self.sample_time = s.system.sample_time = s.mem.sample_time = s.wall_us;
    return s;
}

}  // namespace srs
