#include "app/http/http_remux_format.hpp"

namespace srs {

static bool ends_with(const std::string& s, const char* suffix, size_t n) {
    return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

RemuxFormat remux_format_of(const std::string& path) {
    if (ends_with(path, ".flv", 4)) return RemuxFormat::kFlv;
    if (ends_with(path, ".ts", 3)) return RemuxFormat::kTs;
    if (ends_with(path, ".mp3", 4)) return RemuxFormat::kMp3;
    if (ends_with(path, ".aac", 4)) return RemuxFormat::kAac;
    return RemuxFormat::kNone;
}

const char* remux_content_type(RemuxFormat format) {
    switch (format) {
        case RemuxFormat::kFlv:
            return "video/x-flv";
        case RemuxFormat::kTs:
            return "video/MP2T";
        case RemuxFormat::kMp3:
            return "audio/mpeg";
        case RemuxFormat::kAac:
            return "audio/x-aac";
        case RemuxFormat::kNone:
        default:
            return "application/octet-stream";
    }
}

const char* remux_extension(RemuxFormat format) {
    switch (format) {
        case RemuxFormat::kFlv:
            return ".flv";
        case RemuxFormat::kTs:
            return ".ts";
        case RemuxFormat::kMp3:
            return ".mp3";
        case RemuxFormat::kAac:
            return ".aac";
        case RemuxFormat::kNone:
        default:
            return "";
    }
}

const char* remux_format_name(RemuxFormat format) {
    switch (format) {
        case RemuxFormat::kFlv:
            return "FLV";
        case RemuxFormat::kTs:
            return "TS";
        case RemuxFormat::kMp3:
            return "MP3";
        case RemuxFormat::kAac:
            return "AAC";
        case RemuxFormat::kNone:
        default:
            return "NONE";
    }
}

// "ID3", version 3.0, no flags, a syncsafe size of 10, then 10 zero bytes
// (padding: a frame id of zeros ends the frames).
const uint8_t kId3Header[kId3HeaderSize] = {'I', 'D', '3', 3, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

std::vector<LiveMessagePtr> select_fast_cache(const std::vector<LiveMessagePtr>& primed, uint32_t fast_cache_ms) {
    uint32_t newest = 0;
    bool any_audio = false;
    for (const LiveMessagePtr& m : primed) {
        if (m->is_audio() && !m->is_sequence_header()) {
            newest = m->timestamp();
            any_audio = true;
        }
    }
    std::vector<LiveMessagePtr> out;
    for (const LiveMessagePtr& m : primed) {
        if (!m->is_audio()) continue;
        if (m->is_sequence_header()) {
            out.push_back(m);
            continue;
        }
        // Timestamps only grow within one publish (the source corrects jitter).
        if (fast_cache_ms > 0 && any_audio && m->timestamp() + static_cast<uint64_t>(fast_cache_ms) >= newest) {
            out.push_back(m);
        }
    }
    return out;
}

}  // namespace srs
