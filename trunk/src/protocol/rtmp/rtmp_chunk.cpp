#include "protocol/rtmp/rtmp_chunk.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "core/bytes.hpp"

namespace srs {

namespace {

// Message header bytes after the basic header, by fmt.
constexpr uint8_t kMessageHeaderSize[4] = {11, 7, 3, 0};
constexpr uint32_t kTimestampEscape = 0xFFFFFF;
constexpr size_t kMaxChunkStreamsLimit = 4096;

}  // namespace

RtmpChunkDecoder::RtmpChunkDecoder() = default;
RtmpChunkDecoder::~RtmpChunkDecoder() = default;

void RtmpChunkDecoder::set_chunk_size(uint32_t size) {
    chunk_size_ = std::min(std::max<uint32_t>(size, 1), kRtmpDecoderMaxChunkSize);
}

void RtmpChunkDecoder::set_max_chunk_streams(size_t n) { max_chunk_streams_ = std::min(n, kMaxChunkStreamsLimit); }

RtmpChunkDecoder::ChunkStream* RtmpChunkDecoder::find(uint32_t cs_id) {
    if (cs_id < 64) {
        uint16_t index = small_[cs_id];
        return index ? &streams_[index - 1] : nullptr;
    }
    for (ChunkStream& cs : streams_) {
        if (cs.cs_id == cs_id) return &cs;
    }
    return nullptr;
}

RtmpChunkDecoder::ChunkStream* RtmpChunkDecoder::create(uint32_t cs_id) {
    streams_.emplace_back();
    streams_.back().cs_id = cs_id;
    if (cs_id < 64) small_[cs_id] = static_cast<uint16_t>(streams_.size());
    return &streams_.back();
}

void RtmpChunkDecoder::abort(uint32_t cs_id) {
    ChunkStream* cs = find(cs_id);
    if (!cs || cs->received == 0) return;
    pending_bytes_ -= cs->length;
    cs->payload = SharedBytes();
    cs->received = 0;
}

// A chunk is a basic header, a message header of 11, 7, 3 or 0 bytes (by
// fmt), an optional extended timestamp and up to chunk-size payload bytes.
//
// Basic header, three forms (cs id 0 and 1 select the longer ones):
//
//   0 1 2 3 4 5 6 7
//  +-+-+-+-+-+-+-+-+
//  |fmt|   cs id   |                                       cs id 2..63
//  +-+-+-+-+-+-+-+-+
//
//   0                   1
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |fmt|     0     |  cs id - 64   |                       cs id 64..319
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
//   0                   1                   2
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |fmt|     1     |  (cs id - 64) as 16 bits LE   |       cs id 64..65599
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Message header, fmt 0 (11 bytes, starts a chunk stream or a new message):
//
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |              timestamp (BE)                   |message length |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |  message length (BE, cont.)   |  msg type id  | msg stream id |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |  message stream id (little endian, cont.)     |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// fmt 1 (7 bytes, same stream id):       fmt 2 (3 bytes, same stream id,
//                                         length and type):
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |  timestamp delta (BE, 24 bits) |    |  timestamp delta (BE, 24 bits) |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |  message length (BE, 24 bits)  |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |  msg type id  |                     fmt 3: no message header; every field
//  +-+-+-+-+-+-+-+-+                     comes from the chunk stream's last one.
//
// Extended timestamp (4 bytes, BE) follows the message header when its 24-bit
// timestamp field is 0xFFFFFF, and holds the real timestamp or delta. A fmt 3
// chunk whose stream's last fmt 0/1/2 header was escaped may repeat it (Flash,
// ffmpeg, this encoder) or not (some encoders), so the decoder peeks: the 4
// bytes are the extended timestamp when they equal the last one.
//
// Timestamps: fmt 0 carries the absolute time; fmt 1 and 2 carry a delta that
// is added to the previous message's time; a fmt 3 chunk that starts a new
// message adds the last timestamp field again (a delta, or after a fmt 0 the
// absolute value, as ffmpeg's encoder assumes when it switches to fmt 3).
Error RtmpChunkDecoder::decode(const uint8_t* data, size_t size, size_t* consumed, std::vector<RtmpMessage>* out) {
    size_t pos = 0;
    *consumed = 0;
    while (pos < size) {
        const uint8_t* p = data + pos;
        const size_t avail = size - pos;

        const uint8_t fmt = p[0] >> 6;
        uint32_t cs_id = p[0] & 0x3f;
        size_t basic_size = 1;
        if (cs_id == 0) {
            if (avail < 2) break;
            cs_id = 64 + p[1];
            basic_size = 2;
        } else if (cs_id == 1) {
            if (avail < 3) break;
            cs_id = 64 + load_le16(p + 1);
            basic_size = 3;
        }
        const size_t header_end = basic_size + kMessageHeaderSize[fmt];
        if (avail < header_end) break;

        ChunkStream* cs = find(cs_id);
        if (!cs) {
            if (fmt >= 2) {
                return SRS_ERR(kErrorRtmpChunkNoPreviousHeader,
                               "chunk stream %u starts with a fmt %u chunk and has no previous header", cs_id, fmt);
            }
            if (streams_.size() >= max_chunk_streams_) {
                return SRS_ERR(kErrorRtmpChunkTooManyStreams, "chunk stream %u is one more than the max of %zu",
                               cs_id, max_chunk_streams_);
            }
        }

        // Parse into locals; the stream's state changes only once the whole
        // chunk is here.
        const bool in_message = cs && cs->received > 0;
        const uint8_t* h = p + basic_size;
        uint32_t length = cs ? cs->length : 0;
        uint8_t type = cs ? cs->type : 0;
        uint32_t stream_id = cs ? cs->stream_id : 0;
        uint32_t ts_field = cs ? cs->ts_field : 0;
        bool extended = cs ? cs->extended : false;
        if (fmt <= 2) {
            ts_field = load_be24(h);
            extended = ts_field == kTimestampEscape;
        }
        if (fmt <= 1) {
            length = load_be24(h + 3);
            type = h[6];
            if (length > max_message_size_) {
                return SRS_ERR(kErrorRtmpChunkMessageTooLarge,
                               "message length %u on chunk stream %u is over the max of %u", length, cs_id,
                               max_message_size_);
            }
            if (in_message && length != cs->length) {
                return SRS_ERR(kErrorRtmpChunkLengthChanged,
                               "message length changes from %u to %u on chunk stream %u after %u bytes", cs->length,
                               length, cs_id, cs->received);
            }
        }
        if (fmt == 0) stream_id = load_le32(h + 7);

        size_t payload_at = header_end;
        if (extended) {
            if (fmt <= 2) {
                if (avail < header_end + 4) break;
                ts_field = load_be32(p + header_end);
                payload_at += 4;
            } else {
                // fmt 3: the extended timestamp is there when the next 4
                // bytes repeat it. With fewer than 4 bytes in hand, a
                // mismatch already says "absent"; a matching prefix waits.
                uint8_t expect[4];
                store_be32(expect, cs->ts_field);
                const size_t have = std::min<size_t>(avail - header_end, 4);
                if (memcmp(p + header_end, expect, have) == 0) {
                    if (have < 4) break;
                    payload_at += 4;
                }
            }
        }

        const uint32_t received = in_message ? cs->received : 0;
        const uint32_t chunk_payload = std::min(chunk_size_, length - received);
        if (avail - payload_at < chunk_payload) break;

        if (!in_message && length > 0 && pending_bytes_ + length > max_pending_bytes_) {
            return SRS_ERR(kErrorRtmpChunkPendingTooLarge,
                           "message length %u on chunk stream %u would make %zu pending bytes, max %zu", length,
                           cs_id, pending_bytes_ + length, max_pending_bytes_);
        }

        // The whole chunk is here: commit.
        if (!cs) cs = create(cs_id);
        cs->length = length;
        cs->type = type;
        cs->stream_id = stream_id;
        cs->ts_field = ts_field;
        cs->extended = extended;
        if (!in_message) {
            cs->prev_timestamp = cs->timestamp;
            cs->timestamp = fmt == 0 ? ts_field : cs->timestamp + ts_field;
            if (length > 0) {
                cs->payload = SharedBytes::allocate(length);
                pending_bytes_ += length;
            }
        } else if (fmt == 0) {
            cs->timestamp = ts_field;
        } else if (fmt <= 2) {
            cs->timestamp = cs->prev_timestamp + ts_field;
        }
        if (chunk_payload > 0) memcpy(cs->payload.data() + received, p + payload_at, chunk_payload);
        cs->received = received + chunk_payload;
        pos += payload_at + chunk_payload;

        if (cs->received == cs->length) {
            RtmpMessage msg;
            msg.type = cs->type;
            msg.timestamp = cs->timestamp;
            msg.stream_id = cs->stream_id;
            msg.cs_id = cs_id;
            msg.payload = std::move(cs->payload);
            cs->payload = SharedBytes();
            pending_bytes_ -= cs->length;
            cs->received = 0;
            out->push_back(std::move(msg));
            // The caller must apply these before the next chunk is parsed.
            if (type == kRtmpSetChunkSize || type == kRtmpAbort) break;
        }
    }
    *consumed = pos;
    return Error();
}

void RtmpChunkEncoder::encode_basic_header(uint8_t fmt, uint32_t cs_id, std::string* out) {
    assert(cs_id >= 2 && cs_id <= 65599);
    const uint8_t top = static_cast<uint8_t>(fmt << 6);
    if (cs_id < 64) {
        out->push_back(static_cast<char>(top | cs_id));
    } else if (cs_id < 320) {
        const char b[2] = {static_cast<char>(top), static_cast<char>(cs_id - 64)};
        out->append(b, 2);
    } else {
        char b[3] = {static_cast<char>(top | 1)};
        store_le16(b + 1, static_cast<uint16_t>(cs_id - 64));
        out->append(b, 3);
    }
}

void RtmpChunkEncoder::encode_headers(const RtmpMessage& msg, uint32_t chunk_size, std::string* first_header,
                                      std::string* continuation_header) {
    (void)chunk_size;  // headers do not depend on it; kept so callers key caches by it
    const size_t length = msg.payload.size();
    assert(length <= kRtmpMaxMessageSize);
    const bool extended = msg.timestamp >= kTimestampEscape;
    const uint32_t ts24 = extended ? kTimestampEscape : msg.timestamp;

    first_header->clear();
    encode_basic_header(0, msg.cs_id, first_header);
    uint8_t h[11];
    store_be24(h, ts24);
    store_be24(h + 3, static_cast<uint32_t>(length));
    h[6] = msg.type;
    store_le32(h + 7, msg.stream_id);
    first_header->append(reinterpret_cast<const char*>(h), sizeof(h));

    continuation_header->clear();
    encode_basic_header(3, msg.cs_id, continuation_header);
    if (extended) {
        uint8_t ext[4];
        store_be32(ext, msg.timestamp);
        first_header->append(reinterpret_cast<const char*>(ext), 4);
        continuation_header->append(reinterpret_cast<const char*>(ext), 4);
    }
}

size_t RtmpChunkEncoder::chunk_count(size_t payload_size, uint32_t chunk_size) {
    assert(chunk_size > 0);
    if (payload_size == 0) return 1;
    return (payload_size + chunk_size - 1) / chunk_size;
}

size_t RtmpChunkEncoder::fill_iovecs(const std::string& first, const std::string& cont, const uint8_t* payload,
                                     size_t size, uint32_t chunk_size, struct iovec* iov, size_t max_iov) {
    return fill_iovecs(reinterpret_cast<const uint8_t*>(first.data()), first.size(),
                       reinterpret_cast<const uint8_t*>(cont.data()), cont.size(), payload, size, chunk_size, iov,
                       max_iov);
}

size_t RtmpChunkEncoder::fill_iovecs(const uint8_t* first, size_t first_size, const uint8_t* cont, size_t cont_size,
                                     const uint8_t* payload, size_t size, uint32_t chunk_size, struct iovec* iov,
                                     size_t max_iov) {
    const size_t need = size == 0 ? 1 : 2 * chunk_count(size, chunk_size);
    if (need > max_iov) return 0;
    iov[0].iov_base = const_cast<uint8_t*>(first);
    iov[0].iov_len = first_size;
    size_t n = 1;
    for (size_t off = 0; off < size; off += chunk_size) {
        if (off > 0) {
            iov[n].iov_base = const_cast<uint8_t*>(cont);
            iov[n].iov_len = cont_size;
            n++;
        }
        iov[n].iov_base = const_cast<uint8_t*>(payload + off);
        iov[n].iov_len = std::min<size_t>(chunk_size, size - off);
        n++;
    }
    return n;
}

void RtmpChunkEncoder::encode_message(const RtmpMessage& msg, uint32_t chunk_size, std::string* out) {
    std::string first, cont;
    encode_headers(msg, chunk_size, &first, &cont);
    const size_t size = msg.payload.size();
    const size_t chunks = chunk_count(size, chunk_size);
    out->reserve(out->size() + first.size() + size + (chunks - 1) * cont.size());
    out->append(first);
    const char* payload = reinterpret_cast<const char*>(msg.payload.data());
    for (size_t off = 0; off < size; off += chunk_size) {
        if (off > 0) out->append(cont);
        out->append(payload + off, std::min<size_t>(chunk_size, size - off));
    }
}

}  // namespace srs
