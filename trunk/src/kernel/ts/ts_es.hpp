// Elementary-stream conversions for MPEG-TS: what FLV/RTMP carries into what
// a TS stream must carry.
//
// - H.264 / H.265: length-prefixed NALUs (AVCC/HVCC, as in FLV and MP4) into an
//   Annex B access unit: an access unit delimiter first, the decoder's
//   parameter sets (SPS/PPS, plus VPS for H.265) before every IDR/IRAP frame that
//   does not carry its own, then each NALU after a 4-byte start code.
// - AAC: a raw access unit into an ADTS frame (7-byte header, no CRC) built
//   from the AudioSpecificConfig.
//
// Guarantees: inputs are borrowed spans and never read past their end; a
// malformed record or frame is kErrorTsMux and nothing is appended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

// The parameter sets of an AVCDecoderConfigurationRecord (SPS then PPS) or an
// HEVCDecoderConfigurationRecord (in array order: VPS, SPS, PPS, SEI...) and
// its NALU length size.
struct TsVideoParameterSets {
    int nalu_length_size = 4;
    std::vector<std::string> nalus;  // each a whole NAL unit, header included
};
Error ts_parse_avc_record(const uint8_t* record, size_t n, TsVideoParameterSets* out);
Error ts_parse_hevc_record(const uint8_t* record, size_t n, TsVideoParameterSets* out);

// Appends the Annex B form of one access unit to *out. codec is kH264 or
// kH265; params may have no NALUs (then nothing is inserted). *keyframe is set
// when the frame holds an IDR (H.264 type 5) or IRAP (H.265 types 16..21)
// slice, or when flagged_keyframe says the container marks it as one (an
// H.264 I frame with a recovery point instead of an IDR): such a frame gets
// the parameter sets too, so decoding can start there. AUD NALUs of the input
// are dropped (one is written first).
Error ts_annexb_from_avcc(VideoCodec codec, const TsVideoParameterSets& params, const uint8_t* nalus, size_t n,
                          std::string* out, bool* keyframe, bool flagged_keyframe = false);

// What an ADTS header needs from an AudioSpecificConfig.
struct TsAdtsConfig {
    uint8_t profile = 1;            // ADTS profile = audioObjectType - 1 (of the core codec for SBR/PS)
    uint8_t sampling_index = 4;     // samplingFrequencyIndex 0..12 (of the core codec)
    uint8_t channel_config = 2;     // channelConfiguration 0..7
};
// Reads the AudioSpecificConfig. Fails on an object type ADTS cannot signal
// (above 4: only Main, LC, SSR, LTP cores), an explicit sample rate
// (index 15) or reserved values.
Error ts_parse_adts_config(const uint8_t* asc, size_t n, TsAdtsConfig* out);

constexpr size_t kTsAdtsHeaderSize = 7;
constexpr size_t kTsAdtsMaxPayload = 8191 - kTsAdtsHeaderSize;  // frame_length is 13 bits
// Fills 7 bytes for a raw frame of payload_size bytes (<= kTsAdtsMaxPayload):
//  syncword 0xFFF, ID 0 (MPEG-4), layer 00, protection_absent 1, profile(2),
//  sampling_frequency_index(4), private 0, channel_configuration(3),
//  original/home/copyright bits 0, aac_frame_length(13), buffer fullness 0x7FF
//  (VBR), number_of_raw_data_blocks_in_frame 0.
void ts_write_adts_header(uint8_t out[7], const TsAdtsConfig& config, size_t payload_size);

}  // namespace srs
