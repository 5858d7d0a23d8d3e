// Where the RTP packetizers (rtp_h264, rtp_h265, rtp_av1) put what they make.
//
// A packetizer turns one video frame into RTP payloads (no RTP header: the
// caller owns sequence numbers, timestamps and SSRCs) and hands each one to a
// sink, in sending order, without keeping a list: a frame of any size costs
// one scratch buffer, reused for the next payload.
#pragma once

#include <cstddef>
#include <cstdint>

namespace srs {

// Receives the RTP payloads a packetizer makes, in order. data is valid only during the call.
class RtpPayloadSink {
  public:
    virtual ~RtpPayloadSink() = default;
    virtual void on_rtp_payload(const uint8_t* data, size_t size, bool marker) = 0;  // marker: last payload of the frame
};

}  // namespace srs
