// Tests of app/stats/proc_reader: the real /proc files of this host and this
// process, read once (the parsers' details are proc_parsers_test's).
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "app/stats/proc_reader.hpp"

using namespace srs;

TEST(ProcReader, RealProcFiles) {
    ProcSnapshot s = read_proc_snapshot({});
    EXPECT_GT(s.wall_us, 0);
    EXPECT_GT(s.monotonic_us, 0);
    EXPECT_GT(s.ticks_per_second, 0);
    EXPECT_GT(s.cpus, 0);
    EXPECT_GT(s.cpus_online, 0);
    EXPECT_TRUE(s.rusage.ok);
    EXPECT_TRUE(s.self.ok);
    EXPECT_EQ(s.self.pid, getpid());
    EXPECT_TRUE(s.system.ok);
    EXPECT_TRUE(s.mem.ok);
    EXPECT_TRUE(s.uptime.ok);
    EXPECT_TRUE(s.loadavg.ok);
    EXPECT_TRUE(s.net.ok);
    // One sample_time for every part.
    EXPECT_EQ(s.self.sample_time, s.wall_us);
    EXPECT_EQ(s.system.sample_time, s.wall_us);
    EXPECT_EQ(s.mem.sample_time, s.wall_us);
    EXPECT_EQ(s.rusage.sample_time, s.wall_us);
    EXPECT_FALSE(read_proc_stat_cpus().empty());
}

TEST(ProcReader, MissingFilesAreNotOk) {
    EXPECT_EQ(read_sysctl_int("/proc/sys/no/such/file"), -1);
    EXPECT_GT(read_sysctl_int("/proc/sys/kernel/pid_max"), 0);
}

TEST(ProcReader, SelfCmdline) {
    // This very process.
    EXPECT_NE(read_proc_self_cmdline().find("srs_utest"), std::string::npos);
}
