#include "app/rtc/rtc_udp_io.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <string>

#include "core/log.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"

namespace srs {

namespace {

// Send slots per socket: a batch's answers and fan-out before a sendmmsg.
constexpr size_t kArenaSlots = 512;
// Socket buffers asked for (the kernel caps them at rmem_max/wmem_max).
constexpr int kSocketBuffer = 8 * 1024 * 1024;

}  // namespace

StunAddress rtc_stun_address(const sockaddr_storage& ss) {
    if (ss.ss_family == AF_INET) {
        const sockaddr_in* in = reinterpret_cast<const sockaddr_in*>(&ss);
        return StunAddress::ipv4(ntohl(in->sin_addr.s_addr), ntohs(in->sin_port));
    }
    if (ss.ss_family == AF_INET6) {
        const sockaddr_in6* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
            uint32_t v4;
            memcpy(&v4, in6->sin6_addr.s6_addr + 12, 4);
            return StunAddress::ipv4(ntohl(v4), ntohs(in6->sin6_port));
        }
        return StunAddress::ipv6(in6->sin6_addr.s6_addr, ntohs(in6->sin6_port));
    }
    return StunAddress();
}

// One UDP socket, its coroutine and its send slots.
class RtcUdpIo::Listener : public CoroutineHandler {
  public:
    Listener(RtcUdpIo* io, UdpBatchSocket* socket) : io_(io), socket_(socket), coroutine_("rtc-udp", this) {
        arena_.resize(kArenaSlots * kRtcSlotSize);
    }
    ~Listener() override { coroutine_.stop(); }
    Error start() { return coroutine_.start(); }
    void stop() { coroutine_.stop(); }
    UdpBatchSocket* socket() const { return socket_.get(); }

    uint8_t* slot() {
        if (next_ == kArenaSlots) flush();
        return &arena_[next_ * kRtcSlotSize];
    }
    void commit(size_t len, const sockaddr_storage& to, socklen_t to_len, const sockaddr_storage* local) {
        socket_->queue(&arena_[next_ * kRtcSlotSize], len, reinterpret_cast<const sockaddr*>(&to), to_len, local);
        next_++;
    }
    // Never waits: a datagram the kernel has no room for is dropped (counted),
    // as the network would, and no coroutine can interleave with the slots.
    void flush() {
        if (socket_->queued() > 0) {
            bool gso = socket_->gso();
            if (Error err = socket_->flush(0); err.failed()) {
                srs_warn("RTC: send: %s", err.summary().c_str());
            }
            if (gso && !socket_->gso()) {
                srs_warn("RTC: UDP GSO refused (%s): datagrams go one by one from now on",
                         strerror(socket_->gso_disabled_errno()));
            }
        }
        next_ = 0;
    }

  private:
    Error cycle() override;
    void on_datagram(int index, utime_t now);

    RtcUdpIo* io_;
    std::unique_ptr<UdpBatchSocket> socket_;
    Coroutine coroutine_;
    std::vector<uint8_t> arena_;
    size_t next_ = 0;
};

// A session's datagrams on a UDP socket, to the address they came from (the
// one ICE verified, once bound), from the local address it was reached at.
class RtcUdpIo::Path : public RtcReplyPath {
  public:
    Path(Listener* l, const sockaddr_storage& remote, socklen_t remote_len, const sockaddr_storage* local)
        : listener_(l), remote_(remote), remote_len_(remote_len), has_local_(local != nullptr) {
        if (local) local_ = *local;
    }
    uint8_t* slot() override { return listener_->slot(); }
    void commit(size_t len) override { listener_->commit(len, remote_, remote_len_, has_local_ ? &local_ : nullptr); }
    const char* transport() const override { return "udp"; }
    std::unique_ptr<RtcSendPath> copy() const override { return std::unique_ptr<RtcSendPath>(new Path(*this)); }
    RtcTcpConn* tcp_conn() const override { return nullptr; }

  private:
    Listener* listener_;
    sockaddr_storage remote_;
    socklen_t remote_len_;
    bool has_local_;
    sockaddr_storage local_{};
};

Error RtcUdpIo::Listener::cycle() {
    while (true) {
        if (Error err = coroutine_.pull(); err.failed()) return err;
        int n = 0;
        if (Error err = socket_->recv_batch(-1, &n); err.failed()) {
            if (err.code() == kErrorThreadInterrupted) return err;
            srs_warn("RTC: recv: %s", err.summary().c_str());
            err.ignore();
            sleep_us(10 * kUsPerMs).ignore();
            continue;
        }
        utime_t now = monotonic_us();
        {
            // The batch's publisher packets reach each player in a row
            // (a video frame's packets: one GSO message per player).
            RtcFanOutBatch batch(io_->sources_, now);
            for (int i = 0; i < n; i++) on_datagram(i, now);
        }
        flush();
    }
}

void RtcUdpIo::Listener::on_datagram(int index, utime_t now) {
    const UdpRecvDatagram& d = socket_->datagram(index);
    // Answers go back where the datagram came from, bound or not.
    Path reply(this, d.from, d.from_len, d.has_local ? &d.local : nullptr);
    io_->router_->deliver(d.data, d.size, rtc_stun_address(d.from), &reply, now);
}

RtcUdpIo::RtcUdpIo(RtcDatagramRouter* router, RtcSourceManager* sources) : router_(router), sources_(sources) {}

RtcUdpIo::~RtcUdpIo() = default;

Error RtcUdpIo::start(const RtcServerOptions& options) {
    int sockets = options.reuseport < 1 ? 1 : options.reuseport;
    for (int i = 0; i < sockets; i++) {
        UdpBatchSocket* s = nullptr;
        std::string ip = options.ipv6 ? "::" : "0.0.0.0";
        if (Error err = UdpBatchSocket::bind(ip, options.udp_port, true, kSocketBuffer, kSocketBuffer, &s);
            err.failed()) {
            return SRS_WRAP(err, "rtc_server.listen udp %d", options.udp_port);
        }
        s->set_gso(options.gso);
        listeners_.emplace_back(new Listener(this, s));
    }
    for (auto& l : listeners_) {
        if (Error err = l->start(); err.failed()) return SRS_WRAP(err, "rtc listener");
    }
    return Error();
}

void RtcUdpIo::stop() {
    for (auto& l : listeners_) l->stop();
}

void RtcUdpIo::close() { listeners_.clear(); }

void RtcUdpIo::flush() {
    for (auto& l : listeners_) l->flush();
}

bool RtcUdpIo::gso() const { return !listeners_.empty() && listeners_[0]->socket()->gso(); }

UdpBatchSocket::Stats RtcUdpIo::totals() const {
    UdpBatchSocket::Stats t;
    for (auto& l : listeners_) {
        const UdpBatchSocket::Stats& s = l->socket()->stats();
        t.recv_packets += s.recv_packets;
        t.recv_bytes += s.recv_bytes;
        t.recv_calls += s.recv_calls;
        t.recv_truncated += s.recv_truncated;
        t.send_packets += s.send_packets;
        t.send_bytes += s.send_bytes;
        t.send_calls += s.send_calls;
        t.send_drops += s.send_drops;
        t.gso_messages += s.gso_messages;
        t.gso_segments += s.gso_segments;
        t.gso_refused += s.gso_refused;
    }
    return t;
}

}  // namespace srs
