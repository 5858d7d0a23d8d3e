// The codec-specific boxes of an MP4 sample description: avcC, hvcC, esds
// and dOps, and the sample entries (avc1, hvc1, mp4a, Opus) that hold them.
// Pure functions that append to an Mp4BoxWriter.
//
// Specs: ISO/IEC 14496-12 (sample entries), 14496-15 (avcC 5.3.3, hvcC
// 8.3.3), 14496-1 (ES_Descriptor, DecoderConfigDescriptor), 14496-14 (esds),
// "Encapsulation of Opus in ISO BMFF" (dOps).
#pragma once

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernel/mp4/mp4_box.hpp"

namespace srs {

// 'avcC' / 'hvcC' around a decoder configuration record, copied as is (the
// FLV sequence header carries exactly this record).
void mp4_write_avcc(Mp4BoxWriter* w, const std::string& record);
void mp4_write_hvcc(Mp4BoxWriter* w, const std::string& record);

// 'esds' (FullBox v0) for AAC: ES_Descriptor { ES_ID 0, DecoderConfigDescriptor
// { objectTypeIndication 0x40 (MPEG-4 audio), streamType 5 (audio), bitrates,
// DecoderSpecificInfo = the AudioSpecificConfig }, SLConfigDescriptor { 2 } }.
// Descriptor lengths take the one-byte form below 128 and the 4-byte form above.
void mp4_write_esds(Mp4BoxWriter* w, const std::string& audio_specific_config, uint32_t avg_bitrate = 0);

// Opus parameters as 'dOps' carries them (big-endian there; OpusHead, the
// Ogg/RTMP form, is little-endian).
struct OpusConfig {
    uint8_t channels = 2;
    uint16_t pre_skip = 312;           // samples at 48 kHz
    uint32_t input_sample_rate = 48000;
    int16_t output_gain = 0;           // Q7.8 dB
    uint8_t mapping_family = 0;
    // Only when mapping_family != 0:
    uint8_t stream_count = 1;
    uint8_t coupled_count = 0;
    std::string channel_mapping;       // `channels` bytes
};

// Parses an OpusHead identification header (RFC 7845 5.1: "OpusHead",
// version 1, channels, pre-skip LE16, rate LE32, gain LE16, family, and the
// mapping table for family != 0). Errors (kErrorMp4Track) on a wrong magic,
// a major version other than 0, 0 channels or a truncated table.
Error mp4_parse_opus_head(const uint8_t* p, size_t n, OpusConfig* config);

// 'dOps' (version 0).
void mp4_write_dops(Mp4BoxWriter* w, const OpusConfig& config);

// Sample entries (the one entry of an 'stsd'). data_reference_index is 1.
// Visual: 'avc1' (avcC) or 'hvc1' (hvcC, parameter sets in the record).
void mp4_write_visual_entry(Mp4BoxWriter* w, bool hevc, uint16_t width, uint16_t height,
                            const std::string& record);
// Audio: 'mp4a' with esds; sample_rate above 65535 is written as 0 in the
// 16.16 field (the esds/ASC carries the real one).
void mp4_write_mp4a_entry(Mp4BoxWriter* w, uint16_t channels, uint32_t sample_rate,
                          const std::string& audio_specific_config);
// 'Opus' with dOps; the entry's rate is 48000 as the Opus mapping requires.
void mp4_write_opus_entry(Mp4BoxWriter* w, const OpusConfig& config);

}  // namespace srs
