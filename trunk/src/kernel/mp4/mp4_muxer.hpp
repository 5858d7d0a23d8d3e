// Fragmented MP4 (ISO BMFF, CMAF-style) muxer, sans-IO: frames in, bytes out.
//
// Output, in the order a caller writes it:
//   init segment   ftyp, moov { mvhd, trak (video), trak (audio), mvex { [mehd], trex... } }
//   fragments      [styp] moof { mfhd, traf (video), traf (audio) } mdat { video samples, audio samples }
//
// One track per kind: at most one video track (H.264 'avc1' or H.265 'hvc1')
// and one audio track (AAC 'mp4a' or Opus 'Opus'). A fragment holds every
// track that has samples in it: one moof with one traf per track and one mdat
// (the shape ffmpeg's frag_keyframe output has and hls.js and ffmpeg read;
// hls.js takes muxed audio+video fMP4 segments when the init segment declares
// both tracks). Each traf uses default-base-is-moof, so a fragment is
// position independent: fragments can be served alone, concatenated after
// the init segment, or appended to a file.
//
// Timestamps: dts in ms (non-negative, non-decreasing per track), cts = pts - dts
// in ms (may be negative: trun version 1 then). Video is written at a 90 kHz
// timescale, audio at its sample rate (48 kHz for Opus). tfdt carries the
// absolute dts of each traf's first sample, so a fragment's time never drifts
// from the input whatever the durations. A sample's duration is the distance
// to the next sample of its track; the last sample of a fragment takes
// `next_dts_ms` from flush() (the dts the caller is cutting at, e.g. the next
// keyframe) for video, and the previous sample's duration for audio (frames
// of one codec are of one length), or a default when it is alone.
//
// Cutting is the caller's decision, which is what each user needs:
//   - HLS fMP4: flush() before adding a keyframe once the segment is long
//     enough; every segment then reports independent = true.
//   - LL-HLS: flush() every ~200 ms whatever the frame; info.independent
//     says whether the part starts with a keyframe (EXT-X-PART INDEPENDENT).
//   - DVR: write the init segment at offset 0 of the file, flush at
//     keyframes, append fragments. A crash leaves a file that plays up to its
//     last complete fragment. On a clean stop, finish() returns patches (file
//     offset + bytes) that write the durations into mvhd, tkhd, mdhd and
//     mehd, so players report the right duration without reading every
//     fragment; the file writer seeks and writes them (the muxer never does I/O).
//
// Errors: kErrorMp4Track (unusable config), kErrorMp4Sample (sample for an
// absent track, dts going back, sample over 64 MiB), kErrorMp4State (calls out
// of order). A failed call leaves the muxer as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/codec/media_codec.hpp"
#include "kernel/mp4/mp4_codec_boxes.hpp"

namespace srs {

// What a track needs for its sample description.
struct Mp4TrackConfig {
    bool video = false;
    VideoCodec video_codec = VideoCodec::kUnknown;  // kH264 or kH265
    AudioCodec audio_codec = AudioCodec::kUnknown;  // kAAC or kOpus
    std::string record;       // avcC/hvcC record (video) or AudioSpecificConfig (AAC)
    OpusConfig opus;          // Opus only
    uint16_t width = 0;       // video, from the SPS
    uint16_t height = 0;
    uint32_t sample_rate = 0; // audio
    uint16_t channels = 0;    // audio
};

// Track configs from a codec's configuration as FLV/RTMP carries it.
// Video: an AVC/HEVC decoder configuration record (parsed for the size).
Error mp4_video_track(VideoCodec codec, const uint8_t* record, size_t n, Mp4TrackConfig* out);
// AAC: an AudioSpecificConfig.
Error mp4_aac_track(const uint8_t* asc, size_t n, Mp4TrackConfig* out);
// Opus: an OpusHead, or nothing (n == 0: stereo 48 kHz, pre-skip 312).
Error mp4_opus_track(const uint8_t* opus_head, size_t n, Mp4TrackConfig* out);

struct Mp4Sample {
    int64_t dts_ms = 0;
    int32_t cts_ms = 0;  // pts - dts
    bool keyframe = true;  // a sync sample (video IDR/IRAP; every audio frame)
    const uint8_t* data = nullptr;  // video: length-prefixed NALUs as in the record; audio: one raw frame
    size_t size = 0;
};

struct Mp4MuxerOptions {
    bool styp = false;  // open every fragment with 'styp' (HLS/DASH media segments)
    bool dvr = false;   // a file: mehd in mvex, and finish() patches the durations
};

struct Mp4FragmentInfo {
    uint32_t sequence_number = 0;  // mfhd, from 1
    bool independent = false;      // the first video sample is a keyframe, or there is no video
    int64_t start_ms = 0;          // earliest dts in the fragment
    int64_t end_ms = 0;            // latest dts + duration
    uint32_t video_samples = 0;
    uint32_t audio_samples = 0;
    size_t bytes = 0;              // appended to the caller's buffer
};

// Bytes to write at a file offset (the init segment starts at offset 0).
struct Mp4Patch {
    uint64_t offset = 0;
    std::string bytes;
};

class Mp4FragmentedMuxer {
  public:
    explicit Mp4FragmentedMuxer(const Mp4MuxerOptions& options = Mp4MuxerOptions()) : options_(options) {}

    // Declare the tracks, then write the init segment once. A new codec
    // config mid-stream needs a new muxer (HLS: a discontinuity and a new init).
    Error set_track(const Mp4TrackConfig& config);
    bool has_video() const { return video_.present; }
    bool has_audio() const { return audio_.present; }
    // Appends ftyp + moov to *out.
    Error write_init(std::string* out);

    // Queue a sample (its bytes are copied) into the open fragment.
    Error add_video(const Mp4Sample& sample);
    Error add_audio(const Mp4Sample& sample);
    bool has_pending() const { return !video_.samples.empty() || !audio_.samples.empty(); }
    // The earliest pending dts in ms, -1 with nothing pending. A caller cuts
    // when (the new keyframe's dts - pending_start_ms()) reaches its target.
    int64_t pending_start_ms() const;

    // Writes the open fragment (nothing when none is pending: info->bytes 0).
    // next_dts_ms: the dts the cut is at (the next sample's), or -1 if unknown.
    Error flush(std::string* out, Mp4FragmentInfo* info, int64_t next_dts_ms = -1);

    // DVR (options.dvr): after the last flush, the patches that record the
    // duration of everything flushed. kErrorMp4State without dvr or init.
    Error finish(std::vector<Mp4Patch>* patches);
    // ms from the first flushed dts to the last flushed end, over all tracks.
    int64_t duration_ms() const;

  private:
    struct PendingSample {
        uint64_t dts = 0;  // track timescale
        int64_t cts = 0;
        uint32_t size = 0;
        bool keyframe = false;
    };
    struct Track {
        bool present = false;
        Mp4TrackConfig config;
        uint32_t id = 0;
        uint32_t timescale = 0;
        std::vector<PendingSample> samples;
        std::string data;       // the pending samples' bytes, in order
        int64_t last_dts_ms = -1;
        int64_t first_ms = -1;  // first flushed dts
        int64_t end_ms = -1;    // last flushed dts + duration
        uint32_t last_duration = 0;
        // Offsets in the init segment of the duration fields (dvr).
        size_t tkhd_duration_at = 0;
        size_t mdhd_duration_at = 0;
    };

    Error add(Track* t, const Mp4Sample& s);
    void write_trak(std::string* out, const Track& t, size_t* tkhd_at, size_t* mdhd_at);
    void write_traf(std::string* out, Track* t, std::vector<size_t>* data_offset_at, int64_t next_dts_ms);

    Mp4MuxerOptions options_;
    Track video_;
    Track audio_;
    bool init_written_ = false;
    bool finished_ = false;
    uint32_t sequence_ = 0;
    size_t mvhd_duration_at_ = 0;
    size_t mehd_duration_at_ = 0;
};

}  // namespace srs
