// The hand-off of one datagram (from a UDP socket or a TCP frame) to its
// WebRTC session: the routing table names the session, the session's peer
// handles the bytes, and when the peer verified a STUN request from a new
// address, that address is bound to the session, which keeps a path to it.
//
// The datagram's origin travels as a value: the reply path the IO builds for
// it reaches its sender from the local address it arrived at, and can be
// copied into the path the session keeps.
#pragma once

#include <cstdint>
#include <memory>

#include "app/rtc/rtc_routing_table.hpp"
#include "app/rtc/rtc_session.hpp"

namespace srs {

class RtcTcpConn;

// Where one datagram came from, as the path its answers take.
class RtcReplyPath : public RtcSendPath {
  public:
    // A path to the same peer that outlives the datagram: the session keeps
    // it when ICE binds the datagram's address.
    virtual std::unique_ptr<RtcSendPath> copy() const = 0;
    // The TCP connection it came on (nullptr: UDP); the session ends with it.
    virtual RtcTcpConn* tcp_conn() const = 0;
};

class RtcDatagramRouter {
  public:
    explicit RtcDatagramRouter(RtcRoutingTable* routes) : routes_(routes) {}

    // Told once per session, after the datagram that carried its first
    // verified STUN binding request was handled (the session was pending
    // until then); it may close the session.
    class Listener {
      public:
        virtual ~Listener() = default;
        virtual void on_session_verified(RtcSession* session, utime_t now) = 0;
    };
    void set_listener(Listener* listener) { listener_ = listener; }

    // One datagram from `from` (writable in place: SRTP is removed there);
    // `reply` reaches `from`. Dropped and counted when no live session takes
    // it or its session refuses it.
    void deliver(uint8_t* data, size_t size, const StunAddress& from, RtcReplyPath* reply, utime_t now);

    struct Stats {
        uint64_t rx_packets = 0, rx_stun = 0, rx_dtls = 0, rx_rtp = 0, rx_unknown_addr = 0, rx_dropped = 0;
    };
    const Stats& stats() const { return stats_; }

  private:
    RtcRoutingTable* routes_;
    Listener* listener_ = nullptr;
    Stats stats_;
};

}  // namespace srs
