// The HLS media playlist as SRS writes it, and the window of segments it
// lists. Pure: no files, no clock; the unit tests check the exact bytes.
//
//   #EXTM3U
//   #EXT-X-VERSION:3                      (7 with fMP4)
//   #EXT-X-MEDIA-SEQUENCE:<first seq>
//   #EXT-X-TARGETDURATION:<ceil(max(longest EXTINF, fragment x td_ratio))>
//   [#EXT-X-MAP:URI="<init>"]             (fMP4: first segment, and after each change)
//   [#EXT-X-DISCONTINUITY]                (a segment after a real codec change)
//   [#EXT-X-KEY:METHOD=AES-128,URI="<key url>",IV=0x<32 hex>]   (seq % per_key == 0, and the first listed)
//   #EXTINF:<s, 3 decimals>, no desc
//   <entry prefix><uri>
//
// No EXT-X-ENDLIST: the stream is live until the files are disposed of.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace srs {

// LL-HLS: one part of a segment (EXT-X-PART).
struct HlsPartEntry {
    int64_t duration_ms = 0;
    std::string uri;       // as the playlist names it
    std::string path;      // the store key the sink wrote
    bool independent = false;  // starts with a keyframe (or has no video)
};

struct HlsSegmentEntry {
    int64_t seq = 0;
    int64_t duration_ms = 0;
    std::string uri;        // as the playlist names it (relative to the playlist, or a URL)
    std::string path;       // the file (or store key) the sink wrote, for clean-up
    bool discontinuity = false;
    std::string map_uri;    // fMP4: the init segment this one needs ("" for TS)
    // hls_keys: the key of this segment ("" when not encrypted), and whether
    // the segment starts it (the EXT-X-KEY line goes before it, and before
    // the first segment listed whatever its key, so a player that joins
    // after the window slid still knows the key).
    std::string key_uri;
    std::string key_iv_hex; // 32 hex digits
    std::string key_path;   // the key file, removed with the last segment that uses it
    bool new_key = false;
    // LL-HLS: the wall clock of its first frame (EXT-X-PROGRAM-DATE-TIME)
    // and its parts (listed only for the last few segments).
    int64_t pdt_ms = 0;
    std::vector<HlsPartEntry> parts;
};

struct HlsPlaylistOptions {
    int version = 3;
    double fragment_s = 10;
    double td_ratio = 1.0;
};

// ceil(max(longest segment, fragment x td_ratio)) in seconds.
int64_t hls_target_duration(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options);

// The playlist text for the segments (oldest first).
std::string render_hls_playlist(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options);

// LL-HLS (ours, fMP4 from memory; RFC 8216bis). Tags added to the shape above:
//   #EXT-X-VERSION:9
//   #EXT-X-TARGETDURATION:<hls_ll_target_duration>
//   #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=<6 x target>,PART-HOLD-BACK=<3 x part target>
//   #EXT-X-PART-INF:PART-TARGET=<part target>
//   [#EXT-X-SKIP:SKIPPED-SEGMENTS=<n>]    (delta update: the oldest n segments left out)
//   #EXT-X-PROGRAM-DATE-TIME:<UTC, ms>     (every segment)
//   #EXT-X-PART:DURATION=<s>,URI="<uri>"[,INDEPENDENT=YES]   (the last segments and the open one)
//   #EXT-X-PRELOAD-HINT:TYPE=PART,URI="<the next part>"
struct HlsLlPlaylist {
    double part_target_s = 0.2;
    // Complete segments whose parts are still listed (the newest ones).
    size_t segments_with_parts = 3;
    // The segment being written: its parts so far and where it starts.
    int64_t open_seq = 0;
    int64_t open_pdt_ms = 0;
    bool open_started = false;  // a segment is open (its PDT and parts are listed)
    bool open_discontinuity = false;
    std::string open_map_uri;
    std::vector<HlsPartEntry> open_parts;
    std::string preload_hint_uri;  // "" : no hint
};

// LL-HLS's EXT-X-TARGETDURATION: RFC 8216bis's bound (each EXTINF rounded
// to the nearest second is at most the target), at least
// ceil(fragment x td_ratio) and 1. Unlike SRS's ceil rule, a 1.02 s segment
// (a late keyframe) keeps a 1 s target: the target, and with it
// CAN-SKIP-UNTIL and the blocking limit, stays put while the stream plays.
int64_t hls_ll_target_duration(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options);

// The segments a delta update leaves out: those whose end is at least
// CAN-SKIP-UNTIL (6 x target duration) before the playlist's end.
size_t hls_skippable_segments(const std::deque<HlsSegmentEntry>& segments, int64_t target_duration_s);

// The LL-HLS playlist; delta: the _HLS_skip=YES answer.
std::string render_ll_hls_playlist(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options,
                                   const HlsLlPlaylist& ll, bool delta);

// "2026-11-28T00:20:01.234Z"
std::string hls_program_date_time(int64_t wall_ms);

// SRS's window: summing durations from the newest back, the segment that
// takes the sum over window_s is the oldest kept. Returns the dropped ones,
// oldest first.
std::vector<HlsSegmentEntry> hls_shrink_window(std::deque<HlsSegmentEntry>* segments, double window_s);

// "a/b/c.m3u8", "a/b/x-1.ts" -> "x-1.ts"; "a/c.m3u8", "a/d/x.ts" -> "d/x.ts";
// otherwise ../ steps, as a URI relative to the playlist's folder.
std::string hls_relative_uri(const std::string& playlist_path, const std::string& file_path);

}  // namespace srs
