// Tests for condition variables and mutexes (src/st).
#include <gtest/gtest.h>

#include <vector>

#include "st/st.h"
#include "utest/st/st_test_util.hpp"

using namespace st_test;

namespace {

class StSyncTest : public StTest {};

TEST_F(StSyncTest, SignalWakesOneWaiterInFifoOrder)
{
    st_cond_t c = st_cond_new();
    ASSERT_NE(nullptr, c);
    std::vector<int> woke;
    std::vector<st_thread_t> ts;
    for (int id = 0; id < 3; id++)
        ts.push_back(spawn([&, id] {
            EXPECT_EQ(0, st_cond_timedwait(c, kLong));
            woke.push_back(id);
        }));
    st_usleep(1000);  // all three wait now
    for (int round = 1; round <= 3; round++) {
        EXPECT_EQ(0, st_cond_signal(c));
        st_usleep(1000);
        EXPECT_EQ(static_cast<size_t>(round), woke.size());
    }
    join_all(ts);
    EXPECT_EQ((std::vector<int>{0, 1, 2}), woke);
    EXPECT_EQ(0, st_cond_signal(c));  // nobody waits: no-op
    EXPECT_EQ(0, st_cond_destroy(c));
}

TEST_F(StSyncTest, BroadcastWakesAll)
{
    st_cond_t c = st_cond_new();
    int woke = 0;
    std::vector<st_thread_t> ts;
    for (int i = 0; i < 10; i++)
        ts.push_back(spawn([&] {
            EXPECT_EQ(0, st_cond_wait(c));
            woke++;
        }));
    st_usleep(1000);
    EXPECT_EQ(-1, st_cond_destroy(c));  // still has waiters
    EXPECT_EQ(EBUSY, errno);
    EXPECT_EQ(0, st_cond_broadcast(c));
    join_all(ts);
    EXPECT_EQ(10, woke);
    EXPECT_EQ(0, st_cond_destroy(c));
}

TEST_F(StSyncTest, TimedwaitTimesOut)
{
    st_cond_t c = st_cond_new();
    st_utime_t start = st_utime();
    EXPECT_EQ(-1, st_cond_timedwait(c, 20 * 1000));
    EXPECT_EQ(ETIME, errno);
    st_utime_t elapsed = st_utime() - start;
    EXPECT_GE(elapsed, 20 * 1000u);
    EXPECT_LT(elapsed, 1000 * 1000u);
    EXPECT_EQ(0, st_cond_destroy(c));
}

TEST_F(StSyncTest, InterruptWakesCondWaiter)
{
    st_cond_t c = st_cond_new();
    int rv = 0, err = 0;
    st_thread_t t = spawn([&] {
        rv = st_cond_wait(c);
        err = errno;
    });
    st_usleep(1000);
    st_thread_interrupt(t);
    ASSERT_EQ(0, st_thread_join(t, nullptr));
    EXPECT_EQ(-1, rv);
    EXPECT_EQ(EINTR, err);
    EXPECT_EQ(0, st_cond_destroy(c));  // the interrupted waiter left the queue
}

TEST_F(StSyncTest, SignalSkipsInterruptedWaiter)
{
    st_cond_t c = st_cond_new();
    int a_rv = 0, b_rv = -1;
    st_thread_t a = spawn([&] { a_rv = st_cond_timedwait(c, kLong); });
    st_thread_t b = spawn([&] { b_rv = st_cond_timedwait(c, kLong); });
    st_usleep(1000);
    st_thread_interrupt(a);
    st_cond_signal(c);  // must reach b, not the already-woken a
    join_all({a, b});
    EXPECT_EQ(-1, a_rv);
    EXPECT_EQ(0, b_rv);
    EXPECT_EQ(0, st_cond_destroy(c));
}

TEST_F(StSyncTest, MutexIsFifoFair)
{
    st_mutex_t m = st_mutex_new();
    ASSERT_NE(nullptr, m);
    ASSERT_EQ(0, st_mutex_lock(m));
    std::vector<int> order;
    std::vector<st_thread_t> ts;
    for (int id = 0; id < 5; id++)
        ts.push_back(spawn([&, id] {
            for (int round = 0; round < 3; round++) {
                EXPECT_EQ(0, st_mutex_lock(m));
                order.push_back(id);
                st_thread_yield();  // others queue up meanwhile
                EXPECT_EQ(0, st_mutex_unlock(m));
                // Relocking at once must not barge ahead of the queue.
            }
        }));
    st_usleep(1000);  // all five are queued, in creation order
    EXPECT_EQ(0, st_mutex_unlock(m));
    EXPECT_EQ(-1, st_mutex_trylock(m));  // handed straight to the first waiter
    EXPECT_EQ(EBUSY, errno);
    join_all(ts);
    std::vector<int> expected;
    for (int round = 0; round < 3; round++)
        for (int id = 0; id < 5; id++)
            expected.push_back(id);
    EXPECT_EQ(expected, order);
    EXPECT_EQ(0, st_mutex_destroy(m));
}

TEST_F(StSyncTest, MutexErrors)
{
    st_mutex_t m = st_mutex_new();
    EXPECT_EQ(-1, st_mutex_unlock(m));
    EXPECT_EQ(EPERM, errno);
    ASSERT_EQ(0, st_mutex_trylock(m));
    EXPECT_EQ(-1, st_mutex_lock(m));
    EXPECT_EQ(EDEADLK, errno);
    EXPECT_EQ(-1, st_mutex_destroy(m));
    EXPECT_EQ(EBUSY, errno);
    st_thread_t t = spawn([&] {
        EXPECT_EQ(-1, st_mutex_unlock(m));  // not the owner
        EXPECT_EQ(EPERM, errno);
    });
    ASSERT_EQ(0, st_thread_join(t, nullptr));
    EXPECT_EQ(0, st_mutex_unlock(m));
    EXPECT_EQ(0, st_mutex_destroy(m));
}

TEST_F(StSyncTest, InterruptWakesMutexWaiter)
{
    st_mutex_t m = st_mutex_new();
    ASSERT_EQ(0, st_mutex_lock(m));
    int rv = 0, err = 0;
    st_thread_t t = spawn([&] {
        rv = st_mutex_lock(m);
        err = errno;
    });
    st_usleep(1000);
    st_thread_interrupt(t);
    ASSERT_EQ(0, st_thread_join(t, nullptr));
    EXPECT_EQ(-1, rv);
    EXPECT_EQ(EINTR, err);
    EXPECT_EQ(0, st_mutex_unlock(m));
    EXPECT_EQ(0, st_mutex_destroy(m));
}

}  // namespace
