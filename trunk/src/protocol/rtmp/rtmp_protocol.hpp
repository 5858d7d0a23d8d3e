// The RTMP connection state above the chunk stream, sans-IO, for server and
// client alike.
//
// Bytes in (after the handshake) go to feed(); protocol control messages
// (types 1-6) are handled here, aggregates (22) are split, and everything else
// waits in a queue for pop_message(). What the protocol itself must send
// (acknowledgements, ping responses, and what the caller asks for through the
// send_* builders and queue_message) is appended to one output buffer that the
// connection drains with take_output() and writes.
//
//   RtmpProtocol proto(options);
//   size_t used = 0;
//   if (Error err = proto.feed(buf.data(), buf.size(), &used); !err.ok()) return SRS_WRAP(err, "rtmp");
//   buf.consume(used);
//   for (RtmpMessage msg; proto.pop_message(&msg);) handle(msg);
//   if (proto.has_output()) write(proto.take_output());
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "protocol/rtmp/rtmp_chunk.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

// Set Peer Bandwidth limit types.
enum RtmpPeerBandwidthLimit : uint8_t {
    kRtmpLimitHard = 0,
    kRtmpLimitSoft = 1,
    kRtmpLimitDynamic = 2,
};

struct RtmpProtocolOptions {
    // The `in_ack_size` directive: acknowledge every this many received bytes
    // even before (or without) the peer sending a Window Acknowledgement Size,
    // for encoders that wait for acks but never set a window. 0: only when the
    // peer sets one. A Window Acknowledgement Size from the peer replaces it.
    uint32_t in_ack_size = 0;
    // Largest message accepted (16 MiB - 1 at most, the 24-bit length field).
    uint32_t max_message_size = kRtmpMaxMessageSize;
    size_t max_chunk_streams = kRtmpDefaultMaxChunkStreams;
    // Bytes all partially received messages may hold together.
    size_t max_pending_bytes = kRtmpDefaultMaxPendingBytes;
};

class RtmpProtocol {
  public:
    explicit RtmpProtocol(const RtmpProtocolOptions& options = RtmpProtocolOptions());
    RtmpProtocol(const RtmpProtocol&) = delete;
    RtmpProtocol& operator=(const RtmpProtocol&) = delete;

    // ---- input ----

    // Decodes whole chunks of data[0..size); *consumed says how many bytes were
    // used (the caller keeps the rest and feeds it again with more). Handles
    // protocol control messages, queues the others for pop_message(), and
    // queues an Acknowledgement when a window's worth of bytes was consumed.
    // A failure (malformed chunk or control message) is final: close.
    Error feed(const uint8_t* data, size_t size, size_t* consumed);
    // Takes the oldest decoded message (audio, video, data, commands, shared
    // objects, unknown types, aggregate parts); false when none is left.
    bool pop_message(RtmpMessage* out);
    size_t queued_messages() const { return queue_.size() - queue_head_; }
    // Counts bytes received outside feed() (the handshake) in the sequence
    // numbers of our acknowledgements, which count every byte received.
    void add_bytes_in(uint64_t n) { bytes_in_ += n; }

    // ---- output ----

    bool has_output() const { return !output_.empty(); }
    // Moves out everything queued to send, in order.
    std::string take_output();

    // Sends Set Chunk Size and encodes everything after it with `size`
    // (the caller picks 128..65536; peers reject other values).
    void set_out_chunk_size(uint32_t size);
    uint32_t out_chunk_size() const { return out_chunk_size_; }
    // Window Acknowledgement Size (5): asks the peer to acknowledge every
    // `size` bytes it receives from us.
    void send_window_ack_size(uint32_t size);
    // Set Peer Bandwidth (6).
    void send_set_peer_bandwidth(uint32_t bandwidth, uint8_t limit_type);
    // User Control (4): StreamBegin/StreamEOF/StreamDry/StreamIsRecorded take a
    // stream id, PingRequest/PingResponse a timestamp; SetBufferLength takes
    // the stream id and buffer_length_ms.
    void send_user_control(uint16_t event, uint32_t value, uint32_t buffer_length_ms = 0);
    // Acknowledgement (3) with the bytes received so far (low 32 bits).
    void send_acknowledgement();
    // Serialises any message with the current out chunk size (commands, data).
    void queue_message(const RtmpMessage& msg);

    // ---- what the peer told us ----

    uint32_t in_chunk_size() const { return decoder_.chunk_size(); }
    // The window after which we acknowledge (peer's Window Ack Size, else
    // options.in_ack_size; 0: never).
    uint32_t in_ack_window() const { return in_ack_window_; }
    // The last Acknowledgement's sequence number, and how many came.
    uint32_t peer_acked_bytes() const { return peer_acked_bytes_; }
    uint64_t acks_received() const { return acks_received_; }
    // Set Peer Bandwidth: the last one received, and the window it leaves us.
    uint32_t peer_bandwidth() const { return peer_bandwidth_; }
    uint8_t peer_bandwidth_limit() const { return peer_bandwidth_limit_; }
    // The Window Ack Size we last sent (0: none yet).
    uint32_t out_ack_window() const { return out_ack_window_; }
    // SetBufferLength from a player.
    uint32_t buffer_length_stream_id() const { return buffer_length_stream_id_; }
    uint32_t buffer_length_ms() const { return buffer_length_ms_; }
    // The last user control event received (any type) and its first value.
    bool has_user_control() const { return has_user_control_; }
    uint16_t last_user_control_event() const { return last_user_control_event_; }
    uint32_t last_user_control_value() const { return last_user_control_value_; }

    // ---- counters ----

    uint64_t bytes_in() const { return bytes_in_; }     // consumed by feed (+ add_bytes_in)
    uint64_t bytes_out() const { return bytes_out_; }   // everything queued for output
    uint64_t messages_in() const { return messages_in_; }  // messages decoded, control ones included

  private:
    Error handle(RtmpMessage&& msg);
    Error handle_set_chunk_size(const RtmpMessage& msg);
    Error handle_user_control(const RtmpMessage& msg);
    Error split_aggregate(const RtmpMessage& msg);
    void queue_control(uint8_t type, const uint8_t* payload, size_t size);
    void push(RtmpMessage&& msg);

    RtmpChunkDecoder decoder_;
    std::vector<RtmpMessage> decoded_;  // reused by every feed
    std::vector<RtmpMessage> queue_;    // decoded messages for the caller, from queue_head_
    size_t queue_head_ = 0;
    std::string output_;
    uint32_t out_chunk_size_ = kRtmpDefaultChunkSize;

    uint32_t in_ack_window_ = 0;
    uint64_t last_ack_sent_at_ = 0;  // bytes_in_ when we last acknowledged
    uint32_t peer_acked_bytes_ = 0;
    uint64_t acks_received_ = 0;
    uint32_t peer_bandwidth_ = 0;
    uint8_t peer_bandwidth_limit_ = kRtmpLimitDynamic;
    uint32_t bandwidth_window_ = 0;     // the limit in effect (0: none yet)
    bool bandwidth_limit_hard_ = false;  // the limit in effect was set hard
    uint32_t out_ack_window_ = 0;
    uint32_t buffer_length_stream_id_ = 0;
    uint32_t buffer_length_ms_ = 0;
    bool has_user_control_ = false;
    uint16_t last_user_control_event_ = 0;
    uint32_t last_user_control_value_ = 0;

    uint64_t bytes_in_ = 0;
    uint64_t bytes_out_ = 0;
    uint64_t messages_in_ = 0;
};

}  // namespace srs
