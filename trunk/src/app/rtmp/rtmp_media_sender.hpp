// Sends live messages to an RTMP player: the chunk headers come from the
// message's RTMP framing slot (built once for every player with the same
// chunk size and stream id), the payload is the publisher's buffer, and a
// batch of messages leaves in as few writev calls as IOV_MAX allows.
#pragma once

#include <sys/uio.h>

#include <memory>
#include <vector>

#include "app/live/live_message.hpp"
#include "core/error.hpp"
#include "io/socket.hpp"

namespace srs {

// The two chunk headers of a message as laid out in a framing slot: the
// type-0 header of the first chunk, then the type-3 header before each
// further chunk.
struct RtmpChunkHeaders {
    const uint8_t* first = nullptr;
    size_t first_size = 0;
    const uint8_t* continuation = nullptr;
    size_t continuation_size = 0;
};

// The RTMP message type of a live message (audio 8, video 9, AMF0 data 18).
uint8_t rtmp_message_type_of(const LiveMessage& msg);
// Builds msg's chunk headers for (chunk size, stream id) into slot, and reads
// them back. Exposed for tests.
void build_rtmp_framing(const LiveMessage& msg, uint32_t chunk_size, uint32_t stream_id, FramingSlot* slot);
RtmpChunkHeaders rtmp_headers_in(const FramingSlot& slot);
// The RTMP slot of every LiveMessage.
FramingSlotId rtmp_framing_slot();

class RtmpMediaSender {
  public:
    RtmpMediaSender(TcpConn* sock, uint32_t stream_id);
    void set_chunk_size(uint32_t chunk_size) { chunk_size_ = chunk_size; }
    Error send(const std::vector<LiveMessagePtr>& msgs);
    // Memory kept between batches: none (a batch's arrays are its own).
    // Scratch framing is only made when a message's shared slot did not fit.
    size_t iovec_capacity() const { return iov_size_; }
    size_t scratch_capacity() const { return scratch_.capacity(); }

  private:
    RtmpChunkHeaders framing_of(LiveMessage* msg, size_t index);
    Error flush_iovecs();

    TcpConn* sock_;
    uint32_t stream_id_;
    uint32_t chunk_size_ = 128;
    std::unique_ptr<struct iovec[]> iov_;  // the batch's own, see send()
    size_t iov_size_ = 0;
    size_t iov_used_ = 0;  // iovecs of iov_ in use
    size_t batch_size_ = 0;  // messages in the batch being sent
    // Framing for messages whose slot belongs to another chunk size/stream.
    std::vector<FramingSlot> scratch_;
};

}  // namespace srs
