// Tests for the clock, sleeping and the timer heap (src/st).
#include <gtest/gtest.h>

#include <time.h>

#include <algorithm>
#include <vector>

#include "st/st.h"

namespace {

class StTimerTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        static const int rc = st_init();  // once per process
        ASSERT_EQ(0, rc);
    }
};

TEST_F(StTimerTest, SleepTenMillisecondsIsAccurate)
{
    // Never early; late by at most 20 ms on at least one of three tries (a loaded machine may
    // delay any single wakeup).
    bool within = false;
    for (int attempt = 0; attempt < 3 && !within; attempt++) {
        st_utime_t start = st_utime();
        ASSERT_EQ(0, st_usleep(10 * 1000));
        st_utime_t elapsed = st_utime() - start;
        EXPECT_GE(elapsed, 10 * 1000u);
        within = elapsed <= 30 * 1000u;
    }
    EXPECT_TRUE(within);
}

TEST_F(StTimerTest, ClocksMoveForward)
{
    st_utime_t a = st_utime();
    st_utime_t b = st_utime();
    EXPECT_LE(a, b);
    time_t wall = time(nullptr);
    EXPECT_LE(std::abs(static_cast<long>(st_time() - wall)), 2);
}

TEST_F(StTimerTest, TimeCache)
{
    int was = st_timecache_set(1);
    EXPECT_LE(std::abs(static_cast<long>(st_time() - time(nullptr))), 2);
    st_usleep(1000);  // the scheduler refreshes the cache
    EXPECT_LE(std::abs(static_cast<long>(st_time() - time(nullptr))), 2);
    EXPECT_EQ(1, st_timecache_set(was));
}

TEST_F(StTimerTest, ZeroSleepsReturnAtOnce)
{
    st_utime_t start = st_utime();
    EXPECT_EQ(0, st_usleep(0));
    EXPECT_EQ(0, st_sleep(0));
    EXPECT_LT(st_utime() - start, 500 * 1000u);
}

struct Sleeper {
    st_utime_t duration;
    st_utime_t before_park;  // clock read just before st_usleep
    st_utime_t woke;
};

struct SleepLog {
    std::vector<Sleeper *> park_order, wake_order;
};

SleepLog sleep_log;

void *sleep_and_record(void *p)
{
    auto *s = static_cast<Sleeper *>(p);
    s->before_park = st_utime();
    sleep_log.park_order.push_back(s);
    st_usleep(s->duration);
    s->woke = st_utime();
    sleep_log.wake_order.push_back(s);
    return nullptr;
}

// Many sleepers with mixed durations must wake in order of their due times.
TEST_F(StTimerTest, SleepersWakeInDueOrder)
{
    // Durations 1..41 ms, 250 us apart, in shuffled order.
    const int n = 160;
    std::vector<Sleeper> sleepers(n);
    for (int i = 0; i < n; i++)
        sleepers[i].duration = 1000 + 250 * static_cast<st_utime_t>(i);
    unsigned seed = 12345;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        std::swap(sleepers[i].duration, sleepers[(seed >> 8) % (i + 1)].duration);
    }
    sleep_log = SleepLog();
    std::vector<st_thread_t> threads;
    for (int i = 0; i < n; i++) {
        threads.push_back(st_thread_create(sleep_and_record, &sleepers[i], 1, 0));
        ASSERT_NE(nullptr, threads.back());
    }
    st_utime_t start = st_utime();
    for (auto t : threads)
        ASSERT_EQ(0, st_thread_join(t, nullptr));
    EXPECT_LT(st_utime() - start, 2 * 1000 * 1000u);
    ASSERT_EQ(static_cast<size_t>(n), sleep_log.wake_order.size());

    // The runtime reads the clock for a sleeper's due time after its before_park and before the
    // next sleeper's before_park (the last one: before anyone wakes). That brackets each due
    // time without assuming how fast the machine is.
    st_utime_t first_wake = sleep_log.wake_order.front()->woke;
    std::vector<st_utime_t> lo(n), hi(n);
    for (int k = 0; k < n; k++) {
        Sleeper *s = sleep_log.park_order[k];
        int i = static_cast<int>(s - sleepers.data());
        st_utime_t next = k + 1 < n ? sleep_log.park_order[k + 1]->before_park : first_wake;
        lo[i] = s->before_park + s->duration;
        hi[i] = next + s->duration;
        EXPECT_GE(s->woke, lo[i]);  // never early
    }
    for (int k = 1; k < n; k++) {
        int a = static_cast<int>(sleep_log.wake_order[k - 1] - sleepers.data());
        int b = static_cast<int>(sleep_log.wake_order[k] - sleepers.data());
        EXPECT_LE(lo[a], hi[b]) << "sleeper " << a << " (" << sleepers[a].duration
                                << " us) woke before " << b << " (" << sleepers[b].duration << " us)";
    }
}

// A timer removed early (interrupt) must not disturb the others.
TEST_F(StTimerTest, EarlyWakeLeavesOtherTimersIntact)
{
    std::vector<st_thread_t> threads;
    static int woken;
    woken = 0;
    for (int i = 0; i < 50; i++)
        threads.push_back(st_thread_create(
            [](void *p) -> void * {
                st_usleep(reinterpret_cast<st_utime_t>(p));
                woken++;
                return nullptr;
            },
            reinterpret_cast<void *>(static_cast<uintptr_t>(2000 + 200 * i)), 1, 0));
    st_usleep(1);  // let them all park
    for (int i = 0; i < 50; i += 3)
        st_thread_interrupt(threads[i]);
    for (auto t : threads)
        ASSERT_EQ(0, st_thread_join(t, nullptr));
    EXPECT_EQ(50, woken);
}

}  // namespace
