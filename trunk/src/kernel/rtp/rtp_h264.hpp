// H.264 over RTP (RFC 6184, packetization-mode 1), sans-IO, both ways.
//
// H264Packetizer turns FLV/RTMP access units (AVCC: length-prefixed NALUs)
// into RTP payloads: single NAL unit packets, STAP-A, FU-A. H264Depacketizer
// rebuilds access units (AVCC with 4-byte lengths, what FLV carries) from RTP
// payloads given in sequence order, and drops what it cannot rebuild whole.
//
// Guarantees: nothing is read outside the spans given; malformed input is an
// Error, never a crash; a packetizer allocates only its scratch buffers (grown
// to the largest frame seen); the depacketizer holds at most one frame being
// built (bounded by kH264MaxFrameSize) plus kH264MaxPendingFrames completed
// ones. Timestamps and sequence numbers are the caller's; no clock is read.
//
//   NAL unit header: +-+-+-+-+-+-+-+-+
//                    |F|NRI|  Type   |   1..23 a NAL unit, 24 STAP-A, 28 FU-A
//                    +-+-+-+-+-+-+-+-+
//   STAP-A: [F|NRI|24] then per NALU: 16-bit size, NALU (header included).
//   FU-A:   [F|NRI|28] [S|E|R|Type] fragment of the NALU body (header not sent).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/rtp/rtp_nalu.hpp"
#include "kernel/rtp/rtp_payload.hpp"

namespace srs {

// H.264 NAL unit types the RTP code looks at.
enum H264NaluType : uint8_t {
    kH264NaluSlice = 1,
    kH264NaluIdr = 5,
    kH264NaluSei = 6,
    kH264NaluSps = 7,
    kH264NaluPps = 8,
    kH264NaluAud = 9,
    kH264NaluFiller = 12,
    kH264NaluStapA = 24,
    kH264NaluFuA = 28,
};

struct H264PacketizerOptions {
    size_t max_payload = 1200;  // RTP payload bytes (raised to 3 if smaller)
    bool merge_nalus = false;   // aggregate small NALUs of a frame into STAP-A packets
};

class H264Packetizer {
  public:
    explicit H264Packetizer(H264PacketizerOptions options = {});
    // The AVCDecoderConfigurationRecord of the stream (FLV sequence header body after the 5-byte tag header):
    // keeps its SPS/PPS (sent as one STAP-A before every IDR) and the NALU length size.
    // On error the previous record stays in use.
    Error set_sequence_header(const uint8_t* record, size_t n);
    bool has_sequence_header() const;
    // One access unit as FLV carries it (NALUs each prefixed by a big-endian length of nalu_length_size bytes).
    // Emits: when the frame has an IDR (type 5), one STAP-A with SPS+PPS first (unless the frame carries its own SPS
    // and PPS, then those are sent); each NALU as a single-NAL-unit packet when it fits max_payload, else FU-A fragments
    // (S on the first, E on the last, NRI kept); AUD (9) and filler (12) NALUs are dropped; with merge_nalus, consecutive
    // small NALUs are aggregated into STAP-A packets up to max_payload. The last payload of the frame has marker=true.
    // Malformed input (a length past the end, zero-length NALU) -> error, nothing emitted after the bad NALU.
    // (The whole frame is checked first, so a malformed frame emits nothing at all.) Without a sequence header,
    // lengths are 4 bytes. A frame with nothing to send (only AUDs) emits nothing.
    Error packetize(const uint8_t* nalus, size_t n, RtpPayloadSink* sink);

    int nalu_length_size() const { return length_size_; }

  private:
    H264PacketizerOptions options_;
    rtp_nalu::PayloadWriter writer_;
    int length_size_ = 4;
    std::vector<std::string> parameter_sets_;  // the record's SPSs then PPSs
    std::vector<rtp_nalu::Nalu> nalus_;        // scratch: the frame's NALUs
    std::vector<rtp_nalu::Nalu> send_;         // scratch: what is sent, in order
};

// Whether an AVCC access unit is a B-frame that nothing references (every slice NALU has nal_ref_idc 0).
// Any non-reference frame passes the test (a non-reference P-frame is as safe to drop). False for a frame
// without slices or a malformed one.
bool h264_frame_is_disposable(const uint8_t* nalus, size_t n, int nalu_length_size);
// Whether an AVCC access unit is a B picture (the slice_type of its first slice is B).
bool h264_frame_has_b_slice(const uint8_t* nalus, size_t n, int nalu_length_size);

// One access unit rebuilt from RTP.
struct H264Frame {
    uint32_t timestamp = 0;   // RTP timestamp
    bool keyframe = false;    // holds an IDR slice
    std::string nalus;        // AVCC: each NALU with a 4-byte big-endian length (SPS/PPS/AUD not included)
    std::string sps, pps;     // the parameter sets this frame carried (empty if none)
};

// A frame growing past this is dropped (counted) and the rest of it ignored.
constexpr size_t kH264MaxFrameSize = 4 * 1024 * 1024;
// Completed frames waiting for pop(); one more drops the oldest (counted).
constexpr size_t kH264MaxPendingFrames = 16;

// Rebuilds access units from payloads given in sequence order (after a reorder buffer). Packets of one frame share the
// timestamp; a frame ends with the marker bit or when the timestamp changes. A frame with a hole (a sequence gap inside
// it, a FU-A without its start or end, a FU-A interrupted) is dropped whole and counted; after a drop, frames are
// dropped until the next keyframe (need_keyframe() is true then, so the caller can send a PLI).
//
// Details:
// - need_keyframe() is true from the start too: frames before the first keyframe are dropped (and counted).
// - A sequence gap loses data of some frame: the frame open at the gap is dropped, and the frame the next packet
//   starts is dropped unless that packet starts with an SPS (a keyframe's parameter sets come first, so nothing
//   of it was lost).
// - An empty payload (a padding-only packet) only advances the sequence.
// - SPS/PPS in a frame without slices are kept for the next frame.
// - A payload error (bad STAP-A length, NAL type 0/30/31 or of another packetization mode, FU on a too-short
//   payload) is returned, and the frame it belongs to is dropped like a frame with a hole; the next frames are
//   rebuilt normally.
class H264Depacketizer {
  public:
    // lost_before: how many sequence numbers were skipped right before this packet (0 normally).
    Error push(uint16_t seq, uint32_t timestamp, bool marker, const uint8_t* payload, size_t size, int lost_before = 0);
    // The next completed frame, if any (frames complete in push order).
    bool pop(H264Frame* out);
    bool need_keyframe() const;
    uint64_t frames_dropped() const;

  private:
    void start_frame(uint32_t timestamp);
    // Closes the open frame: queued when whole, else dropped.
    void finish_frame();
    void break_frame();
    Error add_payload(const uint8_t* p, size_t n);
    Error add_fragment(const uint8_t* p, size_t n);
    // One whole NALU of the frame (header included).
    Error add_nalu(const uint8_t* p, size_t n);

    bool have_seq_ = false;
    uint16_t last_seq_ = 0;
    bool need_keyframe_ = true;
    uint64_t dropped_ = 0;

    // The frame being built.
    bool open_ = false;
    bool broken_ = false;
    size_t bytes_ = 0;  // payload bytes taken into the frame (bounds memory)
    H264Frame frame_;
    bool in_fu_ = false;
    std::string fu_;  // the NALU a FU-A run is rebuilding (header included)

    // Parameter sets of a frame without slices, for the next frame.
    std::string carried_sps_, carried_pps_;

    std::deque<H264Frame> done_;
};

// An AVCDecoderConfigurationRecord (version 1, 4-byte lengths) for one SPS and one PPS.
Error h264_build_avcc_record(const std::string& sps, const std::string& pps, std::string* out);

}  // namespace srs
