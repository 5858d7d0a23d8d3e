// The API's JSON for the process and host figures. See proc_json.hpp.
#include "app/stats/proc_json.hpp"

#include <unistd.h>

#include "core/version.hpp"

namespace srs {

using json = nlohmann::ordered_json;

namespace {

int64_t us_to_ms(utime_t us) { return us / kUsPerMs; }

}  // namespace

json rusages_json(const RUsage& u) {
    const struct rusage& r = u.r;
    json j;
    j["ok"] = u.ok;
    j["sample_time"] = us_to_ms(u.sample_time);
    j["ru_utime"] = static_cast<int64_t>(r.ru_utime.tv_sec);
    j["ru_stime"] = static_cast<int64_t>(r.ru_stime.tv_sec);
    j["ru_maxrss"] = static_cast<int64_t>(r.ru_maxrss);
    j["ru_ixrss"] = static_cast<int64_t>(r.ru_ixrss);
    j["ru_idrss"] = static_cast<int64_t>(r.ru_idrss);
    j["ru_isrss"] = static_cast<int64_t>(r.ru_isrss);
    j["ru_minflt"] = static_cast<int64_t>(r.ru_minflt);
    j["ru_majflt"] = static_cast<int64_t>(r.ru_majflt);
    j["ru_nswap"] = static_cast<int64_t>(r.ru_nswap);
    j["ru_inblock"] = static_cast<int64_t>(r.ru_inblock);
    j["ru_oublock"] = static_cast<int64_t>(r.ru_oublock);
    j["ru_msgsnd"] = static_cast<int64_t>(r.ru_msgsnd);
    j["ru_msgrcv"] = static_cast<int64_t>(r.ru_msgrcv);
    j["ru_nsignals"] = static_cast<int64_t>(r.ru_nsignals);
    j["ru_nvcsw"] = static_cast<int64_t>(r.ru_nvcsw);
    j["ru_nivcsw"] = static_cast<int64_t>(r.ru_nivcsw);
    return j;
}

json self_proc_stats_json(const ProcSelfStat& s) {
    json j;
    j["ok"] = s.ok;
    j["sample_time"] = us_to_ms(s.sample_time);
    j["percent"] = s.percent;
    j["pid"] = s.pid;
    // SRS reads comm with "%s" and so shows it with its parentheses: "(srs)".
    j["comm"] = s.ok ? "(" + s.comm + ")" : std::string();
    j["state"] = s.state ? std::string(1, s.state) : std::string();
    j["ppid"] = s.ppid;
    j["pgrp"] = s.pgrp;
    j["session"] = s.session;
    j["tty_nr"] = s.tty_nr;
    j["tpgid"] = s.tpgid;
    j["flags"] = s.flags;
    j["minflt"] = s.minflt;
    j["cminflt"] = s.cminflt;
    j["majflt"] = s.majflt;
    j["cmajflt"] = s.cmajflt;
    j["utime"] = s.utime;
    j["stime"] = s.stime;
    j["cutime"] = s.cutime;
    j["cstime"] = s.cstime;
    j["priority"] = s.priority;
    j["nice"] = s.nice;
    j["num_threads"] = s.num_threads;
    j["itrealvalue"] = s.itrealvalue;
    j["starttime"] = s.starttime;
    j["vsize"] = s.vsize;
    j["rss"] = s.rss;
    j["rsslim"] = s.rsslim;
    j["startcode"] = s.startcode;
    j["endcode"] = s.endcode;
    j["startstack"] = s.startstack;
    j["kstkesp"] = s.kstkesp;
    j["kstkeip"] = s.kstkeip;
    j["signal"] = s.signal;
    j["blocked"] = s.blocked;
    j["sigignore"] = s.sigignore;
    j["sigcatch"] = s.sigcatch;
    j["wchan"] = s.wchan;
    j["nswap"] = s.nswap;
    j["cnswap"] = s.cnswap;
    j["exit_signal"] = s.exit_signal;
    j["processor"] = s.processor;
    j["rt_priority"] = s.rt_priority;
    j["policy"] = s.policy;
    j["delayacct_blkio_ticks"] = s.delayacct_blkio_ticks;
    j["guest_time"] = s.guest_time;
    j["cguest_time"] = s.cguest_time;
    return j;
}

json system_proc_stats_json(const ProcSystemStat& s) {
    json j;
    j["ok"] = s.ok;
    j["sample_time"] = us_to_ms(s.sample_time);
    j["percent"] = s.percent;
    j["user"] = s.user;
    j["nice"] = s.nice;
    j["sys"] = s.sys;
    j["idle"] = s.idle;
    j["iowait"] = s.iowait;
    j["irq"] = s.irq;
    j["softirq"] = s.softirq;
    j["steal"] = s.steal;
    j["guest"] = s.guest;
    return j;
}

json meminfos_json(const MemInfo& m) {
    json j;
    j["ok"] = m.ok;
    j["sample_time"] = us_to_ms(m.sample_time);
    j["percent_ram"] = m.percent_ram;
    j["percent_swap"] = m.percent_swap;
    j["MemActive"] = m.MemActive;
    j["RealInUse"] = m.RealInUse;
    j["NotInUse"] = m.NotInUse;
    j["MemTotal"] = m.MemTotal;
    j["MemFree"] = m.MemFree;
    j["Buffers"] = m.Buffers;
    j["Cached"] = m.Cached;
    j["SwapTotal"] = m.SwapTotal;
    j["SwapFree"] = m.SwapFree;
    return j;
}

json summaries_json(const ProcSnapshot& s, const DiskRates& disk, const SummaryInputs& in) {
    utime_t now = in.now ? in.now : wall_us();
    int64_t now_ms = us_to_ms(now);
    int64_t up_ms = in.start_time > 0 && now > in.start_time ? us_to_ms(now - in.start_time) : 0;
    double srs_uptime = static_cast<double>(up_ms / 100) / 10.0;  // seconds, to 0.1 s as SRS

    int64_t maxrss = s.rusage.ok ? static_cast<int64_t>(s.rusage.r.ru_maxrss) : 0;
    double mem_percent = s.mem.ok && s.mem.MemTotal > 0 ? double(maxrss) / double(s.mem.MemTotal) : 0;

    NetTotals net = sum_net_devices(s.net.devices, s.internet_devices);
    int64_t net_sample_time = s.net.devices.empty() ? 0 : us_to_ms(s.wall_us);

    bool ok = s.rusage.ok && s.self.ok && s.system.ok && s.cpus > 0 && disk.ok && s.mem.ok && s.uptime.ok &&
              s.loadavg.ok && s.sockstat.ok && s.snmp.ok;

    json self;
    self["version"] = SRS_VERSION_STRING;
    self["pid"] = in.pid ? in.pid : static_cast<int64_t>(::getpid());
    self["ppid"] = in.ppid ? in.ppid : static_cast<int64_t>(::getppid());
    self["argv"] = in.argv;
    self["cwd"] = in.cwd;
    self["mem_kbyte"] = maxrss;
    self["mem_percent"] = mem_percent;
    self["cpu_percent"] = s.self.percent;
    self["srs_uptime"] = srs_uptime;

    json sys;
    sys["cpu_percent"] = s.system.percent;
    sys["disk_read_KBps"] = disk.read_KBps;
    sys["disk_write_KBps"] = disk.write_KBps;
    sys["disk_busy_percent"] = disk.busy;
    sys["mem_ram_kbyte"] = s.mem.MemTotal;
    sys["mem_ram_percent"] = s.mem.percent_ram;
    sys["mem_swap_kbyte"] = s.mem.SwapTotal;
    sys["mem_swap_percent"] = s.mem.percent_swap;
    sys["cpus"] = s.cpus;
    sys["cpus_online"] = s.cpus_online;
    sys["uptime"] = s.uptime.uptime;
    sys["ilde_time"] = s.uptime.idle_time;  // sic: SRS's spelling is the contract
    sys["load_1m"] = s.loadavg.load_1m;
    sys["load_5m"] = s.loadavg.load_5m;
    sys["load_15m"] = s.loadavg.load_15m;
    sys["net_sample_time"] = net_sample_time;
    sys["net_recv_bytes"] = net.recv_bytes;
    sys["net_send_bytes"] = net.send_bytes;
    sys["net_recvi_bytes"] = net.recvi_bytes;
    sys["net_sendi_bytes"] = net.sendi_bytes;
    sys["srs_sample_time"] = now_ms;
    sys["srs_recv_bytes"] = in.recv_bytes;
    sys["srs_send_bytes"] = in.send_bytes;
    // As SRS (after iproute2's ss -s): every TCP socket plus those in
    // TIME_WAIT; established from the kernel's CurrEstab.
    sys["conn_sys"] = s.sockstat.tcp_alloc + s.sockstat.tcp_tw;
    sys["conn_sys_et"] = s.snmp.tcp_curr_estab;
    sys["conn_sys_tw"] = s.sockstat.tcp_tw;
    sys["conn_sys_udp"] = s.sockstat.udp_inuse;
    sys["conn_srs"] = in.conn_srs;

    json j;
    j["ok"] = ok;
    j["now_ms"] = now_ms;
    j["self"] = std::move(self);
    j["system"] = std::move(sys);
    return j;
}

}  // namespace srs
