// The /proc parsers: pure functions of the files' text. See proc_parsers.hpp.
#include "app/stats/proc_parsers.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "core/bytes.hpp"
#include "core/strings.hpp"

namespace srs {

// ---- /proc/self/stat ----
//
//   pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
//   cmajflt utime stime cutime cstime priority nice num_threads itrealvalue
//   starttime vsize rss rsslim startcode endcode startstack kstkesp kstkeip
//   signal blocked sigignore sigcatch wchan nswap cnswap exit_signal processor
//   rt_priority policy delayacct_blkio_ticks guest_time cguest_time [more...]
//
// comm is at most 15 bytes but may contain anything, ')' and ' ' included, so
// it ends at the last ')' of the line.
ProcSelfStat parse_proc_self_stat(std::string_view text) {
    ProcSelfStat r;
    size_t open = text.find('(');
    size_t close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return r;
    if (!parse_integer(trim(text.substr(0, open)), &r.pid)) return r;
    r.comm = std::string(text.substr(open + 1, close - open - 1));

    std::vector<std::string_view> w = split_whitespace(text.substr(close + 1));
    constexpr size_t kFields = 42;  // state .. cguest_time
    if (w.size() < kFields || w[0].size() != 1) return r;
    r.state = w[0][0];

    bool good = true;
    size_t i = 1;
    auto s = [&](int64_t& v) { good = good && parse_integer(w[i++], &v); };
    auto u = [&](uint64_t& v) { good = good && parse_integer(w[i++], &v); };
    s(r.ppid), s(r.pgrp), s(r.session), s(r.tty_nr), s(r.tpgid);
    u(r.flags), u(r.minflt), u(r.cminflt), u(r.majflt), u(r.cmajflt);
    u(r.utime), u(r.stime), s(r.cutime), s(r.cstime);
    s(r.priority), s(r.nice), s(r.num_threads), s(r.itrealvalue);
    u(r.starttime), u(r.vsize), s(r.rss), u(r.rsslim);
    u(r.startcode), u(r.endcode), u(r.startstack), u(r.kstkesp), u(r.kstkeip);
    u(r.signal), u(r.blocked), u(r.sigignore), u(r.sigcatch);
    u(r.wchan), u(r.nswap), u(r.cnswap), s(r.exit_signal), s(r.processor);
    u(r.rt_priority), u(r.policy), u(r.delayacct_blkio_ticks), u(r.guest_time), s(r.cguest_time);
    r.ok = good && i == kFields;
    return r;
}

std::string join_cmdline(std::string_view raw) {
    std::string out(raw);
    while (!out.empty() && out.back() == '\0') out.pop_back();
    for (char& c : out) {
        if (c == '\0') c = ' ';
    }
    return out;
}

// ---- /proc/stat ----
//
//   cpu  user nice system idle iowait irq softirq steal guest guest_nice
//   cpu0 ...
uint64_t ProcSystemStat::total() const { return user + nice + sys + idle + iowait + irq + softirq + steal + guest; }

namespace {

// One "cpu..." line's counters (after its name); not ok when malformed.
ProcSystemStat parse_cpu_words(const std::vector<std::string_view>& w) {
    ProcSystemStat r;
    uint64_t* fields[] = {&r.user, &r.nice, &r.sys, &r.idle, &r.iowait, &r.irq, &r.softirq, &r.steal, &r.guest};
    size_t n = 0;
    for (; n < 9 && n + 1 < w.size(); n++) {
        if (!parse_integer(w[n + 1], fields[n])) return ProcSystemStat{};
    }
    r.ok = n >= 4;
    return r.ok ? r : ProcSystemStat{};
}

}  // namespace

ProcSystemStat parse_proc_stat(std::string_view text) {
    while (!text.empty()) {
        std::vector<std::string_view> w = split_whitespace(next_line(&text));
        if (!w.empty() && w[0] == "cpu") return parse_cpu_words(w);
    }
    return ProcSystemStat{};
}

std::vector<ProcSystemStat> parse_proc_stat_cpus(std::string_view text) {
    std::vector<ProcSystemStat> cpus;
    while (!text.empty()) {
        std::vector<std::string_view> w = split_whitespace(next_line(&text));
        if (w.empty() || w[0].size() <= 3 || w[0].compare(0, 3, "cpu") != 0) continue;
        uint64_t index = 0;
        if (!parse_integer(w[0].substr(3), &index) || index != cpus.size()) return {};  // cpuN in order, or nothing
        ProcSystemStat c = parse_cpu_words(w);
        if (!c.ok) return {};
        cpus.push_back(c);
    }
    return cpus;
}

double system_cpu_percent(const ProcSystemStat& prev, const ProcSystemStat& cur) {
    if (!prev.ok || !cur.ok) return 0;
    uint64_t t0 = prev.total(), t1 = cur.total();
    if (t1 <= t0 || cur.idle < prev.idle) return 0;
    double idle = static_cast<double>(cur.idle - prev.idle);
    double total = static_cast<double>(t1 - t0);
    double busy = 1 - idle / total;
    return busy < 0 ? 0 : busy;
}

double self_cpu_percent(const ProcSelfStat& prev, const ProcSelfStat& cur, utime_t elapsed_us,
                        int64_t ticks_per_second) {
    if (!prev.ok || !cur.ok || elapsed_us <= 0 || ticks_per_second <= 0) return 0;
    uint64_t used0 = prev.utime + prev.stime, used1 = cur.utime + cur.stime;
    if (used1 < used0) return 0;
    double cpu_seconds = static_cast<double>(used1 - used0) / static_cast<double>(ticks_per_second);
    return cpu_seconds / (static_cast<double>(elapsed_us) / kUsPerSecond);
}

// ---- /proc/meminfo ----
//
//   MemTotal:       24730032 kB
MemInfo parse_proc_meminfo(std::string_view text) {
    MemInfo r;
    struct Key {
        std::string_view name;
        int64_t* value;
        bool seen;
    } keys[] = {{"MemTotal", &r.MemTotal, false}, {"MemFree", &r.MemFree, false},
                {"Buffers", &r.Buffers, false},   {"Cached", &r.Cached, false},
                {"SwapTotal", &r.SwapTotal, false}, {"SwapFree", &r.SwapFree, false}};
    while (!text.empty()) {
        std::string_view line = next_line(&text);
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view name = line.substr(0, colon);
        for (Key& k : keys) {
            if (k.name != name) continue;
            std::vector<std::string_view> w = split_whitespace(line.substr(colon + 1));
            if (w.empty() || !parse_integer(w[0], k.value) || *k.value < 0) return MemInfo{};
            k.seen = true;
        }
    }
    if (!keys[0].seen || !keys[1].seen || r.MemTotal <= 0) return MemInfo{};

    r.MemActive = r.MemTotal - r.MemFree;
    r.RealInUse = r.MemActive - r.Buffers - r.Cached;
    if (r.RealInUse < 0) r.RealInUse = 0;  // inconsistent numbers in some containers
    r.NotInUse = r.MemTotal - r.RealInUse;
    r.percent_ram = static_cast<double>(r.RealInUse) / static_cast<double>(r.MemTotal);
    if (r.SwapTotal > 0 && r.SwapFree <= r.SwapTotal) {
        r.percent_swap = static_cast<double>(r.SwapTotal - r.SwapFree) / static_cast<double>(r.SwapTotal);
    }
    r.ok = true;
    return r;
}

// ---- /proc/uptime: "6710.47 4158.75"; /proc/loadavg: "2.54 2.60 2.73 8/110 18559" ----
UptimeStat parse_proc_uptime(std::string_view text) {
    UptimeStat r;
    std::vector<std::string_view> w = split_whitespace(text);
    if (w.size() < 2 || !parse_double(w[0], &r.uptime) || !parse_double(w[1], &r.idle_time)) return UptimeStat{};
    r.ok = true;
    return r;
}

LoadAvg parse_proc_loadavg(std::string_view text) {
    LoadAvg r;
    std::vector<std::string_view> w = split_whitespace(text);
    if (w.size() < 3 || !parse_double(w[0], &r.load_1m) || !parse_double(w[1], &r.load_5m) ||
        !parse_double(w[2], &r.load_15m)) {
        return LoadAvg{};
    }
    r.ok = true;
    return r;
}

// ---- /proc/vmstat: "pgpgin 1236069" ----
VmStat parse_proc_vmstat(std::string_view text) {
    VmStat r;
    bool in = false, out = false;
    while (!text.empty()) {
        std::vector<std::string_view> w = split_whitespace(next_line(&text));
        if (w.size() < 2) continue;
        if (w[0] == "pgpgin") {
            if (!parse_integer(w[1], &r.pgpgin)) return VmStat{};
            in = true;
        } else if (w[0] == "pgpgout") {
            if (!parse_integer(w[1], &r.pgpgout)) return VmStat{};
            out = true;
        }
    }
    r.ok = in && out;
    return r.ok ? r : VmStat{};
}

// ---- /proc/diskstats ----
//
//   major minor name rd_ios rd_merges rd_sectors rd_ticks wr_ios wr_merges
//   wr_sectors wr_ticks in_flight io_ticks time_in_queue [more...]
DiskTicks parse_proc_diskstats(std::string_view text, const std::vector<std::string>& devices) {
    DiskTicks r;
    constexpr size_t kIoTicks = 12;
    while (!text.empty()) {
        std::vector<std::string_view> w = split_whitespace(next_line(&text));
        if (w.empty()) continue;
        uint64_t ticks = 0;
        if (w.size() <= kIoTicks || !parse_integer(w[kIoTicks], &ticks)) continue;
        r.ok = true;
        for (const std::string& d : devices) {
            if (d == w[2]) {
                r.io_ticks += ticks;
                break;
            }
        }
    }
    return r;
}

DiskRates disk_rates(const VmStat& prev_vm, const DiskTicks& prev_ticks, const VmStat& cur_vm,
                     const DiskTicks& cur_ticks, utime_t elapsed_us) {
    DiskRates r;
    r.ok = cur_vm.ok;
    if (!prev_vm.ok || !cur_vm.ok || elapsed_us <= 0) return r;
    if (cur_vm.pgpgin > prev_vm.pgpgin) {
        r.read_KBps = static_cast<int64_t>((cur_vm.pgpgin - prev_vm.pgpgin) * kUsPerSecond / elapsed_us);
    }
    if (cur_vm.pgpgout > prev_vm.pgpgout) {
        r.write_KBps = static_cast<int64_t>((cur_vm.pgpgout - prev_vm.pgpgout) * kUsPerSecond / elapsed_us);
    }
    if (prev_ticks.ok && cur_ticks.ok && cur_ticks.io_ticks > prev_ticks.io_ticks) {
        double busy_ms = static_cast<double>(cur_ticks.io_ticks - prev_ticks.io_ticks);
        r.busy = busy_ms / (static_cast<double>(elapsed_us) / kUsPerMs);
    }
    return r;
}

// ---- /proc/net/dev ----
//
//   Inter-|   Receive                                                |  Transmit
//    face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets ...
//       lo: 84240454709 30048452    0    0    0     0          0         0 84240454709 ...
//
// Receive has 8 columns, Transmit 8; old kernels print "eth0:123" with no space.
NetDevStat parse_proc_net_dev(std::string_view text) {
    NetDevStat r;
    std::string_view h1 = next_line(&text);
    std::string_view h2 = next_line(&text);
    if (h1.find('|') == std::string_view::npos || h2.find('|') == std::string_view::npos) return r;
    bool good = true;
    while (!text.empty()) {
        std::string_view line = next_line(&text);
        if (trim(line).empty()) continue;
        size_t colon = line.find(':');
        std::string_view name = trim(line.substr(0, colon));
        if (colon == std::string_view::npos || name.empty()) {
            good = false;
            break;
        }
        std::vector<std::string_view> w = split_whitespace(line.substr(colon + 1));
        NetDevice d;
        d.name = std::string(name);
        if (w.size() < 16 || !parse_integer(w[0], &d.recv_bytes) || !parse_integer(w[1], &d.recv_packets) ||
            !parse_integer(w[8], &d.send_bytes) || !parse_integer(w[9], &d.send_packets)) {
            good = false;
            break;
        }
        r.devices.push_back(std::move(d));
    }
    r.ok = good;
    return r;
}

NetTotals sum_net_devices(const std::vector<NetDevice>& devices, const std::set<std::string>& internet) {
    NetTotals t;
    for (const NetDevice& d : devices) {
        if (d.name != "lo" && internet.count(d.name)) {
            t.recv_bytes += d.recv_bytes;
            t.send_bytes += d.send_bytes;
        } else {
            t.recvi_bytes += d.recv_bytes;
            t.sendi_bytes += d.send_bytes;
        }
    }
    return t;
}

namespace {
bool is_internet_ipv4(uint32_t a) {  // host byte order
    if (a == 0) return false;                              // 0.0.0.0
    if ((a >> 24) == 127) return false;                    // 127/8 loopback
    if ((a >> 24) == 10) return false;                     // 10/8
    if ((a & 0xfff00000u) == 0xac100000u) return false;    // 172.16/12
    if ((a & 0xffff0000u) == 0xc0a80000u) return false;    // 192.168/16
    if ((a & 0xffff0000u) == 0xa9fe0000u) return false;    // 169.254/16 link-local
    return true;
}
}  // namespace

bool is_internet_address(const struct sockaddr* addr) {
    if (!addr) return false;
    if (addr->sa_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
        return is_internet_ipv4(ntohl(in->sin_addr.s_addr));
    }
    if (addr->sa_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
        const uint8_t* b = in6->sin6_addr.s6_addr;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
            return is_internet_ipv4(load_be32(b + 12));
        }
        if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) || IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return false;
        if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr) || IN6_IS_ADDR_SITELOCAL(&in6->sin6_addr)) return false;
        if ((b[0] & 0xfe) == 0xfc) return false;  // fc00::/7 unique local
        return true;
    }
    return false;
}

// ---- /proc/net/snmp ----
//
//   Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens ... CurrEstab ...
//   Tcp: 1 200 120000 -1 44971 ...
//   Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors ...
//   Udp: 690 0 0 691 0 0 ...
//
// Each protocol is a line of names followed by a line of values; columns are
// found by name, since kernels append new ones.
SnmpStat parse_proc_net_snmp(std::string_view text) {
    SnmpStat r;
    struct Want {
        std::string_view proto;
        std::string_view name;
        int64_t* value;
        bool seen;
    } wants[] = {{"Tcp", "CurrEstab", &r.tcp_curr_estab, false},
                 {"Udp", "InErrors", &r.udp_in_errors, false},
                 {"Udp", "RcvbufErrors", &r.udp_rcvbuf_errors, false},
                 {"Udp", "SndbufErrors", &r.udp_sndbuf_errors, false}};
    std::string_view header_proto, header_rest;
    bool have_header = false;
    while (!text.empty()) {
        std::string_view line = next_line(&text);
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            have_header = false;
            continue;
        }
        std::string_view proto = line.substr(0, colon), rest = line.substr(colon + 1);
        if (!have_header || proto != header_proto) {
            header_proto = proto, header_rest = rest, have_header = true;
            continue;
        }
        have_header = false;
        std::vector<std::string_view> names = split_whitespace(header_rest), values = split_whitespace(rest);
        for (size_t i = 0; i < names.size() && i < values.size(); i++) {
            for (Want& want : wants) {
                if (want.proto == proto && want.name == names[i] && parse_integer(values[i], want.value)) want.seen = true;
            }
        }
    }
    for (const Want& want : wants) {
        if (!want.seen) return SnmpStat{};
    }
    r.ok = true;
    return r;
}

// ---- /proc/net/sockstat ----
//
//   sockets: used 11
//   TCP: inuse 1 orphan 0 tw 8 alloc 1 mem 134
//   UDP: inuse 0 mem 0
SockStat parse_proc_net_sockstat(std::string_view text) {
    SockStat r;
    struct Want {
        std::string_view proto;
        std::string_view name;
        int64_t* value;
        bool required;
        bool seen;
    } wants[] = {{"sockets", "used", &r.sockets_used, false, false}, {"TCP", "inuse", &r.tcp_inuse, true, false},
                 {"TCP", "orphan", &r.tcp_orphan, false, false},     {"TCP", "tw", &r.tcp_tw, true, false},
                 {"TCP", "alloc", &r.tcp_alloc, true, false},        {"TCP", "mem", &r.tcp_mem, false, false},
                 {"UDP", "inuse", &r.udp_inuse, true, false}};
    while (!text.empty()) {
        std::string_view line = next_line(&text);
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view proto = line.substr(0, colon);
        std::vector<std::string_view> w = split_whitespace(line.substr(colon + 1));
        for (size_t i = 0; i + 1 < w.size(); i += 2) {
            for (Want& want : wants) {
                if (want.proto != proto || want.name != w[i]) continue;
                if (!parse_integer(w[i + 1], want.value)) return SockStat{};
                want.seen = true;
            }
        }
    }
    for (const Want& want : wants) {
        if (want.required && !want.seen) return SockStat{};
    }
    r.ok = true;
    return r;
}

}  // namespace srs
