// What one FLV/RTMP audio or video tag body means to the MP4 muxer: a track
// config (a sequence header), a sample, or nothing the muxer takes. The live
// source's messages and FLV files carry exactly these bodies, so HLS fMP4,
// DVR MP4 and the srs_mux_mp4 tool share this one translation.
//
// Taken: H.264 and H.265 (legacy and Enhanced RTMP, AVCC length-prefixed
// NALUs), AAC (legacy), Opus (Enhanced RTMP 'Opus'; its SequenceStart is an
// OpusHead, or absent). Skipped (kind kNone): end of sequence, E-RTMP
// metadata, command frames, empty coded frames, and codecs the muxer does not
// write (MP3, AV1, ...; `unsupported` is then set so a caller can log once).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "kernel/mp4/mp4_muxer.hpp"

namespace srs {

struct Mp4FlvFrame {
    enum Kind { kNone, kVideoConfig, kAudioConfig, kVideoSample, kAudioSample };
    Kind kind = kNone;
    bool unsupported = false;  // kNone because of the codec
    Mp4TrackConfig config;     // kVideoConfig, kAudioConfig
    Mp4Sample sample;          // kVideoSample, kAudioSample; data points into the body
};

// tag_type: 8 (audio) or 9 (video); anything else gives kNone. timestamp: the
// tag's (ms). Errors: the body is malformed (the codec parsers' errors) or a
// sequence header the muxer cannot use (kErrorMp4Track).
Error mp4_frame_from_flv(uint8_t tag_type, uint32_t timestamp, const uint8_t* body, size_t n, Mp4FlvFrame* out);

}  // namespace srs
