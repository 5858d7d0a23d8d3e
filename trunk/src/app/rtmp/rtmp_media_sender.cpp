#include "app/rtmp/rtmp_media_sender.hpp"

#include <limits.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "protocol/rtmp/rtmp_chunk.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

RtmpMediaSender::RtmpMediaSender(TcpConn* sock, uint32_t stream_id) : sock_(sock), stream_id_(stream_id) {}

FramingSlotId rtmp_framing_slot() {
    static const FramingSlotId id = register_framing_slot("rtmp");
    return id;
}

uint8_t rtmp_message_type_of(const LiveMessage& msg) {
    switch (msg.kind()) {
        case LiveMessageKind::kAudio:
            return kRtmpAudio;
        case LiveMessageKind::kVideo:
            return kRtmpVideo;
        case LiveMessageKind::kData:
        default:
            return kRtmpAmf0Data;
    }
}

static uint32_t chunk_stream_of(const LiveMessage& msg) {
    if (msg.is_video()) return kRtmpCidVideo;
    if (msg.is_audio()) return kRtmpCidAudio;
    return kRtmpCidOverStream;
}

static uint64_t rtmp_framing_key(uint32_t chunk_size, uint32_t stream_id) {
    return static_cast<uint64_t>(chunk_size) << 32 | stream_id;
}

// Slot layout: [size of the first header][first header][continuation header].
void build_rtmp_framing(const LiveMessage& msg, uint32_t chunk_size, uint32_t stream_id, FramingSlot* slot) {
    RtmpMessage header;
    header.type = rtmp_message_type_of(msg);
    header.timestamp = msg.timestamp();
    header.stream_id = stream_id;
    header.cs_id = chunk_stream_of(msg);
    header.payload = msg.payload();
    std::string first, continuation;  // short: within the strings' inline buffers
    RtmpChunkEncoder::encode_headers(header, chunk_size, &first, &continuation);
    uint8_t* p = slot->fill(rtmp_framing_key(chunk_size, stream_id), 1 + first.size() + continuation.size());
    p[0] = static_cast<uint8_t>(first.size());
    memcpy(p + 1, first.data(), first.size());
    memcpy(p + 1 + first.size(), continuation.data(), continuation.size());
}

RtmpChunkHeaders rtmp_headers_in(const FramingSlot& slot) {
    RtmpChunkHeaders h;
    const uint8_t* p = slot.bytes();
    h.first = p + 1;
    h.first_size = p[0];
    h.continuation = h.first + h.first_size;
    h.continuation_size = slot.size() - 1 - h.first_size;
    return h;
}

RtmpChunkHeaders RtmpMediaSender::framing_of(LiveMessage* msg, size_t index) {
    FramingSlot& cached = msg->framing(rtmp_framing_slot());
    // The first player to send this message builds the headers for everyone.
    if (cached.empty()) build_rtmp_framing(*msg, chunk_size_, stream_id_, &cached);
    if (cached.holds(rtmp_framing_key(chunk_size_, stream_id_))) return rtmp_headers_in(cached);
    // Sized at the batch's first mismatch, before any iovec points into it.
    if (scratch_.size() < batch_size_) scratch_.resize(batch_size_);
    build_rtmp_framing(*msg, chunk_size_, stream_id_, &scratch_[index]);
    return rtmp_headers_in(scratch_[index]);
}

Error RtmpMediaSender::flush_iovecs() {
    if (iov_used_ == 0) return Error();
    Error err = sock_->writev(iov_.get(), static_cast<int>(iov_used_));
    iov_used_ = 0;
    return err;
}

Error RtmpMediaSender::send(const std::vector<LiveMessagePtr>& msgs) {
    iov_used_ = 0;
    batch_size_ = msgs.size();
    // One uninitialized array for the batch (fill_iovecs writes every entry
    // used): as many iovecs as the batch needs, up to a writev's worth.
    size_t total = 0, largest = 0;
    for (const auto& m : msgs) {
        size_t needed = RtmpChunkEncoder::chunk_count(m->size(), chunk_size_) * 2;
        total += needed;
        largest = std::max(largest, needed);
    }
    iov_size_ = std::min(total, std::max(largest, static_cast<size_t>(IOV_MAX)));
    iov_.reset(new struct iovec[iov_size_]);
    for (size_t i = 0; i < msgs.size(); i++) {
        LiveMessage* msg = msgs[i].get();
        RtmpChunkHeaders h = framing_of(msg, i);
        size_t needed = RtmpChunkEncoder::chunk_count(msg->size(), chunk_size_) * 2;
        if (iov_used_ + needed > static_cast<size_t>(IOV_MAX)) {
            if (Error err = flush_iovecs(); !err.ok()) return SRS_WRAP(err, "send messages");
        }
        iov_used_ += RtmpChunkEncoder::fill_iovecs(h.first, h.first_size, h.continuation, h.continuation_size,
                                                   msg->payload().data(), msg->size(), chunk_size_, &iov_[iov_used_],
                                                   needed);
    }
    if (Error err = flush_iovecs(); !err.ok()) return SRS_WRAP(err, "send messages");
    // Nothing kept for the next batch: a thousand players waiting for it
    // would each hold a batch's arrays (a GOP's, for the first one).
    iov_.reset();
    iov_size_ = 0;
    if (!scratch_.empty()) std::vector<FramingSlot>().swap(scratch_);
    return Error();
}

}  // namespace srs
