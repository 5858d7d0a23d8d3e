// The MPEG-TS muxer (ISO/IEC 13818-1), sans-IO: frames in, 188-byte packets
// appended to a caller's std::string out. No files, no sockets, no clock.
//
// One program (program_number 1) with at most one video stream (H.264 or
// H.265, PID 0x100) and one audio stream (AAC as ADTS or MP3, PID 0x101).
// MP3's stream_type follows its first frame: 0x03 for MPEG-1 (32 kHz and up),
// 0x04 for MPEG-2/2.5 (below), as ffmpeg writes them.
//
// Use (HLS, HTTP-TS, tools):
//
//   TsMuxer mux;                                  // TsMuxerOptions for PIDs, PSI repetition
//   mux.set_tracks(VideoCodec::kH264, AudioCodec::kAAC);   // what the PMT lists
//   mux.set_video_sequence_header(avcc, n);       // avcC / hvcC (after the FLV video tag header)
//   mux.set_audio_sequence_header(asc, n);        // AudioSpecificConfig (AAC only)
//   mux.write_video(dts, pts, avcc_nalus, n, &out);   // ms; one access unit
//   mux.write_audio(dts, raw_aac, n, &out);            // ms; one AAC frame or MP3 frame(s)
//   ...
//   mux.start_segment(&out);                      // HLS: the next segment's first bytes (PAT, PMT)
//
// or, for FLV tag bodies / RTMP messages as the server holds them:
//
//   mux.write_flv_tag(kFlvTagVideo, timestamp_ms, body, n, &out);
//
// What it writes:
// - PAT and PMT before the first frame, at every start_segment(), after a
//   track change (with a new version number), and, when
//   options.psi_interval_ms > 0, again before the first frame that is that many
//   ms after the last ones (a stream that never ends: HTTP-TS).
// - One PES per frame: video PES_packet_length 0 (unbounded), audio bounded.
//   PTS/DTS in 90 kHz = ms * 90, wrapped to 33 bits; DTS is written only when it
//   differs from PTS. No offset is added: timestamps are the stream's.
// - PCR in the first packet of every PES of the PCR PID (the video PID, or the
//   audio PID when there is no video track), equal to that PES's DTS.
// - random_access_indicator on the first packet of a video keyframe (and of
//   every audio frame when audio is alone).
// - Continuity counters per PID that never reset, not even across segments:
//   a segment played alone starts at any CC (a demuxer takes the first it
//   sees), and segments read one after another (ffmpeg's HLS demuxer, `cat
//   *.ts`) stay continuous, so ffmpeg reports no CC gap at a segment boundary.
//   hls.js does not read the CC at all; what it needs is a PAT near the start
//   of every segment (its probe looks for one) and the PMT before the media
//   packets, which start_segment() gives.
//
// HLS cuts a segment before a video keyframe: check the frame about to be
// written (the FLV frame type, is_video_keyframe()), call start_segment() on
// the new segment's buffer, then write the frame into that buffer.
// Segment durations come from the DTS the caller passed in.
//
// Guarantees: malformed input (bad NALU lengths, AAC without an
// AudioSpecificConfig, an oversized AAC frame, a codec TS cannot carry) is an
// Error with kErrorTsMux and appends nothing; the muxer stays usable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernel/codec/media_codec.hpp"
#include "kernel/ts/ts_es.hpp"
#include "kernel/ts/ts_packet.hpp"

namespace srs {

struct TsMuxerOptions {
    uint16_t pmt_pid = 0x1001;    // SRS's; ffmpeg uses 0x1000
    uint16_t video_pid = 0x100;
    uint16_t audio_pid = 0x101;
    uint16_t transport_stream_id = 1;
    // 0: PAT/PMT only at the start, at start_segment() and on track changes.
    // > 0: also repeated when that many ms of DTS passed (HTTP-TS: players
    // that join late need them; ffmpeg repeats every 100 ms).
    uint32_t psi_interval_ms = 0;
};

struct TsMuxerStats {
    uint64_t video_frames = 0;
    uint64_t audio_frames = 0;
    uint64_t psi_writes = 0;  // PAT+PMT pairs
    uint64_t bytes = 0;       // all packets appended
    uint64_t errors = 0;      // frames refused
};

class TsMuxer {
  public:
    explicit TsMuxer(TsMuxerOptions options = {});

    // What the PMT lists: kUnknown for no such track. Only H.264/H.265 and
    // AAC/MP3 are carried; another codec is an error and leaves the tracks as
    // they were. A change bumps the PMT version and PAT/PMT go out before the
    // next frame.
    Error set_tracks(VideoCodec video, AudioCodec audio);
    VideoCodec video_codec() const { return video_; }
    AudioCodec audio_codec() const { return audio_; }

    // The decoder configuration record of the video track (avcC for H.264,
    // hvcC for H.265: the FLV body after the 5-byte video tag header). Its
    // parameter sets go before every IDR/IRAP frame that has none.
    Error set_video_sequence_header(const uint8_t* record, size_t n);
    // AAC's AudioSpecificConfig: needed for the ADTS header of every frame.
    Error set_audio_sequence_header(const uint8_t* asc, size_t n);

    // One video access unit of length-prefixed NALUs (FLV's form), times in ms.
    // Sets *keyframe (if given) to whether it held an IDR/IRAP slice or was
    // flagged_keyframe (the FLV frame type 1, which write_flv_tag passes): a
    // keyframe gets the parameter sets and the random_access_indicator.
    Error write_video(int64_t dts_ms, int64_t pts_ms, const uint8_t* nalus, size_t n, std::string* out,
                      bool* keyframe = nullptr, bool flagged_keyframe = false);
    // One raw AAC frame (wrapped in ADTS here) or MP3 data (written as is).
    Error write_audio(int64_t dts_ms, const uint8_t* data, size_t n, std::string* out);

    // Writes PAT and PMT now (the first bytes of an HLS segment). Counters
    // continue; nothing else changes.
    void start_segment(std::string* out);

    // One FLV tag body (an RTMP audio/video message). Sequence headers are
    // taken (and add the track when set_tracks() did not name it); frames are
    // written; script data, AV1/VP9/Opus and other codecs are skipped (*written
    // false, no error); a malformed body is an error.
    Error write_flv_tag(uint8_t tag_type, uint32_t timestamp_ms, const uint8_t* body, size_t n, std::string* out,
                        bool* written = nullptr);

    const TsMuxerStats& stats() const { return stats_; }
    // Whether PAT/PMT are due before the next frame (for tests and callers
    // that want to know a frame will grow by two packets).
    bool psi_pending() const { return psi_pending_; }

  private:
    void write_psi(std::string* out);
    void maybe_write_psi(int64_t dts_ms, std::string* out);
    uint16_t pcr_pid() const;
    void note_mp3_version(const uint8_t* data, size_t n);

    TsMuxerOptions options_;
    VideoCodec video_ = VideoCodec::kUnknown;
    AudioCodec audio_ = AudioCodec::kUnknown;
    TsVideoParameterSets video_params_;
    bool have_adts_ = false;
    uint8_t mp3_stream_type_ = kTsStreamMp3;  // from the first MP3 frame's version bits
    bool mp3_type_known_ = false;
    TsAdtsConfig adts_;
    uint8_t pmt_version_ = 0;
    bool psi_pending_ = true;
    bool psi_written_ = false;
    int64_t last_psi_dts_ = 0;
    uint8_t cc_pat_ = 0, cc_pmt_ = 0, cc_video_ = 0, cc_audio_ = 0;
    std::string pes_;  // scratch: the PES being built
    TsMuxerStats stats_;
};

}  // namespace srs
