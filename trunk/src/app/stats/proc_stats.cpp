#include "app/stats/proc_stats.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "core/version.hpp"

namespace srs {

using json = nlohmann::ordered_json;

namespace {

// ---- text helpers: all work on views, none reads past the end ----

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

// The next line of *rest (without its '\n'); *rest moves past it.
std::string_view next_line(std::string_view* rest) {
    size_t nl = rest->find('\n');
    std::string_view line = rest->substr(0, nl);
    rest->remove_prefix(nl == std::string_view::npos ? rest->size() : nl + 1);
    return line;
}

// Whitespace-separated words.
std::vector<std::string_view> split_words(std::string_view s) {
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_space(s[i])) i++;
        size_t start = i;
        while (i < s.size() && !is_space(s[i])) i++;
        if (i > start) words.push_back(s.substr(start, i - start));
    }
    return words;
}

// Whole-word numbers: "12x", "", "+1" and out-of-range values are rejected.
bool to_u64(std::string_view s, uint64_t* v) {
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size();
}

bool to_i64(std::string_view s, int64_t* v) {
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size();
}

bool to_double(std::string_view s, double* v) {
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size();
}

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

int64_t us_to_ms(utime_t us) { return us / kUsPerMs; }

}  // namespace

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
    if (!to_i64(trim(text.substr(0, open)), &r.pid)) return r;
    r.comm = std::string(text.substr(open + 1, close - open - 1));

    std::vector<std::string_view> w = split_words(text.substr(close + 1));
    constexpr size_t kFields = 42;  // state .. cguest_time
    if (w.size() < kFields || w[0].size() != 1) return r;
    r.state = w[0][0];

    bool good = true;
    size_t i = 1;
    auto s = [&](int64_t& v) { good = good && to_i64(w[i++], &v); };
    auto u = [&](uint64_t& v) { good = good && to_u64(w[i++], &v); };
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

std::string read_proc_self_cmdline() { return join_cmdline(read_text_file("/proc/self/cmdline")); }

ProcSelfStat read_proc_self_stat() {
    ProcSelfStat r = parse_proc_self_stat(read_text_file("/proc/self/stat"));
    r.sample_time = wall_us();
    return r;
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
        if (!to_u64(w[n + 1], fields[n])) return ProcSystemStat{};
    }
    r.ok = n >= 4;
    return r.ok ? r : ProcSystemStat{};
}

}  // namespace

ProcSystemStat parse_proc_stat(std::string_view text) {
    while (!text.empty()) {
        std::vector<std::string_view> w = split_words(next_line(&text));
        if (!w.empty() && w[0] == "cpu") return parse_cpu_words(w);
    }
    return ProcSystemStat{};
}

std::vector<ProcSystemStat> parse_proc_stat_cpus(std::string_view text) {
    std::vector<ProcSystemStat> cpus;
    while (!text.empty()) {
        std::vector<std::string_view> w = split_words(next_line(&text));
        if (w.empty() || w[0].size() <= 3 || w[0].compare(0, 3, "cpu") != 0) continue;
        uint64_t index = 0;
        if (!to_u64(w[0].substr(3), &index) || index != cpus.size()) return {};  // cpuN in order, or nothing
        ProcSystemStat c = parse_cpu_words(w);
        if (!c.ok) return {};
        cpus.push_back(c);
    }
    return cpus;
}

std::vector<ProcSystemStat> read_proc_stat_cpus() { return parse_proc_stat_cpus(read_text_file("/proc/stat")); }

int64_t read_sysctl_int(const char* path) {
    int64_t v = 0;
    std::string text = read_text_file(path);
    return to_i64(trim(text), &v) ? v : -1;
}

ProcSystemStat read_proc_stat() {
    ProcSystemStat r = parse_proc_stat(read_text_file("/proc/stat"));
    r.sample_time = wall_us();
    return r;
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
            std::vector<std::string_view> w = split_words(line.substr(colon + 1));
            if (w.empty() || !to_i64(w[0], k.value) || *k.value < 0) return MemInfo{};
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

// ---- /proc/uptime: "6710.47 4158.75"; /proc/loadavg: "2.54 2.60 2.73 8/110 18559" ----
UptimeStat parse_proc_uptime(std::string_view text) {
    UptimeStat r;
    std::vector<std::string_view> w = split_words(text);
    if (w.size() < 2 || !to_double(w[0], &r.uptime) || !to_double(w[1], &r.idle_time)) return UptimeStat{};
    r.ok = true;
    return r;
}

UptimeStat read_proc_uptime() { return parse_proc_uptime(read_text_file("/proc/uptime")); }

LoadAvg parse_proc_loadavg(std::string_view text) {
    LoadAvg r;
    std::vector<std::string_view> w = split_words(text);
    if (w.size() < 3 || !to_double(w[0], &r.load_1m) || !to_double(w[1], &r.load_5m) ||
        !to_double(w[2], &r.load_15m)) {
        return LoadAvg{};
    }
    r.ok = true;
    return r;
}

LoadAvg read_proc_loadavg() { return parse_proc_loadavg(read_text_file("/proc/loadavg")); }

// ---- /proc/vmstat: "pgpgin 1236069" ----
VmStat parse_proc_vmstat(std::string_view text) {
    VmStat r;
    bool in = false, out = false;
    while (!text.empty()) {
        std::vector<std::string_view> w = split_words(next_line(&text));
        if (w.size() < 2) continue;
        if (w[0] == "pgpgin") {
            if (!to_u64(w[1], &r.pgpgin)) return VmStat{};
            in = true;
        } else if (w[0] == "pgpgout") {
            if (!to_u64(w[1], &r.pgpgout)) return VmStat{};
            out = true;
        }
    }
    r.ok = in && out;
    return r.ok ? r : VmStat{};
}

VmStat read_proc_vmstat() { return parse_proc_vmstat(read_text_file("/proc/vmstat")); }

// ---- /proc/diskstats ----
//
//   major minor name rd_ios rd_merges rd_sectors rd_ticks wr_ios wr_merges
//   wr_sectors wr_ticks in_flight io_ticks time_in_queue [more...]
DiskTicks parse_proc_diskstats(std::string_view text, const std::vector<std::string>& devices) {
    DiskTicks r;
    constexpr size_t kIoTicks = 12;
    while (!text.empty()) {
        std::vector<std::string_view> w = split_words(next_line(&text));
        if (w.empty()) continue;
        uint64_t ticks = 0;
        if (w.size() <= kIoTicks || !to_u64(w[kIoTicks], &ticks)) continue;
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

DiskTicks read_proc_diskstats(const std::vector<std::string>& devices) {
    return parse_proc_diskstats(read_text_file("/proc/diskstats"), devices);
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
        std::vector<std::string_view> w = split_words(line.substr(colon + 1));
        NetDevice d;
        d.name = std::string(name);
        if (w.size() < 16 || !to_u64(w[0], &d.recv_bytes) || !to_u64(w[1], &d.recv_packets) ||
            !to_u64(w[8], &d.send_bytes) || !to_u64(w[9], &d.send_packets)) {
            good = false;
            break;
        }
        r.devices.push_back(std::move(d));
    }
    r.ok = good;
    return r;
}

NetDevStat read_proc_net_dev() { return parse_proc_net_dev(read_text_file("/proc/net/dev")); }

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
            return is_internet_ipv4(uint32_t(b[12]) << 24 | uint32_t(b[13]) << 16 | uint32_t(b[14]) << 8 | b[15]);
        }
        if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) || IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return false;
        if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr) || IN6_IS_ADDR_SITELOCAL(&in6->sin6_addr)) return false;
        if ((b[0] & 0xfe) == 0xfc) return false;  // fc00::/7 unique local
        return true;
    }
    return false;
}

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
        std::vector<std::string_view> names = split_words(header_rest), values = split_words(rest);
        for (size_t i = 0; i < names.size() && i < values.size(); i++) {
            for (Want& want : wants) {
                if (want.proto == proto && want.name == names[i] && to_i64(values[i], want.value)) want.seen = true;
            }
        }
    }
    for (const Want& want : wants) {
        if (!want.seen) return SnmpStat{};
    }
    r.ok = true;
    return r;
}

SnmpStat read_proc_net_snmp() { return parse_proc_net_snmp(read_text_file("/proc/net/snmp")); }

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
        std::vector<std::string_view> w = split_words(line.substr(colon + 1));
        for (size_t i = 0; i + 1 < w.size(); i += 2) {
            for (Want& want : wants) {
                if (want.proto != proto || want.name != w[i]) continue;
                if (!to_i64(w[i + 1], want.value)) return SockStat{};
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

// ---- JSON: the `data` member of each endpoint ----

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

// ---- the sampler ----

void ProcStatsSampler::sample() { update(read_proc_snapshot(disk_devices_)); }

void ProcStatsSampler::update(ProcSnapshot now) {
    if (sampled_) {
        utime_t elapsed = now.monotonic_us - last_.monotonic_us;
        now.self.percent = self_cpu_percent(last_.self, now.self, elapsed, now.ticks_per_second);
        now.system.percent = system_cpu_percent(last_.system, now.system);
        disk_ = disk_rates(last_.vmstat, last_.disk_ticks, now.vmstat, now.disk_ticks, elapsed);
    } else {
        disk_ = disk_rates(VmStat{}, DiskTicks{}, now.vmstat, now.disk_ticks, 0);
    }
    last_ = std::move(now);
    sampled_ = true;
}

json ProcStatsSampler::rusages_json() const { return srs::rusages_json(last_.rusage); }
json ProcStatsSampler::self_proc_stats_json() const { return srs::self_proc_stats_json(last_.self); }
json ProcStatsSampler::system_proc_stats_json() const { return srs::system_proc_stats_json(last_.system); }
json ProcStatsSampler::meminfos_json() const { return srs::meminfos_json(last_.mem); }
json ProcStatsSampler::summaries_json(const SummaryInputs& in) const {
    return srs::summaries_json(last_, disk_, in);
}

}  // namespace srs
