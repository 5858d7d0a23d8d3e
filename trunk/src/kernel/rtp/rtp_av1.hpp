// AV1 over RTP (AOMedia "RTP Payload Format For AV1"), sans-IO, sending side:
// one temporal unit of low-overhead OBUs, as FLV / Enhanced RTMP av01 carries
// it, into RTP payloads.
//
//   aggregation header: +-+-+-+-+-+-+-+-+
//                       |Z|Y| W |N|-|-|-|
//                       +-+-+-+-+-+-+-+-+
//   Z: the first OBU element continues a fragment of the previous packet.
//   Y: the last OBU element continues in the next packet.
//   W: element count (always 0 here: every element follows its LEB128 length).
//   N: the first packet of a coded video sequence (a keyframe's temporal unit).
//
// An OBU element is the OBU without its obu_size field (obu_has_size_field
// cleared). Temporal delimiters, tile lists and padding OBUs are not sent.
// Guarantees: nothing read outside the span given; malformed OBUs are an Error
// and nothing is sent; only the scratch buffers are allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/rtp/rtp_payload.hpp"

namespace srs {

enum Av1ObuType : uint8_t {
    kAv1ObuSequenceHeader = 1,
    kAv1ObuTemporalDelimiter = 2,
    kAv1ObuFrameHeader = 3,
    kAv1ObuTileGroup = 4,
    kAv1ObuMetadata = 5,
    kAv1ObuFrame = 6,
    kAv1ObuTileList = 8,
    kAv1ObuPadding = 15,
};

class Av1Packetizer {
  public:
    // max_payload below 3 bytes (the header, a length, one byte) is raised to 3.
    explicit Av1Packetizer(size_t max_payload = 1200);
    // Optional: the AV1CodecConfigurationRecord (av1C, after the E-RTMP video tag header). Its sequence header OBU
    // is sent first in a keyframe's temporal unit that has none of its own.
    Error set_sequence_header(const uint8_t* record, size_t n);
    // One temporal unit of OBUs (each with obu_size, except perhaps the last, which then runs to the end).
    // keyframe: the unit starts a coded video sequence (sets N on its first packet). The last payload has
    // marker=true. A unit with nothing to send (only a temporal delimiter) emits nothing.
    Error packetize(const uint8_t* obus, size_t n, bool keyframe, RtpPayloadSink* sink);

  private:
    // An OBU as an RTP element: its header (size field flag cleared) then its payload.
    struct Element {
        uint8_t header[2] = {0, 0};
        size_t header_size = 0;
        const uint8_t* payload = nullptr;
        size_t payload_size = 0;
        size_t size() const { return header_size + payload_size; }
    };
    // Appends element bytes [offset, offset + len) to buf_.
    void append_element(const Element& e, size_t offset, size_t len);
    void flush(bool last_continues, bool marker, RtpPayloadSink* sink);

    size_t max_payload_;
    std::string sequence_header_;     // the av1C's sequence header OBU, with obu_size
    std::vector<Element> elements_;   // scratch
    std::vector<uint8_t> buf_;        // scratch: the packet being filled
    bool first_ = false;              // the next flush makes the unit's first packet
    bool continues_ = false;          // the next packet starts with a fragment (Z)
    bool new_sequence_ = false;       // N on the unit's first packet
};

// Parses one OBU at data[0, n): its type, header size (1 or 2), and payload
// span; *consumed is the OBU's whole size. An OBU without obu_size runs to n.
Error av1_parse_obu(const uint8_t* data, size_t n, uint8_t* type, size_t* header_size, const uint8_t** payload,
                    size_t* payload_size, size_t* consumed);

}  // namespace srs
