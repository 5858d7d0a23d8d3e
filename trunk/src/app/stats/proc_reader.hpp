// Reads the real /proc files and calls the system (getrusage, sysconf,
// getifaddrs) for the figures proc_parsers.hpp parses: one thin read_*() per
// parser, and read_proc_snapshot() for one sample of everything.
//
// Each read_*() reads its whole file now (a few small /proc files: they never
// block), hands the text to its parser and, where the struct has one, stamps
// sample_time with wall_us(). A file that cannot be read gives ok == false.
#pragma once

#include <sys/resource.h>

#include <set>
#include <string>
#include <vector>

#include "app/stats/proc_parsers.hpp"
#include "core/clock.hpp"

namespace srs {

ProcSelfStat read_proc_self_stat();  // /proc/self/stat
ProcSystemStat read_proc_stat();     // the "cpu " line of /proc/stat
std::vector<ProcSystemStat> read_proc_stat_cpus();
MemInfo read_proc_meminfo();
UptimeStat read_proc_uptime();
LoadAvg read_proc_loadavg();
VmStat read_proc_vmstat();
DiskTicks read_proc_diskstats(const std::vector<std::string>& devices);
NetDevStat read_proc_net_dev();
SnmpStat read_proc_net_snmp();
SockStat read_proc_net_sockstat();
// /proc/self/cmdline, arguments joined by spaces (join_cmdline).
std::string read_proc_self_cmdline();
// A number from a /proc/sys file ("4194304\n"); -1 when unreadable.
int64_t read_sysctl_int(const char* path);
// Names of the interfaces holding at least one public address (getifaddrs,
// judged by is_internet_address).
std::set<std::string> read_internet_devices();

// ---- getrusage(RUSAGE_SELF) ----
struct RUsage {
    bool ok = false;
    utime_t sample_time = 0;
    struct rusage r {};
};
RUsage read_rusage();

// ---- one sample of everything ----
struct ProcSnapshot {
    utime_t wall_us = 0;       // sample_time of every part
    utime_t monotonic_us = 0;  // rates are measured on this clock
    int64_t ticks_per_second = 100;  // sysconf(_SC_CLK_TCK)
    int64_t cpus = 0;                // sysconf(_SC_NPROCESSORS_CONF)
    int64_t cpus_online = 0;         // sysconf(_SC_NPROCESSORS_ONLN)
    RUsage rusage;
    ProcSelfStat self;
    ProcSystemStat system;
    MemInfo mem;
    UptimeStat uptime;
    LoadAvg loadavg;
    VmStat vmstat;
    DiskTicks disk_ticks;
    NetDevStat net;
    std::set<std::string> internet_devices;
    SnmpStat snmp;
    SockStat sockstat;
};
// Reads every source now; every part's sample_time is wall_us.
ProcSnapshot read_proc_snapshot(const std::vector<std::string>& disk_devices);

}  // namespace srs
