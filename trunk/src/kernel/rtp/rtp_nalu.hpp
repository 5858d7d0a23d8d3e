// What the H.264 (RFC 6184) and H.265 (RFC 7798) packetizers share: splitting
// an access unit of length-prefixed NALUs (as FLV and MP4 carry them), and
// writing NALUs as single-NAL-unit, aggregation (STAP-A / AP) and
// fragmentation (FU-A / FU) payloads. The two formats differ only in the NAL
// header (1 or 2 bytes) and the type numbers, so one writer serves both.
// Not part of the public API (rtp_h264.hpp and rtp_h265.hpp are).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "kernel/rtp/rtp_payload.hpp"

namespace srs::rtp_nalu {

// One NAL unit (header included), borrowed from the caller's buffer.
struct Nalu {
    const uint8_t* data = nullptr;
    size_t size = 0;
};

// Splits data[0, n) into the NALUs it holds, each prefixed by a big-endian
// length of length_size (1..4) bytes, into *out (cleared first). A length past
// the end, or a NALU shorter than min_size (the NAL header size, so never 0),
// is kErrorRtpPayloadNalu. Empty input is no NALU and no error.
Error split_length_prefixed(const uint8_t* data, size_t n, int length_size, size_t min_size, std::vector<Nalu>* out);

enum class Format { kH264, kH265 };

// Writes NALUs as RTP payloads. The only allocation is the scratch buffer,
// grown once to max_payload.
class PayloadWriter {
  public:
    // max_payload below what a fragment needs (NAL header + FU header + 1 byte)
    // is raised to that.
    PayloadWriter(Format format, size_t max_payload);

    // Sends nalus[0, count) in order; the last payload has marker=true. The
    // first `leading` NALUs (parameter sets) go in one aggregation packet when
    // they fit, never mixed with the others; the others are aggregated when
    // `merge` is set, greedily while they fit max_payload. A NALU alone in a
    // packet goes as a single NAL unit packet, or fragmented when over
    // max_payload. Nothing is sent for count == 0.
    void write(const Nalu* nalus, size_t count, size_t leading, bool merge, RtpPayloadSink* sink);

    size_t max_payload() const { return max_payload_; }

  private:
    // How many of nalus[0, limit) fit one aggregation packet (0 or 1: none).
    size_t aggregate_count(const Nalu* nalus, size_t limit) const;
    void write_aggregate(const Nalu* nalus, size_t count, bool marker, RtpPayloadSink* sink);
    void write_fragments(const Nalu& nalu, bool marker, RtpPayloadSink* sink);

    Format format_;
    size_t header_size_;  // NAL header bytes: 1 (H.264), 2 (H.265)
    size_t max_payload_;
    std::vector<uint8_t> buf_;
};

}  // namespace srs::rtp_nalu
