// RtmpTransport's merged read over loopback TCP: the wait follows a read that
// emptied the socket, however many bytes that read took.
#include "app/upstream/rtmp_transport.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "io/runtime.hpp"
#include "io/socket.hpp"

using namespace srs;

namespace {

constexpr utime_t kTimeout = 5 * kUsPerSecond;

RtmpMessage audio(uint32_t timestamp, size_t size) {
    RtmpMessage m;
    m.type = kRtmpAudio;
    m.timestamp = timestamp;
    m.stream_id = 1;
    m.cs_id = 4;
    std::string body(size, static_cast<char>(0xaf));
    m.payload = SharedBytes::copy_of(body.data(), body.size());
    return m;
}

}  // namespace

// An 8 KiB message is a read of more than 4 KiB that still emptied the socket:
// the next read waits (SRS's "under 4 KiB" rule would read again at once and
// wait only after the next, small, read: two reads per wait).
TEST(RtmpTransportMergedRead, WaitsAfterAReadThatEmptiedTheSocketWhateverItsSize) {
    ASSERT_TRUE(init_runtime().ok());
    TcpListener listener("127.0.0.1", 0);
    ASSERT_TRUE(listener.listen().ok());
    TcpConn* raw = nullptr;
    ASSERT_TRUE(TcpConn::connect("127.0.0.1", listener.port(), kTimeout, &raw).ok());
    std::unique_ptr<TcpConn> client(raw);
    ASSERT_TRUE(listener.accept(&raw, kTimeout).ok());
    std::unique_ptr<TcpConn> server(raw);
    server->set_recv_timeout(kTimeout);

    RtmpTransport out(client.get());
    RtmpTransport in(server.get());
    const utime_t kWait = 300 * kUsPerMs;
    in.set_merged_read(kWait);

    ASSERT_TRUE(out.send_message(audio(0, 8192)).ok());
    RtmpMessage got;
    utime_t start = monotonic_us();
    ASSERT_TRUE(in.recv_message(&got).ok());
    EXPECT_EQ(8192u, got.payload.size());
    EXPECT_LT(monotonic_us() - start, kWait);  // the first read never waits

    ASSERT_TRUE(out.send_message(audio(20, 100)).ok());
    start = monotonic_us();
    ASSERT_TRUE(in.recv_message(&got).ok());
    EXPECT_EQ(100u, got.payload.size());
    EXPECT_GE(monotonic_us() - start, kWait - 20 * kUsPerMs);

    // Off: read as it comes.
    in.set_merged_read(0);
    ASSERT_TRUE(out.send_message(audio(40, 100)).ok());
    start = monotonic_us();
    ASSERT_TRUE(in.recv_message(&got).ok());
    EXPECT_LT(monotonic_us() - start, kWait);
}
