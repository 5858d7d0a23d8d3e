#include "app/rtmp/rtmp_media_sender.hpp"

#include <limits.h>

#include "protocol/rtmp/rtmp_chunk.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

RtmpMediaSender::RtmpMediaSender(TcpConn* sock, uint32_t stream_id) : sock_(sock), stream_id_(stream_id) {}

static uint32_t chunk_stream_of(const LiveMessage* msg) {
    if (msg->is_video()) return kRtmpCidVideo;
    if (msg->is_audio()) return kRtmpCidAudio;
    return kRtmpCidOverStream;
}

static void build_framing(LiveMessage* msg, uint32_t chunk_size, uint32_t stream_id,
                          LiveMessage::RtmpFraming* out) {
    RtmpMessage header;
    header.type = msg->type();
    header.timestamp = msg->timestamp();
    header.stream_id = stream_id;
    header.cs_id = chunk_stream_of(msg);
    header.payload = msg->payload();
    out->chunk_size = chunk_size;
    out->stream_id = stream_id;
    out->first.clear();
    out->continuation.clear();
    RtmpChunkEncoder::encode_headers(header, chunk_size, &out->first, &out->continuation);
}

const LiveMessage::RtmpFraming& RtmpMediaSender::framing_of(LiveMessage* msg, size_t index) {
    LiveMessage::RtmpFraming& cached = msg->rtmp_framing();
    if (cached.chunk_size == 0) {
        // First player to send this message: build the headers for everyone.
        build_framing(msg, chunk_size_, stream_id_, &cached);
    }
    if (cached.chunk_size == chunk_size_ && cached.stream_id == stream_id_) return cached;
    build_framing(msg, chunk_size_, stream_id_, &scratch_[index]);
    return scratch_[index];
}

Error RtmpMediaSender::flush_iovecs() {
    if (iov_used_ == 0) return Error();
    Error err = sock_->writev(iov_.data(), static_cast<int>(iov_used_));
    iov_used_ = 0;
    return err;
}

Error RtmpMediaSender::send(const std::vector<LiveMessagePtr>& msgs) {
    iov_used_ = 0;
    // Sized before the loop: iovecs point into these strings until writev.
    if (scratch_.size() < msgs.size()) scratch_.resize(msgs.size());
    for (size_t i = 0; i < msgs.size(); i++) {
        LiveMessage* msg = msgs[i].get();
        const LiveMessage::RtmpFraming& f = framing_of(msg, i);
        size_t needed = RtmpChunkEncoder::chunk_count(msg->size(), chunk_size_) * 2;
        if (iov_used_ + needed > static_cast<size_t>(IOV_MAX)) {
            if (Error err = flush_iovecs(); !err.ok()) return SRS_WRAP(err, "send messages");
        }
        // iov_ only grows (its size is a high-water mark): no per-batch
        // zero-filling of iovecs that fill_iovecs overwrites anyway.
        if (iov_.size() < iov_used_ + needed) iov_.resize(iov_used_ + needed);
        iov_used_ += RtmpChunkEncoder::fill_iovecs(f.first, f.continuation, msg->payload().data(), msg->size(),
                                                   chunk_size_, &iov_[iov_used_], needed);
        messages_++;
    }
    if (Error err = flush_iovecs(); !err.ok()) return SRS_WRAP(err, "send messages");
    return Error();
}

}  // namespace srs
