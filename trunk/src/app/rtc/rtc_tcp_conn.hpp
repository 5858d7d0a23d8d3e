// WebRTC media over TCP (RFC 4571 framing: a 2-byte length before each
// packet), for networks that block UDP: ICE, DTLS, SRTP and RTCP datagrams
// travel as frames on one TCP connection.
//
// The reader coroutine takes frames and hands each to the owner (the WebRTC
// server), which routes it like a UDP datagram. What sessions send is framed
// into a bounded output buffer that the writer coroutine drains, so the
// fan-out never blocks on a slow TCP peer: past the bound, packets are
// dropped and counted, as UDP would lose them.
#pragma once

#include <memory>
#include <string>

#include "app/rtc/rtc_session.hpp"
#include "io/coroutine.hpp"
#include "io/socket.hpp"
#include "protocol/rtc/rfc4571.hpp"

namespace srs {

class RtcTcpConn;

class RtcTcpOwner {
  public:
    virtual ~RtcTcpOwner() = default;
    // One frame from the connection (a datagram); writable in place.
    virtual void on_tcp_frame(RtcTcpConn* conn, uint8_t* data, size_t size, utime_t now) = 0;
};

class RtcTcpConn {
  public:
    // Output held for a slow peer before packets are dropped.
    static constexpr size_t kMaxPending = 4 * 1024 * 1024;

    RtcTcpConn(RtcTcpOwner* owner, TcpConn* sock);  // takes the socket
    ~RtcTcpConn();
    Error start();
    // Ends both coroutines (not from one of them).
    void stop();
    bool done() const { return done_; }
    const Endpoint& peer() const { return sock_->peer(); }
    const std::string& cid() const { return cid_; }
    uint64_t dropped() const { return dropped_; }

    // The framing buffer: slot() then commit(len), as RtcSendPath (the
    // TCP IO's path for the sessions on this connection).
    uint8_t* slot() { return scratch_ + 2; }
    void commit(size_t len);

  private:
    class Reader;
    class Writer;
    Error read_cycle();
    Error write_cycle();

    RtcTcpOwner* owner_;
    std::unique_ptr<TcpConn> sock_;
    std::string cid_;
    Rfc4571Decoder decoder_;
    std::string out_;
    CoCond writable_;
    std::unique_ptr<Reader> reader_;
    std::unique_ptr<Writer> writer_;
    bool done_ = false;
    uint64_t dropped_ = 0;
    uint8_t scratch_[2 + kRtcSlotSize];
};

}  // namespace srs
