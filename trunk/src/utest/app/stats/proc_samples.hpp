// Captured /proc texts and helpers shared by the tests of app/stats/proc_*:
// text from a Linux 6.x host (2 CPUs, 24 GB, no swap).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/stats/proc_parsers.hpp"
#include "app/stats/proc_reader.hpp"
#include "utest/test_util.hpp"

namespace srs::utest::proc {

// /proc/<pid>/stat of `sleep` started through a symlink named "a) (b c)".
inline const char* const kSelfStatOddComm =
    "18712 (a) (b c)) S 18708 18706 17703 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 674586 2990080 414 "
    "18446744073709551615 94573754294272 94573754312201 140729640807712 0 0 0 0 0 0 1 0 0 17 0 0 0 0 0 0 "
    "94573754326288 94573754327552 94574337572864 140729640815309 140729640815323 140729640815323 "
    "140729640816621 0\n";

// /proc/self/stat of `cat`.
inline const char* const kSelfStatCat =
    "18551 (cat) R 18545 18545 17703 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 671043 3133440 381 "
    "18446744073709551615 94633067520000 94633067539881 140735859897312 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 "
    "94633067555888 94633067557504 94633586233344 140735859903157 140735859903177 140735859903177 "
    "140735859904491 0\n";

// /proc/stat (the intr line shortened).
inline const char* const kProcStat =
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

inline const char* const kMemInfo =
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

inline const char* const kNetSnmp =
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

inline const char* const kNetDev =
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

inline const char* const kSockStat =
    "sockets: used 11\n"
    "TCP: inuse 1 orphan 0 tw 8 alloc 1 mem 134\n"
    "UDP: inuse 0 mem 0\n"
    "UDPLITE: inuse 0\n"
    "RAW: inuse 0\n"
    "FRAG: inuse 0 memory 0\n";

inline const char* const kUptime = "6710.47 4158.75\n";
inline const char* const kLoadAvg = "2.54 2.60 2.73 8/110 18559\n";

inline const char* const kVmStatPart =
    "nr_free_pages 5069353\n"
    "pgpgin 1236069\n"
    "pgpgout 14749600\n"
    "pswpin 0\n"
    "pswpout 0\n";

inline const char* const kDiskStats =
    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "   7       1 loop1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    " 254       0 vda 62566 18127 2472138 39290 50793 39818 29499200 79467 0 44208 127491 17084 46 26186984 8623 "
    "4220 110\n"
    " 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

// Calls parse on every proper prefix of text, each placed right before a
// PROT_NONE page so that reading one byte too far crashes the test.
template <typename Parse>
inline void for_each_prefix(const std::string& text, Parse parse) {
    srs::utest::GuardPage guard(text.size());
    for (size_t n = 0; n < text.size(); n++) {
        const uint8_t* p = guard.place(reinterpret_cast<const uint8_t*>(text.data()), n);
        parse(std::string_view(reinterpret_cast<const char*>(p), n), n);
    }
}

inline std::vector<std::string> keys_of(const nlohmann::ordered_json& j) {
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    return keys;
}

// A snapshot made of the captured texts, at the given clocks.
inline ProcSnapshot snapshot_from_texts(utime_t wall, utime_t mono, const std::string& self, const std::string& stat) {
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
inline std::string cat_stat_with_times(int utime, int stime) {
    std::string s = kSelfStatCat;
    std::string from = " 102 0 0 0 0 0 0 0 20 ";
    std::string to = " 102 0 0 0 " + std::to_string(utime) + " " + std::to_string(stime) + " 0 0 20 ";
    s.replace(s.find(from), from.size(), to);
    return s;
}

}  // namespace srs::utest::proc
