// The /proc parsers behind SRS's system APIs (/api/v1/rusages,
// self_proc_stats, system_proc_stats, meminfos and summaries), and the pure
// arithmetic over two of their results (CPU percents, disk rates, network
// totals).
//
// Every parser is a pure function of the file's text: it takes a
// std::string_view (never reads past its end, needs no NUL), never throws and
// returns a struct whose `ok` is false when the text is missing, truncated or
// malformed (the other fields are then unspecified but harmless). Nothing here
// opens a file or calls the system: proc_reader.hpp does, and tests feed
// captured text.
//
// Units, as SRS shows them:
//   - sample_time is utime_t (wall-clock microseconds); 0 here, set by the reader.
//   - every percent is a fraction: 0.25 means 25%. A process using two cores
//     fully shows 2.0 (SRS divides by one core, not by the CPU count).
//   - memory in kB (as /proc/meminfo gives it).
//   - /proc/self/stat times (utime, stime, ...) stay in clock ticks.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"

namespace srs {

// ---- /proc/self/stat (proc(5)), the fields SRS's self_proc_stats shows ----
struct ProcSelfStat {
    bool ok = false;
    utime_t sample_time = 0;
    double percent = 0;  // CPU between the last two samples, 1.0 = one core busy
    int64_t pid = 0;
    std::string comm;  // the name without its parentheses; may hold ' ', '(' and ')'
    char state = 0;
    int64_t ppid = 0;
    int64_t pgrp = 0;
    int64_t session = 0;
    int64_t tty_nr = 0;
    int64_t tpgid = 0;
    uint64_t flags = 0;
    uint64_t minflt = 0;
    uint64_t cminflt = 0;
    uint64_t majflt = 0;
    uint64_t cmajflt = 0;
    uint64_t utime = 0;  // clock ticks
    uint64_t stime = 0;
    int64_t cutime = 0;
    int64_t cstime = 0;
    int64_t priority = 0;
    int64_t nice = 0;
    int64_t num_threads = 0;
    int64_t itrealvalue = 0;
    uint64_t starttime = 0;
    uint64_t vsize = 0;  // bytes
    int64_t rss = 0;     // pages
    uint64_t rsslim = 0;
    uint64_t startcode = 0;
    uint64_t endcode = 0;
    uint64_t startstack = 0;
    uint64_t kstkesp = 0;
    uint64_t kstkeip = 0;
    uint64_t signal = 0;
    uint64_t blocked = 0;
    uint64_t sigignore = 0;
    uint64_t sigcatch = 0;
    uint64_t wchan = 0;
    uint64_t nswap = 0;
    uint64_t cnswap = 0;
    int64_t exit_signal = 0;
    int64_t processor = 0;
    uint64_t rt_priority = 0;
    uint64_t policy = 0;
    uint64_t delayacct_blkio_ticks = 0;
    uint64_t guest_time = 0;
    int64_t cguest_time = 0;
};

// Parses one /proc/<pid>/stat line. comm runs from the first '(' to the LAST
// ')' (a name may contain both). Needs every field up to cguest_time (field
// 44, Linux >= 2.6.24); later fields are ignored. sample_time/percent stay 0.
ProcSelfStat parse_proc_self_stat(std::string_view text);

// ---- /proc/stat, the aggregate "cpu " line (clock ticks since boot) ----
struct ProcSystemStat {
    bool ok = false;
    utime_t sample_time = 0;
    double percent = 0;  // share of all CPUs busy between the last two samples
    uint64_t user = 0;
    uint64_t nice = 0;
    uint64_t sys = 0;
    uint64_t idle = 0;
    uint64_t iowait = 0;
    uint64_t irq = 0;
    uint64_t softirq = 0;
    uint64_t steal = 0;
    uint64_t guest = 0;
    // The sum of the nine counters (guest included, as SRS sums them).
    uint64_t total() const;
};

// Needs the "cpu " line with at least user, nice, system and idle; counters
// an old kernel lacks stay 0. A 10th (guest_nice) is ignored.
ProcSystemStat parse_proc_stat(std::string_view text);
// Every per-CPU line ("cpu0", "cpu1", ...) in order; empty when malformed.
std::vector<ProcSystemStat> parse_proc_stat_cpus(std::string_view text);

// 1 - idle/total over the deltas of two samples (iowait counts as busy, as in
// SRS). 0 when either sample is not ok or the counters did not advance.
double system_cpu_percent(const ProcSystemStat& prev, const ProcSystemStat& cur);
// CPU seconds this process used (utime + stime) between two samples divided by
// the wall seconds elapsed: 1.0 = one core. 0 when a sample is not ok, the
// counters went backwards or elapsed_us/ticks_per_second is not positive.
double self_cpu_percent(const ProcSelfStat& prev, const ProcSelfStat& cur, utime_t elapsed_us,
                        int64_t ticks_per_second);

// ---- /proc/meminfo (kB) ----
struct MemInfo {
    bool ok = false;
    utime_t sample_time = 0;
    double percent_ram = 0;   // RealInUse / MemTotal
    double percent_swap = 0;  // (SwapTotal - SwapFree) / SwapTotal
    int64_t MemActive = 0;    // MemTotal - MemFree
    int64_t RealInUse = 0;    // MemActive - Buffers - Cached (never below 0)
    int64_t NotInUse = 0;     // MemTotal - RealInUse
    int64_t MemTotal = 0;
    int64_t MemFree = 0;
    int64_t Buffers = 0;
    int64_t Cached = 0;
    int64_t SwapTotal = 0;
    int64_t SwapFree = 0;
};

// Needs MemTotal (> 0) and MemFree; the others default to 0. Computes the
// derived fields and percents.
MemInfo parse_proc_meminfo(std::string_view text);

// ---- /proc/uptime and /proc/loadavg (for summaries) ----
struct UptimeStat {
    bool ok = false;
    double uptime = 0;     // seconds since boot
    double idle_time = 0;  // idle seconds summed over CPUs
};
UptimeStat parse_proc_uptime(std::string_view text);

struct LoadAvg {
    bool ok = false;
    double load_1m = 0;
    double load_5m = 0;
    double load_15m = 0;
};
LoadAvg parse_proc_loadavg(std::string_view text);

// ---- disk: /proc/vmstat paging and /proc/diskstats busy time ----
struct VmStat {
    bool ok = false;
    uint64_t pgpgin = 0;   // kB paged in from disk since boot
    uint64_t pgpgout = 0;  // kB paged out to disk since boot
};
// Needs both pgpgin and pgpgout lines.
VmStat parse_proc_vmstat(std::string_view text);

struct DiskTicks {
    bool ok = false;
    uint64_t io_ticks = 0;  // ms the named devices spent doing I/O, summed
};
// Sums field 13 (io_ticks) of the lines whose device name is in `devices`;
// ok when the text has at least one well-formed line (a device that is not
// there adds nothing).
DiskTicks parse_proc_diskstats(std::string_view text, const std::vector<std::string>& devices);

// Rates between two samples, as SRS's summaries shows them.
struct DiskRates {
    bool ok = false;
    int64_t read_KBps = 0;
    int64_t write_KBps = 0;
    double busy = 0;  // io_ticks delta / elapsed ms, in [0, 1] per device
};
DiskRates disk_rates(const VmStat& prev_vm, const DiskTicks& prev_ticks, const VmStat& cur_vm,
                     const DiskTicks& cur_ticks, utime_t elapsed_us);

// ---- network: /proc/net/dev, /proc/net/snmp, /proc/net/sockstat ----
struct NetDevice {
    std::string name;
    uint64_t recv_bytes = 0;
    uint64_t recv_packets = 0;
    uint64_t send_bytes = 0;
    uint64_t send_packets = 0;
};
struct NetDevStat {
    bool ok = false;
    std::vector<NetDevice> devices;  // in file order
};
// Needs the two header lines; ok is false if any device line is malformed
// (devices parsed before it are kept).
NetDevStat parse_proc_net_dev(std::string_view text);

// Totals split as SRS does: devices named in `internet` count as internet
// (recv/send), every other one, "lo" included, as intranet (recvi/sendi).
struct NetTotals {
    uint64_t recv_bytes = 0;
    uint64_t send_bytes = 0;
    uint64_t recvi_bytes = 0;
    uint64_t sendi_bytes = 0;
};
NetTotals sum_net_devices(const std::vector<NetDevice>& devices, const std::set<std::string>& internet);
// Whether an IPv4/IPv6 address is public: not unspecified, loopback, RFC 1918
// private, link-local, IPv6 site-local or unique-local (fc00::/7). v4-mapped
// IPv6 addresses are judged as IPv4. Other families: false.
bool is_internet_address(const struct sockaddr* addr);

// The pairs of "Tcp:" and "Udp:" lines (names, then values) of /proc/net/snmp.
struct SnmpStat {
    bool ok = false;  // both CurrEstab and the three Udp counters found
    int64_t tcp_curr_estab = 0;
    int64_t udp_in_errors = 0;
    int64_t udp_rcvbuf_errors = 0;  // datagrams dropped: socket receive buffer full
    int64_t udp_sndbuf_errors = 0;
};
SnmpStat parse_proc_net_snmp(std::string_view text);

struct SockStat {
    bool ok = false;  // both the TCP and UDP lines found
    int64_t sockets_used = 0;
    int64_t tcp_inuse = 0;
    int64_t tcp_orphan = 0;
    int64_t tcp_tw = 0;
    int64_t tcp_alloc = 0;
    int64_t tcp_mem = 0;  // pages
    int64_t udp_inuse = 0;
};
SockStat parse_proc_net_sockstat(std::string_view text);

// ---- /proc/PID/cmdline ----
// The NUL-separated arguments joined by spaces (trailing NULs dropped).
std::string join_cmdline(std::string_view raw);

}  // namespace srs
