#include "protocol/rtmp/rtmp_protocol.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

#include "core/buffer.hpp"
#include "core/bytes.hpp"

namespace srs {

namespace {

const char* control_name(uint8_t type) {
    switch (type) {
        case kRtmpSetChunkSize: return "Set Chunk Size";
        case kRtmpAbort: return "Abort";
        case kRtmpAcknowledgement: return "Acknowledgement";
        case kRtmpUserControl: return "User Control";
        case kRtmpWindowAckSize: return "Window Acknowledgement Size";
        case kRtmpSetPeerBandwidth: return "Set Peer Bandwidth";
        default: return "control";
    }
}

}  // namespace

RtmpProtocol::RtmpProtocol(const RtmpProtocolOptions& options) {
    decoder_.set_max_message_size(std::min(options.max_message_size, kRtmpMaxMessageSize));
    decoder_.set_max_chunk_streams(options.max_chunk_streams);
    decoder_.set_max_pending_bytes(options.max_pending_bytes);
    in_ack_window_ = options.in_ack_size;
}

Error RtmpProtocol::feed(const uint8_t* data, size_t size, size_t* consumed) {
    *consumed = 0;
    while (*consumed < size) {
        decoded_.clear();
        size_t used = 0;
        Error err = decoder_.decode(data + *consumed, size - *consumed, &used, &decoded_);
        *consumed += used;
        bytes_in_ += used;
        // Messages completed before a failing chunk still count, so the
        // outcome does not depend on how the input was split.
        for (RtmpMessage& msg : decoded_) {
            if (Error e = handle(std::move(msg)); !e.ok()) {
                err.ignore();
                return e;
            }
        }
        if (!err.ok()) return SRS_WRAP(err, "decode chunk at byte %llu", static_cast<unsigned long long>(bytes_in_));
        // The decoder stops after Set Chunk Size and Abort so they apply to
        // the next chunk; it stops with nothing used when a chunk is partial.
        if (used == 0) break;
    }
    decoded_.clear();

    // Acknowledge once a window's worth arrived since the last ack.
    if (in_ack_window_ > 0 && bytes_in_ - last_ack_sent_at_ >= in_ack_window_) send_acknowledgement();
    return Error();
}

bool RtmpProtocol::pop_message(RtmpMessage* out) {
    if (queue_head_ >= queue_.size()) return false;
    *out = std::move(queue_[queue_head_++]);
    if (queue_head_ == queue_.size()) {
        queue_.clear();  // keeps the capacity for the next feed
        queue_head_ = 0;
    }
    return true;
}

void RtmpProtocol::push(RtmpMessage&& msg) { queue_.push_back(std::move(msg)); }

Error RtmpProtocol::handle(RtmpMessage&& msg) {
    messages_in_++;
    const uint8_t type = msg.type;
    if (type >= kRtmpSetChunkSize && type <= kRtmpSetPeerBandwidth && type != kRtmpUserControl) {
        const size_t need = 4;
        if (msg.payload.size() < need) {
            return SRS_ERR(kErrorRtmpControlMalformed, "%s message has %zu bytes, needs %zu", control_name(type),
                           msg.payload.size(), need);
        }
    }
    const uint8_t* p = msg.payload.data();
    switch (type) {
        case kRtmpSetChunkSize:
            return handle_set_chunk_size(msg);
        case kRtmpAbort:
            decoder_.abort(load_be32(p));
            return Error();
        case kRtmpAcknowledgement:
            peer_acked_bytes_ = load_be32(p);
            acks_received_++;
            return Error();
        case kRtmpUserControl:
            return handle_user_control(msg);
        case kRtmpWindowAckSize:
            // Zero would mean "ack after every byte": treat as "don't ack".
            in_ack_window_ = load_be32(p);
            return Error();
        case kRtmpSetPeerBandwidth: {
            const uint32_t bandwidth = load_be32(p);
            // The limit type byte is sometimes left out; dynamic is the mildest.
            const uint8_t limit = msg.payload.size() >= 5 ? p[4] : static_cast<uint8_t>(kRtmpLimitDynamic);
            peer_bandwidth_ = bandwidth;
            peer_bandwidth_limit_ = limit;
            // Hard: use it. Soft: the smaller of it and the limit in effect.
            // Dynamic: hard if the previous limit was hard, else ignored.
            uint32_t window = bandwidth_window_;
            if (limit == kRtmpLimitHard || (limit == kRtmpLimitDynamic && bandwidth_limit_hard_)) {
                window = bandwidth;
                bandwidth_limit_hard_ = true;
            } else if (limit == kRtmpLimitSoft) {
                window = bandwidth_window_ ? std::min(bandwidth_window_, bandwidth) : bandwidth;
                bandwidth_limit_hard_ = false;
            } else {
                return Error();
            }
            bandwidth_window_ = window;
            // "SHOULD respond with a Window Acknowledgement Size message if the
            // window size is different from the last one sent to the sender."
            if (window != out_ack_window_) send_window_ack_size(window);
            return Error();
        }
        case kRtmpAggregate:
            return split_aggregate(msg);
        case kRtmpAudio:
        case kRtmpVideo:
        case kRtmpAmf3Data:
        case kRtmpAmf3SharedObject:
        case kRtmpAmf3Command:
        case kRtmpAmf0Data:
        case kRtmpAmf0SharedObject:
        case kRtmpAmf0Command:
            push(std::move(msg));
            return Error();
        default:
            // Types 7, 10-14, 21 and above are not RTMP: a peer that sends
            // them is not speaking the protocol.
            return SRS_ERR(kErrorRtmpMessageTypeUnknown, "unknown message type %u on chunk stream %u, %zu bytes",
                           type, msg.cs_id, msg.payload.size());
    }
}

Error RtmpProtocol::handle_set_chunk_size(const RtmpMessage& msg) {
    const uint32_t value = load_be32(msg.payload.data());
    if (value & 0x80000000u) {
        return SRS_ERR(kErrorRtmpChunkSizeInvalid, "Set Chunk Size %u has the reserved top bit set", value);
    }
    if (value < kRtmpMinChunkSize || value > kRtmpMaxChunkSize) {
        return SRS_ERR(kErrorRtmpChunkSizeInvalid, "Set Chunk Size %u is outside %u..%u", value, kRtmpMinChunkSize,
                       kRtmpMaxChunkSize);
    }
    decoder_.set_chunk_size(value);
    return Error();
}

// User Control message payload: a 16-bit event type, then event data.
//
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |        event type (BE)        |  event data: stream id or     |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  timestamp (4 bytes); for     |
//  |  SetBufferLength, stream id then buffer length in ms (8 bytes)|
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
Error RtmpProtocol::handle_user_control(const RtmpMessage& msg) {
    const uint8_t* p = msg.payload.data();
    const size_t size = msg.payload.size();
    if (size < 2) {
        return SRS_ERR(kErrorRtmpUserControlMalformed, "User Control message has %zu bytes, needs 2", size);
    }
    const uint16_t event = load_be16(p);
    size_t need = 0;
    switch (event) {
        case kRtmpStreamBegin:
        case kRtmpStreamEof:
        case kRtmpStreamDry:
        case kRtmpStreamIsRecorded:
        case kRtmpPingRequest:
        case kRtmpPingResponse: need = 6; break;
        case kRtmpSetBufferLength: need = 10; break;
        default: break;  // other events (SWF verification, ...) are only recorded
    }
    if (size < need) {
        return SRS_ERR(kErrorRtmpUserControlMalformed, "User Control event %u has %zu bytes, needs %zu", event, size,
                       need);
    }
    has_user_control_ = true;
    last_user_control_event_ = event;
    last_user_control_value_ = size >= 6 ? load_be32(p + 2) : 0;
    if (event == kRtmpPingRequest) {
        send_user_control(kRtmpPingResponse, last_user_control_value_);
    } else if (event == kRtmpSetBufferLength) {
        buffer_length_stream_id_ = last_user_control_value_;
        buffer_length_ms_ = load_be32(p + 6);
    }
    return Error();
}

// Aggregate message payload: FLV-style tags, each followed by its size.
//
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |   type (8,9,  |            data size (BE, 24 bits)            |
//  |   15 or 18)   |                                               |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |       timestamp, low 24 bits (BE)             | ts bits 24-31 |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |        stream id (24 bits, ignored)           |  data ...     |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |  back pointer: 11 + data size (32 bits, BE, not checked)      |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Sub-message times are rebased on the aggregate's: msg ts + (sub ts - first
// sub ts), modulo 2^32. Parts take the aggregate's stream and chunk stream.
Error RtmpProtocol::split_aggregate(const RtmpMessage& msg) {
    ByteReader r(msg.payload.data(), msg.payload.size());
    bool first = true;
    uint32_t first_ts = 0;
    size_t index = 0;
    // Validate everything before queuing anything.
    while (!r.empty()) {
        uint8_t type = 0, ts_high = 0;
        uint32_t size = 0, ts = 0, sid = 0;
        if (!r.read_u8(&type) || !r.read_u24be(&size) || !r.read_u24be(&ts) || !r.read_u8(&ts_high) ||
            !r.read_u24be(&sid)) {
            return SRS_ERR(kErrorRtmpAggregateMalformed, "aggregate part %zu: header truncated at byte %zu of %zu",
                           index, r.position(), msg.payload.size());
        }
        if (type != kRtmpAudio && type != kRtmpVideo && type != kRtmpAmf0Data && type != kRtmpAmf3Data) {
            return SRS_ERR(kErrorRtmpAggregateMalformed, "aggregate part %zu has message type %u", index, type);
        }
        if (!r.require(static_cast<size_t>(size) + 4)) {
            return SRS_ERR(kErrorRtmpAggregateMalformed,
                           "aggregate part %zu: data size %u + back pointer exceeds the %zu bytes left", index, size,
                           r.remaining());
        }
        r.skip(size + 4);
        index++;
    }
    ByteReader in(msg.payload.data(), msg.payload.size());
    while (!in.empty()) {
        uint8_t type = 0, ts_high = 0;
        uint32_t size = 0, ts = 0, sid = 0;
        in.read_u8(&type);
        in.read_u24be(&size);
        in.read_u24be(&ts);
        in.read_u8(&ts_high);
        in.read_u24be(&sid);
        ts |= static_cast<uint32_t>(ts_high) << 24;
        if (first) {
            first_ts = ts;
            first = false;
        }
        RtmpMessage part;
        part.type = type;
        part.timestamp = msg.timestamp + (ts - first_ts);
        part.stream_id = msg.stream_id;
        part.cs_id = msg.cs_id;
        part.payload = SharedBytes::copy_of(in.current(), size);
        in.skip(size + 4);
        push(std::move(part));
    }
    return Error();
}

std::string RtmpProtocol::take_output() {
    std::string out;
    out.swap(output_);
    return out;
}

void RtmpProtocol::queue_control(uint8_t type, const uint8_t* payload, size_t size) {
    RtmpMessage msg;
    msg.type = type;
    msg.cs_id = kRtmpCidProtocolControl;
    msg.payload = SharedBytes::copy_of(payload, size);
    queue_message(msg);
}

void RtmpProtocol::queue_message(const RtmpMessage& msg) {
    const size_t before = output_.size();
    RtmpChunkEncoder::encode_message(msg, out_chunk_size_, &output_);
    bytes_out_ += output_.size() - before;
}

void RtmpProtocol::set_out_chunk_size(uint32_t size) {
    assert(size >= 1 && size <= 0x7FFFFFFFu);
    uint8_t b[4];
    store_be32(b, size);
    queue_control(kRtmpSetChunkSize, b, 4);
    out_chunk_size_ = size;
}

void RtmpProtocol::send_window_ack_size(uint32_t size) {
    uint8_t b[4];
    store_be32(b, size);
    queue_control(kRtmpWindowAckSize, b, 4);
    out_ack_window_ = size;
}

void RtmpProtocol::send_set_peer_bandwidth(uint32_t bandwidth, uint8_t limit_type) {
    uint8_t b[5];
    store_be32(b, bandwidth);
    b[4] = limit_type;
    queue_control(kRtmpSetPeerBandwidth, b, 5);
}

void RtmpProtocol::send_user_control(uint16_t event, uint32_t value, uint32_t buffer_length_ms) {
    uint8_t b[10];
    store_be16(b, event);
    store_be32(b + 2, value);
    size_t size = 6;
    if (event == kRtmpSetBufferLength) {
        store_be32(b + 6, buffer_length_ms);
        size = 10;
    }
    queue_control(kRtmpUserControl, b, size);
}

void RtmpProtocol::send_acknowledgement() {
    uint8_t b[4];
    store_be32(b, static_cast<uint32_t>(bytes_in_));
    queue_control(kRtmpAcknowledgement, b, 4);
    last_ack_sent_at_ = bytes_in_;
}

}  // namespace srs
