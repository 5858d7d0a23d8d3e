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

// SRS's window: summing durations from the newest back, the segment that
// takes the sum over window_s is the oldest kept. Returns the dropped ones,
// oldest first.
std::vector<HlsSegmentEntry> hls_shrink_window(std::deque<HlsSegmentEntry>* segments, double window_s);

// "a/b/c.m3u8", "a/b/x-1.ts" -> "x-1.ts"; "a/c.m3u8", "a/d/x.ts" -> "d/x.ts";
// otherwise ../ steps, as a URI relative to the playlist's folder.
std::string hls_relative_uri(const std::string& playlist_path, const std::string& file_path);

}  // namespace srs
