// Sends live messages to an RTMP player: the chunk headers come from the
// message's cache (built once for every player with the same chunk size and
// stream id), the payload is the publisher's buffer, and a batch of messages
// leaves in as few writev calls as IOV_MAX allows.
#pragma once

#include <sys/uio.h>

#include <string>
#include <vector>

#include "app/live/live_message.hpp"
#include "core/error.hpp"
#include "io/socket.hpp"

namespace srs {

class RtmpMediaSender {
  public:
    RtmpMediaSender(TcpConn* sock, uint32_t stream_id);
    void set_chunk_size(uint32_t chunk_size) { chunk_size_ = chunk_size; }
    Error send(const std::vector<LiveMessagePtr>& msgs);
    uint64_t messages_sent() const { return messages_; }

  private:
    const LiveMessage::RtmpFraming& framing_of(LiveMessage* msg, size_t index);
    Error flush_iovecs();

    TcpConn* sock_;
    uint32_t stream_id_;
    uint32_t chunk_size_ = 128;
    uint64_t messages_ = 0;
    std::vector<struct iovec> iov_;
    size_t iov_used_ = 0;  // iovecs of iov_ in use
    // Framing for messages whose cache belongs to another chunk size/stream.
    std::vector<LiveMessage::RtmpFraming> scratch_;
};

}  // namespace srs
