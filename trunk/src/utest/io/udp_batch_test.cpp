// The WebRTC UDP socket: batching both ways, the local address of each
// datagram and answering from it, timeouts, truncation, interruption, and the
// interface list for candidates. Loopback carries the whole of 127/8, so a
// socket bound to 0.0.0.0 can be reached at 127.0.0.2 as well as 127.0.0.1.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "io/socket.hpp"
#include "io/udp_batch.hpp"
#include "utest/coroutine_fn.hpp"

using namespace srs;

namespace {

class UdpBatchTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

using utest::FnHandler;

std::unique_ptr<UdpBatchSocket> bind_or_die(const std::string& ip, int rcvbuf = 0) {
    UdpBatchSocket* raw = nullptr;
    Error err = UdpBatchSocket::bind(ip, 0, false, rcvbuf, 0, &raw);
    EXPECT_TRUE(err.ok()) << err.describe();
    return std::unique_ptr<UdpBatchSocket>(raw);
}

sockaddr_storage addr_of(const std::string& ip, int port, socklen_t* len) {
    sockaddr_storage a;
    EXPECT_TRUE(make_sockaddr(ip, port, &a, len).ok());
    return a;
}

Endpoint endpoint(const sockaddr_storage& a) { return endpoint_of(reinterpret_cast<const sockaddr*>(&a)); }

bool has_ipv6_loopback() {
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) < 0) return false;
    bool found = false;
    for (ifaddrs* it = list; it; it = it->ifa_next) {
        if (it->ifa_addr && it->ifa_addr->sa_family == AF_INET6 &&
            IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(it->ifa_addr)->sin6_addr)) {
            found = true;
        }
    }
    freeifaddrs(list);
    return found;
}

// Receives until `want` datagrams came or a wait of 1 s passes empty.
std::vector<std::vector<uint8_t>> receive_all(UdpBatchSocket* s, size_t want, int* batches) {
    std::vector<std::vector<uint8_t>> got;
    *batches = 0;
    while (got.size() < want) {
        int n = 0;
        Error err = s->recv_batch(kUsPerSecond, &n);
        EXPECT_TRUE(err.ok()) << err.describe();
        if (!err.ok() || n == 0) break;
        (*batches)++;
        for (int i = 0; i < n; i++) {
            const UdpRecvDatagram& d = s->datagram(i);
            got.emplace_back(d.data, d.data + d.size);
        }
    }
    return got;
}

}  // namespace

TEST_F(UdpBatchTest, TwoHundredDatagramsArriveWholeInOrderInFewBatches) {
    auto a = bind_or_die("127.0.0.1");
    auto b = bind_or_die("127.0.0.1", 1 << 20);  // room for all 200 before the first read
    ASSERT_TRUE(a && b);
    ASSERT_GT(b->port(), 0);
    ASSERT_NE(a->port(), b->port());

    socklen_t to_len;
    sockaddr_storage to = addr_of("127.0.0.1", b->port(), &to_len);
    // Sizes 1..1400 and a sequence number in every datagram.
    std::vector<std::vector<uint8_t>> sent(200);
    for (size_t i = 0; i < sent.size(); i++) {
        sent[i].assign(1 + (i * 37) % 1400, static_cast<uint8_t>(i));
        sent[i][0] = static_cast<uint8_t>(i);
        a->queue(sent[i].data(), sent[i].size(), reinterpret_cast<sockaddr*>(&to), to_len, nullptr);
    }
    EXPECT_EQ(a->queued(), 200u);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    EXPECT_EQ(a->queued(), 0u);
    EXPECT_EQ(a->stats().send_packets, 200u);
    EXPECT_EQ(a->stats().send_calls, 4u);  // ceil(200 / 64)
    EXPECT_EQ(a->stats().send_drops, 0u);
    size_t bytes = 0;
    for (auto& s : sent) bytes += s.size();
    EXPECT_EQ(a->stats().send_bytes, bytes);

    int batches = 0;
    auto got = receive_all(b.get(), sent.size(), &batches);
    ASSERT_EQ(got.size(), sent.size());
    for (size_t i = 0; i < sent.size(); i++) EXPECT_EQ(got[i], sent[i]) << "datagram " << i;
    EXPECT_LE(batches, 8);
    EXPECT_EQ(b->stats().recv_packets, 200u);
    EXPECT_EQ(b->stats().recv_bytes, bytes);
    EXPECT_LE(b->stats().recv_calls, 8u);
    EXPECT_EQ(b->stats().recv_truncated, 0u);

    // Each datagram says who sent it and where it went.
    int n = 0;
    a->queue(sent[1].data(), sent[1].size(), reinterpret_cast<sockaddr*>(&to), to_len, nullptr);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    ASSERT_TRUE(b->recv_batch(kUsPerSecond, &n).ok());
    ASSERT_EQ(n, 1);
    const UdpRecvDatagram& d = b->datagram(0);
    EXPECT_EQ(endpoint(d.from).ip, "127.0.0.1");
    EXPECT_EQ(endpoint(d.from).port, a->port());
    EXPECT_EQ(d.from_len, sizeof(sockaddr_in));
    ASSERT_TRUE(d.has_local);
    EXPECT_EQ(endpoint(d.local).ip, "127.0.0.1");
    EXPECT_EQ(endpoint(d.local).port, b->port());
    EXPECT_GT(d.ifindex, 0);
}

TEST_F(UdpBatchTest, AnswerLeavesFromTheAddressTheRequestWentTo) {
    auto server = bind_or_die("0.0.0.0");
    auto client = bind_or_die("127.0.0.1");
    ASSERT_TRUE(server && client);

    socklen_t len;
    sockaddr_storage to = addr_of("127.0.0.2", server->port(), &len);
    const uint8_t ping[] = {'p', 'i', 'n', 'g'};
    client->queue(ping, sizeof(ping), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(client->flush(kUsPerSecond).ok());

    int n = 0;
    ASSERT_TRUE(server->recv_batch(kUsPerSecond, &n).ok());
    ASSERT_EQ(n, 1);
    UdpRecvDatagram req = server->datagram(0);
    ASSERT_TRUE(req.has_local);
    EXPECT_EQ(endpoint(req.local).ip, "127.0.0.2");
    EXPECT_EQ(endpoint(req.local).port, server->port());

    // With from_local the answer leaves from 127.0.0.2; without it the kernel
    // picks 127.0.0.1 for a peer at 127.0.0.1 (which a real peer would drop).
    const uint8_t pong[] = {'p', 'o', 'n', 'g'};
    server->queue(pong, sizeof(pong), reinterpret_cast<sockaddr*>(&req.from), req.from_len, &req.local);
    server->queue(pong, 3, reinterpret_cast<sockaddr*>(&req.from), req.from_len, nullptr);
    ASSERT_TRUE(server->flush(kUsPerSecond).ok());
    EXPECT_EQ(server->stats().send_drops, 0u);

    int batches = 0;
    std::vector<Endpoint> from;
    for (int tries = 0; from.size() < 2 && tries < 2; tries++) {
        ASSERT_TRUE(client->recv_batch(kUsPerSecond, &n).ok());
        for (int i = 0; i < n; i++) from.push_back(endpoint(client->datagram(i).from));
        batches++;
    }
    ASSERT_EQ(from.size(), 2u);
    EXPECT_EQ(from[0].ip, "127.0.0.2");
    EXPECT_EQ(from[0].port, server->port());
    EXPECT_EQ(from[1].ip, "127.0.0.1");
    EXPECT_EQ(from[1].port, server->port());
}

TEST_F(UdpBatchTest, DualStackSocketAnswersIpv4PeersFromTheirAddress) {
    if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 on this machine";
    auto server = bind_or_die("::");
    auto client = bind_or_die("127.0.0.1");
    ASSERT_TRUE(server && client);
    EXPECT_EQ(server->family(), AF_INET6);

    socklen_t len;
    sockaddr_storage to = addr_of("127.0.0.2", server->port(), &len);
    const uint8_t ping[] = {1, 2, 3};
    client->queue(ping, sizeof(ping), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(client->flush(kUsPerSecond).ok());
    int n = 0;
    ASSERT_TRUE(server->recv_batch(kUsPerSecond, &n).ok());
    ASSERT_EQ(n, 1);
    UdpRecvDatagram req = server->datagram(0);
    EXPECT_EQ(endpoint(req.from).ip, "::ffff:127.0.0.1");
    ASSERT_TRUE(req.has_local);
    EXPECT_EQ(endpoint(req.local).ip, "::ffff:127.0.0.2");

    server->queue(ping, sizeof(ping), reinterpret_cast<sockaddr*>(&req.from), req.from_len, &req.local);
    ASSERT_TRUE(server->flush(kUsPerSecond).ok());
    EXPECT_EQ(server->stats().send_drops, 0u) << strerror(server->last_send_errno());
    ASSERT_TRUE(client->recv_batch(kUsPerSecond, &n).ok());
    ASSERT_EQ(n, 1);
    EXPECT_EQ(endpoint(client->datagram(0).from).ip, "127.0.0.2");
}

TEST_F(UdpBatchTest, Ipv6LoopbackRoundTrip) {
    if (!has_ipv6_loopback()) GTEST_SKIP() << "no ::1 on this machine";
    auto a = bind_or_die("::1");
    auto b = bind_or_die("::1");
    ASSERT_TRUE(a && b);
    socklen_t len;
    sockaddr_storage to = addr_of("::1", b->port(), &len);
    const uint8_t msg[] = {'v', '6'};
    a->queue(msg, sizeof(msg), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    int n = 0;
    ASSERT_TRUE(b->recv_batch(kUsPerSecond, &n).ok());
    ASSERT_EQ(n, 1);
    const UdpRecvDatagram& d = b->datagram(0);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(d.data), d.size), "v6");
    EXPECT_EQ(endpoint(d.from).ip, "::1");
    EXPECT_EQ(endpoint(d.from).port, a->port());
    ASSERT_TRUE(d.has_local);
    EXPECT_EQ(endpoint(d.local).ip, "::1");
    EXPECT_EQ(endpoint(d.local).port, b->port());

    // Answer from the local address given back.
    UdpRecvDatagram req = d;
    b->queue(msg, 1, reinterpret_cast<sockaddr*>(&req.from), req.from_len, &req.local);
    ASSERT_TRUE(b->flush(kUsPerSecond).ok());
    EXPECT_EQ(b->stats().send_drops, 0u);
    ASSERT_TRUE(a->recv_batch(kUsPerSecond, &n).ok());
    ASSERT_EQ(n, 1);
    EXPECT_EQ(a->datagram(0).size, 1u);
}

TEST_F(UdpBatchTest, RecvTimeoutReturnsNothing) {
    auto s = bind_or_die("127.0.0.1");
    ASSERT_TRUE(s);
    int n = -1;
    utime_t t0 = monotonic_us();
    ASSERT_TRUE(s->recv_batch(30 * kUsPerMs, &n).ok());
    EXPECT_EQ(n, 0);
    EXPECT_GE(monotonic_us() - t0, 25 * kUsPerMs);
    n = -1;
    ASSERT_TRUE(s->recv_batch(0, &n).ok());  // a poll, no wait
    EXPECT_EQ(n, 0);
    EXPECT_EQ(s->stats().recv_packets, 0u);
}

TEST_F(UdpBatchTest, OversizeDatagramIsCountedAndNotDelivered) {
    auto a = bind_or_die("127.0.0.1");
    auto b = bind_or_die("127.0.0.1");
    ASSERT_TRUE(a && b);
    socklen_t len;
    sockaddr_storage to = addr_of("127.0.0.1", b->port(), &len);
    std::vector<uint8_t> exact(kUdpMaxDatagram, 0xaa), over(kUdpMaxDatagram + 1, 0xbb), small(10, 0xcc);
    a->queue(over.data(), over.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    a->queue(exact.data(), exact.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    a->queue(over.data(), over.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    a->queue(small.data(), small.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());

    int batches = 0;
    auto got = receive_all(b.get(), 2, &batches);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0], exact);
    EXPECT_EQ(got[1], small);
    EXPECT_EQ(b->stats().recv_truncated, 2u);
    EXPECT_EQ(b->stats().recv_packets, 2u);

    // Only truncated ones waiting: the call waits on and times out empty.
    a->queue(over.data(), over.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    int n = -1;
    ASSERT_TRUE(b->recv_batch(20 * kUsPerMs, &n).ok());
    EXPECT_EQ(n, 0);
    EXPECT_EQ(b->stats().recv_truncated, 3u);
}

TEST_F(UdpBatchTest, RefusedDatagramIsDroppedAndTheRestStillGo) {
    auto a = bind_or_die("127.0.0.1");
    auto b = bind_or_die("127.0.0.1");
    ASSERT_TRUE(a && b);
    socklen_t len;
    sockaddr_storage to = addr_of("127.0.0.1", b->port(), &len);
    std::vector<uint8_t> ok1(5, 1), too_big(70000, 2), ok2(6, 3);  // over the 65507 bytes UDP can carry
    a->queue(ok1.data(), ok1.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    a->queue(too_big.data(), too_big.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    a->queue(ok2.data(), ok2.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    EXPECT_EQ(a->queued(), 0u);
    EXPECT_EQ(a->stats().send_drops, 1u);
    EXPECT_EQ(a->stats().send_packets, 2u);
    EXPECT_EQ(a->last_send_errno(), EMSGSIZE);

    int batches = 0;
    auto got = receive_all(b.get(), 2, &batches);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0], ok1);
    EXPECT_EQ(got[1], ok2);
}

TEST_F(UdpBatchTest, QueueGrowsPastTheBatchAndIsReused) {
    auto a = bind_or_die("127.0.0.1");
    auto b = bind_or_die("127.0.0.1", 1 << 20);
    ASSERT_TRUE(a && b);
    socklen_t len;
    sockaddr_storage to = addr_of("127.0.0.1", b->port(), &len);
    uint8_t byte = 7;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 130; i++) a->queue(&byte, 1, reinterpret_cast<sockaddr*>(&to), len, nullptr);
        ASSERT_TRUE(a->flush(kUsPerSecond).ok());
        int batches = 0;
        EXPECT_EQ(receive_all(b.get(), 130, &batches).size(), 130u);
    }
    EXPECT_EQ(a->stats().send_calls, 9u);  // 3 rounds of ceil(130 / 64)
    EXPECT_EQ(a->stats().send_packets, 390u);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());  // empty: no call
    EXPECT_EQ(a->stats().send_calls, 9u);
}

// GSO: runs to one peer become single messages; what arrives is the same
// datagrams, in order, whatever the grouping.
TEST_F(UdpBatchTest, GsoRunsToOnePeerArriveAsTheSameDatagrams) {
    auto a = bind_or_die("127.0.0.1");
    auto b = bind_or_die("127.0.0.1", 1 << 20);
    auto c = bind_or_die("127.0.0.1", 1 << 20);
    ASSERT_TRUE(a && b && c);
    if (!a->set_gso(true)) GTEST_SKIP() << "no UDP_SEGMENT in this kernel";
    socklen_t lb, lc;
    sockaddr_storage tb = addr_of("127.0.0.1", b->port(), &lb);
    sockaddr_storage tc = addr_of("127.0.0.1", c->port(), &lc);
    std::vector<std::vector<uint8_t>> to_b, to_c;
    std::vector<std::unique_ptr<std::vector<uint8_t>>> keep;  // queued data lives until flush
    auto put = [&](sockaddr_storage* to, socklen_t len, size_t size, std::vector<std::vector<uint8_t>>* log) {
        keep.emplace_back(new std::vector<uint8_t>(size, static_cast<uint8_t>(keep.size())));
        log->push_back(*keep.back());
        a->queue(keep.back()->data(), size, reinterpret_cast<sockaddr*>(to), len, nullptr);
    };
    for (size_t n : {1200, 1200, 1200, 700}) put(&tb, lb, n, &to_b);  // a frame: one run, shorter last
    put(&tc, lc, 1200, &to_c);                                        // another peer
    for (size_t n : {1200, 1200, 500}) put(&tb, lb, n, &to_b);        // b again: a new run
    put(&tb, lb, 600, &to_b);                                         // after the shorter last: its own
    for (int i = 0; i < 70; i++) put(&tc, lc, 100, &to_c);            // past kUdpMaxGsoSegments
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    // Messages: [b x4] [c] [b x3] [b] [c x64] [c x6]: one sendmmsg.
    EXPECT_EQ(a->stats().send_calls, 1u);
    EXPECT_EQ(a->stats().send_packets, 79u);
    EXPECT_EQ(a->stats().gso_messages, 4u);
    EXPECT_EQ(a->stats().gso_segments, 77u);
    EXPECT_EQ(a->stats().send_drops, 0u);
    EXPECT_TRUE(a->gso());

    int batches = 0;
    EXPECT_EQ(receive_all(b.get(), to_b.size(), &batches), to_b);
    EXPECT_EQ(receive_all(c.get(), to_c.size(), &batches), to_c);
}

TEST_F(UdpBatchTest, GsoRunStopsAtTheByteLimitAndAtAnotherSourceAddress) {
    auto a = bind_or_die("0.0.0.0");
    auto b = bind_or_die("127.0.0.1", 4 << 20);
    ASSERT_TRUE(a && b);
    if (!a->set_gso(true)) GTEST_SKIP() << "no UDP_SEGMENT in this kernel";
    socklen_t len, l1, l2;
    sockaddr_storage to = addr_of("127.0.0.1", b->port(), &len);
    sockaddr_storage from1 = addr_of("127.0.0.1", a->port(), &l1);
    sockaddr_storage from2 = addr_of("127.0.0.2", a->port(), &l2);
    std::vector<uint8_t> big(1400, 9);
    // 60 x 1400 bytes: 42 fit in kUdpMaxGsoBytes, 18 follow.
    for (int i = 0; i < 60; i++) a->queue(big.data(), big.size(), reinterpret_cast<sockaddr*>(&to), len, &from1);
    // Same size, same peer, another local address: its own message.
    a->queue(big.data(), big.size(), reinterpret_cast<sockaddr*>(&to), len, &from2);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    EXPECT_EQ(a->stats().gso_messages, 2u);
    EXPECT_EQ(a->stats().gso_segments, 60u);
    EXPECT_EQ(a->stats().send_packets, 61u);
    EXPECT_EQ(a->stats().send_drops, 0u);

    std::vector<std::string> sources;
    while (sources.size() < 61) {
        int n = 0;
        ASSERT_TRUE(b->recv_batch(kUsPerSecond, &n).ok());
        if (n == 0) break;
        for (int i = 0; i < n; i++) {
            const UdpRecvDatagram& d = b->datagram(i);
            EXPECT_EQ(std::vector<uint8_t>(d.data, d.data + d.size), big);
            sources.push_back(endpoint(d.from).ip);
        }
    }
    ASSERT_EQ(sources.size(), 61u);
    EXPECT_EQ(sources.front(), "127.0.0.1");
    EXPECT_EQ(sources.back(), "127.0.0.2");
}

TEST_F(UdpBatchTest, RefusedGsoRunGoesOneByOne) {
    auto a = bind_or_die("127.0.0.1");
    auto b = bind_or_die("127.0.0.1", 1 << 20);
    ASSERT_TRUE(a && b);
    if (!a->set_gso(true)) GTEST_SKIP() << "no UDP_SEGMENT in this kernel";
    // A socket that sends without UDP checksums cannot use GSO: the kernel
    // refuses the run with EINVAL, as it does a run whose datagrams are over
    // the path MTU. (A device without checksum offload says EIO, which turns
    // GSO off; loopback has the offload, so that is not reproduced here.)
    int on = 1;
    ASSERT_EQ(setsockopt(a->fd(), SOL_SOCKET, SO_NO_CHECK, &on, sizeof(on)), 0);
    socklen_t len;
    sockaddr_storage to = addr_of("127.0.0.1", b->port(), &len);
    std::vector<std::vector<uint8_t>> sent;
    for (int i = 0; i < 3; i++) sent.emplace_back(1000, static_cast<uint8_t>(i));
    for (auto& d : sent) a->queue(d.data(), d.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    EXPECT_TRUE(a->gso());  // a route's refusal, not the device's
    EXPECT_EQ(a->gso_disabled_errno(), 0);
    EXPECT_EQ(a->stats().gso_refused, 1u);
    EXPECT_EQ(a->stats().send_packets, 3u);
    EXPECT_EQ(a->stats().gso_messages, 0u);
    EXPECT_EQ(a->stats().send_drops, 0u);
    int batches = 0;
    EXPECT_EQ(receive_all(b.get(), sent.size(), &batches), sent);
    // With checksums back, the next run goes as one message.
    int off = 0;
    ASSERT_EQ(setsockopt(a->fd(), SOL_SOCKET, SO_NO_CHECK, &off, sizeof(off)), 0);
    for (auto& d : sent) a->queue(d.data(), d.size(), reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    EXPECT_EQ(a->stats().send_packets, 6u);
    EXPECT_EQ(a->stats().gso_messages, 1u);
    EXPECT_EQ(a->stats().gso_refused, 1u);
    EXPECT_EQ(receive_all(b.get(), sent.size(), &batches), sent);
}

TEST_F(UdpBatchTest, WaitingReceiverIsInterrupted) {
    auto s = bind_or_die("127.0.0.1");
    ASSERT_TRUE(s);
    FnHandler h([&]() -> Error {
        int n = 0;
        return s->recv_batch(-1, &n);
    });
    Coroutine co("udp-reader", &h);
    ASSERT_TRUE(co.start().ok());
    yield_now();
    co.stop();
    EXPECT_EQ(co.take_error().code(), kErrorThreadInterrupted);
}

TEST_F(UdpBatchTest, ReaderCoroutineWakesWhenADatagramArrives) {
    auto a = bind_or_die("127.0.0.1");
    auto b = bind_or_die("127.0.0.1");
    ASSERT_TRUE(a && b);
    int got = -1;
    FnHandler h([&]() -> Error {
        int n = 0;
        if (Error err = b->recv_batch(5 * kUsPerSecond, &n); !err.ok()) return err;
        got = n;
        return Error();
    });
    Coroutine co("udp-reader", &h);
    ASSERT_TRUE(co.start().ok());
    yield_now();  // the reader is parked in recv_batch now
    EXPECT_EQ(got, -1);
    socklen_t len;
    sockaddr_storage to = addr_of("127.0.0.1", b->port(), &len);
    uint8_t byte = 1;
    a->queue(&byte, 1, reinterpret_cast<sockaddr*>(&to), len, nullptr);
    ASSERT_TRUE(a->flush(kUsPerSecond).ok());
    for (int i = 0; i < 100 && got < 0; i++) ASSERT_TRUE(sleep_us(kUsPerMs).ok());
    co.stop();
    EXPECT_TRUE(co.take_error().ok());
    EXPECT_EQ(got, 1);
}

TEST_F(UdpBatchTest, BindFailures) {
    UdpBatchSocket* raw = nullptr;
    EXPECT_EQ(UdpBatchSocket::bind("not-an-ip", 0, false, 0, 0, &raw).code(), kErrorSocketCreate);
    auto a = bind_or_die("127.0.0.1");
    ASSERT_TRUE(a);
    // The port is taken and neither asked to share it.
    EXPECT_EQ(UdpBatchSocket::bind("127.0.0.1", a->port(), false, 0, 0, &raw).code(), kErrorSocketBind);
    // Two that both ask for SO_REUSEPORT share it.
    UdpBatchSocket *r1 = nullptr, *r2 = nullptr;
    ASSERT_TRUE(UdpBatchSocket::bind("127.0.0.1", 0, true, 0, 0, &r1).ok());
    std::unique_ptr<UdpBatchSocket> s1(r1);
    ASSERT_TRUE(UdpBatchSocket::bind("127.0.0.1", s1->port(), true, 0, 0, &r2).ok());
    std::unique_ptr<UdpBatchSocket> s2(r2);
    EXPECT_EQ(s1->port(), s2->port());
}

TEST_F(UdpBatchTest, BufferSizesAreAskedFor) {
    UdpBatchSocket* raw = nullptr;
    ASSERT_TRUE(UdpBatchSocket::bind("127.0.0.1", 0, false, 64 * 1024, 32 * 1024, &raw).ok());
    std::unique_ptr<UdpBatchSocket> s(raw);
    // Linux books twice what was asked (room for its own overhead); both asks
    // are below any net.core.[rw]mem_max and differ from the defaults.
    EXPECT_EQ(s->rcvbuf(), 2 * 64 * 1024);
    EXPECT_EQ(s->sndbuf(), 2 * 32 * 1024);
}

TEST_F(UdpBatchTest, InterfaceAddressesAreParseable) {
    for (auto [v4, v6] : {std::pair{true, true}, {true, false}, {false, true}}) {
        std::vector<std::string> addrs = detect_interface_addresses(v4, v6);
        if (v4) {
            EXPECT_FALSE(addrs.empty());  // at least loopback
        }
        for (const std::string& a : addrs) {
            uint8_t buf[16];
            bool is4 = inet_pton(AF_INET, a.c_str(), buf) == 1;
            bool is6 = inet_pton(AF_INET6, a.c_str(), buf) == 1;
            EXPECT_TRUE(is4 || is6) << a;
            if (is4) {
                EXPECT_TRUE(v4) << a;
            }
            if (is6) {
                EXPECT_TRUE(v6) << a;
                EXPECT_NE(a.rfind("fe80:", 0), 0u) << "link-local " << a;
            }
        }
        // Loopback appears only when nothing else is up.
        auto is_loopback = [](const std::string& a) { return a.rfind("127.", 0) == 0 || a == "::1"; };
        bool other = false;
        for (const std::string& a : addrs) other = other || !is_loopback(a);
        if (other) {
            for (const std::string& a : addrs) EXPECT_FALSE(is_loopback(a)) << a;
        }
    }
    EXPECT_TRUE(detect_interface_addresses(false, false).empty());
}
