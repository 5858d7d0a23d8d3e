#include "io/udp_batch.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>

#include "io/socket.hpp"
#include "st/st.h"

namespace srs {

namespace {

st_netfd_t as_netfd(void* p) { return static_cast<st_netfd_t>(p); }
st_utime_t as_timeout(utime_t us) { return us < 0 ? ST_UTIME_NO_TIMEOUT : static_cast<st_utime_t>(us); }

// Room for the one PKTINFO message a datagram carries (the socket enables only
// the one of its family), rounded as the kernel lays cmsgs out.
constexpr size_t kRecvControlSize = CMSG_SPACE(sizeof(in6_pktinfo));
// The source address, and UDP_SEGMENT on the first datagram of a GSO run.
constexpr size_t kSendControlSize = CMSG_SPACE(sizeof(in6_pktinfo)) + CMSG_SPACE(sizeof(uint16_t));
static_assert(kRecvControlSize % alignof(cmsghdr) == 0, "control slots stay aligned");

bool would_block(int e) { return e == EAGAIN || e == EWOULDBLOCK; }

// The time left until deadline (-1: none: wait forever), never negative.
utime_t remaining(utime_t deadline) {
    if (deadline < 0) return -1;
    return std::max<utime_t>(0, deadline - monotonic_us());
}

// Waits for the socket to be ready in `events`: 0 ready, otherwise errno
// (ETIME on timeout, EINTR when interrupted, EBADF when closed).
int wait_ready(void* netfd, int events, utime_t timeout) {
    if (st_netfd_poll(as_netfd(netfd), events, as_timeout(timeout)) == 0) return 0;
    return errno;
}

Error set_int_option(int fd, int level, int name, int value, const char* what) {
    if (setsockopt(fd, level, name, &value, sizeof(value)) < 0) {
        return SRS_ERR(kErrorUdpSocketOption, "%s=%d: %s", what, value, strerror(errno));
    }
    return Error();
}

}  // namespace

struct UdpBatchSocket::SendSlot {
    sockaddr_storage to{};
    socklen_t to_len = 0;
    size_t control_len = 0;
    alignas(cmsghdr) uint8_t control[kSendControlSize];
};

UdpBatchSocket::UdpBatchSocket()
    : recv_buf_(new uint8_t[kUdpBatchSize * kUdpMaxDatagram]),
      recv_msgs_(new mmsghdr[kUdpBatchSize]()),
      recv_iov_(new iovec[kUdpBatchSize]()),
      recv_control_(new uint8_t[kUdpBatchSize * kRecvControlSize]()) {
    for (int i = 0; i < kUdpBatchSize; i++) {
        recv_iov_[i].iov_base = recv_buf_.get() + i * kUdpMaxDatagram;
        recv_iov_[i].iov_len = kUdpMaxDatagram;
        msghdr& h = recv_msgs_[i].msg_hdr;
        h.msg_name = &received_[i].from;
        h.msg_iov = &recv_iov_[i];
        h.msg_iovlen = 1;
        h.msg_control = recv_control_.get() + i * kRecvControlSize;
    }
}

UdpBatchSocket::~UdpBatchSocket() {
    if (netfd_) st_netfd_close(as_netfd(netfd_));
}

Error UdpBatchSocket::bind(const std::string& ip, int port, bool reuseport, int rcvbuf, int sndbuf,
                           UdpBatchSocket** out) {
    sockaddr_storage addr;
    socklen_t len;
    if (Error err = make_sockaddr(ip, port, &addr, &len); !err.ok()) return SRS_WRAP(err, "udp bind");
    int fd = ::socket(addr.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return SRS_ERR(kErrorSocketCreate, "udp socket for %s:%d: %s", ip.c_str(), port, strerror(errno));

    Error err;
    if (reuseport) {
        int on = 1;
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) < 0) {
            err = SRS_ERR(kErrorSocketSetReuse, "SO_REUSEPORT: %s", strerror(errno));
        }
    }
    if (err.ok() && addr.ss_family == AF_INET6) {
        // "::" takes IPv4 too (one port for both families), whatever the
        // system default (net.ipv6.bindv6only) says.
        auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
        if (IN6_IS_ADDR_UNSPECIFIED(&v6->sin6_addr)) err = set_int_option(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0, "IPV6_V6ONLY");
        // Covers IPv4 datagrams on a dual-stack socket too (as v4-mapped).
        if (err.ok()) err = set_int_option(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1, "IPV6_RECVPKTINFO");
    } else if (err.ok()) {
        err = set_int_option(fd, IPPROTO_IP, IP_PKTINFO, 1, "IP_PKTINFO");
    }
    if (err.ok() && rcvbuf > 0) err = set_int_option(fd, SOL_SOCKET, SO_RCVBUF, rcvbuf, "SO_RCVBUF");
    if (err.ok() && sndbuf > 0) err = set_int_option(fd, SOL_SOCKET, SO_SNDBUF, sndbuf, "SO_SNDBUF");
    if (err.ok() && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) < 0) {
        err = SRS_ERR(kErrorSocketBind, "bind: %s", strerror(errno));
    }
    sockaddr_storage bound;
    socklen_t blen = sizeof(bound);
    if (err.ok() && getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &blen) < 0) {
        err = SRS_ERR(kErrorSocketBind, "getsockname: %s", strerror(errno));
    }
    st_netfd_t nfd = nullptr;
    if (err.ok() && !(nfd = st_netfd_open_socket(fd))) {
        err = SRS_ERR(kErrorSocketCreate, "open netfd: %s", strerror(errno));
    }
    if (!err.ok()) {
        ::close(fd);
        return SRS_WRAP(err, "udp bind %s:%d", ip.c_str(), port);
    }

    auto* sock = new UdpBatchSocket();
    sock->netfd_ = nfd;
    sock->family_ = addr.ss_family;
    sock->port_ = endpoint_of(reinterpret_cast<sockaddr*>(&bound)).port;
    *out = sock;
    return Error();
}

int UdpBatchSocket::fd() const { return netfd_ ? st_netfd_fileno(as_netfd(netfd_)) : -1; }
int UdpBatchSocket::port() const { return port_; }
const UdpBatchSocket::Stats& UdpBatchSocket::stats() const { return stats_; }

int UdpBatchSocket::rcvbuf() const {
    int v = 0;
    socklen_t len = sizeof(v);
    return getsockopt(fd(), SOL_SOCKET, SO_RCVBUF, &v, &len) == 0 ? v : -1;
}

int UdpBatchSocket::sndbuf() const {
    int v = 0;
    socklen_t len = sizeof(v);
    return getsockopt(fd(), SOL_SOCKET, SO_SNDBUF, &v, &len) == 0 ? v : -1;
}

// ---- receive ----

Error UdpBatchSocket::recv_batch(utime_t timeout, int* n) {
    *n = 0;
    received_count_ = 0;
    if (!netfd_) return SRS_ERR(kErrorSocketClosed, "recv_batch: closed");
    utime_t deadline = timeout < 0 ? -1 : monotonic_us() + timeout;
    // st_recvmmsg takes what is there first and, after a batch that emptied
    // the socket, waits for the next input edge without a failing call.
    for (;;) {
        for (int i = 0; i < kUdpBatchSize; i++) {
            msghdr& h = recv_msgs_[i].msg_hdr;
            h.msg_namelen = sizeof(sockaddr_storage);
            h.msg_controllen = kRecvControlSize;
            h.msg_flags = 0;
        }
        int r = st_recvmmsg(as_netfd(netfd_), reinterpret_cast<st_mmsghdr*>(recv_msgs_.get()), kUdpBatchSize, 0,
                            as_timeout(remaining(deadline)));
        stats_.recv_calls++;
        if (r > 0) {
            int count = 0;
            for (int i = 0; i < r; i++) {
                msghdr& h = recv_msgs_[i].msg_hdr;
                if (h.msg_flags & MSG_TRUNC) {
                    stats_.recv_truncated++;
                    continue;
                }
                UdpRecvDatagram& d = received_[count];
                // Skipping a truncated one moves the later ones down; their
                // address was written in their own slot.
                if (count != i) d.from = received_[i].from;
                d.data = recv_buf_.get() + i * kUdpMaxDatagram;
                d.size = recv_msgs_[i].msg_len;
                d.from_len = h.msg_namelen;
                parse_control(&h, &d);
                stats_.recv_packets++;
                stats_.recv_bytes += d.size;
                count++;
            }
            if (count > 0) {
                received_count_ = *n = count;
                return Error();
            }
            continue;  // all truncated: look again within the same timeout
        }
        if (r == 0) return Error();
        int e = errno;
        if (e == ETIME) return Error();
        if (e == EINTR) return SRS_ERR(kErrorThreadInterrupted, "recv_batch: interrupted");
        if (e == EBADF) return SRS_ERR(kErrorSocketClosed, "recv_batch: closed while waiting");
        return SRS_ERR(kErrorSocketRead, "recvmmsg: %s", strerror(e));
    }
}

void UdpBatchSocket::parse_control(msghdr* hdr, UdpRecvDatagram* d) const {
    d->has_local = false;
    d->ifindex = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(hdr); c; c = CMSG_NXTHDR(hdr, c)) {
        if (family_ == AF_INET && c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
            c->cmsg_len >= CMSG_LEN(sizeof(in_pktinfo))) {
            in_pktinfo pi;
            memcpy(&pi, CMSG_DATA(c), sizeof(pi));
            sockaddr_in local{};
            local.sin_family = AF_INET;
            local.sin_port = htons(static_cast<uint16_t>(port_));
            local.sin_addr = pi.ipi_addr;  // the header's destination, not the route's
            memset(&d->local, 0, sizeof(d->local));
            memcpy(&d->local, &local, sizeof(local));
            d->ifindex = pi.ipi_ifindex;
            d->has_local = true;
        } else if (family_ == AF_INET6 && c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
                   c->cmsg_len >= CMSG_LEN(sizeof(in6_pktinfo))) {
            in6_pktinfo pi;
            memcpy(&pi, CMSG_DATA(c), sizeof(pi));
            sockaddr_in6 local{};
            local.sin6_family = AF_INET6;
            local.sin6_port = htons(static_cast<uint16_t>(port_));
            local.sin6_addr = pi.ipi6_addr;
            // A link-local address means nothing without its interface.
            if (IN6_IS_ADDR_LINKLOCAL(&pi.ipi6_addr)) local.sin6_scope_id = pi.ipi6_ifindex;
            memset(&d->local, 0, sizeof(d->local));
            memcpy(&d->local, &local, sizeof(local));
            d->ifindex = static_cast<int>(pi.ipi6_ifindex);
            d->has_local = true;
        }
    }
}

const UdpRecvDatagram& UdpBatchSocket::datagram(int i) const { return received_[i]; }

// ---- send ----

// Writes the cmsg that makes the kernel send from `from_local`'s address;
// returns its length, 0 when there is none to write (no address, or one the
// socket's family cannot use: the kernel then chooses).
size_t UdpBatchSocket::write_pktinfo(const sockaddr_storage* from_local, uint8_t* control) const {
    if (!from_local) return 0;
    memset(control, 0, kSendControlSize);
    auto* c = reinterpret_cast<cmsghdr*>(control);
    if (family_ == AF_INET) {
        in_pktinfo pi{};
        if (from_local->ss_family == AF_INET) {
            pi.ipi_spec_dst = reinterpret_cast<const sockaddr_in*>(from_local)->sin_addr;
        } else if (from_local->ss_family == AF_INET6 &&
                   IN6_IS_ADDR_V4MAPPED(&reinterpret_cast<const sockaddr_in6*>(from_local)->sin6_addr)) {
            memcpy(&pi.ipi_spec_dst, &reinterpret_cast<const sockaddr_in6*>(from_local)->sin6_addr.s6_addr[12], 4);
        } else {
            return 0;
        }
        // ipi_ifindex stays 0: the route picks the interface, pi only sets the source.
        c->cmsg_level = IPPROTO_IP;
        c->cmsg_type = IP_PKTINFO;
        c->cmsg_len = CMSG_LEN(sizeof(pi));
        memcpy(CMSG_DATA(c), &pi, sizeof(pi));
        return CMSG_SPACE(sizeof(pi));
    }
    in6_pktinfo pi{};
    if (from_local->ss_family == AF_INET6) {
        auto* v6 = reinterpret_cast<const sockaddr_in6*>(from_local);
        pi.ipi6_addr = v6->sin6_addr;
        if (IN6_IS_ADDR_LINKLOCAL(&v6->sin6_addr)) pi.ipi6_ifindex = v6->sin6_scope_id;
    } else if (from_local->ss_family == AF_INET) {
        // An IPv4 peer of a dual-stack socket: the kernel takes a v4-mapped source.
        pi.ipi6_addr.s6_addr[10] = 0xff;
        pi.ipi6_addr.s6_addr[11] = 0xff;
        memcpy(&pi.ipi6_addr.s6_addr[12], &reinterpret_cast<const sockaddr_in*>(from_local)->sin_addr, 4);
    } else {
        return 0;
    }
    c->cmsg_level = IPPROTO_IPV6;
    c->cmsg_type = IPV6_PKTINFO;
    c->cmsg_len = CMSG_LEN(sizeof(pi));
    memcpy(CMSG_DATA(c), &pi, sizeof(pi));
    return CMSG_SPACE(sizeof(pi));
}

void UdpBatchSocket::queue(const uint8_t* data, size_t size, const sockaddr* to, socklen_t to_len,
                           const sockaddr_storage* from_local) {
    if (queued_ == send_slots_.size()) {
        size_t grown = std::max<size_t>(kUdpBatchSize, send_slots_.size() * 2);
        send_slots_.resize(grown);
        send_iov_.resize(grown);
        send_msgs_.resize(grown);
        msg_first_.resize(grown);
        msg_segments_.resize(grown);
    }
    send_iov_[queued_].iov_base = const_cast<uint8_t*>(data);
    send_iov_[queued_].iov_len = size;
    SendSlot& s = send_slots_[queued_++];
    s.to_len = std::min<socklen_t>(to_len, sizeof(s.to));
    memcpy(&s.to, to, s.to_len);
    s.control_len = write_pktinfo(from_local, s.control);
}

size_t UdpBatchSocket::queued() const { return queued_; }

bool UdpBatchSocket::set_gso(bool on) {
    gso_ = false;
    if (!on || !netfd_) return false;
    // Asking for segment size 0 on the socket changes nothing and tells
    // whether this kernel knows UDP_SEGMENT (4.18 and later).
    int zero = 0;
    gso_ = setsockopt(fd(), SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero)) == 0;
    return gso_;
}

bool UdpBatchSocket::same_peer(size_t a, size_t b) const {
    const SendSlot& x = send_slots_[a];
    const SendSlot& y = send_slots_[b];
    return x.to_len == y.to_len && x.control_len == y.control_len && memcmp(&x.to, &y.to, x.to_len) == 0 &&
           memcmp(x.control, y.control, x.control_len) == 0;
}

size_t UdpBatchSocket::build_messages(size_t total) {
    size_t m = 0;
    for (size_t i = 0; i < total; m++) {
        size_t first = i++;
        size_t seg = send_iov_[first].iov_len;
        size_t bytes = seg;
        if (gso_ && seg > 0) {
            // Equal sizes; a shorter one ends the run as its last datagram.
            while (i < total && i - first < static_cast<size_t>(kUdpMaxGsoSegments) && same_peer(first, i)) {
                size_t len = send_iov_[i].iov_len;
                if (len == 0 || len > seg || bytes + len > kUdpMaxGsoBytes) break;
                bytes += len;
                i++;
                if (len < seg) break;
            }
        }
        SendSlot& s = send_slots_[first];
        size_t control_len = s.control_len;
        if (i - first > 1) {
            // Written past the source address: the slot keeps its own control
            // as it was queued, the message's is one cmsg longer.
            cmsghdr* c = reinterpret_cast<cmsghdr*>(s.control + control_len);
            memset(c, 0, CMSG_SPACE(sizeof(uint16_t)));
            c->cmsg_level = SOL_UDP;
            c->cmsg_type = UDP_SEGMENT;
            c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t gso_size = static_cast<uint16_t>(seg);
            memcpy(CMSG_DATA(c), &gso_size, sizeof(gso_size));
            control_len += CMSG_SPACE(sizeof(uint16_t));
        }
        msghdr& h = send_msgs_[m].msg_hdr;
        h.msg_name = &s.to;
        h.msg_namelen = s.to_len;
        h.msg_iov = &send_iov_[first];
        h.msg_iovlen = i - first;
        h.msg_control = control_len ? s.control : nullptr;
        h.msg_controllen = control_len;
        h.msg_flags = 0;
        send_msgs_[m].msg_len = 0;
        msg_first_[m] = static_cast<uint32_t>(first);
        msg_segments_[m] = static_cast<uint32_t>(i - first);
    }
    return m;
}

void UdpBatchSocket::send_singly(size_t m) {
    size_t first = msg_first_[m];
    for (size_t k = 0; k < msg_segments_[m]; k++) {
        SendSlot& s = send_slots_[first + k];
        msghdr h{};
        h.msg_name = &s.to;
        h.msg_namelen = s.to_len;
        h.msg_iov = &send_iov_[first + k];
        h.msg_iovlen = 1;
        h.msg_control = s.control_len ? s.control : nullptr;
        h.msg_controllen = s.control_len;
        ssize_t r = sendmsg(fd(), &h, MSG_DONTWAIT);
        stats_.send_calls++;
        if (r < 0) {
            last_send_errno_ = errno;
            stats_.send_drops++;
            continue;
        }
        stats_.send_packets++;
        stats_.send_bytes += static_cast<uint64_t>(r);
    }
}

Error UdpBatchSocket::flush(utime_t timeout) {
    size_t total = queued_;
    queued_ = 0;
    if (total == 0) return Error();
    if (!netfd_) {
        stats_.send_drops += total;
        return SRS_ERR(kErrorSocketClosed, "flush: closed");
    }
    size_t messages = build_messages(total);
    // The datagrams of messages [m, messages), for the drop counts.
    auto datagrams_from = [&](size_t m) {
        size_t first = m < messages ? msg_first_[m] : total;
        return total - first;
    };

    size_t next = 0;
    utime_t deadline = -1;  // set at the first wait
    while (next < messages) {
        unsigned int batch = static_cast<unsigned int>(std::min<size_t>(messages - next, kUdpBatchSize));
        int r = sendmmsg(fd(), &send_msgs_[next], batch, MSG_DONTWAIT);
        stats_.send_calls++;
        if (r > 0) {
            for (int k = 0; k < r; k++) {
                size_t m = next + k;
                stats_.send_bytes += send_msgs_[m].msg_len;
                stats_.send_packets += msg_segments_[m];
                if (msg_segments_[m] > 1) {
                    stats_.gso_messages++;
                    stats_.gso_segments += msg_segments_[m];
                }
            }
            next += r;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0 && !(r < 0 && would_block(errno))) {
            // sendmmsg reports an error only for the first message of the
            // call: that one is refused, the ones after it still go.
            int e = r < 0 ? errno : EIO;
            // A device without GSO (EIO: no checksum offload) turns it off for
            // good; a run this route refuses (EINVAL: a datagram over the path
            // MTU, which alone would be fragmented) only goes one by one.
            bool unsupported = e == EIO || e == ENOPROTOOPT || e == EOPNOTSUPP;
            if (msg_segments_[next] > 1 && (unsupported || e == EINVAL || e == EMSGSIZE)) {
                if (unsupported) {
                    gso_ = false;
                    gso_disabled_errno_ = e;
                }
                stats_.gso_refused++;
                send_singly(next);
            } else {
                last_send_errno_ = e;
                stats_.send_drops += msg_segments_[next];
            }
            next++;
            continue;
        }
        if (deadline < 0 && timeout >= 0) deadline = monotonic_us() + timeout;
        int e = wait_ready(netfd_, POLLOUT, remaining(deadline));
        if (e == 0) continue;
        size_t dropped = datagrams_from(next);
        stats_.send_drops += dropped;
        if (e == ETIME) return Error();
        if (e == EINTR) return SRS_ERR(kErrorThreadInterrupted, "flush: interrupted, %zu dropped", dropped);
        if (e == EBADF) return SRS_ERR(kErrorSocketClosed, "flush: closed while waiting, %zu dropped", dropped);
        return SRS_ERR(kErrorSocketWrite, "flush poll: %s, %zu dropped", strerror(e), dropped);
    }
    return Error();
}

// ---- interfaces ----

std::vector<std::string> detect_interface_addresses(bool ipv4, bool ipv6) {
    std::vector<std::string> found, loopback;
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) < 0) return found;
    for (ifaddrs* it = list; it; it = it->ifa_next) {
        if (!it->ifa_addr || !(it->ifa_flags & IFF_UP)) continue;
        char text[INET6_ADDRSTRLEN] = {0};
        int family = it->ifa_addr->sa_family;
        if (family == AF_INET && ipv4) {
            const in_addr& a = reinterpret_cast<sockaddr_in*>(it->ifa_addr)->sin_addr;
            if ((ntohl(a.s_addr) & 0xffff0000u) == 0xa9fe0000u) continue;  // 169.254/16, link-local
            inet_ntop(AF_INET, &a, text, sizeof(text));
        } else if (family == AF_INET6 && ipv6) {
            const in6_addr& a = reinterpret_cast<sockaddr_in6*>(it->ifa_addr)->sin6_addr;
            if (IN6_IS_ADDR_LINKLOCAL(&a)) continue;
            inet_ntop(AF_INET6, &a, text, sizeof(text));
        } else {
            continue;
        }
        std::vector<std::string>& into = (it->ifa_flags & IFF_LOOPBACK) ? loopback : found;
        if (std::find(into.begin(), into.end(), text) == into.end()) into.emplace_back(text);
    }
    freeifaddrs(list);
    return found.empty() ? loopback : found;
}

}  // namespace srs
