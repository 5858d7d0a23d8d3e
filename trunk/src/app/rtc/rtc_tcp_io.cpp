#include "app/rtc/rtc_tcp_io.hpp"

#include <string>

#include "core/log.hpp"
#include "io/runtime.hpp"
#include "io/socket.hpp"

namespace srs {

namespace {

// A session's datagrams on a TCP connection (RFC 4571 frames): a frame's
// answers, and the path of the session bound to the connection.
class TcpPath : public RtcReplyPath {
  public:
    explicit TcpPath(RtcTcpConn* conn) : conn_(conn) {}
    uint8_t* slot() override { return conn_->slot(); }
    void commit(size_t len) override { conn_->commit(len); }
    const char* transport() const override { return "tcp"; }
    std::unique_ptr<RtcSendPath> copy() const override { return std::unique_ptr<RtcSendPath>(new TcpPath(conn_)); }
    RtcTcpConn* tcp_conn() const override { return conn_; }

  private:
    RtcTcpConn* conn_;
};

}  // namespace

Error RtcTcpIo::start(const RtcServerOptions& options) {
    if (!options.tcp_enabled) return Error();
    std::string ip = options.ipv6 ? "::" : "0.0.0.0";
    acceptor_.reset(new TcpAcceptor("RTC-TCP", ip, options.tcp_port, this));
    if (Error err = acceptor_->listen(); err.failed()) {
        return SRS_WRAP(err, "rtc_server.tcp.listen %d", options.tcp_port);
    }
    return Error();
}

void RtcTcpIo::close() {
    if (acceptor_) acceptor_->close();
}

void RtcTcpIo::stop_connections() {
    for (auto& c : conns_) c->stop();
}

void RtcTcpIo::on_tcp_frame(RtcTcpConn* conn, uint8_t* data, size_t size, utime_t now) {
    sockaddr_storage ss;
    socklen_t len = 0;
    StunAddress from;
    if (make_sockaddr(conn->peer().ip, conn->peer().port, &ss, &len).ok()) from = rtc_stun_address(ss);
    TcpPath reply(conn);
    router_->deliver(data, size, from, &reply, now);
    // TCP sessions are not on a UDP listener's flush: their frames are
    // already queued on the connection, and fan-out may have used the UDP slots.
    udp_->flush();
}

void RtcTcpIo::on_tcp_client(TcpAcceptor* acceptor, TcpConn* conn) {
    (void)acceptor;
    std::unique_ptr<RtcTcpConn> c(new RtcTcpConn(this, conn));
    if (Error err = c->start(); err.failed()) {
        srs_warn("RTC: tcp %s: %s", c->peer().to_string().c_str(), err.summary().c_str());
        err.ignore();
        c->stop();
        return;
    }
    conns_.push_back(std::move(c));
}

void RtcTcpIo::reap(const std::vector<std::unique_ptr<RtcSession>>& sessions) {
    for (size_t i = 0; i < conns_.size();) {
        RtcTcpConn* c = conns_[i].get();
        if (!c->done()) {
            i++;
            continue;
        }
        // Its sessions lose their transport: they end now (a peer that
        // reconnects signals again).
        for (auto& s : sessions) {
            if (s->tcp_conn() == c) {
                s->bind_send_path(nullptr, nullptr);
                s->close(monotonic_us(), SRS_ERR(kErrorRtcSessionClosed, "its TCP connection closed"));
            }
        }
        c->stop();
        conns_[i] = std::move(conns_.back());
        conns_.pop_back();
    }
}

}  // namespace srs
