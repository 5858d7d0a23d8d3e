// WebRTC over TCP (rtc_server.tcp): the acceptor and its RFC 4571
// connections. Each frame goes to the router like a UDP datagram, with the
// connection as its reply path; a session bound to a connection ends when
// the connection does.
#pragma once

#include <memory>
#include <vector>

#include "app/conn/tcp_acceptor.hpp"
#include "app/rtc/rtc_datagram_router.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_tcp_conn.hpp"
#include "app/rtc/rtc_udp_io.hpp"

namespace srs {

class RtcTcpIo : public TcpClientHandler, public RtcTcpOwner {
  public:
    // `udp` is flushed after each frame: fan-out may have used its slots.
    RtcTcpIo(RtcDatagramRouter* router, RtcUdpIo* udp) : router_(router), udp_(udp) {}

    // Listens when rtc_server.tcp is on.
    Error start(const RtcServerOptions& options);
    // Stops accepting.
    void close();
    // Ends every connection (their sessions end at the next reap()).
    void stop_connections();
    // Frees the connections that ended, first ending the sessions bound to them.
    void reap(const std::vector<std::unique_ptr<RtcSession>>& sessions);

    void on_tcp_client(TcpAcceptor* acceptor, TcpConn* conn) override;
    void on_tcp_frame(RtcTcpConn* conn, uint8_t* data, size_t size, utime_t now) override;

  private:
    RtcDatagramRouter* router_;
    RtcUdpIo* udp_;
    std::unique_ptr<TcpAcceptor> acceptor_;
    std::vector<std::unique_ptr<RtcTcpConn>> conns_;
};

}  // namespace srs
