// sendfile to a runtime socket: a file bigger than the socket buffers (the
// EAGAIN/writable loop), a range, a file shorter than the range asked for,
// a peer that leaves mid-file, and the page cache warmed on the worker.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "io/blocking_worker.hpp"
#include "io/coroutine.hpp"
#include "io/file_sender.hpp"
#include "io/runtime.hpp"
#include "io/socket.hpp"
#include "utest/coroutine_fn.hpp"

using namespace srs;
using utest::FnHandler;

namespace {

class FileSenderTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(init_runtime().ok());
        signal(SIGPIPE, SIG_IGN);  // as the server does (signal_pipe)
        // On disk (the build dir), not tmpfs: the page-cache check has
        // something to look at.
        char path[] = "./file_sender_XXXXXX";
        fd_ = mkstemp(path);
        ASSERT_GE(fd_, 0);
        path_ = path;
        data_.resize(3 * 1024 * 1024 + 123);  // > the 1 MiB piece and any socket buffer
        for (size_t i = 0; i < data_.size(); i++) data_[i] = static_cast<char>(i * 13 + i / 4099);
        ASSERT_EQ(write(fd_, data_.data(), data_.size()), static_cast<ssize_t>(data_.size()));
    }
    void TearDown() override {
        if (fd_ >= 0) close(fd_);
        unlink(path_.c_str());
    }
    // A connected pair: the server side (where the file goes) and a client.
    void connect_pair(std::unique_ptr<TcpConn>* server, std::unique_ptr<TcpConn>* client) {
        TcpListener listener("127.0.0.1", 0);
        ASSERT_TRUE(listener.listen().ok());
        TcpConn* c = nullptr;
        ASSERT_TRUE(TcpConn::connect("127.0.0.1", listener.port(), kUsPerSecond, &c).ok());
        client->reset(c);
        TcpConn* s = nullptr;
        ASSERT_TRUE(listener.accept(&s, kUsPerSecond).ok());
        server->reset(s);
        (*server)->set_send_timeout(5 * kUsPerSecond);
        (*client)->set_recv_timeout(5 * kUsPerSecond);
    }
    int fd_ = -1;
    std::string path_;
    std::vector<char> data_;
};

}  // namespace

TEST_F(FileSenderTest, AWholeFileAndARangeArriveIntact) {
    BlockingWorker worker;
    ASSERT_TRUE(worker.start().ok());
    std::unique_ptr<TcpConn> server, client;
    connect_pair(&server, &client);
    uint64_t sent_all = 0, sent_range = 0;
    const uint64_t range_at = 1000001, range_len = 1500000;
    FnHandler sender([&]() -> Error {
        if (Error err = send_file_range(server.get(), fd_, 0, data_.size(), &worker, &sent_all); !err.ok()) return err;
        return send_file_range(server.get(), fd_, range_at, range_len, &worker, &sent_range);
    });
    Coroutine co("sender", &sender);
    ASSERT_TRUE(co.start().ok());
    // The reader is slower than the sender: the socket fills, the sender
    // waits for it to be writable and goes on.
    std::vector<char> got(data_.size());
    ASSERT_TRUE(client->read_fully(got.data(), got.size()).ok());
    EXPECT_TRUE(got == data_);
    std::vector<char> piece(range_len);
    ASSERT_TRUE(client->read_fully(piece.data(), piece.size()).ok());
    EXPECT_EQ(0, memcmp(piece.data(), data_.data() + range_at, range_len));
    co.stop();
    EXPECT_TRUE(co.take_error().ok());
    EXPECT_EQ(sent_all, data_.size());
    EXPECT_EQ(sent_range, range_len);
    worker.stop();
}

TEST_F(FileSenderTest, AFileShorterThanTheRangeIsAReadError) {
    std::unique_ptr<TcpConn> server, client;
    connect_pair(&server, &client);
    ASSERT_EQ(ftruncate(fd_, 5000), 0);  // shrank after its size was taken
    uint64_t sent = 0;
    Error err = send_file_range(server.get(), fd_, 0, 20000, nullptr, &sent);
    EXPECT_EQ(err.code(), kErrorFileRead);
    err.ignore();
    EXPECT_EQ(sent, 5000u);
    std::vector<char> got(5000);
    ASSERT_TRUE(client->read_fully(got.data(), got.size()).ok());
    EXPECT_EQ(0, memcmp(got.data(), data_.data(), got.size()));
    // A range that starts past the end sends nothing.
    err = send_file_range(server.get(), fd_, 6000, 10, nullptr, &sent);
    EXPECT_EQ(err.code(), kErrorFileRead);
    err.ignore();
    EXPECT_EQ(sent, 0u);
}

TEST_F(FileSenderTest, AHeadWithMsgMoreLeavesBeforeTheFileAndBothAreCounted) {
    std::unique_ptr<TcpConn> server, client;
    connect_pair(&server, &client);
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n";
    ASSERT_TRUE(server->write_more(head.data(), head.size()).ok());
    uint64_t sent = 0;
    ASSERT_TRUE(send_file_range(server.get(), fd_, 100, 3000, nullptr, &sent).ok());
    EXPECT_EQ(sent, 3000u);
    // The connection's byte count has the head and the sendfile bytes.
    EXPECT_EQ(server->send_bytes(), head.size() + 3000u);
    std::vector<char> got(head.size() + 3000);
    ASSERT_TRUE(client->read_fully(got.data(), got.size()).ok());
    EXPECT_EQ(0, memcmp(got.data(), head.data(), head.size()));
    EXPECT_EQ(0, memcmp(got.data() + head.size(), data_.data() + 100, 3000));
}

TEST_F(FileSenderTest, APeerThatLeavesMidFileEndsTheSendWithoutAHang) {
    std::unique_ptr<TcpConn> server, client;
    connect_pair(&server, &client);
    uint64_t sent = 0;
    Error result;
    bool done = false;
    FnHandler sender([&]() -> Error {
        // Ten times the file: far more than the socket buffers hold.
        for (int i = 0; i < 10 && result.ok(); i++) {
            uint64_t n = 0;
            result = send_file_range(server.get(), fd_, 0, data_.size(), nullptr, &n);
            sent += n;
        }
        done = true;
        return Error();
    });
    Coroutine co("sender", &sender);
    ASSERT_TRUE(co.start().ok());
    std::vector<char> got(64 * 1024);
    ASSERT_TRUE(client->read_fully(got.data(), got.size()).ok());
    client->close();  // unread bytes queued: the server's side is reset
    utime_t deadline = monotonic_us() + 5 * kUsPerSecond;
    while (!done && monotonic_us() < deadline) sleep_us(10 * kUsPerMs).ignore();
    ASSERT_TRUE(done);
    EXPECT_EQ(result.code(), kErrorSocketClosed) << result.summary();
    result.ignore();
    EXPECT_LT(sent, 10 * data_.size());
    co.stop();
    EXPECT_TRUE(co.take_error().ok());
}

TEST_F(FileSenderTest, ASlowPeerMeetsTheSendTimeout) {
    std::unique_ptr<TcpConn> server, client;
    connect_pair(&server, &client);
    server->set_send_timeout(100 * kUsPerMs);
    ASSERT_TRUE(server->set_send_buffer(64 * 1024).ok());
    int small = 64 * 1024;
    ASSERT_EQ(setsockopt(client->fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
    uint64_t sent = 0;
    utime_t t0 = monotonic_us();
    Error err = send_file_range(server.get(), fd_, 0, data_.size(), nullptr, &sent);  // nobody reads
    EXPECT_EQ(err.code(), kErrorSocketTimeout) << err.summary();
    err.ignore();
    EXPECT_GE(monotonic_us() - t0, 90 * kUsPerMs);
    EXPECT_GT(sent, 0u);
    EXPECT_LT(sent, data_.size());
}

TEST_F(FileSenderTest, ASealedMemoryFileHoldsTheBytesAndRefusesChanges) {
    std::string bytes(200000, '\0');
    for (size_t i = 0; i < bytes.size(); i++) bytes[i] = static_cast<char>(i * 31 + 7);
    int mem = sealed_memory_file("hls", bytes.data(), bytes.size());
    ASSERT_GE(mem, 0);
    EXPECT_LT(write(mem, "x", 1), 0);  // sealed: no writes
    EXPECT_NE(ftruncate(mem, 10), 0);  // nor a new size
    std::unique_ptr<TcpConn> server, client;
    connect_pair(&server, &client);
    uint64_t sent = 0;
    FnHandler sender([&]() -> Error { return send_file_range(server.get(), mem, 0, bytes.size(), nullptr, &sent); });
    Coroutine co("sender", &sender);
    ASSERT_TRUE(co.start().ok());
    std::string got(bytes.size(), '\0');
    ASSERT_TRUE(client->read_fully(&got[0], got.size()).ok());
    EXPECT_EQ(got, bytes);
    co.stop();
    EXPECT_TRUE(co.take_error().ok());
    EXPECT_EQ(sent, bytes.size());
    close(mem);
    // Empty is a file too.
    int empty = sealed_memory_file("hls", "", 0);
    ASSERT_GE(empty, 0);
    close(empty);
}

TEST(FileSenderOpen, OpenBeneathStaysInsideTheFolder) {
    char dir[] = "./beneath_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::string root = dir;
    ASSERT_EQ(mkdir((root + "/sub").c_str(), 0755), 0);
    int f = open((root + "/sub/a.ts").c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(f, 0);
    ASSERT_EQ(write(f, "abc", 3), 3);
    close(f);
    ASSERT_EQ(symlink("sub/a.ts", (root + "/inside.ts").c_str()), 0);   // stays inside: fine
    ASSERT_EQ(symlink("/etc/hostname", (root + "/out.ts").c_str()), 0);  // leaves: refused
    ASSERT_EQ(symlink("../..", (root + "/sub/up").c_str()), 0);
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(dfd, 0);
    for (const char* ok : {"sub/a.ts", "inside.ts", "sub/../sub/a.ts"}) {
        int fd = open_beneath(dfd, ok);
        ASSERT_GE(fd, 0) << ok << ": " << strerror(errno);
        char buf[4] = {0};
        EXPECT_EQ(read(fd, buf, 3), 3);
        EXPECT_STREQ(buf, "abc");
        close(fd);
    }
    for (const char* bad : {"out.ts", "../x", "/etc/hostname", "sub/up/etc/hostname", "nope.ts"}) {
        int fd = open_beneath(dfd, bad);
        EXPECT_LT(fd, 0) << bad;
        if (fd >= 0) close(fd);
    }
    errno = 0;
    EXPECT_LT(open_beneath(dfd, "nope.ts"), 0);
    EXPECT_EQ(errno, ENOENT);
    EXPECT_LT(open_beneath(dfd, "out.ts"), 0);
    EXPECT_EQ(errno, EXDEV);
    close(dfd);
    for (const char* p : {"/sub/up", "/out.ts", "/inside.ts", "/sub/a.ts"}) unlink((root + p).c_str());
    rmdir((root + "/sub").c_str());
    rmdir(dir);
}
