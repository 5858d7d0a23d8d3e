// Tests of app/proc_stats: the /proc readers on text captured from a Linux
// 6.x host (2 CPUs, 24 GB, no swap), their broken and truncated variants
// (every prefix placed before a guard page), the CPU percents between two
// samples, and the JSON builders' field names against SRS's lists.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <string>
#include <string_view>
#include <vector>

#include "app/api/api_json.hpp"
#include "app/stats/proc_stats.hpp"
#include "core/version.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using srs::utest::GuardedBytes;

namespace {

// /proc/<pid>/stat of `sleep` started through a symlink named "a) (b c)".
const char* kSelfStatOddComm =
    "18712 (a) (b c)) S 18708 18706 17703 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 674586 2990080 414 "
    "18446744073709551615 94573754294272 94573754312201 140729640807712 0 0 0 0 0 0 1 0 0 17 0 0 0 0 0 0 "
    "94573754326288 94573754327552 94574337572864 140729640815309 140729640815323 140729640815323 "
    "140729640816621 0\n";

// /proc/self/stat of `cat`.
const char* kSelfStatCat =
    "18551 (cat) R 18545 18545 17703 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 671043 3133440 381 "
    "18446744073709551615 94633067520000 94633067539881 140735859897312 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 "
    "94633067555888 94633067557504 94633586233344 140735859903157 140735859903177 140735859903177 "
    "140735859904491 0\n";

// /proc/stat (the intr line shortened).
const char* kProcStat =
    "cpu  819258 10244 75621 415875 3165 0 5597 10934 0 0\n"
    "cpu0 406029 4854 39438 209871 2165 0 2765 5239 0 0\n"
    "cpu1 413229 5390 36183 206004 999 0 2831 5694 0 0\n"
    "intr 3910364 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 16 0 0 0 0 1349 188 0 122 1 112120\n"
    "ctxt 4614928\n"
    "btime 1795302361\n"
    "processes 51200\n"
    "procs_running 7\n"
    "procs_blocked 0\n"
    "softirq 25267766 0 362796 4 23568576 112116 0 8 469168 5057 750041\n";

const char* kMemInfo =
    "MemTotal:       24730032 kB\n"
    "MemFree:        20277412 kB\n"
    "MemAvailable:   22987360 kB\n"
    "Buffers:          270456 kB\n"
    "Cached:          2561580 kB\n"
    "SwapCached:            0 kB\n"
    "Active:          1136108 kB\n"
    "Inactive:        2821620 kB\n"
    "Active(anon):       1596 kB\n"
    "Inactive(anon):  1136872 kB\n"
    "Active(file):    1134512 kB\n"
    "Inactive(file):  1684748 kB\n"
    "Unevictable:       16724 kB\n"
    "Mlocked:           14296 kB\n"
    "SwapTotal:             0 kB\n"
    "SwapFree:              0 kB\n"
    "Zswap:                 0 kB\n"
    "Zswapped:              0 kB\n"
    "Dirty:             19632 kB\n"
    "Writeback:             0 kB\n"
    "AnonPages:       1142524 kB\n"
    "Mapped:            94012 kB\n"
    "Shmem:             12776 kB\n"
    "KReclaimable:     204084 kB\n"
    "Slab:             239060 kB\n"
    "SReclaimable:     204084 kB\n"
    "SUnreclaim:        34976 kB\n"
    "KernelStack:        1776 kB\n"
    "PageTables:         6920 kB\n"
    "SecPageTables:         0 kB\n"
    "NFS_Unstable:          0 kB\n"
    "Bounce:                0 kB\n"
    "WritebackTmp:          0 kB\n"
    "CommitLimit:    12365016 kB\n"
    "Committed_AS:    1201048 kB\n"
    "VmallocTotal:   34359738367 kB\n"
    "VmallocUsed:       14588 kB\n"
    "VmallocChunk:          0 kB\n"
    "Percpu:              784 kB\n"
    "AnonHugePages:         0 kB\n"
    "ShmemHugePages:        0 kB\n"
    "ShmemPmdMapped:        0 kB\n"
    "FileHugePages:      8192 kB\n"
    "FilePmdMapped:         0 kB\n"
    "Balloon:               0 kB\n"
    "HugePages_Total:       0\n"
    "HugePages_Free:        0\n"
    "HugePages_Rsvd:        0\n"
    "HugePages_Surp:        0\n"
    "Hugepagesize:       2048 kB\n"
    "Hugetlb:               0 kB\n"
    "DirectMap4k:       26624 kB\n"
    "DirectMap2M:     2070528 kB\n"
    "DirectMap1G:    25165824 kB\n";

const char* kNetSnmp =
    "Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos InDiscards "
    "InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs ReasmFails FragOKs FragFails "
    "FragCreates OutTransmits\n"
    "Ip: 2 64 30054395 0 0 0 0 0 30054395 30042019 0 0 0 0 0 0 0 0 0 30042019\n"
    "Icmp: InMsgs InErrors InCsumErrors InDestUnreachs InTimeExcds InParmProbs InSrcQuenchs InRedirects InEchos "
    "InEchoReps InTimestamps InTimestampReps InAddrMasks InAddrMaskReps OutMsgs OutErrors OutRateLimitGlobal "
    "OutRateLimitHost OutDestUnreachs OutTimeExcds OutParmProbs OutSrcQuenchs OutRedirects OutEchos OutEchoReps "
    "OutTimestamps OutTimestampReps OutAddrMasks OutAddrMaskReps\n"
    "Icmp: 1 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "IcmpMsg: InType3\n"
    "IcmpMsg: 1\n"
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs "
    "OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
    "Tcp: 1 200 120000 -1 44971 44162 793 36695 0 30053704 30052591 1334 128 28220 0\n"
    "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
    "Udp: 690 0 0 691 0 0 0 0 0\n"
    "UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti "
    "MemErrors\n"
    "UdpLite: 0 0 0 0 0 0 0 0 0\n";

const char* kNetDev =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls "
    "carrier compressed\n"
    "    lo: 84240454709 30048452    0    0    0     0          0         0 84240454709 30048452    0    0    0  "
    "   0       0          0\n"
    "  ifb0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0    "
    "   0          0\n"
    "  ifb1:       0       0    0    0    0     0          0         0        0       0    0    0    0     0    "
    "   0          0\n"
    "  eth0: 191553866    5953    0    0    0     0          0         0   253728    3227    0    0    0     0   "
    "    0          0\n";

const char* kSockStat =
    "sockets: used 11\n"
    "TCP: inuse 1 orphan 0 tw 8 alloc 1 mem 134\n"
    "UDP: inuse 0 mem 0\n"
    "UDPLITE: inuse 0\n"
    "RAW: inuse 0\n"
    "FRAG: inuse 0 memory 0\n";

const char* kUptime = "6710.47 4158.75\n";
const char* kLoadAvg = "2.54 2.60 2.73 8/110 18559\n";

const char* kVmStatPart =
    "nr_free_pages 5069353\n"
    "pgpgin 1236069\n"
    "pgpgout 14749600\n"
    "pswpin 0\n"
    "pswpout 0\n";

const char* kDiskStats =
    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "   7       1 loop1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    " 254       0 vda 62566 18127 2472138 39290 50793 39818 29499200 79467 0 44208 127491 17084 46 26186984 8623 "
    "4220 110\n"
    " 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

// Calls parse on every proper prefix of text, each placed right before a
// PROT_NONE page so that reading one byte too far crashes the test.
template <typename Parse>
void for_each_prefix(const std::string& text, Parse parse) {
    srs::utest::GuardPage guard(text.size());
    for (size_t n = 0; n < text.size(); n++) {
        const uint8_t* p = guard.place(reinterpret_cast<const uint8_t*>(text.data()), n);
        parse(std::string_view(reinterpret_cast<const char*>(p), n), n);
    }
}

std::vector<std::string> keys_of(const nlohmann::ordered_json& j) {
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    return keys;
}

// A snapshot made of the captured texts, at the given clocks.
ProcSnapshot snapshot_from_texts(utime_t wall, utime_t mono, const std::string& self, const std::string& stat) {
    ProcSnapshot s;
    s.wall_us = wall;
    s.monotonic_us = mono;
    s.ticks_per_second = 100;
    s.cpus = 2;
    s.cpus_online = 2;
    s.rusage.ok = true;
    s.rusage.sample_time = wall;
    s.rusage.r.ru_maxrss = 247300;  // 1% of MemTotal
    s.rusage.r.ru_utime.tv_sec = 12;
    s.rusage.r.ru_utime.tv_usec = 999999;
    s.rusage.r.ru_stime.tv_sec = 3;
    s.self = parse_proc_self_stat(self);
    s.self.sample_time = wall;
    s.system = parse_proc_stat(stat);
    s.system.sample_time = wall;
    s.mem = parse_proc_meminfo(kMemInfo);
    s.mem.sample_time = wall;
    s.uptime = parse_proc_uptime(kUptime);
    s.loadavg = parse_proc_loadavg(kLoadAvg);
    s.vmstat = parse_proc_vmstat(kVmStatPart);
    s.disk_ticks = parse_proc_diskstats(kDiskStats, {"vda"});
    s.net = parse_proc_net_dev(kNetDev);
    s.internet_devices = {"eth0"};
    s.snmp = parse_proc_net_snmp(kNetSnmp);
    s.sockstat = parse_proc_net_sockstat(kSockStat);
    return s;
}

// The same `cat` line with utime/stime (fields 14, 15) replaced.
std::string cat_stat_with_times(int utime, int stime) {
    std::string s = kSelfStatCat;
    std::string from = " 102 0 0 0 0 0 0 0 20 ";
    std::string to = " 102 0 0 0 " + std::to_string(utime) + " " + std::to_string(stime) + " 0 0 20 ";
    s.replace(s.find(from), from.size(), to);
    return s;
}

}  // namespace

// ---- /proc/self/stat ----

TEST(ProcStats, SelfStatCommWithParenthesesAndSpaces) {
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

TEST(ProcStats, SelfStatPlainComm) {
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

TEST(ProcStats, SelfStatEveryPrefixNoOverread) {
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

TEST(ProcStats, SelfStatBrokenTexts) {
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

TEST(ProcStats, SystemStatCpuLine) {
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

TEST(ProcStats, SystemStatBrokenAndPrefixes) {
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

TEST(ProcStats, SystemPercentBetweenTwoSamples) {
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

TEST(ProcStats, SelfPercentBetweenTwoSamples) {
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

TEST(ProcStats, MemInfoAndDerivedFields) {
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

TEST(ProcStats, MemInfoBrokenAndPrefixes) {
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

TEST(ProcStats, UptimeAndLoadAvg) {
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

TEST(ProcStats, VmStatDiskStatsAndRates) {
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

TEST(ProcStats, NetDevTotalsSplitInternetIntranet) {
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

TEST(ProcStats, NetDevBrokenAndPrefixes) {
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

TEST(ProcStats, NetSnmpUdpAndTcp) {
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

TEST(ProcStats, NetSockStat) {
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

TEST(ProcStats, InternetAddresses) {
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

// ---- the sampler and the JSON shapes ----

TEST(ProcStats, SamplerComputesPercentsBetweenTwoUpdates) {
    ProcStatsSampler sampler;
    EXPECT_EQ(sampler.sample_time(), 0);
    EXPECT_FALSE(sampler.self_proc_stats_json()["ok"].get<bool>());

    const utime_t wall = 1795302361LL * kUsPerSecond;
    sampler.update(snapshot_from_texts(wall, 1000, cat_stat_with_times(100, 50), kProcStat));
    EXPECT_EQ(sampler.sample_time(), wall);
    EXPECT_EQ(sampler.last().self.percent, 0);  // nothing to compare with yet
    EXPECT_EQ(sampler.last().system.percent, 0);

    std::string stat2 = "cpu  819558 10244 75621 415975 3165 0 5597 10934 0 0\n";  // user +300, idle +100
    ProcSnapshot second = snapshot_from_texts(wall + 5 * kUsPerSecond, 1000 + 4 * kUsPerSecond,
                                              cat_stat_with_times(250, 100), stat2);
    second.vmstat.pgpgin += 4096;
    sampler.update(second);
    EXPECT_EQ(sampler.sample_time(), wall + 5 * kUsPerSecond);
    // Rates use the monotonic 4 s, not the wall 5 s.
    EXPECT_DOUBLE_EQ(sampler.last().self.percent, 0.5);
    EXPECT_DOUBLE_EQ(sampler.last().system.percent, 0.75);
    EXPECT_EQ(sampler.disk().read_KBps, 1024);

    nlohmann::ordered_json self = sampler.self_proc_stats_json();
    EXPECT_TRUE(self["ok"].get<bool>());
    EXPECT_DOUBLE_EQ(self["percent"].get<double>(), 0.5);
    EXPECT_EQ(self["sample_time"].get<int64_t>(), (wall + 5 * kUsPerSecond) / 1000);
    EXPECT_EQ(self["comm"].get<std::string>(), "(cat)");
    EXPECT_EQ(self["state"].get<std::string>(), "R");
    EXPECT_EQ(self["utime"].get<uint64_t>(), 250u);
    EXPECT_EQ(self["rsslim"].get<uint64_t>(), 18446744073709551615ull);
    nlohmann::ordered_json sys = sampler.system_proc_stats_json();
    EXPECT_DOUBLE_EQ(sys["percent"].get<double>(), 0.75);
    EXPECT_EQ(sys["user"].get<uint64_t>(), 819558u);

    // A failed read: ok false, and the next good one has nothing to compare with.
    sampler.update(snapshot_from_texts(wall + 10 * kUsPerSecond, 1000 + 9 * kUsPerSecond, "", ""));
    EXPECT_FALSE(sampler.self_proc_stats_json()["ok"].get<bool>());
    EXPECT_FALSE(sampler.system_proc_stats_json()["ok"].get<bool>());
    EXPECT_EQ(sampler.last().self.percent, 0);
}

TEST(ProcStats, JsonFieldNamesMatchSrs) {
    ProcStatsSampler sampler;
    sampler.update(snapshot_from_texts(1000 * kUsPerSecond, 1, kSelfStatCat, kProcStat));

    const std::vector<std::string> rusages = {
        "ok",       "sample_time", "ru_utime", "ru_stime",  "ru_maxrss", "ru_ixrss",
        "ru_idrss", "ru_isrss",    "ru_minflt", "ru_majflt", "ru_nswap",  "ru_inblock",
        "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw"};
    EXPECT_EQ(keys_of(sampler.rusages_json()), rusages);

    const std::vector<std::string> self = {
        "ok",        "sample_time", "percent",   "pid",        "comm",        "state",       "ppid",
        "pgrp",      "session",     "tty_nr",    "tpgid",      "flags",       "minflt",      "cminflt",
        "majflt",    "cmajflt",     "utime",     "stime",      "cutime",      "cstime",      "priority",
        "nice",      "num_threads", "itrealvalue", "starttime", "vsize",      "rss",         "rsslim",
        "startcode", "endcode",     "startstack", "kstkesp",   "kstkeip",     "signal",      "blocked",
        "sigignore", "sigcatch",    "wchan",     "nswap",      "cnswap",      "exit_signal", "processor",
        "rt_priority", "policy",    "delayacct_blkio_ticks", "guest_time", "cguest_time"};
    EXPECT_EQ(keys_of(sampler.self_proc_stats_json()), self);

    const std::vector<std::string> system = {"ok",     "sample_time", "percent", "user",    "nice",  "sys",
                                             "idle",   "iowait",      "irq",     "softirq", "steal", "guest"};
    EXPECT_EQ(keys_of(sampler.system_proc_stats_json()), system);

    const std::vector<std::string> mem = {"ok",        "sample_time", "percent_ram", "percent_swap", "MemActive",
                                          "RealInUse", "NotInUse",    "MemTotal",    "MemFree",      "Buffers",
                                          "Cached",    "SwapTotal",   "SwapFree"};
    EXPECT_EQ(keys_of(sampler.meminfos_json()), mem);

    SummaryInputs in;
    in.now = 1000 * kUsPerSecond;
    nlohmann::ordered_json sum = sampler.summaries_json(in);
    EXPECT_EQ(keys_of(sum), (std::vector<std::string>{"ok", "now_ms", "self", "system"}));
    EXPECT_EQ(keys_of(sum["self"]), (std::vector<std::string>{"version", "pid", "ppid", "argv", "cwd", "mem_kbyte",
                                                             "mem_percent", "cpu_percent", "srs_uptime"}));
    const std::vector<std::string> sum_system = {
        "cpu_percent",     "disk_read_KBps",  "disk_write_KBps", "disk_busy_percent", "mem_ram_kbyte",
        "mem_ram_percent", "mem_swap_kbyte",  "mem_swap_percent", "cpus",             "cpus_online",
        "uptime",          "ilde_time",       "load_1m",         "load_5m",           "load_15m",
        "net_sample_time", "net_recv_bytes",  "net_send_bytes",  "net_recvi_bytes",   "net_sendi_bytes",
        "srs_sample_time", "srs_recv_bytes",  "srs_send_bytes",  "conn_sys",          "conn_sys_et",
        "conn_sys_tw",     "conn_sys_udp",    "conn_srs"};
    EXPECT_EQ(keys_of(sum["system"]), sum_system);
}

TEST(ProcStats, SummariesValues) {
    ProcStatsSampler sampler;
    const utime_t wall = 1795302361LL * kUsPerSecond;
    sampler.update(snapshot_from_texts(wall, 1, kSelfStatCat, kProcStat));

    SummaryInputs in;
    in.now = wall + 2 * kUsPerSecond;
    in.start_time = in.now - 12345678;  // 12.345678 s: SRS shows 12.3
    in.pid = 4242;
    in.ppid = 1;
    in.argv = "./objs/srs -c conf/srs.conf";
    in.cwd = std::string("/srs/\xff", 6);  // not UTF-8
    in.conn_srs = 3;
    in.recv_bytes = 1000;
    in.send_bytes = 2000;
    nlohmann::ordered_json j = sampler.summaries_json(in);
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_EQ(j["now_ms"].get<int64_t>(), in.now / 1000);
    const auto& self = j["self"];
    EXPECT_EQ(self["version"].get<std::string>(), SRS_VERSION_STRING);
    EXPECT_EQ(self["pid"].get<int64_t>(), 4242);
    EXPECT_EQ(self["ppid"].get<int64_t>(), 1);
    EXPECT_EQ(self["argv"].get<std::string>(), in.argv);
    EXPECT_EQ(self["cwd"].get<std::string>(), in.cwd);  // the bytes as they are
    EXPECT_EQ(self["mem_kbyte"].get<int64_t>(), 247300);
    EXPECT_NEAR(self["mem_percent"].get<double>(), 0.01, 1e-4);
    EXPECT_DOUBLE_EQ(self["srs_uptime"].get<double>(), 12.3);
    const auto& sys = j["system"];
    EXPECT_EQ(sys["mem_ram_kbyte"].get<int64_t>(), 24730032);
    EXPECT_EQ(sys["mem_swap_kbyte"].get<int64_t>(), 0);
    EXPECT_EQ(sys["cpus"].get<int64_t>(), 2);
    EXPECT_DOUBLE_EQ(sys["uptime"].get<double>(), 6710.47);
    EXPECT_DOUBLE_EQ(sys["ilde_time"].get<double>(), 4158.75);
    EXPECT_DOUBLE_EQ(sys["load_15m"].get<double>(), 2.73);
    EXPECT_EQ(sys["net_sample_time"].get<int64_t>(), wall / 1000);
    EXPECT_EQ(sys["net_recv_bytes"].get<uint64_t>(), 191553866u);
    EXPECT_EQ(sys["net_send_bytes"].get<uint64_t>(), 253728u);
    EXPECT_EQ(sys["net_recvi_bytes"].get<uint64_t>(), 84240454709ull);
    EXPECT_EQ(sys["net_sendi_bytes"].get<uint64_t>(), 84240454709ull);
    EXPECT_EQ(sys["srs_sample_time"].get<int64_t>(), in.now / 1000);
    EXPECT_EQ(sys["srs_recv_bytes"].get<uint64_t>(), 1000u);
    EXPECT_EQ(sys["srs_send_bytes"].get<uint64_t>(), 2000u);
    EXPECT_EQ(sys["conn_sys"].get<int64_t>(), 9);  // alloc 1 + tw 8
    EXPECT_EQ(sys["conn_sys_et"].get<int64_t>(), 0);
    EXPECT_EQ(sys["conn_sys_tw"].get<int64_t>(), 8);
    EXPECT_EQ(sys["conn_sys_udp"].get<int64_t>(), 0);
    EXPECT_EQ(sys["conn_srs"].get<int64_t>(), 3);
    // Written out, the bad byte is U+FFFD and the text parses back.
    std::string text = dump_api_json(j);
    EXPECT_EQ(nlohmann::json::parse(text)["self"]["cwd"].get<std::string>(), "/srs/\xef\xbf\xbd");

    // Before any sample: ok false, zeros, still the full shape.
    ProcStatsSampler empty;
    nlohmann::ordered_json e = empty.summaries_json(in);
    EXPECT_FALSE(e["ok"].get<bool>());
    EXPECT_EQ(e["system"].size(), 28u);
}

TEST(ProcStats, RusageJsonUnits) {
    RUsage u;
    u.ok = true;
    u.sample_time = 1234567890123;
    u.r.ru_utime.tv_sec = 12;
    u.r.ru_utime.tv_usec = 999999;
    u.r.ru_stime.tv_sec = 3;
    u.r.ru_maxrss = 40960;
    u.r.ru_nvcsw = 77;
    nlohmann::ordered_json j = rusages_json(u);
    EXPECT_TRUE(j["ok"].get<bool>());
    EXPECT_EQ(j["sample_time"].get<int64_t>(), 1234567890);  // ms
    EXPECT_EQ(j["ru_utime"].get<int64_t>(), 12);              // whole seconds, as SRS (tv_sec)
    EXPECT_EQ(j["ru_stime"].get<int64_t>(), 3);
    EXPECT_EQ(j["ru_maxrss"].get<int64_t>(), 40960);
    EXPECT_EQ(j["ru_nvcsw"].get<int64_t>(), 77);
}

TEST(ProcStats, CommNotUtf8DumpsWithReplacement) {
    std::string line = kSelfStatCat;
    line.replace(line.find("(cat)"), 5, std::string("(c\xff\xc3\xa9)", 6));
    ProcSelfStat s = parse_proc_self_stat(line);
    ASSERT_TRUE(s.ok);
    nlohmann::ordered_json j = self_proc_stats_json(s);
    EXPECT_EQ(j["comm"].get<std::string>(), std::string("(c\xff\xc3\xa9)"));  // the bytes as they are
    // nlohmann's default handler throws on them; the API's dump does not.
    EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
    std::string text;
    EXPECT_NO_THROW(text = dump_api_json(j));
    // The bad byte becomes U+FFFD; the valid é is kept.
    EXPECT_NE(text.find("\"comm\":\"(c\xef\xbf\xbd\xc3\xa9)\""), std::string::npos) << text;
    EXPECT_TRUE(nlohmann::json::parse(text).is_object());
}

TEST(ProcStats, RealProcFiles) {
    ProcStatsSampler sampler;
    sampler.sample();
    volatile double x = 0;
    for (int i = 0; i < 3000000; i++) x = x + i * 0.5;  // some CPU for the percent
    sampler.sample();
    const ProcSnapshot& s = sampler.last();
    EXPECT_TRUE(s.rusage.ok);
    EXPECT_TRUE(s.self.ok);
    EXPECT_EQ(s.self.pid, getpid());
    EXPECT_TRUE(s.system.ok);
    EXPECT_TRUE(s.mem.ok);
    EXPECT_TRUE(s.uptime.ok);
    EXPECT_TRUE(s.loadavg.ok);
    EXPECT_GT(s.cpus, 0);
    EXPECT_GE(s.self.percent, 0);
    EXPECT_GE(s.system.percent, 0);
    EXPECT_LE(s.system.percent, 1);
    SummaryInputs in;
    in.start_time = s.wall_us;
    EXPECT_NO_THROW((void)dump_api_json(sampler.summaries_json(in)));
    EXPECT_NO_THROW((void)dump_api_json(sampler.self_proc_stats_json()));
}

TEST(ProcStats, CmdlineJoinsArgumentsWithSpaces) {
    EXPECT_EQ(join_cmdline(std::string_view("./objs/srs\0-c\0conf/srs.conf\0", 29)), "./objs/srs -c conf/srs.conf");
    EXPECT_EQ(join_cmdline(std::string_view("srs\0\0", 5)), "srs");  // trailing NULs dropped
    EXPECT_EQ(join_cmdline(""), "");
    // This very process.
    EXPECT_NE(read_proc_self_cmdline().find("srs_utest"), std::string::npos);
}
