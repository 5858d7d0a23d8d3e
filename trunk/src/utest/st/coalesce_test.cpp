// st_recvmmsg and wake-up coalescing (src/st): batches, the drained mark, timeouts, and naps that
// start under a fast stream of datagrams and stop when it slows down.
#include <gtest/gtest.h>

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "st/st.h"
#include "utest/st/st_test_util.hpp"

#ifdef SRS_VALGRIND
#include <valgrind/valgrind.h>
#endif

using namespace st_test;

namespace {

class StCoalesceTest : public StTest {
protected:
    void TearDown() override { st_set_wakeup_coalesce(0); }
};

// A datagram socket pair: `in` is a netfd the test reads, `out` a plain fd another OS thread
// (or the test) writes, so its datagrams arrive as outside events do.
struct DgramPair {
    st_netfd_t in = nullptr;
    int out = -1;
    DgramPair()
    {
        int fds[2];
        if (socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) != 0)
            return;
        int big = 4 * 1024 * 1024;
        setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
        in = st_netfd_open_socket(fds[0]);
        out = fds[1];
    }
    ~DgramPair()
    {
        if (in)
            st_netfd_close(in);
        if (out >= 0)
            close(out);
    }
};

// Room for up to kVlen datagrams of 64 bytes.
constexpr unsigned kVlen = 64;
struct Batch {
    char bufs[kVlen][64];
    struct iovec iov[kVlen];
    struct st_mmsghdr msgs[kVlen];
    Batch()
    {
        memset(msgs, 0, sizeof(msgs));
        for (unsigned i = 0; i < kVlen; i++) {
            iov[i].iov_base = bufs[i];
            iov[i].iov_len = sizeof(bufs[i]);
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
    }
    int recv(st_netfd_t fd, unsigned vlen, st_utime_t timeout) { return st_recvmmsg(fd, msgs, vlen, 0, timeout); }
    std::string at(int i) const { return std::string(bufs[i], msgs[i].msg_len); }
};

// Sends `count` datagrams from its own OS thread, one every `gap_us`.
struct Sender {
    int fd;
    int count;
    long gap_us;
    pthread_t thread{};
    std::atomic<int> sent{0};
    static void *run(void *p)
    {
        auto *s = static_cast<Sender *>(p);
        for (int i = 0; i < s->count; i++) {
            if (i > 0 && s->gap_us > 0) {
                struct timespec ts = {0, s->gap_us * 1000};
                nanosleep(&ts, nullptr);
            }
            char d[16];
            int n = snprintf(d, sizeof(d), "%d", i);
            if (send(s->fd, d, (size_t)n, 0) == n)
                s->sent++;
        }
        return nullptr;
    }
    void start() { ASSERT_EQ(0, pthread_create(&thread, nullptr, run, this)); }
    void wait() { pthread_join(thread, nullptr); }
};

// Reads `count` datagrams, checking their order; returns how many calls it took.
int read_all(st_netfd_t fd, int count)
{
    Batch b;
    int got = 0, calls = 0;
    while (got < count) {
        int n = b.recv(fd, kVlen, kLong);
        EXPECT_GT(n, 0) << "errno " << errno;
        if (n <= 0)
            break;
        calls++;
        for (int i = 0; i < n; i++)
            EXPECT_EQ(std::to_string(got + i), b.at(i));
        got += n;
    }
    return calls;
}

bool under_valgrind()
{
#ifdef SRS_VALGRIND
    return RUNNING_ON_VALGRIND;
#else
    return false;
#endif
}

}  // namespace

TEST_F(StCoalesceTest, RecvmmsgTakesWhatIsThereInOneCall)
{
    DgramPair p;
    ASSERT_NE(nullptr, p.in);
    for (int i = 0; i < 5; i++)
        ASSERT_EQ(1, send(p.out, std::to_string(i).c_str(), 1, 0));
    Batch b;
    ASSERT_EQ(5, b.recv(p.in, kVlen, kLong));
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(std::to_string(i), b.at(i));
    // A batch as large as asked for did not empty the socket: the rest comes at once.
    for (int i = 0; i < 3; i++)
        ASSERT_EQ(1, send(p.out, "x", 1, 0));
    EXPECT_EQ(2, b.recv(p.in, 2, kLong));
    EXPECT_EQ(1, b.recv(p.in, 2, 0));
}

TEST_F(StCoalesceTest, RecvmmsgAfterAShortBatchWaitsForNewInput)
{
    DgramPair p;
    ASSERT_NE(nullptr, p.in);
    Batch b;
    ASSERT_EQ(1, send(p.out, "a", 1, 0));
    ASSERT_EQ(1, b.recv(p.in, kVlen, kLong));
    // Drained: a poll says nothing is there, and a timed wait times out.
    EXPECT_EQ(-1, b.recv(p.in, kVlen, 0));
    EXPECT_EQ(ETIME, errno);
    st_utime_t start = st_utime();
    EXPECT_EQ(-1, b.recv(p.in, kVlen, 20 * 1000));
    EXPECT_EQ(ETIME, errno);
    EXPECT_GE(st_utime() - start, 20 * 1000u);
    // Input after the short batch is read as soon as it comes, from a coroutine or outside.
    st_thread_t writer = spawn([&] {
        st_usleep(5 * 1000);
        EXPECT_EQ(2, send(p.out, "bc", 2, 0));
    });
    start = st_utime();
    ASSERT_EQ(1, b.recv(p.in, kVlen, kLong));
    EXPECT_EQ("bc", b.at(0));
    EXPECT_LT(st_utime() - start, 1000 * 1000u);
    join(writer);
}

TEST_F(StCoalesceTest, RecvmmsgWaitIsInterruptible)
{
    DgramPair p;
    ASSERT_NE(nullptr, p.in);
    Batch b;
    expect_interrupted([&] { return b.recv(p.in, kVlen, kLong); });
}

// Datagrams every 100 us: with coalescing the runtime naps and each read takes a batch; once
// they come every 20 ms, it stops napping and each is read as it comes.
TEST_F(StCoalesceTest, FastInputIsReadInBatchesAndSlowInputAsItComes)
{
    if (under_valgrind())
        GTEST_SKIP() << "valgrind runs one OS thread at a time: the sender's pace is not kept";
    DgramPair p;
    ASSERT_NE(nullptr, p.in);
    st_set_wakeup_coalesce(2000);

    const int kFast = 2000;
    Sender fast{p.out, kFast, 100, {}};
    unsigned long long naps0 = st_wakeup_naps();
    fast.start();
    int calls = read_all(p.in, kFast);
    fast.wait();
    unsigned long long fast_naps = st_wakeup_naps() - naps0;
    EXPECT_EQ(kFast, fast.sent.load());
    // Without naps most reads find one or two datagrams; with them, about twenty.
    EXPECT_GT(fast_naps, 20u);
    EXPECT_LT(calls, kFast / 4) << "naps " << fast_naps;

    const int kSlow = 15;
    Sender slow{p.out, kSlow, 20 * 1000, {}};
    naps0 = st_wakeup_naps();
    slow.start();
    Batch b;
    int slow_calls = 0;
    for (int got = 0; got < kSlow;) {
        int n = b.recv(p.in, kVlen, kLong);
        ASSERT_GT(n, 0);
        got += n;
        slow_calls++;
    }
    slow.wait();
    // A nap or two right after the fast phase, then none: each datagram on its own.
    EXPECT_LE(st_wakeup_naps() - naps0, 4u);
    EXPECT_GE(slow_calls, kSlow - 2);
}

// Off (the default), the runtime never naps however fast the input.
TEST_F(StCoalesceTest, OffNeverNaps)
{
    DgramPair p;
    ASSERT_NE(nullptr, p.in);
    st_set_wakeup_coalesce(0);
    Sender fast{p.out, 500, 100, {}};
    unsigned long long naps0 = st_wakeup_naps();
    fast.start();
    read_all(p.in, 500);
    fast.wait();
    EXPECT_EQ(naps0, st_wakeup_naps());
}

// A nap never runs past a timer: a sleeper wakes on time while the runtime coalesces.
TEST_F(StCoalesceTest, NapsEndAtTheNextTimer)
{
    if (under_valgrind())
        GTEST_SKIP() << "valgrind runs one OS thread at a time: the sender's pace is not kept";
    DgramPair p;
    ASSERT_NE(nullptr, p.in);
    st_set_wakeup_coalesce(50 * 1000);  // naps of up to 50 ms
    Sender fast{p.out, 1500, 100, {}};
    std::vector<st_utime_t> late;
    st_thread_t sleeper = spawn([&] {
        for (int i = 0; i < 10; i++) {
            st_utime_t before = st_utime();
            st_usleep(5 * 1000);
            late.push_back(st_utime() - before - 5 * 1000);
        }
    });
    fast.start();
    read_all(p.in, 1500);
    fast.wait();
    join(sleeper);
    ASSERT_EQ(10u, late.size());
    std::sort(late.begin(), late.end());
    // epoll's timeouts are in ms; a nap that ignored the timer would add up to 50 ms.
    EXPECT_LT(late[5], 10 * 1000u);
}
