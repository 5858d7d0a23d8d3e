#include "app/hls/hls_playlist.hpp"

#include <cmath>
#include <cstdio>

namespace srs {

int64_t hls_target_duration(const std::deque<HlsSegmentEntry>& segments, const HlsPlaylistOptions& options) {
    double longest = options.fragment_s * options.td_ratio;
    for (const HlsSegmentEntry& s : segments) longest = std::max(longest, s.duration_ms / 1000.0);
    return static_cast<int64_t>(std::ceil(longest));
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
