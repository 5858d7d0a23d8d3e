// The WebRTC server's UDP socket: one port carries every session, so it is
// read and written in batches (recvmmsg / sendmmsg, kUdpBatchSize datagrams
// per system call) on the coroutine runtime.
//
// Guarantees:
//  - Every datagram received says which local address it was sent to
//    (IP_PKTINFO / IPV6_PKTINFO), and an answer can be sent from that address,
//    so a server bound to 0.0.0.0 or :: on a multi-homed host answers from the
//    address the peer used (a peer drops answers from another address).
//  - Nothing is allocated per datagram: the receive buffers are allocated once,
//    the send queue's arrays grow only when a queue is longer than any before.
//  - recv_batch never delivers a truncated datagram (longer than
//    kUdpMaxDatagram): it is counted in stats().recv_truncated and dropped.
//  - flush() always empties the queue; what the kernel refuses or what cannot
//    leave before the timeout is counted in stats().send_drops, never retried.
//  - With set_gso(true), flush() sends a run of adjacent datagrams to the same
//    peer from the same local address, all of one size but the last (which
//    may be shorter), as one UDP GSO message (UDP_SEGMENT): the kernel walks
//    its send path once for the run and cuts it into the same datagrams. A
//    WebRTC player's packets of one video frame are such a run. A run the
//    kernel refuses goes again as single datagrams; when the refusal says the
//    device cannot do GSO at all (EIO), GSO stays off for the socket.
//  - Waiting is coroutine-friendly (st_netfd_poll): other coroutines run while
//    one waits; an interrupted coroutine gets kErrorThreadInterrupted.
//
// On a dual-stack socket ("::"), IPv4 peers appear as v4-mapped IPv6 addresses
// (::ffff:a.b.c.d) in both `from` and `local`; pass them back as they are.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>  // struct mmsghdr (glibc, _GNU_SOURCE as g++ defines it)
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/error.hpp"

namespace srs {

constexpr int kUdpBatchSize = 64;         // datagrams per recvmmsg / sendmmsg call
constexpr size_t kUdpMaxDatagram = 2048;  // receive buffer per datagram; longer ones are truncated and dropped
constexpr int kUdpMaxGsoSegments = 64;    // datagrams per GSO message (the kernel's limit before 6.x)
constexpr size_t kUdpMaxGsoBytes = 60000; // bytes per GSO message (an IP datagram holds 64 KiB)

struct UdpRecvDatagram {
    uint8_t* data = nullptr;  // into the socket's own buffers, valid until the next recv_batch
    size_t size = 0;
    sockaddr_storage from{};
    socklen_t from_len = 0;
    // The address the datagram was sent to (IP_PKTINFO / IPV6_PKTINFO), so the
    // answer leaves from it; port = ours.
    bool has_local = false;
    sockaddr_storage local{};
    int ifindex = 0;
};

class UdpBatchSocket {
  public:
    // Binds ip:port (ip "0.0.0.0", "::" for dual stack, or one address) with
    // SO_REUSEPORT when reuseport, IP_PKTINFO and IPV6_RECVPKTINFO on,
    // SO_RCVBUF/SO_SNDBUF asked as given (0: leave; the kernel may cap them,
    // see rcvbuf()/sndbuf() for what it granted).
    static Error bind(const std::string& ip, int port, bool reuseport, int rcvbuf, int sndbuf, UdpBatchSocket** out);
    ~UdpBatchSocket();
    UdpBatchSocket(const UdpBatchSocket&) = delete;
    UdpBatchSocket& operator=(const UdpBatchSocket&) = delete;

    // Waits up to timeout (-1 forever) for the socket to be readable, then
    // takes up to kUdpBatchSize datagrams with one recvmmsg(MSG_DONTWAIT).
    // *n == 0 on timeout, not an error. Interrupted coroutine ->
    // kErrorThreadInterrupted; socket closed under it -> kErrorSocketClosed.
    // As the runtime's other reads, it first takes what is already queued
    // (one system call per batch on a busy socket) and parks only when the
    // socket is drained, so an interrupt is seen at the next wait.
    Error recv_batch(utime_t timeout, int* n);
    // Datagram i (0 <= i < *n of the last recv_batch).
    const UdpRecvDatagram& datagram(int i) const;

    // Queues one datagram for flush(): data must stay valid until flush()
    // returns. from_local: send it from this local address (the `local` of
    // the datagram that is answered; only its address is used), nullptr: let
    // the kernel choose.
    void queue(const uint8_t* data, size_t size, const sockaddr* to, socklen_t to_len,
               const sockaddr_storage* from_local);
    size_t queued() const;
    // Coalesce runs to one peer into GSO messages (see above). Returns whether
    // it is on: false when asked off, or when the kernel has no UDP_SEGMENT.
    bool set_gso(bool on);
    bool gso() const { return gso_; }
    // errno of the GSO message the kernel refused, which turned GSO off (0: none).
    int gso_disabled_errno() const { return gso_disabled_errno_; }

    // Sends all queued with sendmmsg (ceil(messages / kUdpBatchSize) calls
    // when nothing blocks; a message is one datagram, or a GSO run). On EAGAIN waits writable up to `timeout` then drops the
    // rest (counted); a datagram refused by the kernel (EPERM, ENETUNREACH,
    // EMSGSIZE...) is dropped and counted (last_send_errno() tells why), the
    // rest still go. Always leaves the queue empty. Fails only when the
    // coroutine was interrupted or the socket closed while waiting (the rest
    // is dropped and counted too).
    Error flush(utime_t timeout);

    struct Stats {
        uint64_t recv_packets = 0, recv_bytes = 0, recv_calls = 0, recv_truncated = 0;
        uint64_t send_packets = 0, send_bytes = 0, send_calls = 0, send_drops = 0;
        // GSO messages sent and the datagrams they carried (also in send_packets).
        uint64_t gso_messages = 0, gso_segments = 0;
        uint64_t gso_refused = 0;  // runs the kernel refused, sent again one by one
    };
    const Stats& stats() const;
    // errno of the last datagram the kernel refused (0: none yet), for logs.
    int last_send_errno() const { return last_send_errno_; }

    int fd() const;
    int port() const;  // the bound port (resolved when 0 was asked)
    int family() const { return family_; }  // AF_INET or AF_INET6
    // The buffer sizes the kernel granted (Linux reports twice what was asked).
    int rcvbuf() const;
    int sndbuf() const;

  private:
    UdpBatchSocket();
    void parse_control(msghdr* hdr, UdpRecvDatagram* d) const;
    size_t write_pktinfo(const sockaddr_storage* from_local, uint8_t* control) const;
    // Lays the queue's total datagrams out as messages (GSO runs when on).
    size_t build_messages(size_t total);
    // Whether queued datagram b may follow a in one GSO message.
    bool same_peer(size_t a, size_t b) const;
    // Sends message m's datagrams one by one (a refused GSO run).
    void send_singly(size_t m);

    // One queued datagram; the mmsghdr pointing at it is filled at flush time
    // (the vectors may have moved since queue()).
    struct SendSlot;

    void* netfd_ = nullptr;  // st_netfd_t
    int port_ = 0;
    int family_ = AF_INET;

    // Receive side, allocated once: kUdpBatchSize buffers of kUdpMaxDatagram.
    std::unique_ptr<uint8_t[]> recv_buf_;
    std::unique_ptr<mmsghdr[]> recv_msgs_;
    std::unique_ptr<iovec[]> recv_iov_;
    std::unique_ptr<uint8_t[]> recv_control_;
    UdpRecvDatagram received_[kUdpBatchSize];
    int received_count_ = 0;

    // Send side: queued_ slots in use out of the vectors' size; a datagram's
    // iovec is send_iov_[slot], so a run's iovecs are adjacent.
    std::vector<SendSlot> send_slots_;
    std::vector<iovec> send_iov_;
    std::vector<mmsghdr> send_msgs_;
    std::vector<uint32_t> msg_first_;     // message -> its first slot
    std::vector<uint32_t> msg_segments_;  // message -> its datagrams
    size_t queued_ = 0;
    bool gso_ = false;
    int gso_disabled_errno_ = 0;

    Stats stats_;
    int last_send_errno_ = 0;
};

// The machine's interface addresses for candidates (`candidate *`): up, not
// loopback (loopback only when nothing else), IPv4 and/or IPv6 (no
// link-local: fe80::/10, 169.254/16), in getifaddrs order without duplicates,
// as text.
std::vector<std::string> detect_interface_addresses(bool ipv4, bool ipv6);

}  // namespace srs
