#include "app/hls/hls_playlist.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace srs {

int64_t hls_target_duration(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options) {
    double longest = options.fragment_s * options.td_ratio;
    for (const HlsSegmentEntry& s : segments) longest = std::max(longest, s.duration_ms / 1000.0);
    return static_cast<int64_t>(std::ceil(longest));
}

int64_t hls_ll_target_duration(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options) {
    int64_t target = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(options.fragment_s * options.td_ratio)));
    for (const HlsSegmentEntry& s : segments) target = std::max(target, (s.duration_ms + 500) / 1000);
    return target;
}

std::string render_hls_playlist(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options) {
    std::string out = "#EXTM3U\n";
    out += "#EXT-X-VERSION:" + std::to_string(options.version) + "\n";
    out += "#EXT-X-MEDIA-SEQUENCE:" + std::to_string(segments.empty() ? 0 : segments.front().seq) + "\n";
    out += "#EXT-X-TARGETDURATION:" + std::to_string(hls_target_duration(segments, options)) + "\n";
    std::string map;
    for (const HlsSegmentEntry& s : segments) {
        if (!s.map_uri.empty() && s.map_uri != map) {
            out += "#EXT-X-MAP:URI=\"" + s.map_uri + "\"\n";
            map = s.map_uri;
        }
        if (s.discontinuity) out += "#EXT-X-DISCONTINUITY\n";
        if (!s.key_uri.empty() && (s.new_key || &s == &segments.front())) {
            out += "#EXT-X-KEY:METHOD=AES-128,URI=\"" + s.key_uri + "\",IV=0x" + s.key_iv_hex + "\n";
        }
        char extinf[64];
        snprintf(extinf, sizeof(extinf), "#EXTINF:%.3f, no desc\n", s.duration_ms / 1000.0);
        out += extinf;
        out += s.uri + "\n";
    }
    return out;
}

std::string hls_program_date_time(int64_t wall_ms) {
    time_t secs = static_cast<time_t>(wall_ms / 1000);
    struct tm t;
    gmtime_r(&secs, &t);
    char buf[48];
    snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
             t.tm_hour, t.tm_min, t.tm_sec, static_cast<int>(wall_ms % 1000));
    return buf;
}

size_t hls_skippable_segments(const std::deque<HlsSegmentEntry>& segments, int64_t target_duration_s) {
    const int64_t until_ms = 6 * target_duration_s * 1000;
    int64_t after_ms = 0;  // duration of the segments after the one looked at
    for (size_t i = segments.size(); i > 0; i--) {
        if (after_ms >= until_ms) return i;  // segment i-1 and older end early enough
        after_ms += segments[i - 1].duration_ms;
    }
    return 0;
}

namespace {

std::string seconds3(int64_t ms) {
    char buf[32];
    snprintf(buf, sizeof(buf), "%.3f", ms / 1000.0);
    return buf;
}

void render_part(const HlsPartEntry& p, std::string* out) {
    *out += "#EXT-X-PART:DURATION=" + seconds3(p.duration_ms) + ",URI=\"" + p.uri + "\"";
    if (p.independent) *out += ",INDEPENDENT=YES";
    *out += "\n";
}

}  // namespace

std::string render_ll_hls_playlist(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options,
                                   const HlsLlPlaylist& ll, bool delta) {
    const int64_t target = hls_ll_target_duration(segments, options);
    const int64_t part_ms = static_cast<int64_t>(ll.part_target_s * 1000 + 0.5);
    std::string out = "#EXTM3U\n#EXT-X-VERSION:9\n";
    out += "#EXT-X-TARGETDURATION:" + std::to_string(target) + "\n";
    out += "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=" + seconds3(6 * target * 1000) +
           ",PART-HOLD-BACK=" + seconds3(3 * part_ms) + "\n";
    out += "#EXT-X-PART-INF:PART-TARGET=" + seconds3(part_ms) + "\n";
    int64_t first_seq = segments.empty() ? ll.open_seq : segments.front().seq;
    out += "#EXT-X-MEDIA-SEQUENCE:" + std::to_string(first_seq) + "\n";
    size_t skip = delta ? hls_skippable_segments(segments, target) : 0;
    if (skip > 0) out += "#EXT-X-SKIP:SKIPPED-SEGMENTS=" + std::to_string(skip) + "\n";
    const size_t parts_from = segments.size() > ll.segments_with_parts ? segments.size() - ll.segments_with_parts : 0;
    std::string map;
    for (size_t i = skip; i < segments.size(); i++) {
        const HlsSegmentEntry& s = segments[i];
        if (!s.map_uri.empty() && s.map_uri != map) {
            out += "#EXT-X-MAP:URI=\"" + s.map_uri + "\"\n";
            map = s.map_uri;
        }
        if (s.discontinuity) out += "#EXT-X-DISCONTINUITY\n";
        out += "#EXT-X-PROGRAM-DATE-TIME:" + hls_program_date_time(s.pdt_ms) + "\n";
        if (i >= parts_from) {
            for (const HlsPartEntry& p : s.parts) render_part(p, &out);
        }
        out += "#EXTINF:" + seconds3(s.duration_ms) + ",\n";
        out += s.uri + "\n";
    }
    if (ll.open_started) {
        if (!ll.open_map_uri.empty() && ll.open_map_uri != map) {
            out += "#EXT-X-MAP:URI=\"" + ll.open_map_uri + "\"\n";
        }
        if (ll.open_discontinuity) out += "#EXT-X-DISCONTINUITY\n";
        out += "#EXT-X-PROGRAM-DATE-TIME:" + hls_program_date_time(ll.open_pdt_ms) + "\n";
        for (const HlsPartEntry& p : ll.open_parts) render_part(p, &out);
    }
    if (!ll.preload_hint_uri.empty()) {
        out += "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"" + ll.preload_hint_uri + "\"\n";
    }
    return out;
}

std::vector<HlsSegmentEntry> hls_shrink_window(std::deque<HlsSegmentEntry>* segments, double window_s) {
    // SRS's rule: sum from the newest back; the segment that crosses the
    // window stays, every older one goes.
    const int64_t window_ms = static_cast<int64_t>(window_s * 1000);
    int64_t total = 0;
    size_t keep_from = 0;
    for (size_t i = segments->size(); i > 0; i--) {
        total += (*segments)[i - 1].duration_ms;
        if (total > window_ms) {
            keep_from = i - 1;
            break;
        }
    }
    std::vector<HlsSegmentEntry> dropped;
    for (size_t i = 0; i < keep_from; i++) {
        dropped.push_back(std::move(segments->front()));
        segments->pop_front();
    }
    return dropped;
}

std::string hls_relative_uri(const std::string& playlist_path, const std::string& file_path) {
    size_t slash = playlist_path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : playlist_path.substr(0, slash + 1);
    // Longest common folder prefix, then one ../ per folder left in the playlist's.
    size_t common = 0;
    for (size_t i = 0; i < dir.size() && i < file_path.size() && dir[i] == file_path[i]; i++) {
        if (dir[i] == '/') common = i + 1;
    }
    std::string up;
    for (size_t i = common; i < dir.size(); i++) {
        if (dir[i] == '/') up += "../";
    }
    return up + file_path.substr(common);
}

}  // namespace srs
