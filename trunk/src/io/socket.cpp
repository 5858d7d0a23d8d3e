#include "io/socket.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "st/st.h"

namespace srs {

namespace {
st_netfd_t as_netfd(void* p) { return static_cast<st_netfd_t>(p); }
st_utime_t as_timeout(utime_t us) { return us < 0 ? ST_UTIME_NO_TIMEOUT : static_cast<st_utime_t>(us); }
}  // namespace

std::string Endpoint::to_string() const {
    if (ip.find(':') != std::string::npos) return "[" + ip + "]:" + std::to_string(port);
    return ip + ":" + std::to_string(port);
}

Error make_sockaddr(const std::string& ip, int port, sockaddr_storage* addr, socklen_t* len) {
    memset(addr, 0, sizeof(*addr));
    auto* v4 = reinterpret_cast<sockaddr_in*>(addr);
    if (inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(static_cast<uint16_t>(port));
        *len = sizeof(sockaddr_in);
        return Error();
    }
    auto* v6 = reinterpret_cast<sockaddr_in6*>(addr);
    if (inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(static_cast<uint16_t>(port));
        *len = sizeof(sockaddr_in6);
        return Error();
    }
    return SRS_ERR(kErrorSocketCreate, "not a numeric IP address: %s", ip.c_str());
}

Endpoint endpoint_of(const sockaddr* addr) {
    Endpoint ep;
    char text[INET6_ADDRSTRLEN] = {0};
    if (addr->sa_family == AF_INET) {
        auto* v4 = reinterpret_cast<const sockaddr_in*>(addr);
        inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
        ep.port = ntohs(v4->sin_port);
    } else if (addr->sa_family == AF_INET6) {
        auto* v6 = reinterpret_cast<const sockaddr_in6*>(addr);
        inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
        ep.port = ntohs(v6->sin6_port);
    }
    ep.ip = text;
    return ep;
}

// ---- TcpConn ----

Error TcpConn::adopt(int fd, TcpConn** out) {
    st_netfd_t nfd = st_netfd_open_socket(fd);
    if (!nfd) {
        ::close(fd);
        return SRS_ERR(kErrorSocketCreate, "open netfd %d: %s", fd, strerror(errno));
    }
    *out = from_netfd(nfd);
    return Error();
}

TcpConn* TcpConn::from_netfd(void* nfd) {
    auto* conn = new TcpConn();
    conn->netfd_ = nfd;
    sockaddr_storage addr;
    socklen_t len = sizeof(addr);
    if (getpeername(conn->fd(), reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
        conn->peer_ = endpoint_of(reinterpret_cast<sockaddr*>(&addr));
    }
    return conn;
}

Error TcpConn::connect(const std::string& ip, int port, utime_t timeout_us, TcpConn** out) {
    sockaddr_storage addr;
    socklen_t len;
    if (Error err = make_sockaddr(ip, port, &addr, &len); !err.ok()) return SRS_WRAP(err, "connect");
    int fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return SRS_ERR(kErrorSocketCreate, "socket: %s", strerror(errno));
    st_netfd_t nfd = st_netfd_open_socket(fd);
    if (!nfd) {
        ::close(fd);
        return SRS_ERR(kErrorSocketCreate, "open netfd: %s", strerror(errno));
    }
    if (st_connect(nfd, reinterpret_cast<sockaddr*>(&addr), len, as_timeout(timeout_us)) < 0) {
        int e = errno;
        st_netfd_close(nfd);
        if (e == ETIME) return SRS_ERR(kErrorSocketTimeout, "connect %s:%d timed out", ip.c_str(), port);
        return SRS_ERR(kErrorSocketConnect, "connect %s:%d: %s", ip.c_str(), port, strerror(e));
    }
    auto* conn = new TcpConn();
    conn->netfd_ = nfd;
    conn->peer_ = Endpoint{ip, port};
    *out = conn;
    return Error();
}

TcpConn::~TcpConn() { close(); }

void TcpConn::close() {
    if (netfd_) {
        st_netfd_close(as_netfd(netfd_));
        netfd_ = nullptr;
    }
}

int TcpConn::fd() const { return netfd_ ? st_netfd_fileno(as_netfd(netfd_)) : -1; }

Error TcpConn::io_error(const char* what, ssize_t n) const {
    if (n == 0) return SRS_ERR(kErrorSocketClosed, "%s: peer closed", what);
    if (errno == ETIME) return SRS_ERR(kErrorSocketTimeout, "%s: timed out", what);
    if (errno == EINTR) return SRS_ERR(kErrorThreadInterrupted, "%s: interrupted", what);
    // A peer that reset or went away is a close, not a failure of ours.
    if (errno == ECONNRESET || errno == EPIPE) return SRS_ERR(kErrorSocketClosed, "%s: %s", what, strerror(errno));
    int code = strcmp(what, "read") == 0 ? kErrorSocketRead : kErrorSocketWrite;
    return SRS_ERR(code, "%s: %s", what, strerror(errno));
}

Error TcpConn::read(void* buf, size_t size, size_t* nread) {
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "read: closed");
    ssize_t n = st_read(as_netfd(netfd_), buf, size, as_timeout(recv_timeout_));
    if (n <= 0) return io_error("read", n);
    recv_bytes_ += n;
    *nread = static_cast<size_t>(n);
    return Error();
}

Error TcpConn::recvmsg(struct msghdr* msg, size_t* nread) {
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "read: closed");
    int n = st_recvmsg(as_netfd(netfd_), msg, 0, as_timeout(recv_timeout_));
    if (n <= 0) return io_error("read", n);
    recv_bytes_ += n;
    *nread = static_cast<size_t>(n);
    return Error();
}

Error TcpConn::read_nowait(void* buf, size_t size, size_t* nread) {
    *nread = 0;
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "read: closed");
    ssize_t n = st_read(as_netfd(netfd_), buf, size, 0);
    if (n < 0 && errno == ETIME) return Error();
    if (n <= 0) return io_error("read", n);
    recv_bytes_ += n;
    *nread = static_cast<size_t>(n);
    return Error();
}

Error TcpConn::read_fully(void* buf, size_t size) {
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "read: closed");
    ssize_t n = st_read_fully(as_netfd(netfd_), buf, size, as_timeout(recv_timeout_));
    if (n < 0) return io_error("read", n);
    recv_bytes_ += n;
    if (static_cast<size_t>(n) != size) return SRS_ERR(kErrorSocketClosed, "read: peer closed after %zd bytes", n);
    return Error();
}

Error TcpConn::write(const void* buf, size_t size) {
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "write: closed");
    ssize_t n = st_write(as_netfd(netfd_), buf, size, as_timeout(send_timeout_));
    if (n < 0) return io_error("write", -1);
    send_bytes_ += n;
    return Error();
}

Error TcpConn::write_more(const void* buf, size_t size) {
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "write: closed");
    const char* p = static_cast<const char*>(buf);
    while (size > 0) {
        struct iovec iov = {const_cast<char*>(p), size};
        struct msghdr msg = {};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        int n = st_sendmsg(as_netfd(netfd_), &msg, MSG_MORE | MSG_NOSIGNAL, as_timeout(send_timeout_));
        if (n < 0) return io_error("write", -1);
        send_bytes_ += n;
        p += n;
        size -= static_cast<size_t>(n);
    }
    return Error();
}

Error TcpConn::writev(const struct iovec* iov, int iovcnt, size_t* nwritten) {
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "writev: closed");
    ssize_t n = st_writev(as_netfd(netfd_), iov, iovcnt, as_timeout(send_timeout_));
    if (n < 0) return io_error("writev", -1);
    send_bytes_ += n;
    if (nwritten) *nwritten = static_cast<size_t>(n);
    return Error();
}

Error TcpConn::set_nodelay(bool on) {
    int v = on ? 1 : 0;
    if (setsockopt(fd(), IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v)) < 0) {
        return SRS_ERR(kErrorSocketCreate, "TCP_NODELAY: %s", strerror(errno));
    }
    return Error();
}

Error TcpConn::set_recv_lowat(int bytes) {
    if (setsockopt(fd(), SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof(bytes)) < 0) {
        return SRS_ERR(kErrorSocketCreate, "SO_RCVLOWAT: %s", strerror(errno));
    }
    return Error();
}

Error TcpConn::set_send_buffer(int bytes) {
    if (setsockopt(fd(), SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes)) < 0) {
        return SRS_ERR(kErrorSocketCreate, "SO_SNDBUF: %s", strerror(errno));
    }
    return Error();
}

// ---- TcpListener ----

static Error open_bound_socket(const std::string& ip, int port, int type, int* out_fd, int* out_port) {
    sockaddr_storage addr;
    socklen_t len;
    if (Error err = make_sockaddr(ip, port, &addr, &len); !err.ok()) return SRS_WRAP(err, "listen");
    int fd = ::socket(addr.ss_family, type | SOCK_CLOEXEC, 0);
    if (fd < 0) return SRS_ERR(kErrorSocketCreate, "socket: %s", strerror(errno));
    // A listener's port may be shared (several processes, a restart). A UDP
    // socket on an ephemeral port (0) is a client's alone: with
    // SO_REUSEADDR/SO_REUSEPORT Linux may hand out a port another such socket
    // of the same user already holds (measured: 55 duplicates among 2000), and
    // the two then receive each other's datagrams.
    int on = 1;
    if ((type == SOCK_STREAM || port != 0) && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
                      setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) < 0)) {
        int e = errno;
        ::close(fd);
        return SRS_ERR(kErrorSocketSetReuse, "reuse %s:%d: %s", ip.c_str(), port, strerror(e));
    }
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) < 0) {
        int e = errno;
        ::close(fd);
        return SRS_ERR(kErrorSocketBind, "bind %s:%d: %s", ip.c_str(), port, strerror(e));
    }
    sockaddr_storage bound;
    socklen_t blen = sizeof(bound);
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &blen);
    *out_port = endpoint_of(reinterpret_cast<sockaddr*>(&bound)).port;
    *out_fd = fd;
    return Error();
}

TcpListener::~TcpListener() { close(); }

Error TcpListener::listen(int backlog) {
    int fd;
    if (Error err = open_bound_socket(ip_, port_, SOCK_STREAM, &fd, &port_); !err.ok()) return err;
    if (::listen(fd, backlog) < 0) {
        int e = errno;
        ::close(fd);
        return SRS_ERR(kErrorSocketListen, "listen %s:%d: %s", ip_.c_str(), port_, strerror(e));
    }
    st_netfd_t nfd = st_netfd_open_socket(fd);
    if (!nfd) {
        ::close(fd);
        return SRS_ERR(kErrorSocketListen, "open netfd: %s", strerror(errno));
    }
    netfd_ = nfd;
    return Error();
}

Error TcpListener::accept(TcpConn** out, utime_t timeout_us) {
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "accept: listener closed");
    st_netfd_t client = st_accept(as_netfd(netfd_), nullptr, nullptr, as_timeout(timeout_us));
    if (!client) {
        if (errno == ETIME) return SRS_ERR(kErrorSocketTimeout, "accept: timed out");
        if (errno == EINTR) return SRS_ERR(kErrorThreadInterrupted, "accept: interrupted");
        return SRS_ERR(kErrorSocketAccept, "accept on %d: %s", port_, strerror(errno));
    }
    *out = TcpConn::from_netfd(client);
    return Error();
}

void TcpListener::close() {
    if (netfd_) {
        st_netfd_close(as_netfd(netfd_));
        netfd_ = nullptr;
    }
}

int TcpListener::fd() const { return netfd_ ? st_netfd_fileno(as_netfd(netfd_)) : -1; }

// ---- UdpSocket ----

UdpSocket::~UdpSocket() {
    if (netfd_) st_netfd_close(as_netfd(netfd_));
}

Error UdpSocket::bind(const std::string& ip, int port, UdpSocket** out) {
    int fd, bound_port;
    if (Error err = open_bound_socket(ip, port, SOCK_DGRAM, &fd, &bound_port); !err.ok()) return err;
    st_netfd_t nfd = st_netfd_open_socket(fd);
    if (!nfd) {
        ::close(fd);
        return SRS_ERR(kErrorSocketCreate, "open netfd: %s", strerror(errno));
    }
    auto* sock = new UdpSocket();
    sock->netfd_ = nfd;
    sock->port_ = bound_port;
    *out = sock;
    return Error();
}

Error UdpSocket::recvfrom(void* buf, size_t size, size_t* nread, sockaddr_storage* from, socklen_t* fromlen,
                          utime_t timeout_us) {
    *fromlen = sizeof(*from);
    int n = st_recvfrom(as_netfd(netfd_), buf, static_cast<int>(size), reinterpret_cast<sockaddr*>(from),
                        reinterpret_cast<int*>(fromlen), as_timeout(timeout_us));
    if (n < 0) {
        if (errno == ETIME) return SRS_ERR(kErrorSocketTimeout, "recvfrom: timed out");
        if (errno == EINTR) return SRS_ERR(kErrorThreadInterrupted, "recvfrom: interrupted");
        return SRS_ERR(kErrorSocketRead, "recvfrom: %s", strerror(errno));
    }
    *nread = static_cast<size_t>(n);
    return Error();
}

Error UdpSocket::sendto(const void* buf, size_t size, const sockaddr* to, socklen_t tolen, utime_t timeout_us) {
    int n = st_sendto(as_netfd(netfd_), buf, static_cast<int>(size), to, static_cast<int>(tolen),
                      as_timeout(timeout_us));
    if (n < 0) {
        if (errno == ETIME) return SRS_ERR(kErrorSocketTimeout, "sendto: timed out");
        return SRS_ERR(kErrorSocketWrite, "sendto: %s", strerror(errno));
    }
    return Error();
}

int UdpSocket::fd() const { return netfd_ ? st_netfd_fileno(as_netfd(netfd_)) : -1; }

}  // namespace srs
