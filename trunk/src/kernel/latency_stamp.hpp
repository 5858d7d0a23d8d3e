// The latency probe's stamp: a wall-clock time carried inside an H.264 or
// H.265 video frame, so it crosses a server untouched (a server forwards video
// payloads byte for byte, while it may drop or rewrite data messages).
//
// research/tools/sb_latency stamps every coded video frame right before it
// sends it, and its players read the stamp when the frame arrives; the
// difference is the delay the server added (plus loopback).
//
// The stamp is one SEI NAL unit placed before the frame's first NAL unit: an
// H.264 SEI (nal_unit_type 6) or an H.265 prefix SEI (39), holding one
// user_data_unregistered message (payloadType 5, H.264 D.1.7 / H.265 D.2.7):
//
//   NAL header | 0x05 | payloadSize (24) | UUID (16 bytes) | time (8 bytes)
//              | rbsp_trailing_bits (0x80)
//
// with the time in microseconds, big-endian, and emulation prevention bytes
// (0x000003) inserted wherever the payload needs them. Decoders ignore a
// user_data_unregistered message whose UUID they do not know, so a stamped
// stream still plays everywhere.
//
// Sans-IO: bytes in, bytes out; nothing here reads a clock. Nothing is read
// outside the spans given, whatever their bytes say.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

// The UUID of the stamp's user_data_unregistered message: "sb-latency-stamp"
// in ASCII (16 bytes).
extern const uint8_t kLatencyStampUuid[16];

// Most bytes build_latency_sei() writes: a 2-byte NAL header, type, size,
// 24 bytes of payload with up to 4 emulation prevention bytes, the trailing
// byte.
constexpr size_t kLatencySeiMaxSize = 2 + 1 + 1 + 24 + 4 + 1;
// Most bytes stamp_video_tag() adds to a tag body: the SEI and its 4-byte
// length prefix.
constexpr size_t kLatencyStampMaxGrowth = 4 + kLatencySeiMaxSize;

// Writes the SEI NAL unit (its header included, emulation prevention
// applied) carrying `stamp_us` for `codec` (kH264 or kH265) into out, which
// holds kLatencySeiMaxSize bytes. Returns its size; 0 for any other codec.
size_t build_latency_sei(VideoCodec codec, uint64_t stamp_us, uint8_t* out);

// Reads one SEI NAL unit (header included, emulation prevention in place)
// of `codec`. *found when it holds a user_data_unregistered message with the
// stamp's UUID; *stamp_us is then its time. A NAL unit that is not an SEI,
// or whose SEI messages are all something else, is not an error: *found is
// false. An error: an SEI message that runs past the end of the NAL unit
// (truncated), or a stamp message shorter than 24 bytes.
Error parse_latency_sei(VideoCodec codec, const uint8_t* nal, size_t n, uint64_t* stamp_us, bool* found);

// Copies the video tag body `body` (an H.264/H.265 coded-frames packet,
// legacy FLV or Enhanced RTMP, whose NAL units carry nalu_length_size-byte
// big-endian lengths) into out with the stamp's SEI inserted before its first
// NAL unit; out holds n + kLatencyStampMaxGrowth bytes, *size is what was
// written. An error for a sequence header, another codec, a malformed header,
// or a length size other than 1, 2 or 4 (out is then untouched).
Error stamp_video_tag(const uint8_t* body, size_t n, int nalu_length_size, uint64_t stamp_us, uint8_t* out,
                      size_t* size);

// Looks for the stamp in a video tag body, or in its first n bytes: the NAL
// units are read in order, and the scan stops at the first one that does not
// fit in [body, body + n) (the rest of a body the caller has not read). *found
// when a stamp SEI was among them. Not found, without an error: a sequence
// header, another codec, an unstamped frame, a prefix too short. An error: a
// malformed video header, a bad length size, or a complete SEI NAL unit that
// parse_latency_sei rejects.
Error find_latency_stamp(const uint8_t* body, size_t n, int nalu_length_size, uint64_t* stamp_us, bool* found);

// The NAL unit length size (1, 2 or 4) a video sequence header (an H.264 or
// H.265 tag body, legacy or Enhanced RTMP) announces; 0 when the body is no
// such header or is too short. Reads the record's lengthSizeMinusOne only, so
// the first 32 bytes of the body are enough.
int video_nalu_length_size(const uint8_t* body, size_t n);

}  // namespace srs
