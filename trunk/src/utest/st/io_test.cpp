// Tests for netfds and I/O: timeouts, interrupts, partial transfers, TCP, UDP, polling (src/st).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
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

class StIoTest : public StTest {};

struct Pair {
    st_netfd_t a = nullptr, b = nullptr;
    ~Pair()
    {
        if (a)
            st_netfd_close(a);
        if (b)
            st_netfd_close(b);
    }
};

void make_pair(Pair *p, int type = SOCK_STREAM)
{
    int fds[2];
    ASSERT_EQ(0, socketpair(AF_UNIX, type, 0, fds));
    p->a = st_netfd_open_socket(fds[0]);
    p->b = st_netfd_open_socket(fds[1]);
    ASSERT_NE(nullptr, p->a);
    ASSERT_NE(nullptr, p->b);
}

// A deterministic byte pattern, so reordering or loss shows up.
std::string pattern(size_t n)
{
    std::string s(n, '\0');
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        s[i] = static_cast<char>(x);
    }
    return s;
}

sockaddr_in loopback(uint16_t port)
{
    sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    return addr;
}

uint16_t port_of(int osfd)
{
    sockaddr_in addr;
    socklen_t len = sizeof(addr);
    EXPECT_EQ(0, getsockname(osfd, reinterpret_cast<sockaddr *>(&addr), &len));
    return ntohs(addr.sin_port);
}

st_netfd_t socket_bound(int type)
{
    int s = socket(AF_INET, type, 0);
    EXPECT_GE(s, 0);
    int on = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    sockaddr_in addr = loopback(0);
    EXPECT_EQ(0, bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)));
    return st_netfd_open_socket(s);
}

st_netfd_t tcp_listener()
{
    st_netfd_t l = socket_bound(SOCK_STREAM);
    EXPECT_EQ(0, listen(st_netfd_fileno(l), 16));
    return l;
}

// Reads exactly n bytes in small pieces, pausing now and then: a slow peer.
std::string read_slowly(st_netfd_t fd, size_t n)
{
    std::string got;
    char buf[1500];
    size_t reads = 0;
    while (got.size() < n) {
        ssize_t r = st_read(fd, buf, sizeof(buf), kLong);
        if (r <= 0) {
            ADD_FAILURE() << "read returned " << r << " errno " << errno;
            break;
        }
        got.append(buf, static_cast<size_t>(r));
        if (++reads % 128 == 0)
            st_usleep(500);
    }
    return got;
}

// Writes `data` as a vector of uneven pieces and checks the call leaves the vector untouched.
void writev_all(st_netfd_t fd, const std::string &data)
{
    std::vector<iovec> iov;
    size_t off = 0;
    for (size_t i = 0; off < data.size(); i++) {
        size_t len = std::min(data.size() - off, 1 + (i * 7919) % 200000);
        if (i % 5 == 0)
            iov.push_back({const_cast<char *>(data.data() + off), 0});  // empty pieces too
        iov.push_back({const_cast<char *>(data.data() + off), len});
        off += len;
    }
    std::vector<iovec> before = iov;
    EXPECT_EQ(static_cast<ssize_t>(data.size()),
              st_writev(fd, iov.data(), static_cast<int>(iov.size()), kLong));
    for (size_t i = 0; i < iov.size(); i++) {
        EXPECT_EQ(before[i].iov_base, iov[i].iov_base);
        EXPECT_EQ(before[i].iov_len, iov[i].iov_len);
    }
}

TEST_F(StIoTest, NetfdOpenSetsNonblockingAndOnlyOnce)
{
    int fds[2];
    ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, fds));
    st_netfd_t a = st_netfd_open_socket(fds[0]);
    ASSERT_NE(nullptr, a);
    EXPECT_EQ(fds[0], st_netfd_fileno(a));
    EXPECT_TRUE(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
    EXPECT_EQ(nullptr, st_netfd_open(fds[0]));
    EXPECT_EQ(EBUSY, errno);
    EXPECT_EQ(0, st_netfd_close(a));
    close(fds[1]);
}

TEST_F(StIoTest, NetfdSpecificDestructorRunsOnClose)
{
    Pair p;
    make_pair(&p);
    static int destroyed;
    destroyed = 0;
    static int v1 = 1, v2 = 2;
    auto dtor = [](void *v) { destroyed += *static_cast<int *>(v); };
    st_netfd_setspecific(p.a, &v1, dtor);
    EXPECT_EQ(&v1, st_netfd_getspecific(p.a));
    st_netfd_setspecific(p.a, &v2, dtor);  // replaces: old value destroyed
    EXPECT_EQ(1, destroyed);
    EXPECT_EQ(0, st_netfd_close(p.a));
    p.a = nullptr;
    EXPECT_EQ(3, destroyed);
}

TEST_F(StIoTest, ReadTimesOut)
{
    Pair p;
    make_pair(&p);
    char c;
    st_utime_t start = st_utime();
    EXPECT_EQ(-1, st_read(p.a, &c, 1, 20 * 1000));
    EXPECT_EQ(ETIME, errno);
    st_utime_t elapsed = st_utime() - start;
    EXPECT_GE(elapsed, 20 * 1000u);
    EXPECT_LT(elapsed, 2 * 1000 * 1000u);
}

TEST_F(StIoTest, InterruptWakesBlockedRead)
{
    Pair p;
    make_pair(&p);
    expect_interrupted([&] {
        char c;
        return st_read(p.a, &c, 1, ST_UTIME_NO_TIMEOUT);
    });
    // The fd still works afterwards.
    EXPECT_EQ(1, st_write(p.b, "z", 1, kLong));
    char c = 0;
    EXPECT_EQ(1, st_read(p.a, &c, 1, kLong));
    EXPECT_EQ('z', c);
}

// Read syscalls of this process so far (/proc/self/io syscr), or -1 without task I/O accounting.
long read_syscalls()
{
    FILE *f = fopen("/proc/self/io", "r");
    if (!f)
        return -1;
    long n = -1;
    char line[128];
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "syscr: %ld", &n) == 1)
            break;
    fclose(f);
    return n;
}

// A short read emptied the socket: the next st_read() waits for the input edge instead of
// spending a read() on EAGAIN, so each message costs one read, as a publisher's should.
TEST_F(StIoTest, ShortReadWaitsForTheEdgeInsteadOfReadingAgain)
{
    if (read_syscalls() < 0)
        GTEST_SKIP() << "no /proc/self/io";
#ifdef SRS_VALGRIND
    if (RUNNING_ON_VALGRIND)
        GTEST_SKIP() << "valgrind's own reads (its scheduler's pipe lock) count in syscr";
#endif
    Pair p;
    make_pair(&p);
    const int kMessages = 50;
    st_thread_t writer = spawn([&] {
        for (int i = 0; i < kMessages; i++) {
            st_usleep(300);
            EXPECT_EQ(10, st_write(p.b, "0123456789", 10, kLong));
        }
    });
    long before = read_syscalls();
    std::string got;
    char buf[100];
    while (got.size() < 10u * kMessages) {
        ssize_t n = st_read(p.a, buf, sizeof(buf), kLong);
        ASSERT_GT(n, 0);
        got.append(buf, static_cast<size_t>(n));
    }
    long reads = read_syscalls() - before;
    join(writer);
    EXPECT_EQ(10u * kMessages, got.size());
    // One read per message plus the reads of /proc/self/io; EAGAIN reads would double it.
    EXPECT_LE(reads, kMessages + 4);
}

// Data written after a short read, before the scheduler polled again, is still read at once.
TEST_F(StIoTest, DataAfterShortReadIsNotMissed)
{
    Pair p;
    make_pair(&p);
    char buf[16];
    ASSERT_EQ(1, st_write(p.b, "a", 1, kLong));
    ASSERT_EQ(1, st_read(p.a, buf, sizeof(buf), kLong));
    // Nothing there now: a poll (timeout 0) says so without blocking.
    EXPECT_EQ(-1, st_read(p.a, buf, sizeof(buf), 0));
    EXPECT_EQ(ETIME, errno);
    ASSERT_EQ(2, st_write(p.b, "bc", 2, kLong));
    st_utime_t start = st_utime();
    ASSERT_EQ(2, st_read(p.a, buf, sizeof(buf), kLong));
    EXPECT_EQ("bc", std::string(buf, 2));
    EXPECT_LT(st_utime() - start, 1000 * 1000u);
}

// The last data and the hangup arrive together: after the short read the EOF is still seen,
// whether or not the scheduler saw the hangup's edge before the read.
TEST_F(StIoTest, HangupAfterShortReadIsSeen)
{
    for (int polled_first = 0; polled_first < 2; polled_first++) {
        Pair p;
        make_pair(&p);
        ASSERT_EQ(3, st_write(p.b, "xyz", 3, kLong));
        ASSERT_EQ(0, shutdown(st_netfd_fileno(p.b), SHUT_WR));
        if (polled_first)
            st_usleep(1000);
        char buf[16];
        st_utime_t start = st_utime();
        ASSERT_EQ(3, st_read(p.a, buf, sizeof(buf), kLong));
        EXPECT_EQ(0, st_read(p.a, buf, sizeof(buf), kLong));
        EXPECT_LT(st_utime() - start, 1000 * 1000u) << "polled_first=" << polled_first;
    }
}

TEST_F(StIoTest, WriteTimesOutOnFullBuffer)
{
    Pair p;
    make_pair(&p);
    int small = 4096;
    setsockopt(st_netfd_fileno(p.a), SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    std::string big(4 * 1024 * 1024, 'x');  // far more than the socket buffers hold
    st_utime_t start = st_utime();
    EXPECT_EQ(-1, st_write(p.a, big.data(), big.size(), 30 * 1000));
    EXPECT_EQ(ETIME, errno);
    EXPECT_GE(st_utime() - start, 30 * 1000u);

    size_t resid = big.size();
    EXPECT_EQ(-1, st_write_resid(p.a, big.data(), &resid, 10 * 1000));
    EXPECT_EQ(ETIME, errno);
    EXPECT_EQ(big.size(), resid);  // the buffer was still full: nothing went out
}

TEST_F(StIoTest, WritevOfManyMegabytesToSlowReaderArrivesInOrder)
{
    Pair p;
    make_pair(&p);
    const std::string data = pattern(6 * 1024 * 1024);
    std::string got;
    st_thread_t reader = spawn([&] { got = read_slowly(p.b, data.size()); });
    writev_all(p.a, data);
    join(reader);
    EXPECT_TRUE(got == data);
}

TEST_F(StIoTest, WriteAndReadFullyLargeBuffers)
{
    Pair p;
    make_pair(&p);
    const std::string data = pattern(3 * 1024 * 1024);
    std::string got(data.size(), '\0');
    ssize_t n = 0;
    st_thread_t reader = spawn([&] { n = st_read_fully(p.b, &got[0], got.size(), kLong); });
    EXPECT_EQ(static_cast<ssize_t>(data.size()), st_write(p.a, data.data(), data.size(), kLong));
    join(reader);
    EXPECT_EQ(static_cast<ssize_t>(data.size()), n);
    EXPECT_TRUE(got == data);
}

TEST_F(StIoTest, ReadFullyStopsShortOnlyAtEof)
{
    Pair p;
    make_pair(&p);
    ASSERT_EQ(10, st_write(p.b, "0123456789", 10, kLong));
    st_thread_t closer = spawn([&] {
        st_usleep(2000);  // the reader is waiting for more by now
        st_netfd_close(p.b);
        p.b = nullptr;
    });
    char buf[100];
    EXPECT_EQ(10, st_read_fully(p.a, buf, sizeof(buf), kLong));
    EXPECT_EQ(0, memcmp(buf, "0123456789", 10));
    size_t resid = sizeof(buf);
    EXPECT_EQ(0, st_read_resid(p.a, buf, &resid, kLong));  // EOF: success, nothing read
    EXPECT_EQ(sizeof(buf), resid);
    join(closer);
}

TEST_F(StIoTest, ReadvAndResidVariants)
{
    Pair p;
    make_pair(&p);
    char a[4], b[6];
    iovec iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
    st_thread_t writer = spawn([&] {
        for (const char *piece : {"abc", "defg", "hij"}) {
            EXPECT_EQ(static_cast<ssize_t>(strlen(piece)), st_write(p.b, piece, strlen(piece), kLong));
            st_usleep(500);
        }
    });
    ssize_t n = st_readv(p.a, iov, 2, kLong);
    EXPECT_EQ(3, n);  // one read: what was there
    iovec *v = iov;
    int cnt = 2;
    v[0].iov_base = a + 3;
    v[0].iov_len = 1;
    EXPECT_EQ(0, st_readv_resid(p.a, &v, &cnt, kLong));  // spans both pieces and both writes
    EXPECT_EQ(0, cnt);
    join(writer);
    EXPECT_EQ("abcd", std::string(a, 4));
    EXPECT_EQ("efghij", std::string(b, 6));

    char x[] = "xy", y[] = "z";
    iovec out[2] = {{x, 2}, {y, 1}};
    v = out;
    cnt = 2;
    EXPECT_EQ(0, st_writev_resid(p.b, &v, &cnt, kLong));
    EXPECT_EQ(0, cnt);
    char in[3];
    EXPECT_EQ(3, st_read_fully(p.a, in, 3, kLong));
    EXPECT_EQ("xyz", std::string(in, 3));
}

// A reader and a writer wait on the same fd at the same time, on both ends.
TEST_F(StIoTest, ReaderAndWriterShareOneFd)
{
    Pair p;
    make_pair(&p);
    const std::string ab = pattern(2 * 1024 * 1024), ba = ab.substr(12345) + ab.substr(0, 12345);
    std::string got_at_b, got_at_a;
    std::vector<st_thread_t> ts;
    ts.push_back(spawn([&] { EXPECT_EQ(static_cast<ssize_t>(ab.size()), st_write(p.a, ab.data(), ab.size(), kLong)); }));
    ts.push_back(spawn([&] { EXPECT_EQ(static_cast<ssize_t>(ba.size()), st_write(p.b, ba.data(), ba.size(), kLong)); }));
    ts.push_back(spawn([&] { got_at_b = read_slowly(p.b, ab.size()); }));
    ts.push_back(spawn([&] { got_at_a = read_slowly(p.a, ba.size()); }));
    for (auto t : ts)
        join(t);
    EXPECT_TRUE(got_at_b == ab);
    EXPECT_TRUE(got_at_a == ba);
}

TEST_F(StIoTest, CloseWakesWaitersWithEbadf)
{
    Pair p;
    make_pair(&p);
    ssize_t rv = 0;
    int err = 0, poll_rv = 0, poll_err = 0;
    st_thread_t reader = spawn([&] {
        char c;
        rv = st_read(p.a, &c, 1, kLong);
        err = errno;
    });
    st_thread_t poller = spawn([&] {
        poll_rv = st_netfd_poll(p.a, POLLIN, kLong);
        poll_err = errno;
    });
    st_usleep(1000);
    st_utime_t start = st_utime();
    EXPECT_EQ(0, st_netfd_close(p.a));
    p.a = nullptr;
    join(reader);
    join(poller);
    EXPECT_EQ(-1, rv);
    EXPECT_EQ(EBADF, err);
    EXPECT_EQ(-1, poll_rv);
    EXPECT_EQ(EBADF, poll_err);
    EXPECT_LT(st_utime() - start, 1000 * 1000u);
}

TEST_F(StIoTest, AcceptAndConnectOverLoopback)
{
    st_netfd_t listener = tcp_listener();
    ASSERT_NE(nullptr, listener);
    uint16_t port = port_of(st_netfd_fileno(listener));

    // Nobody connects: accept times out.
    EXPECT_EQ(nullptr, st_accept(listener, nullptr, nullptr, 10 * 1000));
    EXPECT_EQ(ETIME, errno);

    std::string server_got;
    st_thread_t server = spawn([&] {
        sockaddr_in peer;
        int len = sizeof(peer);
        st_netfd_t c = st_accept(listener, reinterpret_cast<sockaddr *>(&peer), &len, kLong);
        ASSERT_NE(nullptr, c);
        EXPECT_EQ(static_cast<int>(sizeof(peer)), len);
        EXPECT_EQ(htonl(INADDR_LOOPBACK), peer.sin_addr.s_addr);
        EXPECT_TRUE(fcntl(st_netfd_fileno(c), F_GETFL) & O_NONBLOCK);
        char buf[5];
        EXPECT_EQ(5, st_read_fully(c, buf, 5, kLong));
        server_got.assign(buf, 5);
        EXPECT_EQ(5, st_write(c, "world", 5, kLong));
        st_netfd_close(c);
    });
    st_netfd_t client = st_netfd_open_socket(socket(AF_INET, SOCK_STREAM, 0));
    ASSERT_NE(nullptr, client);
    sockaddr_in addr = loopback(port);
    ASSERT_EQ(0, st_connect(client, reinterpret_cast<sockaddr *>(&addr), sizeof(addr), kLong));
    EXPECT_EQ(5, st_write(client, "hello", 5, kLong));
    char buf[16];
    EXPECT_EQ(5, st_read_fully(client, buf, sizeof(buf), kLong));  // then EOF
    EXPECT_EQ("world", std::string(buf, 5));
    join(server);
    EXPECT_EQ("hello", server_got);
    st_netfd_close(client);
    st_netfd_close(listener);
}

TEST_F(StIoTest, ConnectToClosedPortIsRefused)
{
    st_netfd_t probe = tcp_listener();  // find a free port, then free it
    uint16_t port = port_of(st_netfd_fileno(probe));
    st_netfd_close(probe);
    st_netfd_t client = st_netfd_open_socket(socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in addr = loopback(port);
    EXPECT_EQ(-1, st_connect(client, reinterpret_cast<sockaddr *>(&addr), sizeof(addr), kLong));
    EXPECT_EQ(ECONNREFUSED, errno);
    st_netfd_close(client);
}

TEST_F(StIoTest, LargeWritevOverTcpArrivesInOrder)
{
    st_netfd_t listener = tcp_listener();
    uint16_t port = port_of(st_netfd_fileno(listener));
    const std::string data = pattern(8 * 1024 * 1024);
    std::string got;
    st_thread_t server = spawn([&] {
        st_netfd_t c = st_accept(listener, nullptr, nullptr, kLong);
        ASSERT_NE(nullptr, c);
        got = read_slowly(c, data.size());
        st_netfd_close(c);
    });
    st_netfd_t client = st_netfd_open_socket(socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in addr = loopback(port);
    ASSERT_EQ(0, st_connect(client, reinterpret_cast<sockaddr *>(&addr), sizeof(addr), kLong));
    writev_all(client, data);
    join(server);
    EXPECT_TRUE(got == data);
    st_netfd_close(client);
    st_netfd_close(listener);
}

TEST_F(StIoTest, UdpSendtoAndRecvfrom)
{
    st_netfd_t rx = socket_bound(SOCK_DGRAM), tx = socket_bound(SOCK_DGRAM);
    sockaddr_in to = loopback(port_of(st_netfd_fileno(rx)));
    char buf[64];
    EXPECT_EQ(-1, st_recvfrom(rx, buf, sizeof(buf), nullptr, nullptr, 10 * 1000));
    EXPECT_EQ(ETIME, errno);

    std::string got;
    sockaddr_in from;
    int fromlen = sizeof(from);
    st_thread_t receiver = spawn([&] {
        int n = st_recvfrom(rx, buf, sizeof(buf), reinterpret_cast<sockaddr *>(&from), &fromlen, kLong);
        ASSERT_GT(n, 0);
        got.assign(buf, static_cast<size_t>(n));
    });
    st_usleep(1000);  // the receiver is parked
    EXPECT_EQ(4, st_sendto(tx, "ping", 4, reinterpret_cast<sockaddr *>(&to), sizeof(to), kLong));
    join(receiver);
    EXPECT_EQ("ping", got);
    EXPECT_EQ(static_cast<int>(sizeof(from)), fromlen);
    EXPECT_EQ(port_of(st_netfd_fileno(tx)), ntohs(from.sin_port));
    st_netfd_close(rx);
    st_netfd_close(tx);
}

TEST_F(StIoTest, UdpSendmsgAndRecvmsg)
{
    st_netfd_t rx = socket_bound(SOCK_DGRAM), tx = socket_bound(SOCK_DGRAM);
    sockaddr_in to = loopback(port_of(st_netfd_fileno(rx)));
    std::string got;
    st_thread_t receiver = spawn([&] {
        char head[3], tail[16];
        iovec iov[2] = {{head, sizeof(head)}, {tail, sizeof(tail)}};
        msghdr msg;
        memset(&msg, 0, sizeof(msg));
        msg.msg_iov = iov;
        msg.msg_iovlen = 2;
        int n = st_recvmsg(rx, &msg, 0, kLong);
        ASSERT_EQ(8, n);
        got = std::string(head, 3) + std::string(tail, 5);
    });
    st_usleep(1000);
    char a[] = "hello", b[] = "-st";
    iovec iov[2] = {{a, 5}, {b, 3}};
    msghdr msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_name = &to;
    msg.msg_namelen = sizeof(to);
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    EXPECT_EQ(8, st_sendmsg(tx, &msg, 0, kLong));
    join(receiver);
    EXPECT_EQ("hello-st", got);
    st_netfd_close(rx);
    st_netfd_close(tx);
}

TEST_F(StIoTest, UdpSendmmsgSendsEveryMessage)
{
    st_netfd_t rx = socket_bound(SOCK_DGRAM), tx = socket_bound(SOCK_DGRAM);
    sockaddr_in to = loopback(port_of(st_netfd_fileno(rx)));
    const int n = 8;
    char payload[n][8];
    iovec iov[n];
    st_mmsghdr msgs[n];
    memset(msgs, 0, sizeof(msgs));
    for (int i = 0; i < n; i++) {
        snprintf(payload[i], sizeof(payload[i]), "msg%d", i);
        iov[i] = {payload[i], strlen(payload[i])};
        msgs[i].msg_hdr.msg_name = &to;
        msgs[i].msg_hdr.msg_namelen = sizeof(to);
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    EXPECT_EQ(n, st_sendmmsg(tx, msgs, n, 0, kLong));
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(iov[i].iov_len, msgs[i].msg_len);
        char buf[16];
        int got = st_recvfrom(rx, buf, sizeof(buf), nullptr, nullptr, kLong);
        EXPECT_EQ(std::string(payload[i]), std::string(buf, got > 0 ? got : 0));
    }
    st_netfd_close(rx);
    st_netfd_close(tx);
}

TEST_F(StIoTest, PollOnPlainFds)
{
    int p1[2], p2[2];
    ASSERT_EQ(0, pipe(p1));
    ASSERT_EQ(0, pipe(p2));
    pollfd pds[2] = {{p1[0], POLLIN, 0}, {p2[0], POLLIN, 0}};
    EXPECT_EQ(0, st_poll(pds, 2, 10 * 1000));  // nothing to read: times out with 0

    st_thread_t writer = spawn([&] {
        st_usleep(2000);
        EXPECT_EQ(1, write(p2[1], "x", 1));
    });
    st_utime_t start = st_utime();
    EXPECT_EQ(1, st_poll(pds, 2, kLong));
    EXPECT_EQ(0, pds[0].revents);
    EXPECT_TRUE(pds[1].revents & POLLIN);
    EXPECT_LT(st_utime() - start, 2 * 1000 * 1000u);
    join(writer);

    // Already ready: returns at once, without waiting for an edge.
    EXPECT_EQ(1, st_poll(pds, 2, kLong));
    pollfd out = {p1[1], POLLOUT, 0};
    EXPECT_EQ(1, st_poll(&out, 1, 0));
    EXPECT_TRUE(out.revents & POLLOUT);
    for (int fd : {p1[0], p1[1], p2[0], p2[1]})
        close(fd);
}

TEST_F(StIoTest, NetfdPoll)
{
    Pair p;
    make_pair(&p);
    EXPECT_EQ(0, st_netfd_poll(p.a, POLLOUT, kLong));
    EXPECT_EQ(-1, st_netfd_poll(p.a, POLLIN, 10 * 1000));
    EXPECT_EQ(ETIME, errno);

    // A poller and a reader on one netfd are both woken by the same data.
    int poll_rv = -1;
    ssize_t read_rv = -1;
    st_thread_t poller = spawn([&] { poll_rv = st_netfd_poll(p.a, POLLIN, kLong); });
    st_thread_t reader = spawn([&] {
        char c;
        read_rv = st_read(p.a, &c, 1, kLong);
    });
    st_usleep(1000);
    EXPECT_EQ(1, st_write(p.b, "q", 1, kLong));
    join(poller);
    join(reader);
    EXPECT_EQ(0, poll_rv);
    EXPECT_EQ(1, read_rv);
}

TEST_F(StIoTest, InterruptWakesPoll)
{
    int fds[2];
    ASSERT_EQ(0, pipe(fds));
    expect_interrupted([&] {
        pollfd pd = {fds[0], POLLIN, 0};
        return st_poll(&pd, 1, ST_UTIME_NO_TIMEOUT);
    });
    close(fds[0]);
    close(fds[1]);
}

}  // namespace
