#include "app/upstream/rtmp_transport.hpp"

#include "io/runtime.hpp"
#include "protocol/rtmp/rtmp_chunk.hpp"
#include "protocol/rtmp/rtmp_handshake.hpp"

namespace srs {

// Players send little (acks, pause), so their buffer stays small; a
// publisher's grows as its chunks need (the decoder wants whole chunks).
static const size_t kInitialBuffer = 4096;
static const size_t kMinRead = 2048;
// The low-water mark while a merged read sleeps: more than a wait gathers at
// usual bit rates. The kernel caps it at half the receive buffer limit and
// may grow the buffer to hold it (with a window clamp of the same 1 MiB: 80
// Mbps at a 100 ms round trip).
static const int kMergedReadLowat = 1 << 20;
// Free room for each merged read: 350 ms of a 600 kbps stream is 26 KiB. A
// higher bit rate takes a few reads per wait (a read that fills the room
// starts no wait), still far fewer than one per message.
static const size_t kMergedReadBuffer = 32 * 1024;

RtmpTransport::RtmpTransport(TcpConn* sock) : sock_(sock), in_(kInitialBuffer), poll_room_(kMinRead) {}

void RtmpTransport::use_player_input() {
    in_.shrink_to(kPlayerInput);
    poll_room_ = kPlayerInput / 2;
}

Error RtmpTransport::read_more() {
    // A merged read takes a whole batch: room for one at a time, or a high
    // bit rate would outrun one small read per wait.
    const size_t min_free = merged_read_us_ > 0 ? kMergedReadBuffer : kMinRead;
    if (!in_.ensure_free(min_free)) return SRS_ERR(kErrorBufferOverflow, "rtmp input buffer full");
    if (merged_read_us_ > 0 && last_read_drained_) {
        // While we sleep, every arriving packet would still wake the process
        // through epoll for nothing: raise the low-water mark so only a big
        // backlog (or EOF) does, and lower it again to read.
        sock_->set_recv_lowat(kMergedReadLowat).ignore();
        Error slept = sleep_us(merged_read_us_);
        sock_->set_recv_lowat(1).ignore();
        if (!slept.ok()) return SRS_WRAP(slept, "merged read");
    }
    size_t n = 0;
    const size_t asked = in_.free_size();
    if (Error err = sock_->read(in_.free_space(), asked, &n); !err.ok()) return err;
    in_.commit(n);
    // Less than asked: the socket is empty (a full read may have left more behind).
    last_read_drained_ = n < asked;
    return Error();
}

// Feeds a handshake object until it is done, writing what it answers. Bytes
// after the handshake (the first chunks) stay in the buffer.
template <typename Handshake>
Error RtmpTransport::run_handshake(Handshake* hs) {
    while (!hs->done()) {
        if (Error err = read_more(); !err.ok()) return SRS_WRAP(err, "read handshake");
        size_t consumed = 0;
        if (Error err = hs->feed(in_.data(), in_.size(), &consumed); !err.ok()) return SRS_WRAP(err, "handshake");
        in_.consume(consumed);
        if (hs->has_output()) {
            std::string out = hs->take_output();
            if (Error err = sock_->write(out.data(), out.size()); !err.ok()) return SRS_WRAP(err, "write handshake");
        }
    }
    complex_ = hs->used_complex();
    return Error();
}

Error RtmpTransport::handshake_as_server() {
    RtmpHandshakeServer hs;
    return run_handshake(&hs);
}

Error RtmpTransport::handshake_as_client(bool complex) {
    RtmpHandshakeClient hs;
    std::string c0c1 = hs.start(complex);
    if (Error err = sock_->write(c0c1.data(), c0c1.size()); !err.ok()) return SRS_WRAP(err, "write c0c1");
    return run_handshake(&hs);
}

Error RtmpTransport::drain_input(std::vector<RtmpMessage>* out, bool* got) {
    *got = false;
    if (in_.size() > 0) {
        size_t consumed = 0;
        if (Error err = protocol_.feed(in_.data(), in_.size(), &consumed); !err.ok()) return err;
        in_.consume(consumed);
    }
    RtmpMessage msg;
    while (protocol_.pop_message(&msg)) {
        out->push_back(std::move(msg));
        *got = true;
    }
    // Acks and pongs go out as soon as the protocol asks for them.
    return flush();
}

Error RtmpTransport::recv_message(RtmpMessage* msg) {
    while (true) {
        if (protocol_.pop_message(msg)) return flush();
        if (in_.size() > 0) {
            size_t consumed = 0;
            if (Error err = protocol_.feed(in_.data(), in_.size(), &consumed); !err.ok()) return err;
            in_.consume(consumed);
            if (Error err = flush(); !err.ok()) return err;
            if (protocol_.pop_message(msg)) return Error();
        }
        if (Error err = read_more(); !err.ok()) return err;
    }
}

Error RtmpTransport::poll_messages(std::vector<RtmpMessage>* out) {
    // One read per poll: a player that floods us cannot keep us from sending.
    if (!in_.ensure_free(poll_room_)) return SRS_ERR(kErrorBufferOverflow, "rtmp input buffer full");
    size_t n = 0;
    if (Error err = sock_->read_nowait(in_.free_space(), in_.free_size(), &n); !err.ok()) return err;
    in_.commit(n);
    bool got = false;
    return drain_input(out, &got);
}

Error RtmpTransport::send_message(const RtmpMessage& msg) {
    protocol_.queue_message(msg);
    return corked_ ? Error() : flush();
}

Error RtmpTransport::send_command(const RtmpCommand& cmd, uint32_t stream_id, uint32_t cs_id) {
    RtmpMessage msg;
    msg.type = kRtmpAmf0Command;
    msg.stream_id = stream_id;
    msg.cs_id = cs_id;
    msg.payload = encode_rtmp_command(cmd);
    return send_message(msg);
}

Error RtmpTransport::send_data(const RtmpData& data, uint32_t stream_id) {
    RtmpMessage msg;
    msg.type = kRtmpAmf0Data;
    msg.stream_id = stream_id;
    msg.cs_id = kRtmpCidOverStream;
    msg.payload = encode_rtmp_data(data);
    return send_message(msg);
}

Error RtmpTransport::flush() {
    if (!protocol_.has_output()) return Error();
    std::string out = protocol_.take_output();
    return sock_->write(out.data(), out.size());
}

}  // namespace srs
