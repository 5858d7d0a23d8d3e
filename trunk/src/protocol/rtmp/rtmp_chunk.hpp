// The RTMP chunk stream, sans-IO.
//
// RtmpChunkDecoder turns bytes into RtmpMessages; RtmpChunkEncoder turns a
// message into chunk headers (and iovecs over a shared payload) or bytes.
// Neither touches a socket: the connection reads into its own buffer, calls
// decode(), and drops the bytes it consumed.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

// Most chunk streams one connection may use at once (clients use 3 to 8).
constexpr size_t kRtmpDefaultMaxChunkStreams = 64;
// Most bytes all partially received messages of one connection may hold
// together: two messages of the largest size.
constexpr size_t kRtmpDefaultMaxPendingBytes = 2 * static_cast<size_t>(kRtmpMaxMessageSize);
// The decoder accepts any chunk size in 1..kRtmpDecoderMaxChunkSize; the
// protocol object restricts what a peer may set to 128..65536.
constexpr uint32_t kRtmpDecoderMaxChunkSize = 16 * 1024 * 1024;

class RtmpChunkDecoder {
  public:
    RtmpChunkDecoder();
    ~RtmpChunkDecoder();
    RtmpChunkDecoder(const RtmpChunkDecoder&) = delete;
    RtmpChunkDecoder& operator=(const RtmpChunkDecoder&) = delete;

    // Decodes whole chunks from data[0..size).
    //  - Returns success with *consumed = bytes of whole chunks parsed (0 when
    //    even the first chunk is incomplete): the caller keeps data[*consumed..)
    //    and calls again with more appended. State changes only for whole chunks,
    //    so a partial chunk is simply parsed again next time.
    //  - Appends every message completed to *out (nothing is cleared).
    //  - Stops right after a completed Set Chunk Size (1) or Abort (2) message,
    //    so the caller can apply it (set_chunk_size/abort) before the chunks
    //    that follow it are parsed; call again with the rest.
    //  - Fails on a message longer than max_message_size, a type 2/3 first chunk
    //    on an unknown chunk stream, a length change in the middle of a message,
    //    too many chunk streams or too many pending bytes. After a failure the
    //    decoder's state is unspecified: close the connection.
    // A type 1 first chunk on an unknown chunk stream is accepted with message
    // stream id 0: librtmp sends its ping responses that way.
    Error decode(const uint8_t* data, size_t size, size_t* consumed, std::vector<RtmpMessage>* out);

    // The chunk size the peer sends with; 1..kRtmpDecoderMaxChunkSize (clamped).
    void set_chunk_size(uint32_t size);
    uint32_t chunk_size() const { return chunk_size_; }
    // Largest message length accepted (default 16 MiB - 1, all a header can say).
    void set_max_message_size(uint32_t size) { max_message_size_ = size; }
    uint32_t max_message_size() const { return max_message_size_; }
    // Most chunk streams (default 64, at most 4096).
    void set_max_chunk_streams(size_t n);
    void set_max_pending_bytes(size_t n) { max_pending_bytes_ = n; }

    // Drops the partially received message of a chunk stream (Abort Message).
    // Unknown chunk streams are ignored. The stream's last header is kept.
    void abort(uint32_t cs_id);

    size_t chunk_stream_count() const { return streams_.size(); }
    // Bytes allocated for partially received messages.
    size_t pending_bytes() const { return pending_bytes_; }

  private:
    // State kept per chunk stream: the fields of the last header (what type 1, 2
    // and 3 chunks leave out) and the message being reassembled.
    struct ChunkStream {
        uint32_t cs_id = 0;
        uint8_t type = 0;
        bool extended = false;        // the last type 0/1/2 header escaped its timestamp to 4 bytes
        uint32_t length = 0;
        uint32_t stream_id = 0;
        uint32_t ts_field = 0;        // the last timestamp field: absolute (type 0) or delta (1/2)
        uint32_t timestamp = 0;       // of the message being received, else of the last one
        uint32_t prev_timestamp = 0;  // of the message before that (base of a delta mid-message)
        uint32_t received = 0;        // payload bytes so far; 0 between messages
        SharedBytes payload;          // allocated once, with the full length, at the first chunk
    };
    ChunkStream* find(uint32_t cs_id);
    ChunkStream* create(uint32_t cs_id);

    uint32_t chunk_size_ = kRtmpDefaultChunkSize;
    uint32_t max_message_size_ = kRtmpMaxMessageSize;
    size_t max_chunk_streams_ = kRtmpDefaultMaxChunkStreams;
    size_t max_pending_bytes_ = kRtmpDefaultMaxPendingBytes;
    size_t pending_bytes_ = 0;
    // Chunk streams by creation; small_[cs_id] is index + 1 for ids < 64
    // (all a normal client uses), larger ids are found by a scan.
    std::vector<ChunkStream> streams_;
    uint16_t small_[64] = {};
};

// Stateless: every message is framed with a type-0 first chunk, so the
// frames for one message do not depend on what was sent before it and can be
// built once and shared by every player of a stream (docs/architecture.md, "Live hub").
class RtmpChunkEncoder {
  public:
    // first_header: basic header (fmt 0) + the 11-byte message header + the
    // extended timestamp when timestamp >= 0xFFFFFF. continuation_header: the
    // fmt-3 basic header + the extended timestamp again when present (Flash and
    // ffmpeg expect it on every chunk). Both strings are overwritten.
    // msg.cs_id must be 2..65599 and the payload at most 16 MiB - 1.
    static void encode_headers(const RtmpMessage& msg, uint32_t chunk_size, std::string* first_header,
                               std::string* continuation_header);
    // Chunks a payload occupies (1 for an empty payload).
    static size_t chunk_count(size_t payload_size, uint32_t chunk_size);
    // iovecs for [first][payload 0..cs][cont][payload cs..2cs]...; returns how
    // many were used: 2 * chunk_count (1 for an empty payload). Returns 0 and
    // writes nothing when max_iov is too small. The iovecs point into first,
    // cont and payload, which must outlive them.
    static size_t fill_iovecs(const std::string& first, const std::string& cont, const uint8_t* payload, size_t size,
                              uint32_t chunk_size, struct iovec* iov, size_t max_iov);
    // The same with the headers as bytes (headers cached outside a string).
    static size_t fill_iovecs(const uint8_t* first, size_t first_size, const uint8_t* cont, size_t cont_size,
                              const uint8_t* payload, size_t size, uint32_t chunk_size, struct iovec* iov,
                              size_t max_iov);
    // Appends the whole chunked message to *out (commands, control messages).
    static void encode_message(const RtmpMessage& msg, uint32_t chunk_size, std::string* out);
    // Appends a basic header (1, 2 or 3 bytes) for fmt 0..3 and cs_id 2..65599.
    static void encode_basic_header(uint8_t fmt, uint32_t cs_id, std::string* out);
};

}  // namespace srs
