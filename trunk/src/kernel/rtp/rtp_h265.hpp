// H.265 over RTP (RFC 7798), sans-IO, sending side: FLV/E-RTMP access units
// (length-prefixed NALUs, hvcC) into RTP payloads. No DONL (sprop-max-don-diff
// is 0), one RTP stream.
//
// Guarantees as for rtp_h264: nothing read outside the spans given, malformed
// input is an Error, only scratch buffers are allocated.
//
//   NAL unit header: +---------------+---------------+
//                    |F|   Type    |  LayerId  | TID |
//                    +---------------+---------------+
//   AP (48):  [payload header, type 48] then per NALU: 16-bit size, NALU.
//   FU (49):  [payload header, type 49] [S|E|FuType(6)] fragment of the NALU
//             body (the 2-byte NAL header is not sent).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/rtp/rtp_nalu.hpp"
#include "kernel/rtp/rtp_payload.hpp"

namespace srs {

// H.265 NAL unit types the RTP code looks at.
enum H265NaluType : uint8_t {
    kH265NaluIrapFirst = 16,  // BLA_W_LP
    kH265NaluIrapLast = 21,   // CRA_NUT (22, 23 are reserved IRAP types)
    kH265NaluVps = 32,
    kH265NaluSps = 33,
    kH265NaluPps = 34,
    kH265NaluAud = 35,
    kH265NaluFiller = 38,
    kH265NaluAp = 48,
    kH265NaluFu = 49,
};

inline uint8_t h265_nalu_type(const uint8_t* nal) {
    return (nal[0] >> 1) & 0x3f;
}

struct H265PacketizerOptions {
    size_t max_payload = 1200;  // RTP payload bytes (raised to 4 if smaller)
    bool merge_nalus = false;   // aggregate small NALUs of a frame into APs
};

class H265Packetizer {
  public:
    explicit H265Packetizer(H265PacketizerOptions options = {});
    // The HEVCDecoderConfigurationRecord (after the FLV/E-RTMP video tag header): keeps its VPS/SPS/PPS (sent as one
    // AP before every IRAP) and the NALU length size. On error the previous record stays in use.
    Error set_sequence_header(const uint8_t* record, size_t n);
    bool has_sequence_header() const;
    // One access unit (length-prefixed NALUs). Emits: when the frame has an IRAP (types 16..21), one AP with
    // VPS+SPS+PPS first (the frame's own when it carries all three, else the record's); each NALU as a single NAL
    // unit packet when it fits max_payload, else FU fragments; AUD (35) and filler (38) dropped; with merge_nalus,
    // consecutive small NALUs aggregated into APs. The last payload has marker=true. Malformed input (a length past
    // the end, a NALU under 2 bytes) -> error and nothing emitted (the frame is checked first).
    Error packetize(const uint8_t* nalus, size_t n, RtpPayloadSink* sink);

    int nalu_length_size() const { return length_size_; }

  private:
    H265PacketizerOptions options_;
    rtp_nalu::PayloadWriter writer_;
    int length_size_ = 4;
    std::vector<std::string> parameter_sets_;  // VPSs, SPSs, PPSs in that order
    std::vector<rtp_nalu::Nalu> nalus_;        // scratch
    std::vector<rtp_nalu::Nalu> send_;         // scratch
};

}  // namespace srs
