// Tests of app/stats/proc_parsers: the /proc parsers on captured text, their
// broken and truncated variants (every prefix placed before a guard page), and
// the arithmetic between two samples (CPU percents, disk rates, net totals).
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <string>
#include <string_view>
#include <vector>

#include "app/stats/proc_parsers.hpp"
#include "utest/app/stats/proc_samples.hpp"

using namespace srs;
using namespace srs::utest::proc;
using srs::utest::GuardedBytes;

// ---- /proc/self/stat ----

TEST(ProcParsers, SelfStatCommWithParenthesesAndSpaces) {
    ProcSelfStat s = parse_proc_self_stat(kSelfStatOddComm);
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.pid, 18712);
    EXPECT_EQ(s.comm, "a) (b c)");
    EXPECT_EQ(s.state, 'S');
    EXPECT_EQ(s.ppid, 18708);
    EXPECT_EQ(s.pgrp, 18706);
    EXPECT_EQ(s.session, 17703);
    EXPECT_EQ(s.tty_nr, 0);
    EXPECT_EQ(s.tpgid, -1);
    EXPECT_EQ(s.flags, 4194304u);
    EXPECT_EQ(s.minflt, 102u);
    EXPECT_EQ(s.priority, 20);
    EXPECT_EQ(s.nice, 0);
    EXPECT_EQ(s.num_threads, 1);
    EXPECT_EQ(s.starttime, 674586u);
    EXPECT_EQ(s.vsize, 2990080u);
    EXPECT_EQ(s.rss, 414);
    EXPECT_EQ(s.rsslim, 18446744073709551615ull);
    EXPECT_EQ(s.startcode, 94573754294272ull);
    EXPECT_EQ(s.endcode, 94573754312201ull);
    EXPECT_EQ(s.startstack, 140729640807712ull);
    EXPECT_EQ(s.sigcatch, 0u);
    EXPECT_EQ(s.wchan, 1u);
    EXPECT_EQ(s.exit_signal, 17);
    EXPECT_EQ(s.processor, 0);
    EXPECT_EQ(s.policy, 0u);
    EXPECT_EQ(s.cguest_time, 0);
}

TEST(ProcParsers, SelfStatPlainComm) {
    ProcSelfStat s = parse_proc_self_stat(kSelfStatCat);
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.pid, 18551);
    EXPECT_EQ(s.comm, "cat");
    EXPECT_EQ(s.state, 'R');
    EXPECT_EQ(s.ppid, 18545);
    EXPECT_EQ(s.vsize, 3133440u);
    EXPECT_EQ(s.rss, 381);
    EXPECT_EQ(s.wchan, 0u);
    // Without the trailing newline too.
    std::string no_nl = kSelfStatCat;
    no_nl.pop_back();
    EXPECT_TRUE(parse_proc_self_stat(no_nl).ok);
    // The utime/stime positions.
    ProcSelfStat t = parse_proc_self_stat(cat_stat_with_times(123, 45));
    ASSERT_TRUE(t.ok);
    EXPECT_EQ(t.utime, 123u);
    EXPECT_EQ(t.stime, 45u);
    EXPECT_EQ(t.cutime, 0);
}

TEST(ProcParsers, SelfStatEveryPrefixNoOverread) {
    // The prefix is complete once it holds cguest_time, the 44th field.
    const std::string text = kSelfStatOddComm;
    size_t pos = text.rfind(')') + 1;
    for (int field = 3; field <= 44; field++) {
        while (text[pos] == ' ') pos++;
        while (pos < text.size() && text[pos] != ' ') pos++;
    }
    const size_t complete = pos;
    for_each_prefix(text, [&](std::string_view p, size_t n) {
        ProcSelfStat s = parse_proc_self_stat(p);
        EXPECT_EQ(s.ok, n >= complete) << "prefix " << n;
        if (s.ok) {
            EXPECT_EQ(s.comm, "a) (b c)");
        }
    });
}

TEST(ProcParsers, SelfStatBrokenTexts) {
    const char* broken[] = {
        "",
        "\n",
        "(",
        ")",
        "18712 (sleep S 18708",                       // no ')'
        "18712 sleep) S 18708",                       // no '('
        "x18712 (sleep) S 18708 18706 17703 0 -1",    // pid not a number
        "18712 (sleep) SS 18708 18706 17703 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 674586 2990080 414 1 2 3 4 5 "
        "6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",  // state of two letters
        "18712 (sleep) S 18708 18706 17703 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 674586 2990080 414 1 2 3 4 5 "
        "6 7 8 9 10 11 12 13 14 15 16 17 18 19 x",  // a letter where cguest_time is
        "18712 (sleep) S 18708 18706 17703 0 -1 -4194304 102 0 0 0 0 0 0 0 20 0 1 0 674586 2990080 414 1 2 3 4 5 "
        "6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",  // negative flags (unsigned)
        "18712 (sleep) S 18708 18706 17703 0 -1 4194304 99999999999999999999999 0 0 0 0 0 0 0 20 0 1 0 674586 1 1 "
        "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",  // out of range
    };
    for (const char* t : broken) EXPECT_FALSE(parse_proc_self_stat(t).ok) << t;
    std::string binary("\x00\xff(\x01)\x02 \x7f", 8);
    EXPECT_FALSE(parse_proc_self_stat(binary).ok);
}

// ---- /proc/stat and the CPU percents ----

TEST(ProcParsers, SystemStatCpuLine) {
    ProcSystemStat s = parse_proc_stat(kProcStat);
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.user, 819258u);
    EXPECT_EQ(s.nice, 10244u);
    EXPECT_EQ(s.sys, 75621u);
    EXPECT_EQ(s.idle, 415875u);
    EXPECT_EQ(s.iowait, 3165u);
    EXPECT_EQ(s.irq, 0u);
    EXPECT_EQ(s.softirq, 5597u);
    EXPECT_EQ(s.steal, 10934u);
    EXPECT_EQ(s.guest, 0u);
    EXPECT_EQ(s.total(), 819258u + 10244 + 75621 + 415875 + 3165 + 5597 + 10934);

    // A kernel that prints only the first four counters.
    ProcSystemStat old = parse_proc_stat("cpu  1 2 3 4\ncpu0 1 2 3 4\n");
    ASSERT_TRUE(old.ok);
    EXPECT_EQ(old.idle, 4u);
    EXPECT_EQ(old.iowait, 0u);
}

TEST(ProcParsers, SystemStatBrokenAndPrefixes) {
    EXPECT_FALSE(parse_proc_stat("").ok);
    EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4 5\n").ok);  // no aggregate line
    EXPECT_FALSE(parse_proc_stat("cpu  1 2 3\n").ok);      // too few counters
    EXPECT_FALSE(parse_proc_stat("cpu  1 2 x 4 5\n").ok);
    EXPECT_FALSE(parse_proc_stat("cpu  1 2 -3 4 5\n").ok);
    EXPECT_FALSE(parse_proc_stat("cpux 1 2 3 4 5\n").ok);
    const std::string text = kProcStat;
    const size_t idle_start = text.find("415875");  // ok once idle has a digit
    for_each_prefix(text, [&](std::string_view p, size_t n) {
        ProcSystemStat s = parse_proc_stat(p);
        EXPECT_EQ(s.ok, n > idle_start) << "prefix " << n;
    });
}

TEST(ProcParsers, SystemPercentBetweenTwoSamples) {
    ProcSystemStat a = parse_proc_stat(kProcStat);
    // 3 s later on this host (2 CPUs): user +7272, sys +242, steal +9, idle +0.
    ProcSystemStat b = parse_proc_stat("cpu  826530 10244 75863 415875 3165 0 5597 10943 0 0\n");
    ASSERT_TRUE(a.ok && b.ok);
    EXPECT_DOUBLE_EQ(system_cpu_percent(a, b), 1.0);
    // user +300, idle +100: 75% busy.
    ProcSystemStat c = b;
    c.user += 300;
    c.idle += 100;
    EXPECT_DOUBLE_EQ(system_cpu_percent(b, c), 0.75);
    // iowait counts as busy (SRS only takes idle as idle).
    ProcSystemStat d = c;
    d.iowait += 50;
    d.idle += 50;
    EXPECT_DOUBLE_EQ(system_cpu_percent(c, d), 0.5);
    // No progress, backwards counters, a missing sample: 0.
    EXPECT_EQ(system_cpu_percent(b, b), 0);
    EXPECT_EQ(system_cpu_percent(c, b), 0);
    EXPECT_EQ(system_cpu_percent(ProcSystemStat{}, b), 0);
    EXPECT_EQ(system_cpu_percent(b, ProcSystemStat{}), 0);
}

TEST(ProcParsers, SelfPercentBetweenTwoSamples) {
    ProcSelfStat a = parse_proc_self_stat(cat_stat_with_times(100, 50));
    ProcSelfStat b = parse_proc_self_stat(cat_stat_with_times(250, 100));
    ASSERT_TRUE(a.ok && b.ok);
    // 200 ticks at 100 Hz = 2 CPU seconds in 4 s: half a core.
    EXPECT_DOUBLE_EQ(self_cpu_percent(a, b, 4 * kUsPerSecond, 100), 0.5);
    // In 1 s: two cores.
    EXPECT_DOUBLE_EQ(self_cpu_percent(a, b, kUsPerSecond, 100), 2.0);
    EXPECT_DOUBLE_EQ(self_cpu_percent(a, b, 4 * kUsPerSecond, 1000), 0.05);
    EXPECT_EQ(self_cpu_percent(a, b, 0, 100), 0);
    EXPECT_EQ(self_cpu_percent(a, b, -1, 100), 0);
    EXPECT_EQ(self_cpu_percent(a, b, kUsPerSecond, 0), 0);
    EXPECT_EQ(self_cpu_percent(b, a, kUsPerSecond, 100), 0);
    EXPECT_EQ(self_cpu_percent(ProcSelfStat{}, b, kUsPerSecond, 100), 0);
}

// ---- /proc/meminfo ----

TEST(ProcParsers, MemInfoAndDerivedFields) {
    MemInfo m = parse_proc_meminfo(kMemInfo);
    ASSERT_TRUE(m.ok);
    EXPECT_EQ(m.MemTotal, 24730032);
    EXPECT_EQ(m.MemFree, 20277412);
    EXPECT_EQ(m.Buffers, 270456);
    EXPECT_EQ(m.Cached, 2561580);  // not SwapCached
    EXPECT_EQ(m.SwapTotal, 0);
    EXPECT_EQ(m.SwapFree, 0);
    EXPECT_EQ(m.MemActive, 24730032 - 20277412);
    EXPECT_EQ(m.RealInUse, 24730032 - 20277412 - 270456 - 2561580);
    EXPECT_EQ(m.NotInUse, 24730032 - m.RealInUse);
    EXPECT_DOUBLE_EQ(m.percent_ram, double(m.RealInUse) / 24730032);
    EXPECT_EQ(m.percent_swap, 0);

    MemInfo swap = parse_proc_meminfo(
        "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 100 kB\nCached: 200 kB\nSwapTotal: 400 kB\nSwapFree: 100 kB\n");
    ASSERT_TRUE(swap.ok);
    EXPECT_EQ(swap.MemActive, 900);
    EXPECT_EQ(swap.RealInUse, 600);
    EXPECT_EQ(swap.NotInUse, 400);
    EXPECT_DOUBLE_EQ(swap.percent_ram, 0.6);
    EXPECT_DOUBLE_EQ(swap.percent_swap, 0.75);

    // Cache larger than used memory (seen in containers): RealInUse stops at 0.
    MemInfo odd = parse_proc_meminfo("MemTotal: 1000 kB\nMemFree: 900 kB\nCached: 500 kB\n");
    ASSERT_TRUE(odd.ok);
    EXPECT_EQ(odd.RealInUse, 0);
    EXPECT_EQ(odd.NotInUse, 1000);
}

TEST(ProcParsers, MemInfoBrokenAndPrefixes) {
    EXPECT_FALSE(parse_proc_meminfo("").ok);
    EXPECT_FALSE(parse_proc_meminfo("MemFree: 1 kB\n").ok);                   // no MemTotal
    EXPECT_FALSE(parse_proc_meminfo("MemTotal: 10 kB\n").ok);                 // no MemFree
    EXPECT_FALSE(parse_proc_meminfo("MemTotal: 0 kB\nMemFree: 0 kB\n").ok);   // zero total
    EXPECT_FALSE(parse_proc_meminfo("MemTotal: x kB\nMemFree: 1 kB\n").ok);
    EXPECT_FALSE(parse_proc_meminfo("MemTotal: 10 kB\nMemFree: -1 kB\n").ok);
    EXPECT_FALSE(parse_proc_meminfo("MemTotal:\nMemFree: 1 kB\n").ok);
    const std::string text = kMemInfo;
    // Not ok before MemFree has a digit; ok at every later line end (a line
    // cut between a known key and its value is malformed, so not ok).
    const size_t free_digits = text.find("20277412");
    for_each_prefix(text, [&](std::string_view p, size_t n) {
        MemInfo m = parse_proc_meminfo(p);
        if (n <= free_digits) {
            EXPECT_FALSE(m.ok) << "prefix " << n;
        } else if (text[n - 1] == '\n') {
            EXPECT_TRUE(m.ok) << "prefix " << n;
        }
    });
    EXPECT_FALSE(parse_proc_meminfo("MemTotal: 10 kB\nMemFree: 1 kB\nCached:   ").ok);
}

// ---- /proc/uptime, /proc/loadavg ----

TEST(ProcParsers, UptimeAndLoadAvg) {
    UptimeStat u = parse_proc_uptime(kUptime);
    ASSERT_TRUE(u.ok);
    EXPECT_DOUBLE_EQ(u.uptime, 6710.47);
    EXPECT_DOUBLE_EQ(u.idle_time, 4158.75);
    LoadAvg l = parse_proc_loadavg(kLoadAvg);
    ASSERT_TRUE(l.ok);
    EXPECT_DOUBLE_EQ(l.load_1m, 2.54);
    EXPECT_DOUBLE_EQ(l.load_5m, 2.60);
    EXPECT_DOUBLE_EQ(l.load_15m, 2.73);

    EXPECT_FALSE(parse_proc_uptime("").ok);
    EXPECT_FALSE(parse_proc_uptime("6710.47").ok);
    EXPECT_FALSE(parse_proc_uptime("6710.47 x").ok);
    EXPECT_FALSE(parse_proc_loadavg("2.54 2.60").ok);
    EXPECT_FALSE(parse_proc_loadavg("2.54 2,60 2.73 8/110 1").ok);
    for_each_prefix(kUptime, [](std::string_view p, size_t) { (void)parse_proc_uptime(p); });
    for_each_prefix(kLoadAvg, [](std::string_view p, size_t n) {
        EXPECT_EQ(parse_proc_loadavg(p).ok, n >= 11) << "prefix " << n;  // "2.54 2.60 2"
    });
}

// ---- disk ----

TEST(ProcParsers, VmStatDiskStatsAndRates) {
    VmStat v = parse_proc_vmstat(kVmStatPart);
    ASSERT_TRUE(v.ok);
    EXPECT_EQ(v.pgpgin, 1236069u);
    EXPECT_EQ(v.pgpgout, 14749600u);
    EXPECT_FALSE(parse_proc_vmstat("pgpgin 1\n").ok);
    EXPECT_FALSE(parse_proc_vmstat("pgpgin 1\npgpgout x\n").ok);

    DiskTicks vda = parse_proc_diskstats(kDiskStats, {"vda"});
    ASSERT_TRUE(vda.ok);
    EXPECT_EQ(vda.io_ticks, 44208u);
    DiskTicks none = parse_proc_diskstats(kDiskStats, {});
    EXPECT_TRUE(none.ok);
    EXPECT_EQ(none.io_ticks, 0u);
    EXPECT_EQ(parse_proc_diskstats(kDiskStats, {"sdz"}).io_ticks, 0u);
    EXPECT_FALSE(parse_proc_diskstats("", {"vda"}).ok);
    EXPECT_FALSE(parse_proc_diskstats(" 254 0 vda 1 2 3\n", {"vda"}).ok);
    for_each_prefix(kDiskStats, [](std::string_view p, size_t) { (void)parse_proc_diskstats(p, {"vda"}); });
    for_each_prefix(kVmStatPart, [](std::string_view p, size_t) { (void)parse_proc_vmstat(p); });

    // 2 s later: 2048 kB read, 4096 kB written, 500 ms busy.
    VmStat v2 = v;
    v2.pgpgin += 2048;
    v2.pgpgout += 4096;
    DiskTicks t2 = vda;
    t2.io_ticks += 500;
    DiskRates r = disk_rates(v, vda, v2, t2, 2 * kUsPerSecond);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.read_KBps, 1024);
    EXPECT_EQ(r.write_KBps, 2048);
    EXPECT_DOUBLE_EQ(r.busy, 0.25);
    // The first sample: ok, no rates.
    DiskRates first = disk_rates(VmStat{}, DiskTicks{}, v, vda, 0);
    EXPECT_TRUE(first.ok);
    EXPECT_EQ(first.read_KBps, 0);
    EXPECT_EQ(first.busy, 0);
    // Counters going backwards give no rate.
    DiskRates back = disk_rates(v2, t2, v, vda, kUsPerSecond);
    EXPECT_EQ(back.read_KBps, 0);
    EXPECT_EQ(back.busy, 0);
}

// ---- network ----

TEST(ProcParsers, NetDevTotalsSplitInternetIntranet) {
    NetDevStat d = parse_proc_net_dev(kNetDev);
    ASSERT_TRUE(d.ok);
    ASSERT_EQ(d.devices.size(), 4u);
    EXPECT_EQ(d.devices[0].name, "lo");
    EXPECT_EQ(d.devices[0].recv_bytes, 84240454709ull);
    EXPECT_EQ(d.devices[0].recv_packets, 30048452u);
    EXPECT_EQ(d.devices[0].send_bytes, 84240454709ull);
    EXPECT_EQ(d.devices[3].name, "eth0");
    EXPECT_EQ(d.devices[3].recv_bytes, 191553866u);
    EXPECT_EQ(d.devices[3].recv_packets, 5953u);
    EXPECT_EQ(d.devices[3].send_bytes, 253728u);
    EXPECT_EQ(d.devices[3].send_packets, 3227u);

    NetTotals t = sum_net_devices(d.devices, {"eth0"});
    EXPECT_EQ(t.recv_bytes, 191553866u);
    EXPECT_EQ(t.send_bytes, 253728u);
    EXPECT_EQ(t.recvi_bytes, 84240454709ull);  // lo, ifb0, ifb1
    EXPECT_EQ(t.sendi_bytes, 84240454709ull);
    // lo is intranet even when named.
    NetTotals lo = sum_net_devices(d.devices, {"lo"});
    EXPECT_EQ(lo.recv_bytes, 0u);

    // Old kernels: no space after the colon.
    NetDevStat old = parse_proc_net_dev(
        "Inter-|   Receive |  Transmit\n face |bytes packets|bytes packets\n"
        "  eth0:123 1 0 0 0 0 0 0 456 2 0 0 0 0 0 0\n");
    ASSERT_TRUE(old.ok);
    ASSERT_EQ(old.devices.size(), 1u);
    EXPECT_EQ(old.devices[0].recv_bytes, 123u);
    EXPECT_EQ(old.devices[0].send_bytes, 456u);
}

TEST(ProcParsers, NetDevBrokenAndPrefixes) {
    EXPECT_FALSE(parse_proc_net_dev("").ok);
    EXPECT_FALSE(parse_proc_net_dev("  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n").ok);  // no header
    const std::string text = kNetDev;
    const size_t eth0 = text.find("  eth0:");
    for_each_prefix(text, [&](std::string_view p, size_t n) {
        NetDevStat d = parse_proc_net_dev(p);
        if (n >= eth0 + 3 && n < text.size() - 1) {  // from "  e" to the last digit
            EXPECT_FALSE(d.ok) << "prefix " << n;  // the eth0 line is cut
            EXPECT_EQ(d.devices.size(), 3u);       // the lines before it are kept
        }
    });
}

TEST(ProcParsers, NetSnmpUdpAndTcp) {
    SnmpStat s = parse_proc_net_snmp(kNetSnmp);
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.tcp_curr_estab, 0);
    EXPECT_EQ(s.udp_in_errors, 0);
    EXPECT_EQ(s.udp_rcvbuf_errors, 0);
    EXPECT_EQ(s.udp_sndbuf_errors, 0);

    // Columns are found by name: distinct values, and UdpLite must not leak in.
    std::string text = kNetSnmp;
    auto replace = [&](const std::string& from, const std::string& to) {
        size_t at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
    };
    replace("Tcp: 1 200 120000 -1 44971 44162 793 36695 0", "Tcp: 1 200 120000 -1 44971 44162 793 36695 7");
    replace("Udp: 690 0 0 691 0 0 0 0 0", "Udp: 690 1 2 691 3 4 5 6 7");
    replace("UdpLite: 0 0 0 0 0 0 0 0 0", "UdpLite: 9 9 9 9 9 9 9 9 9");
    SnmpStat v = parse_proc_net_snmp(text);
    ASSERT_TRUE(v.ok);
    EXPECT_EQ(v.tcp_curr_estab, 7);
    EXPECT_EQ(v.udp_in_errors, 2);
    EXPECT_EQ(v.udp_rcvbuf_errors, 3);
    EXPECT_EQ(v.udp_sndbuf_errors, 4);

    EXPECT_FALSE(parse_proc_net_snmp("").ok);
    EXPECT_FALSE(parse_proc_net_snmp("Udp: InErrors RcvbufErrors SndbufErrors\n").ok);  // no values line
    EXPECT_FALSE(parse_proc_net_snmp("Udp: InErrors RcvbufErrors SndbufErrors\nUdp: 1 2 x\n").ok);
    const std::string full = kNetSnmp;
    const size_t udp_values_end = full.find("\nUdpLite:");
    for_each_prefix(full, [&](std::string_view p, size_t n) {
        // ok once the Udp values reach SndbufErrors (the 6th).
        SnmpStat r = parse_proc_net_snmp(p);
        if (n < udp_values_end - 6) {
            EXPECT_FALSE(r.ok) << "prefix " << n;
        } else if (n >= udp_values_end) {
            EXPECT_TRUE(r.ok) << "prefix " << n;
        }
    });
}

TEST(ProcParsers, NetSockStat) {
    SockStat s = parse_proc_net_sockstat(kSockStat);
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.sockets_used, 11);
    EXPECT_EQ(s.tcp_inuse, 1);
    EXPECT_EQ(s.tcp_orphan, 0);
    EXPECT_EQ(s.tcp_tw, 8);
    EXPECT_EQ(s.tcp_alloc, 1);
    EXPECT_EQ(s.tcp_mem, 134);
    EXPECT_EQ(s.udp_inuse, 0);
    EXPECT_FALSE(parse_proc_net_sockstat("").ok);
    EXPECT_FALSE(parse_proc_net_sockstat("TCP: inuse 1 orphan 0 tw 8 alloc 1 mem 134\n").ok);  // no UDP
    EXPECT_FALSE(parse_proc_net_sockstat("TCP: inuse 1 orphan 0 tw x alloc 1 mem 1\nUDP: inuse 0\n").ok);
    for_each_prefix(kSockStat, [](std::string_view p, size_t) { (void)parse_proc_net_sockstat(p); });
}

TEST(ProcParsers, InternetAddresses) {
    auto v4 = [](const char* ip) {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        inet_pton(AF_INET, ip, &a.sin_addr);
        return is_internet_address(reinterpret_cast<sockaddr*>(&a));
    };
    auto v6 = [](const char* ip) {
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        inet_pton(AF_INET6, ip, &a.sin6_addr);
        return is_internet_address(reinterpret_cast<sockaddr*>(&a));
    };
    EXPECT_TRUE(v4("192.0.2.2"));
    EXPECT_TRUE(v4("8.8.8.8"));
    EXPECT_TRUE(v4("172.32.0.1"));
    EXPECT_TRUE(v4("172.15.255.255"));
    EXPECT_FALSE(v4("0.0.0.0"));
    EXPECT_FALSE(v4("127.0.0.1"));
    EXPECT_FALSE(v4("10.1.2.3"));
    EXPECT_FALSE(v4("172.16.0.1"));
    EXPECT_FALSE(v4("172.31.255.255"));
    EXPECT_FALSE(v4("192.168.1.1"));
    EXPECT_FALSE(v4("169.254.1.1"));
    EXPECT_TRUE(v6("2001:db8::1"));
    EXPECT_FALSE(v6("::"));
    EXPECT_FALSE(v6("::1"));
    EXPECT_FALSE(v6("fe80::1"));
    EXPECT_FALSE(v6("fd00::1"));
    EXPECT_FALSE(v6("::ffff:10.0.0.1"));
    EXPECT_TRUE(v6("::ffff:8.8.8.8"));
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    EXPECT_FALSE(is_internet_address(reinterpret_cast<sockaddr*>(&un)));
    EXPECT_FALSE(is_internet_address(nullptr));
}

TEST(ProcParsers, CmdlineJoinsArgumentsWithSpaces) {
    EXPECT_EQ(join_cmdline(std::string_view("./objs/srs\0-c\0conf/srs.conf\0", 29)), "./objs/srs -c conf/srs.conf");
    EXPECT_EQ(join_cmdline(std::string_view("srs\0\0", 5)), "srs");  // trailing NULs dropped
    EXPECT_EQ(join_cmdline(""), "");
}
