// An RTMP message: what the chunk stream carries once reassembled.
#pragma once

#include <cstdint>

#include "core/shared_buffer.hpp"

namespace srs {

enum RtmpMessageType : uint8_t {
    kRtmpSetChunkSize = 1,
    kRtmpAbort = 2,
    kRtmpAcknowledgement = 3,
    kRtmpUserControl = 4,
    kRtmpWindowAckSize = 5,
    kRtmpSetPeerBandwidth = 6,
    kRtmpAudio = 8,
    kRtmpVideo = 9,
    kRtmpAmf3Data = 15,
    kRtmpAmf3SharedObject = 16,
    kRtmpAmf3Command = 17,
    kRtmpAmf0Data = 18,
    kRtmpAmf0SharedObject = 19,
    kRtmpAmf0Command = 20,
    kRtmpAggregate = 22,
};

// User control event types (message type 4).
enum RtmpUserControlEvent : uint16_t {
    kRtmpStreamBegin = 0,
    kRtmpStreamEof = 1,
    kRtmpStreamDry = 2,
    kRtmpSetBufferLength = 3,
    kRtmpStreamIsRecorded = 4,
    kRtmpPingRequest = 6,
    kRtmpPingResponse = 7,
};

// Chunk stream ids we send on (as SRS and Flash do).
enum RtmpChunkStreamId : uint32_t {
    kRtmpCidProtocolControl = 2,
    kRtmpCidOverConnection = 3,  // commands on stream 0
    kRtmpCidOverStream = 5,      // commands/data on a message stream
    kRtmpCidVideo = 6,
    kRtmpCidAudio = 7,
};

// The largest message we accept: the length field has 24 bits.
constexpr uint32_t kRtmpMaxMessageSize = 16 * 1024 * 1024 - 1;
constexpr uint32_t kRtmpMinChunkSize = 128;
constexpr uint32_t kRtmpMaxChunkSize = 65536;
constexpr uint32_t kRtmpDefaultChunkSize = 128;

struct RtmpMessage {
    uint8_t type = 0;
    uint32_t timestamp = 0;  // absolute, milliseconds (32-bit, extended timestamps resolved)
    uint32_t stream_id = 0;  // message stream id
    uint32_t cs_id = 0;      // chunk stream it came on / goes on
    SharedBytes payload;

    bool is_audio() const { return type == kRtmpAudio; }
    bool is_video() const { return type == kRtmpVideo; }
    bool is_av() const { return type == kRtmpAudio || type == kRtmpVideo; }
    bool is_command() const { return type == kRtmpAmf0Command || type == kRtmpAmf3Command; }
    bool is_data() const { return type == kRtmpAmf0Data || type == kRtmpAmf3Data; }
};

}  // namespace srs
