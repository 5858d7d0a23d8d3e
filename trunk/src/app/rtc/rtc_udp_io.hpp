// WebRTC over UDP: the rtc_server.listen port (SO_REUSEPORT sockets when
// rtc_server.reuseport > 1). A coroutine per socket reads batches (recvmmsg)
// and hands each datagram to the router with its reply path; what sessions
// send is protected into the socket's send slots and leaves with one
// sendmmsg per batch (and at each flush()).
#pragma once

#include <sys/socket.h>

#include <memory>
#include <vector>

#include "app/rtc/rtc_datagram_router.hpp"
#include "app/rtc/rtc_options.hpp"
#include "app/rtc/rtc_source.hpp"
#include "core/error.hpp"
#include "io/udp_batch.hpp"
#include "kernel/stun/stun.hpp"

namespace srs {

// A socket address as STUN carries it (IPv4-mapped IPv6 as IPv4).
StunAddress rtc_stun_address(const sockaddr_storage& ss);

class RtcUdpIo {
  public:
    RtcUdpIo(RtcDatagramRouter* router, RtcSourceManager* sources);
    ~RtcUdpIo();

    // Binds every socket, then starts their coroutines.
    Error start(const RtcServerOptions& options);
    // Ends the coroutines; the sockets stay for a last flush().
    void stop();
    // Closes the sockets.
    void close();
    // Sends what the sessions queued on every socket; never waits.
    void flush();

    size_t socket_count() const { return listeners_.size(); }
    // Whether the first socket sends with UDP GSO.
    bool gso() const;
    // The sockets' counters, summed.
    UdpBatchSocket::Stats totals() const;

  private:
    class Listener;
    class Path;

    RtcDatagramRouter* router_;
    RtcSourceManager* sources_;
    std::vector<std::unique_ptr<Listener>> listeners_;
};

}  // namespace srs
