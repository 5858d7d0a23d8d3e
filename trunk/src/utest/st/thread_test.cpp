// Tests for coroutine creation, switching, joining, yielding, stacks and interrupts (src/st).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "st/st.h"
#include "utest/st/st_test_util.hpp"

#ifdef SRS_VALGRIND
#include <valgrind/valgrind.h>
#define ST_TEST_UNDER_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#else
#define ST_TEST_UNDER_VALGRIND() false
#endif

using namespace st_test;

namespace {

class StThreadTest : public StTest {};

// Waits (up to 10 s, then kills it) for a forked child; returns its wait status.
int wait_child(pid_t pid)
{
    int status = 0;
    for (int i = 0; i < 1000; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        usleep(10 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ADD_FAILURE() << "child did not finish in time";
    return status;
}

// In a child that is expected to crash, keep the crash report out of the test log.
void silence_stderr()
{
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0)
        dup2(devnull, 2);
}

void *return_arg_plus_one(void *arg)
{
    return static_cast<char *>(arg) + 1;
}

TEST_F(StThreadTest, JoinReturnsTheThreadsValue)
{
    char buf[4];
    st_thread_t t = st_thread_create(return_arg_plus_one, buf, 1, 0);
    ASSERT_NE(nullptr, t);
    void *rv = nullptr;
    ASSERT_EQ(0, st_thread_join(t, &rv));
    EXPECT_EQ(buf + 1, rv);
}

TEST_F(StThreadTest, ExitValueReachesJoiner)
{
    st_thread_t t = st_thread_create(
        [](void *) -> void * {
            st_thread_exit(reinterpret_cast<void *>(42));
        },
        nullptr, 1, 0);
    ASSERT_NE(nullptr, t);
    void *rv = nullptr;
    ASSERT_EQ(0, st_thread_join(t, &rv));
    EXPECT_EQ(reinterpret_cast<void *>(42), rv);
}

TEST_F(StThreadTest, JoinErrors)
{
    EXPECT_EQ(-1, st_thread_join(st_thread_self(), nullptr));
    EXPECT_EQ(EDEADLK, errno);

    st_thread_t t = spawn([] {
        errno = 0;
        EXPECT_EQ(-1, st_thread_join(st_thread_self(), nullptr));
        EXPECT_EQ(EDEADLK, errno);
    });
    join(t);

    // A detached thread cannot be joined; it cleans up by itself.
    static int ran;
    ran = 0;
    st_thread_t d = st_thread_create([](void *) -> void * { ran = 1; return nullptr; }, nullptr, 0, 0);
    ASSERT_NE(nullptr, d);
    EXPECT_EQ(-1, st_thread_join(d, nullptr));
    EXPECT_EQ(EINVAL, errno);
    st_usleep(0);
    EXPECT_EQ(1, ran);
}

TEST_F(StThreadTest, NewThreadRunsOnlyWhenCreatorBlocks)
{
    int ran = 0;
    st_thread_t t = spawn([&] { ran = 1; });
    EXPECT_EQ(0, ran);  // no preemption: creation only queues it
    join(t);
    EXPECT_EQ(1, ran);
}

TEST_F(StThreadTest, SelfIsTheCreatedHandle)
{
    st_thread_t main_thread = st_thread_self();
    st_thread_t inside = nullptr;
    st_thread_t t = spawn([&] { inside = st_thread_self(); });
    join(t);
    EXPECT_EQ(t, inside);
    EXPECT_EQ(main_thread, st_thread_self());
}

TEST_F(StThreadTest, YieldIsRoundRobin)
{
    std::vector<int> order;
    std::vector<st_thread_t> ts;
    for (int id = 0; id < 3; id++)
        ts.push_back(spawn([&order, id] {
            for (int i = 0; i < 3; i++) {
                order.push_back(id);
                st_thread_yield();
            }
        }));
    for (auto t : ts)
        join(t);
    EXPECT_EQ((std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2}), order);
}

TEST_F(StThreadTest, ManyCreateJoinCycles)
{
    const int cycles = ST_TEST_UNDER_VALGRIND() ? 2000 : 20000;
    long sum = 0;
    for (int i = 0; i < cycles; i++) {
        st_thread_t t = st_thread_create(return_arg_plus_one, reinterpret_cast<void *>(i), 1, 0);
        ASSERT_NE(nullptr, t);
        void *rv;
        ASSERT_EQ(0, st_thread_join(t, &rv));
        sum += reinterpret_cast<long>(rv);
    }
    EXPECT_EQ(static_cast<long>(cycles) * (cycles + 1) / 2, sum);

    // Batches alive at once, so stacks are not simply reused one at a time.
    for (int round = 0; round < 20; round++) {
        std::vector<st_thread_t> batch;
        for (int i = 0; i < 100; i++) {
            st_thread_t t = st_thread_create(return_arg_plus_one, reinterpret_cast<void *>(i), 1,
                                             i % 3 == 0 ? 64 * 1024 : 0);
            ASSERT_NE(nullptr, t);
            batch.push_back(t);
        }
        for (int i = 0; i < 100; i++) {
            void *rv;
            ASSERT_EQ(0, st_thread_join(batch[i], &rv));
            EXPECT_EQ(reinterpret_cast<void *>(i + 1), rv);
        }
    }
}

TEST_F(StThreadTest, JoinBeforeAndAfterExit)
{
    // Joiner waits for a thread still running...
    st_thread_t slow = spawn([] { st_usleep(2000); });
    join(slow);
    // ...or collects one that already exited.
    st_thread_t fast = spawn([] {});
    st_usleep(1000);
    join(fast);
}

// Uses about `depth` KiB of stack.
int recurse(int depth)
{
    volatile char pad[1024];
    pad[0] = 1;
    if (depth <= 0)
        return pad[0];
    return recurse(depth - 1) + pad[0];
}

TEST_F(StThreadTest, LargeStackSize)
{
    int result = -1;
    st_thread_t t = st_thread_create(
        [](void *p) -> void * {
            *static_cast<int *>(p) = recurse(512);  // ~512 KiB deep
            return nullptr;
        },
        &result, 1, 2 * 1024 * 1024);
    ASSERT_NE(nullptr, t);
    join(t);
    EXPECT_EQ(513, result);
}

volatile bool keep_recursing = true;

int recurse_forever(int depth)
{
    volatile char pad[256];
    pad[0] = static_cast<char>(depth);
    if (!keep_recursing)
        return pad[0];
    return recurse_forever(depth + 1) + pad[0];
}

TEST_F(StThreadTest, StackOverflowHitsGuardPage)
{
    if (ST_TEST_UNDER_VALGRIND())
        GTEST_SKIP() << "a deliberate crash under valgrind only adds noise";
    fflush(nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // Child: overflow a small stack. Reaching _exit(0) would mean no guard page.
        silence_stderr();
        st_thread_t t = st_thread_create(
            [](void *) -> void * {
                recurse_forever(0);
                return nullptr;
            },
            nullptr, 1, 64 * 1024);
        st_thread_join(t, nullptr);
        _exit(0);
    }
    int status = wait_child(pid);
    // Killed by SIGSEGV, or (ASAN) reported as stack-overflow and exited non-zero.
    EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(StThreadTest, InterruptWakesSleeper)
{
    int rv = 0, err = 0;
    st_thread_t t = spawn([&] {
        rv = st_usleep(ST_UTIME_NO_TIMEOUT);
        err = errno;
    });
    st_usleep(1000);  // let it block
    st_utime_t start = st_utime();
    st_thread_interrupt(t);
    join(t);
    EXPECT_EQ(-1, rv);
    EXPECT_EQ(EINTR, err);
    EXPECT_LT(st_utime() - start, 1000000u);
}

TEST_F(StThreadTest, InterruptBeforeBlockingIsKept)
{
    int first = 0, first_err = 0, second = -1;
    st_thread_t t = spawn([&] {
        first = st_usleep(10 * 1000 * 1000);  // interrupt already pending: returns at once
        first_err = errno;
        second = st_usleep(1000);  // the interrupt was consumed
    });
    st_thread_interrupt(t);  // t has not run yet
    st_utime_t start = st_utime();
    join(t);
    EXPECT_EQ(-1, first);
    EXPECT_EQ(EINTR, first_err);
    EXPECT_EQ(0, second);
    EXPECT_LT(st_utime() - start, 2000000u);
}

TEST_F(StThreadTest, InterruptWakesJoiner)
{
    st_thread_t sleeper = spawn([] { st_usleep(ST_UTIME_NO_TIMEOUT); });
    expect_interrupted([&] { return st_thread_join(sleeper, nullptr); });
    // The sleeper can still be joined once woken.
    st_thread_interrupt(sleeper);
    join(sleeper);
}

TEST_F(StThreadTest, PrimordialExitKeepsOthersRunning)
{
    int fds[2];
    ASSERT_EQ(0, pipe(fds));
    fflush(nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // Child: main leaves; the coroutine must still run, then the process exits with 0.
        silence_stderr();
        close(fds[0]);
        static int wfd;
        wfd = fds[1];
        st_thread_create(
            [](void *) -> void * {
                st_usleep(5000);
                char c = 'x';
                if (write(wfd, &c, 1) != 1)
                    _exit(3);
                return nullptr;
            },
            nullptr, 0, 0);
        st_thread_exit(nullptr);
    }
    close(fds[1]);
    char c = 0;
    struct pollfd pfd = {fds[0], POLLIN, 0};
    EXPECT_EQ(1, poll(&pfd, 1, 10000));  // plain poll: this process's coroutines stay idle
    EXPECT_EQ(1, read(fds[0], &c, 1));
    EXPECT_EQ('x', c);
    close(fds[0]);
    int status = wait_child(pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(StThreadTest, EventsysAndFdlimit)
{
    EXPECT_EQ(ST_EVENTSYS_ALT, st_get_eventsys());
    EXPECT_EQ(-1, st_set_eventsys(ST_EVENTSYS_ALT));  // too late after st_init
    EXPECT_EQ(EBUSY, errno);
    EXPECT_GT(st_getfdlimit(), 0);
}

}  // namespace
