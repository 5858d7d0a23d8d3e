// TCP and UDP sockets on the coroutine runtime. Every blocking call takes the
// socket's timeout (microseconds; -1 waits forever) and fails with
// kErrorSocketTimeout when it passes, kErrorSocketClosed at EOF, and
// kErrorThreadInterrupted when the coroutine was interrupted.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cstdint>
#include <string>

#include "core/clock.hpp"
#include "core/error.hpp"

namespace srs {

struct Endpoint {
    std::string ip;
    int port = 0;
    std::string to_string() const;
};

// Resolves "ip" + port into a sockaddr (numeric addresses only: no DNS on
// the main thread).
Error make_sockaddr(const std::string& ip, int port, sockaddr_storage* addr, socklen_t* len);
Endpoint endpoint_of(const sockaddr* addr);

class TcpConn {
  public:
    // Takes ownership of a connected socket fd.
    static Error adopt(int fd, TcpConn** out);
    // Connects with a timeout.
    static Error connect(const std::string& ip, int port, utime_t timeout_us, TcpConn** out);
    ~TcpConn();
    TcpConn(const TcpConn&) = delete;
    TcpConn& operator=(const TcpConn&) = delete;

    void set_recv_timeout(utime_t us) { recv_timeout_ = us; }
    void set_send_timeout(utime_t us) { send_timeout_ = us; }
    utime_t recv_timeout() const { return recv_timeout_; }
    utime_t send_timeout() const { return send_timeout_; }

    // Reads what is there (at least one byte).
    Error read(void* buf, size_t size, size_t* nread);
    Error read_fully(void* buf, size_t size);
    // Reads what is there (at least one byte) into msg's buffers with
    // recvmsg(2), so ancillary data the socket was asked for (SO_TIMESTAMPNS:
    // the kernel's receive time) lands in msg->msg_control. Same timeout and
    // errors as read().
    Error recvmsg(struct msghdr* msg, size_t* nread);
    // Reads what is there without waiting; *nread is 0 when nothing is.
    Error read_nowait(void* buf, size_t size, size_t* nread);
    Error write(const void* buf, size_t size);
    Error writev(const struct iovec* iov, int iovcnt, size_t* nwritten = nullptr);
    // Writes all of buf with MSG_MORE: the kernel holds a short tail back for
    // the bytes that follow (a head before its sendfile body), instead of two
    // TCP_CORK setsockopt calls around them. The next send without the flag
    // pushes it.
    Error write_more(const void* buf, size_t size);
    // Bytes the caller sent on fd() itself (sendfile), for send_bytes().
    void count_sent(uint64_t n) { send_bytes_ += n; }

    int fd() const;
    const Endpoint& peer() const { return peer_; }
    uint64_t recv_bytes() const { return recv_bytes_; }
    uint64_t send_bytes() const { return send_bytes_; }
    Error set_nodelay(bool on);
    Error set_send_buffer(int bytes);
    // SO_RCVLOWAT: epoll reports the socket readable only once this many
    // bytes are queued (or on EOF); a non-blocking read still returns what is
    // there. Setting it back lower wakes a reader if enough is queued.
    Error set_recv_lowat(int bytes);
    void close();

  private:
    friend class TcpListener;
    TcpConn() = default;
    static TcpConn* from_netfd(void* netfd);
    Error io_error(const char* what, ssize_t n) const;
    void* netfd_ = nullptr;  // st_netfd_t
    Endpoint peer_;
    utime_t recv_timeout_ = -1;
    utime_t send_timeout_ = -1;
    uint64_t recv_bytes_ = 0;
    uint64_t send_bytes_ = 0;
};

class TcpListener {
  public:
    TcpListener(std::string ip, int port) : ip_(std::move(ip)), port_(port) {}
    ~TcpListener();
    TcpListener(const TcpListener&) = delete;
    TcpListener& operator=(const TcpListener&) = delete;

    // Binds with SO_REUSEADDR and SO_REUSEPORT (several processes may share a port).
    Error listen(int backlog = 1024);
    // Waits for a connection (timeout_us < 0: forever).
    Error accept(TcpConn** out, utime_t timeout_us = -1);
    void close();
    const std::string& ip() const { return ip_; }
    int port() const { return port_; }  // the bound port (resolved when 0 was asked)
    int fd() const;

  private:
    std::string ip_;
    int port_;
    void* netfd_ = nullptr;
};

class UdpSocket {
  public:
    ~UdpSocket();
    // Binds with SO_REUSEPORT; port 0 binds a fresh ephemeral port of its own
    // (no SO_REUSEADDR/SO_REUSEPORT, so no other socket shares it).
    static Error bind(const std::string& ip, int port, UdpSocket** out);
    Error recvfrom(void* buf, size_t size, size_t* nread, sockaddr_storage* from, socklen_t* fromlen,
                   utime_t timeout_us = -1);
    Error sendto(const void* buf, size_t size, const sockaddr* to, socklen_t tolen, utime_t timeout_us = -1);
    int fd() const;
    int port() const { return port_; }

  private:
    UdpSocket() = default;
    void* netfd_ = nullptr;
    int port_ = 0;
};

}  // namespace srs
