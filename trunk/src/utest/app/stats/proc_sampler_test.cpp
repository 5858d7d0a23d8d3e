// Tests of app/stats/proc_sampler: the percents and rates computed between two
// updates, a failed read, and two real samples of this process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "app/api/api_json.hpp"
#include "app/stats/proc_sampler.hpp"
#include "utest/app/stats/proc_samples.hpp"

using namespace srs;
using namespace srs::utest::proc;

TEST(ProcSampler, SamplerComputesPercentsBetweenTwoUpdates) {
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

TEST(ProcSampler, RealProcFiles) {
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
