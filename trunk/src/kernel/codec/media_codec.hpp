// Parsers for the payloads of RTMP/FLV audio and video messages (the FLV tag
// body) and for the codec configuration records they carry.
//
// Guarantees, for every function here:
// - Input is a borrowed (pointer, length) span; nothing is read outside it,
//   whatever the bytes say (lengths, counts and Exp-Golomb values are all
//   checked). Failure is an Error (codes kErrorVideoPacket .. kErrorAacConfig),
//   never a crash, an exception or an unbounded loop.
// - Nothing is retained: the `data` pointers in the *PacketInfo results point
//   into the caller's input and live as long as it does.
// - The is_* helpers read only the first bytes and never allocate (except for
//   the rare E-RTMP ModEx/Multitrack packets, which they hand to the full
//   parser); they are meant for the per-message hot path and give the same
//   answer as parse_*_packet on every input that parser accepts.
//
// Specs: FLV 10.1 (Adobe), Enhanced RTMP v1/v2 (veovera), ISO 14496-10/15
// (H.264, AVC/HEVC file format), H.265, AV1 bitstream + AV1 ISOBMFF binding,
// ISO 14496-3 (AAC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/bytes.hpp"
#include "core/error.hpp"

namespace srs {

enum class VideoCodec { kUnknown, kH264, kH265, kAV1, kVP9, kOther };
enum class AudioCodec { kUnknown, kAAC, kMP3, kOpus, kOther };

// Numeric packet types, the same numbers in legacy AVC/HEVC (AVCPacketType
// 0..2) and Enhanced RTMP (VideoPacketType 0..7).
enum VideoPacketType : uint8_t {
    kVideoSequenceStart = 0,
    kVideoCodedFrames = 1,
    kVideoSequenceEnd = 2,
    kVideoCodedFramesX = 3,  // E-RTMP: coded frames, composition time 0
    kVideoMetadata = 4,      // E-RTMP: AMF metadata (e.g. colorInfo), no video
    kVideoMpeg2TsSequenceStart = 5,
    kVideoMultitrack = 6,
    kVideoModEx = 7,
};

// Legacy frame types (the 3 or 4 bits at the top of the first byte).
enum VideoFrameType : uint8_t {
    kVideoFrameKey = 1,
    kVideoFrameInter = 2,
    kVideoFrameDisposableInter = 3,
    kVideoFrameGeneratedKey = 4,
    kVideoFrameCommand = 5,  // video info/command frame: one UI8, no video
};

// FourCC as a big-endian UI32: fourcc("hvc1") == 0x68766331.
constexpr uint32_t make_fourcc(const char (&s)[5]) {
    return load_be32(s);
}

struct VideoPacketInfo {
    VideoCodec codec = VideoCodec::kUnknown;
    bool keyframe = false;         // frame type 1 (key); also true on sequence headers, which carry it
    bool sequence_header = false;  // packet type 0 (or E-RTMP 5, MPEG2TSSequenceStart)
    bool end_of_sequence = false;  // packet type 2
    bool enhanced = false;         // IsExHeader set (Enhanced RTMP)
    int32_t composition_time = 0;  // ms, signed 24-bit (0 where the format has none)
    const uint8_t* data = nullptr; // after the tag header: the config record, the NALUs/OBUs, ...
    size_t size = 0;
    // Details.
    uint8_t frame_type = 0;    // VideoFrameType (1..5)
    uint8_t packet_type = 0;   // VideoPacketType after ModEx/Multitrack unwrapping (kVideoCodedFrames for
                               // legacy codecs without one)
    uint8_t legacy_codec_id = 0;  // legacy CodecID (0 for E-RTMP)
    uint32_t fourcc = 0;          // E-RTMP FourCC (0 for legacy)
    bool multitrack = false;      // E-RTMP Multitrack: data/size describe the first track only
    uint8_t track_id = 0;         // E-RTMP Multitrack: id of that first track
    bool command = false;         // frame type 5: data holds the command byte, no video
};

// Parses a video tag body. Layouts:
//
//  Legacy (FLV 10.1 VideoTagHeader), IsExHeader (bit 7) == 0:
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-------+-------+---------------+-------------------------------+
//  |FrameTy|CodecID| AVCPacketType |  CompositionTime (SI24, ms)   |
//  | UB[4] | UB[4] | (7=AVC,12=HEVC only)                          |
//  +-------+-------+---------------+-------------------------------+
//  | AVCDecoderConfigurationRecord (type 0) / NALUs (type 1) ...
//
//  Enhanced RTMP (ExVideoTagHeader), IsExHeader == 1:
//  +-+-----+-------+---------------------------------------------------------------+
//  |1|Frame|Packet |  FourCC (UI32, 'avc1' 'hvc1' 'av01' 'vp09' ...)               |
//  | |Type |Type   |                                                               |
//  +-+-----+-------+---------------------------------------------------------------+
//  | CompositionTime SI24 (only CodedFrames of avc1/hvc1) | body ...
//  PacketType 7 (ModEx) is followed by its modifier data and the real packet
//  type; 6 (Multitrack) by the multitrack type and the tracks' packet type.
Error parse_video_packet(const uint8_t* p, size_t n, VideoPacketInfo* info);

// Hot-path helpers: only the first bytes are read.
// True when the frame type is 1 (key); false for E-RTMP Metadata packets.
// Sequence headers are keyframes by this test (they carry frame type 1).
bool is_video_keyframe(const uint8_t* p, size_t n);
// True for an AVC/HEVC sequence header (legacy) or an E-RTMP SequenceStart.
bool is_video_sequence_header(const uint8_t* p, size_t n);

struct AudioPacketInfo {
    AudioCodec codec = AudioCodec::kUnknown;
    bool sequence_header = false;  // AAC AACPacketType 0, E-RTMP SequenceStart
    int sound_rate_index = 0;      // legacy SoundRate 0..3 (5.5/11/22/44 kHz); -1 for E-RTMP
    int sound_size = 0;            // legacy SoundSize: 0 = 8-bit, 1 = 16-bit; -1 for E-RTMP
    int channels_flag = 0;         // legacy SoundType: 0 mono, 1 stereo; -1 for E-RTMP
    const uint8_t* data = nullptr; // after the header: AudioSpecificConfig, raw AAC, MP3 frames, ...
    size_t size = 0;
    // Details.
    uint8_t sound_format = 0;  // legacy SoundFormat (9 = E-RTMP ExHeader)
    uint8_t packet_type = 0;   // AACPacketType, or E-RTMP AudioPacketType after unwrapping
    bool enhanced = false;
    bool end_of_sequence = false;  // E-RTMP SequenceEnd
    uint32_t fourcc = 0;           // E-RTMP FourCC ('Opus', 'mp4a', '.mp3', 'fLaC', 'ac-3', 'ec-3')
    bool multitrack = false;
};

// E-RTMP AudioPacketType.
enum AudioPacketType : uint8_t {
    kAudioSequenceStart = 0,
    kAudioCodedFrames = 1,
    kAudioSequenceEnd = 2,
    kAudioMultichannelConfig = 4,
    kAudioMultitrack = 5,
    kAudioModEx = 7,
};

// Parses an audio tag body.
//
//  Legacy (FLV 10.1 AudioTagHeader):
//  +-------+---+-+-+---------------+
//  |Format |Rat|S|T| AACPacketType | (only Format 10 = AAC)
//  | UB[4] |UB2|1|1|  0 seq, 1 raw |
//  +-------+---+-+-+---------------+
//  Enhanced RTMP: Format 9 (ExHeader), the low 4 bits are the AudioPacketType,
//  then FourCC (UI32) and the body.
Error parse_audio_packet(const uint8_t* p, size_t n, AudioPacketInfo* info);
// True for an AAC sequence header (legacy) or an E-RTMP SequenceStart.
bool is_audio_sequence_header(const uint8_t* p, size_t n);

// Codec configuration, as the HTTP API reports it.
struct VideoCodecConfig {
    std::string codec;    // "H264", "H265", "AV1"
    std::string profile;  // "Baseline", "Main", "High", "High 10", ... / "Main", "Main 10" / "Main", "High"
    std::string level;    // "3.1", "4", "1b" (H.264); general_level_idc/30 (H.265); "2.1" (AV1 seq_level_idx)
    int width = 0;
    int height = 0;
    // Details.
    int profile_idc = 0;  // H.264 profile_idc, H.265 general_profile_idc, AV1 seq_profile
    int level_idc = 0;    // H.264 level_idc, H.265 general_level_idc, AV1 seq_level_idx
    int chroma_format_idc = 0;
    int bit_depth = 0;          // luma bit depth (0 if unknown)
    int nalu_length_size = 0;   // H.264/H.265: bytes of each NALU length prefix (1, 2 or 4)
};

// AVCDecoderConfigurationRecord (ISO 14496-15 5.3.3.1) -> first SPS.
Error parse_avc_sequence_header(const uint8_t* record, size_t n, VideoCodecConfig* config);
// One H.264 SPS NAL unit (with its 1-byte NAL header, emulation prevention in place).
Error parse_avc_sps(const uint8_t* nal, size_t n, VideoCodecConfig* config);
// HEVCDecoderConfigurationRecord (ISO 14496-15 8.3.3.1) -> first SPS.
Error parse_hevc_sequence_header(const uint8_t* record, size_t n, VideoCodecConfig* config);
// One H.265 SPS NAL unit (with its 2-byte NAL header).
Error parse_hevc_sps(const uint8_t* nal, size_t n, VideoCodecConfig* config);
// AV1CodecConfigurationRecord (av1C); width/height from the sequence header
// OBU in configOBUs when there is one (else 0).
Error parse_av1_sequence_header(const uint8_t* record, size_t n, VideoCodecConfig* config);

struct AudioCodecConfig {
    std::string codec;    // "AAC"
    int sample_rate = 0;  // output rate (the SBR rate for HE-AAC)
    int channels = 0;     // 0 when the layout is only in a program_config_element
    std::string profile;  // "Main", "LC", "SSR", "LTP", "HE", "HEv2", ... ("" if other)
    int object_type = 0;  // signaled audioObjectType (5 = SBR, 29 = PS)
};

// AudioSpecificConfig (ISO 14496-3 1.6.2.1), explicit (hierarchical) SBR/PS
// signaling and the backward-compatible sync extension.
Error parse_aac_sequence_header(const uint8_t* asc, size_t n, AudioCodecConfig* config);

const char* video_codec_name(VideoCodec codec);  // "H264", "H265", "AV1", "VP9", "Other", "Unknown"
const char* audio_codec_name(AudioCodec codec);  // "AAC", "MP3", "Opus", "Other", "Unknown"

}  // namespace srs
