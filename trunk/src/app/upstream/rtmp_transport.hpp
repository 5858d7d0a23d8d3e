// RTMP over a TCP socket: the glue between the io layer and the sans-IO
// protocol objects. It reads into a buffer, feeds the handshake and the chunk
// protocol, and writes what they produce; it never parses bytes itself.
// Server connections, the RTMP client and the load tools all use it.
#pragma once

#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/error.hpp"
#include "io/socket.hpp"
#include "protocol/rtmp/rtmp_command.hpp"
#include "protocol/rtmp/rtmp_message.hpp"
#include "protocol/rtmp/rtmp_protocol.hpp"

namespace srs {

class RtmpTransport {
  public:
    explicit RtmpTransport(TcpConn* sock);  // not owned
    RtmpTransport(const RtmpTransport&) = delete;
    RtmpTransport& operator=(const RtmpTransport&) = delete;

    Error handshake_as_server();
    Error handshake_as_client(bool complex);
    bool used_complex_handshake() const { return complex_; }

    // Blocks until the next message that is not a protocol control message.
    Error recv_message(RtmpMessage* msg);
    // Reads whatever has arrived without waiting and returns the messages it
    // completed (for players, whose coroutine mostly sends).
    Error poll_messages(std::vector<RtmpMessage>* out);

    // Serialises with the current out chunk size and writes at once (or,
    // while corked, at uncork()).
    Error send_message(const RtmpMessage& msg);
    Error send_command(const RtmpCommand& cmd, uint32_t stream_id, uint32_t cs_id);
    Error send_data(const RtmpData& data, uint32_t stream_id);
    // Writes control bytes the protocol queued (acks, pings, chunk size...).
    Error flush();
    // A reply of several messages leaves in one write: separate small writes
    // meet Nagle and the peer's delayed ACK (~40 ms each on a join).
    void cork() { corked_ = true; }
    Error uncork() {
        corked_ = false;
        return flush();
    }

    // Merged read (SRS's publish.mr, and the publishers' read budget): after
    // a read that emptied the socket the next read waits `us` first, so the
    // kernel gathers several messages into one read (and one ACK) instead of
    // one read, wakeup and ACK per message. 0 turns it off. The messages
    // already read are not delayed: only the next read is. (A rule of "less
    // than 4 KiB read" would take a wait's whole batch for a busy socket and
    // read again at once, for one message: two reads per wait.)
    void set_merged_read(utime_t us) { merged_read_us_ = us; }
    // A player only sends acks and small commands once it plays: its read
    // buffer shrinks to kPlayerInput and a poll reads into whatever room is
    // left (it grows again for a bigger message). 4 KiB less per player.
    static const size_t kPlayerInput = 512;
    void use_player_input();

    RtmpProtocol& protocol() { return protocol_; }
    TcpConn* socket() { return sock_; }

  private:
    template <typename Handshake>
    Error run_handshake(Handshake* hs);
    Error read_more();
    Error drain_input(std::vector<RtmpMessage>* out, bool* got);
    TcpConn* sock_;
    IoBuffer in_;
    RtmpProtocol protocol_;
    bool complex_ = false;
    bool corked_ = false;
    utime_t merged_read_us_ = 0;
    bool last_read_drained_ = false;
    size_t poll_room_;  // free bytes a poll wants before it reads
};

}  // namespace srs
