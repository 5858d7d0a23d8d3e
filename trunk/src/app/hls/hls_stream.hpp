// The HLS writer of one publish: live messages in, segments, playlists,
// init segments and keys out through an HlsSink. Made at publish (a bridge
// of the source) and destroyed at unpublish, when it closes the open
// segment. What must outlive the publish (the window, the next sequence
// number, the files to dispose of) is in HlsStreamState, which the manager
// keeps.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <vector>
#include <string>

#include "app/hls/hls_audio_clock.hpp"
#include "app/hls/hls_crypto.hpp"
#include "app/hls/hls_cut_rule.hpp"
#include "app/hls/hls_path.hpp"
#include "app/hls/hls_playlist.hpp"
#include "app/hls/hls_sink.hpp"
#include "app/hls/hls_ts_floor.hpp"
#include "app/live/live_bridge.hpp"
#include "core/clock.hpp"
#include "kernel/mp4/mp4_muxer.hpp"
#include "kernel/ts/ts_muxer.hpp"

namespace srs {

// vhost.hls as read at publish.
struct HlsStreamConfig {
    HlsCutOptions cut;
    double window_s = 60;
    std::string on_error = "continue";  // ignore | disconnect | continue
    std::string path = "./objs/nginx/html";
    std::string m3u8_file = "[app]/[stream].m3u8";
    std::string ts_file = "[app]/[stream]-[seq].ts";
    bool ts_floor = false;
    std::string entry_prefix;
    std::string acodec = "aac";
    std::string vcodec = "h264";
    bool cleanup = true;
    int64_t dispose_s = 120;
    bool keys = false;
    int64_t fragments_per_key = 5;
    std::string key_file = "[app]/[stream]-[seq].key";
    std::string key_file_path;  // "" : path
    std::string key_url;
    bool fmp4 = false;
    bool dts_directly = true;  // off: audio DTS counted from samples (HlsAudioClock)
    std::string fmp4_file = "[app]/[stream]-[seq].m4s";
    std::string init_file = "[app]/[stream]/init.mp4";
    // Ours: hls_storage memory (the server's store, no disk), and LL-HLS
    // (hls_ll, which implies fMP4 from memory without keys) with parts of
    // part_s seconds.
    bool memory = false;
    bool ll = false;
    double part_s = 0.2;
};

// One kept segment as the hooks tell it.
struct HlsSegmentReport {
    std::string file;      // hls_path joined with the segment's path (cwd-relative as configured)
    std::string url;       // the URI in the playlist
    std::string m3u8;      // hls_path joined with the playlist's path
    std::string m3u8_url;  // the playlist's path under hls_path
    int64_t seq = 0;
    int64_t duration_ms = 0;
};

// What a stream's writer tells its owner.
class HlsStreamEvents {
  public:
    virtual ~HlsStreamEvents() = default;
    virtual void on_hls_segment(const std::string& vhost, const std::string& app, const std::string& stream,
                                const HlsSegmentReport& report) = 0;
    // hls_on_error disconnect.
    virtual void disconnect_publisher() = 0;
};

// What lives from the first publish of a stream until its files are
// disposed of: a republish continues the window and the sequence numbers.
struct HlsStreamState {
    std::string vhost, app, stream;
    std::unique_ptr<HlsSink> sink;
    std::deque<HlsSegmentEntry> segments;
    int64_t next_seq = 0;
    std::string m3u8_path;            // hls_path joined with the playlist's path
    std::set<std::string> side_files; // init segments and keys written
    bool publishing = false;
    utime_t last_packet_us = 0;       // monotonic
    int64_t dispose_s = 0;
    bool disposed = false;            // a writer still alive writes nothing more
    // Deletes every file of the stream (hls_dispose).
    void dispose();
};

class HlsStream : public LiveSourceBridge {
  public:
    // clock_ms: the wall clock in ms (tests pass a fake one).
    HlsStream(HlsStreamConfig config, std::shared_ptr<HlsStreamState> state, HlsStreamEvents* events,
              int64_t (*clock_ms)() = nullptr);
    ~HlsStream() override;  // closes the open segment (kept if long enough)
    void on_live_message(const LiveMessagePtr& msg) override;
    // For tests: feeds one FLV tag body.
    Error on_frame(bool video, uint32_t timestamp, bool keyframe, bool sequence_header, const uint8_t* body,
                   size_t n);
    bool failed() const { return failed_; }

  private:
    Error on_sequence_header(bool video, uint32_t timestamp, const uint8_t* body, size_t n);
    void note_unsupported_fmp4_codec(bool video, const uint8_t* body, size_t n);
    Error open_segment(int64_t dts);
    Error close_segment(int64_t end_dts);
    Error append(const std::string& bytes);
    Error write_init();
    Error start_key(HlsSegmentEntry* entry, int64_t seq);
    Error write_playlist();
    // LL-HLS: the part so far becomes a part of the open segment.
    Error flush_part(int64_t end_dts);
    // Stores a part of the open segment and lists it (not yet in a playlist).
    Error store_part(const std::string& bytes, int64_t end_dts, bool independent);
    bool part_due(bool video, int64_t dts) const;
    std::string part_name(int64_t seq, size_t index) const;
    HlsPathVars vars(int64_t seq, int64_t duration_ms) const;

    HlsStreamConfig config_;
    std::shared_ptr<HlsStreamState> state_;
    HlsStreamEvents* events_;
    int64_t (*clock_ms_)();
    HlsPlaylistOptions playlist_;
    HlsCodecTracker codecs_;
    HlsAudioClock audio_clock_;
    bool failed_ = false;  // hls_on_error ignore/disconnect: no more HLS for this publish
    utime_t last_error_log_us_ = 0;  // hls_on_error continue: one line a second
    uint64_t errors_unlogged_ = 0;
    bool pending_discontinuity_ = false;
    // MPEG-TS.
    TsMuxer ts_;
    // fMP4: a muxer per codec config (a change needs a new init segment).
    std::unique_ptr<Mp4FragmentedMuxer> mp4_;
    Mp4TrackConfig video_config_, audio_config_;
    bool have_video_config_ = false, have_audio_config_ = false;
    bool init_due_ = true;
    int init_count_ = 0;
    std::string init_uri_;
    // The open segment.
    bool open_ = false;
    bool seen_video_ = false;
    int64_t seg_start_ms_ = 0;
    int64_t seg_last_ms_ = 0;
    HlsSegmentEntry seg_;
    std::string buffer_;  // the whole segment, when it is written at close (fMP4, keys)
    std::string scratch_;
    // LL-HLS: the parts of the open segment, where the current part started,
    // and a frame's length (a part is cut before the frame that would take
    // it past the part target).
    std::vector<HlsPartEntry> open_parts_;
    int64_t part_start_ms_ = 0;
    int64_t last_frame_ms_[2] = {-1, -1};  // audio, video
    int64_t frame_interval_ms_[2] = {0, 0};
    // hls_ts_floor: the numbering, and the open segment's number.
    HlsTsFloor ts_floor_;
    int64_t seg_floor_ = 0;
    bool unsupported_noted_[2] = {false, false};  // audio, video: fMP4 left a codec out, logged
    // hls_keys.
    HlsKey key_;
    bool have_key_ = false;
    std::string key_uri_, key_path_;
};

}  // namespace srs
