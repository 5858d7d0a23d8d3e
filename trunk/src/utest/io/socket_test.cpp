// The io layer over the runtime: coroutine objects, TCP/UDP with timeouts,
// and signals delivered through the pipe.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <memory>
#include <set>

#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "io/signal_pipe.hpp"
#include "io/socket.hpp"
#include "utest/coroutine_fn.hpp"

using namespace srs;

namespace {

class IoTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

using utest::FnHandler;

}  // namespace

TEST_F(IoTest, CoroutineRunsAndReturnsItsError) {
    FnHandler h([] { return SRS_ERR(kErrorSocketRead, "from coroutine"); });
    Coroutine co("t", &h);
    ASSERT_TRUE(co.start().ok());
    EXPECT_EQ(co.cid().size(), 8u);
    co.stop();
    Error err = co.take_error();
    EXPECT_EQ(err.code(), kErrorSocketRead);
}

TEST_F(IoTest, StopInterruptsABlockedLoopAndPullFails) {
    int loops = 0;
    Coroutine* self = nullptr;
    FnHandler h([&] {
        while (true) {
            if (Error err = self->pull(); !err.ok()) return err;
            loops++;
            if (Error err = sleep_us(10 * kUsPerSecond); !err.ok()) return SRS_WRAP(err, "sleep");
        }
    });
    Coroutine co("sleeper", &h);
    self = &co;
    ASSERT_TRUE(co.start().ok());
    yield_now();
    utime_t t0 = monotonic_us();
    co.stop();
    EXPECT_LT(monotonic_us() - t0, 1 * kUsPerSecond);
    EXPECT_EQ(loops, 1);
    EXPECT_EQ(co.take_error().code(), kErrorThreadInterrupted);
}

TEST_F(IoTest, ContextIdFollowsTheCoroutine) {
    std::string seen;
    FnHandler h([&] {
        seen = context_id();
        return Error();
    });
    Coroutine co("cid", &h, "fixedcid");
    ASSERT_TRUE(co.start().ok());
    co.stop();
    EXPECT_EQ(seen, "fixedcid");
    EXPECT_NE(context_id(), "fixedcid");
    EXPECT_EQ(std::string(current_context_id()), context_id());
}

TEST_F(IoTest, CondWaitTimesOutAndSignals) {
    CoCond cond;
    utime_t t0 = monotonic_us();
    EXPECT_FALSE(cond.wait(20 * kUsPerMs));
    EXPECT_GE(monotonic_us() - t0, 15 * kUsPerMs);
    bool woke = false;
    FnHandler h([&] {
        woke = cond.wait(5 * kUsPerSecond);
        return Error();
    });
    Coroutine co("waiter", &h);
    ASSERT_TRUE(co.start().ok());
    yield_now();
    cond.signal();
    yield_now();  // let the waiter run before stop() interrupts it
    co.stop();
    EXPECT_TRUE(woke);
}

TEST_F(IoTest, TcpEchoWithTimeouts) {
    TcpListener listener("127.0.0.1", 0);
    ASSERT_TRUE(listener.listen().ok());
    ASSERT_GT(listener.port(), 0);

    FnHandler server([&]() -> Error {
        TcpConn* raw = nullptr;
        if (Error err = listener.accept(&raw, 5 * kUsPerSecond); !err.ok()) return err;
        std::unique_ptr<TcpConn> conn(raw);
        char buf[5];
        if (Error err = conn->read_fully(buf, 5); !err.ok()) return err;
        struct iovec iov[2] = {{buf, 2}, {buf + 2, 3}};
        return conn->writev(iov, 2);
    });
    Coroutine co("server", &server);
    ASSERT_TRUE(co.start().ok());

    TcpConn* raw = nullptr;
    ASSERT_TRUE(TcpConn::connect("127.0.0.1", listener.port(), kUsPerSecond, &raw).ok());
    std::unique_ptr<TcpConn> client(raw);
    EXPECT_EQ(client->peer().port, listener.port());
    ASSERT_TRUE(client->write("hello", 5).ok());
    char out[5];
    client->set_recv_timeout(5 * kUsPerSecond);
    ASSERT_TRUE(client->read_fully(out, 5).ok());
    EXPECT_EQ(std::string(out, 5), "hello");
    co.stop();
    EXPECT_TRUE(co.take_error().ok());

    // Nothing more comes: the server closed after echoing.
    size_t n = 0;
    EXPECT_EQ(client->read(out, 1, &n).code(), kErrorSocketClosed);
}

TEST_F(IoTest, ReadTimeoutIsReported) {
    TcpListener listener("127.0.0.1", 0);
    ASSERT_TRUE(listener.listen().ok());
    TcpConn* raw = nullptr;
    ASSERT_TRUE(TcpConn::connect("127.0.0.1", listener.port(), kUsPerSecond, &raw).ok());
    std::unique_ptr<TcpConn> client(raw);
    client->set_recv_timeout(30 * kUsPerMs);
    char c;
    size_t n;
    utime_t t0 = monotonic_us();
    EXPECT_EQ(client->read(&c, 1, &n).code(), kErrorSocketTimeout);
    EXPECT_GE(monotonic_us() - t0, 25 * kUsPerMs);
}

TEST_F(IoTest, RecvmsgBringsTheKernelReceiveTime) {
    TcpListener listener("127.0.0.1", 0);
    ASSERT_TRUE(listener.listen().ok());
    FnHandler server([&]() -> Error {
        TcpConn* raw = nullptr;
        if (Error err = listener.accept(&raw, 5 * kUsPerSecond); !err.ok()) return err;
        std::unique_ptr<TcpConn> conn(raw);
        conn->set_recv_timeout(5 * kUsPerSecond);
        char go;
        if (Error err = conn->read_fully(&go, 1); !err.ok()) return err;  // the client's option is set
        return conn->write("hello", 5);  // then closes
    });
    Coroutine co("server", &server);
    ASSERT_TRUE(co.start().ok());

    TcpConn* raw = nullptr;
    ASSERT_TRUE(TcpConn::connect("127.0.0.1", listener.port(), kUsPerSecond, &raw).ok());
    std::unique_ptr<TcpConn> client(raw);
    client->set_recv_timeout(5 * kUsPerSecond);
    const int on = 1;
    ASSERT_EQ(setsockopt(client->fd(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)), 0);
    // The kernel turns receive timestamps on from a work queue: packets that
    // arrive right after the first socket asked are not stamped.
    ASSERT_TRUE(sleep_us(50 * kUsPerMs).ok());
    const utime_t before = wall_us();
    ASSERT_TRUE(client->write("g", 1).ok());

    char buf[16];
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(struct timespec))];
    struct iovec iov = {buf, sizeof(buf)};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    size_t n = 0;
    ASSERT_TRUE(client->recvmsg(&msg, &n).ok());
    EXPECT_EQ(std::string(buf, n), std::string("hello").substr(0, n));
    EXPECT_EQ(client->recv_bytes(), n);
    utime_t kernel_us = 0;
    for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(c), sizeof(ts));
        kernel_us = static_cast<utime_t>(ts.tv_sec) * kUsPerSecond + ts.tv_nsec / 1000;
    }
    EXPECT_GE(kernel_us, before - kUsPerMs);  // the clocks' rounding
    EXPECT_LE(kernel_us, wall_us());

    // The rest, then the close; a read after it is kErrorSocketClosed as read() says.
    while (n < 5) {
        size_t more = 0;
        msg.msg_controllen = sizeof(control);
        iov = {buf + n, sizeof(buf) - n};
        ASSERT_TRUE(client->recvmsg(&msg, &more).ok());
        n += more;
    }
    EXPECT_EQ(std::string(buf, 5), "hello");
    co.stop();
    EXPECT_TRUE(co.take_error().ok());
    msg.msg_controllen = sizeof(control);
    iov = {buf, sizeof(buf)};
    EXPECT_EQ(client->recvmsg(&msg, &n).code(), kErrorSocketClosed);
}

TEST_F(IoTest, RecvmsgTimesOut) {
    TcpListener listener("127.0.0.1", 0);
    ASSERT_TRUE(listener.listen().ok());
    TcpConn* raw = nullptr;
    ASSERT_TRUE(TcpConn::connect("127.0.0.1", listener.port(), kUsPerSecond, &raw).ok());
    std::unique_ptr<TcpConn> client(raw);
    client->set_recv_timeout(30 * kUsPerMs);
    char c;
    struct iovec iov = {&c, 1};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    size_t n = 0;
    EXPECT_EQ(client->recvmsg(&msg, &n).code(), kErrorSocketTimeout);
}

TEST_F(IoTest, ConnectRefusedAndBadAddress) {
    TcpConn* raw = nullptr;
    // Port 1 on loopback: nothing listens there.
    EXPECT_EQ(TcpConn::connect("127.0.0.1", 1, kUsPerSecond, &raw).code(), kErrorSocketConnect);
    EXPECT_EQ(TcpConn::connect("not-an-ip", 80, kUsPerSecond, &raw).code(), kErrorSocketCreate);
}

TEST_F(IoTest, TwoListenersShareAPortWithReusePort) {
    TcpListener a("127.0.0.1", 0);
    ASSERT_TRUE(a.listen().ok());
    TcpListener b("127.0.0.1", a.port());
    EXPECT_TRUE(b.listen().ok());
}

TEST_F(IoTest, UdpRoundTrip) {
    UdpSocket* a_raw = nullptr;
    UdpSocket* b_raw = nullptr;
    ASSERT_TRUE(UdpSocket::bind("127.0.0.1", 0, &a_raw).ok());
    ASSERT_TRUE(UdpSocket::bind("127.0.0.1", 0, &b_raw).ok());
    std::unique_ptr<UdpSocket> a(a_raw), b(b_raw);
    sockaddr_storage to;
    socklen_t tolen;
    ASSERT_TRUE(make_sockaddr("127.0.0.1", b->port(), &to, &tolen).ok());
    ASSERT_TRUE(a->sendto("ping", 4, reinterpret_cast<sockaddr*>(&to), tolen).ok());
    char buf[16];
    size_t n = 0;
    sockaddr_storage from;
    socklen_t fromlen;
    ASSERT_TRUE(b->recvfrom(buf, sizeof(buf), &n, &from, &fromlen, kUsPerSecond).ok());
    EXPECT_EQ(std::string(buf, n), "ping");
    EXPECT_EQ(endpoint_of(reinterpret_cast<sockaddr*>(&from)).port, a->port());
    EXPECT_EQ(b->recvfrom(buf, sizeof(buf), &n, &from, &fromlen, 20 * kUsPerMs).code(), kErrorSocketTimeout);
}

// Port 0 must give every socket a port of its own: with SO_REUSEPORT on, Linux
// handed some of 2000 sockets a port another one held (900: under a
// 1024 descriptor limit, still about ten duplicates before the fix) (sb_rtc_load's players
// then got each other's STUN and SRTP).
TEST_F(IoTest, EphemeralUdpPortsAreNeverShared) {
    std::vector<std::unique_ptr<UdpSocket>> socks;
    std::set<int> ports;
    for (int i = 0; i < 900; i++) {
        UdpSocket* raw = nullptr;
        ASSERT_TRUE(UdpSocket::bind("0.0.0.0", 0, &raw).ok());
        socks.emplace_back(raw);
        EXPECT_TRUE(ports.insert(raw->port()).second) << "port " << raw->port() << " given twice";
    }
    EXPECT_EQ(ports.size(), 900u);
}

TEST_F(IoTest, SignalArrivesThroughThePipe) {
    SignalPipe pipe;
    ASSERT_TRUE(pipe.open({SIGUSR2}).ok());
    int signo = -1;
    ASSERT_TRUE(pipe.wait(&signo, 10 * kUsPerMs).ok());
    EXPECT_EQ(signo, 0);  // timeout
    kill(getpid(), SIGUSR2);
    ASSERT_TRUE(pipe.wait(&signo, kUsPerSecond).ok());
    EXPECT_EQ(signo, SIGUSR2);
    signal(SIGUSR2, SIG_DFL);
}
