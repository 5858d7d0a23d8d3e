// Recordings a crash left under their temporary name, made whole at the
// next start (beyond SRS, which leaves them as they are).
//
// Where: each DVR-enabled vhost's dvr_path (folder form resolved) is
// searched from the folder before its first variable (dvr_search_root),
// as deep as the template has folders; a "<name>.tmp" whose <name> the
// template could have made is a leftover (other files are not touched).
//
// What: an MP4 is cut to the end of its last whole fragment
// (kernel/mp4/mp4_recovery) and the moov's durations (mvhd, tkhd, mdhd,
// mehd: 0 until a clean close) are patched to what the kept fragments
// cover; one without a complete init segment is left as it is, with a log
// line. An FLV is cut to its last whole tag and its
// onMetaData duration and filesize are patched when the file has ours.
// Then the file is renamed to <name>; the caller reports it (log, on_dvr).
// A leftover another process is still writing (it holds the file's flock,
// which the kernel drops when a process dies) is left alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/dvr/dvr_path.hpp"
#include "core/error.hpp"

namespace srs {

constexpr size_t kDvrRecoveryMaxFiles = 10000;  // leftovers taken per template and start
constexpr size_t kDvrRecoveryMaxEntries = 1000000;  // directory entries read per template

// The "<name>.tmp" files under the template's root that match it (at most max_files).
std::vector<std::string> dvr_find_leftovers(const std::string& tmpl, size_t max_files = kDvrRecoveryMaxFiles);

struct DvrRecovered {
    std::string path;          // the final name
    int64_t duration_ms = -1;  // FLV: from its tags; MP4: from its fragments (-1: unknown)
    uint64_t bytes = 0;        // kept
    uint64_t cut_bytes = 0;    // dropped from the end
    uint32_t fragments = 0;    // MP4
};

// Recovers one leftover (a path ending in ".tmp").
Error dvr_recover_file(const std::string& tmp_path, DvrRecovered* out);

}  // namespace srs
