// Stress test: 10,000 concurrent coroutines doing socket ping-pong (src/st).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "st/st.h"

#ifdef SRS_VALGRIND
#include <valgrind/valgrind.h>
#define ST_TEST_UNDER_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#else
#define ST_TEST_UNDER_VALGRIND() false
#endif

namespace {

class StStressTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        static const int rc = st_init();  // once per process
        ASSERT_EQ(0, rc);
    }
};

const st_utime_t kLong = 20 * 1000 * 1000;
const int kRounds = 10;

struct Shared {
    int started = 0;
    int total = 0;
    int finished_ok = 0;
    st_cond_t all_started = nullptr;
};

struct Peer {
    Shared *shared;
    st_netfd_t fd;
    int id;
    bool pinger;
};

// Waits until every coroutine exists, so they are all alive at once, then ping-pongs.
void *ping_pong(void *arg)
{
    Peer *p = static_cast<Peer *>(arg);
    Shared *s = p->shared;
    if (++s->started == s->total)
        st_cond_broadcast(s->all_started);
    else if (st_cond_timedwait(s->all_started, kLong) != 0)
        return nullptr;
    for (int round = 0; round < kRounds; round++) {
        unsigned char out[4] = {static_cast<unsigned char>(p->id), static_cast<unsigned char>(p->id >> 8),
                                static_cast<unsigned char>(round), static_cast<unsigned char>(p->pinger ? 'P' : 'p')};
        unsigned char in[4];
        if (p->pinger) {
            if (st_write(p->fd, out, 4, kLong) != 4 || st_read_fully(p->fd, in, 4, kLong) != 4)
                return nullptr;
            if (in[0] != out[0] || in[1] != out[1] || in[2] != round || in[3] != 'p')
                return nullptr;
        } else {
            if (st_read_fully(p->fd, in, 4, kLong) != 4)
                return nullptr;
            if (in[0] != out[0] || in[1] != out[1] || in[2] != round || in[3] != 'P')
                return nullptr;
            if (st_write(p->fd, out, 4, kLong) != 4)
                return nullptr;
        }
    }
    s->finished_ok++;
    return p;
}

TEST_F(StStressTest, TenThousandCoroutinesPingPong)
{
    // Valgrind makes every switch look up the stack it lands on: use fewer there.
    const int coroutines = ST_TEST_UNDER_VALGRIND() ? 2000 : 10000;
    const int pairs = coroutines / 2;

    rlimit rl;
    ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
    rlim_t needed = static_cast<rlim_t>(coroutines) + 64;
    if (rl.rlim_cur < needed) {
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < needed)
            GTEST_SKIP() << "RLIMIT_NOFILE hard limit " << rl.rlim_max << " < " << needed;
        rlimit raised = rl;
        raised.rlim_cur = rl.rlim_max;
        ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &raised));
    }

    Shared shared;
    shared.total = coroutines;
    shared.all_started = st_cond_new();
    std::vector<Peer> peers(coroutines);
    std::vector<st_thread_t> threads;
    threads.reserve(coroutines);
    for (int i = 0; i < pairs; i++) {
        int fds[2];
        ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, fds)) << "pair " << i;
        for (int side = 0; side < 2; side++) {
            Peer &p = peers[2 * i + side];
            p = {&shared, st_netfd_open_socket(fds[side]), i, side == 0};
            ASSERT_NE(nullptr, p.fd);
        }
    }
    st_utime_t start = st_utime();
    for (auto &p : peers) {
        st_thread_t t = st_thread_create(ping_pong, &p, 1, 0);
        ASSERT_NE(nullptr, t);
        threads.push_back(t);
    }
    int ok = 0;
    for (auto t : threads) {
        void *rv = nullptr;
        ASSERT_EQ(0, st_thread_join(t, &rv));
        ok += rv != nullptr;
    }
    st_utime_t elapsed = st_utime() - start;
    EXPECT_EQ(coroutines, shared.started);
    EXPECT_EQ(coroutines, ok);
    EXPECT_EQ(coroutines, shared.finished_ok);
    EXPECT_LT(elapsed, 60 * 1000 * 1000u);
    for (auto &p : peers)
        st_netfd_close(p.fd);
    st_cond_destroy(shared.all_started);
    setrlimit(RLIMIT_NOFILE, &rl);
}

}  // namespace
