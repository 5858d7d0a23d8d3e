// The variables of hls_m3u8_file, hls_ts_file, hls_fmp4_file, hls_init_file
// and hls_key_file, replaced as SRS does. Pure: the caller passes the clock.
#pragma once

#include <cstdint>
#include <string>

namespace srs {

struct HlsPathVars {
    std::string vhost, app, stream;
    int64_t seq = 0;
    int64_t duration_ms = 0;   // [duration]: the segment's, in ms (known when it closes)
    int64_t wall_ms = 0;       // the wall clock: [2006] [01] [02] [15] [04] [05] [999], local time
    int64_t timestamp = 0;     // [timestamp]: wall_ms, or wall_ms / fragment with hls_ts_floor
};

// [vhost] [app] [stream] [seq] [duration] [timestamp] [2006] [01] [02] [15]
// [04] [05] [999] replaced; any other text kept as it is.
std::string hls_expand_path(const std::string& tmpl, const HlsPathVars& vars);

// "a" + "b/c" -> "a/b/c" (one slash between; an empty folder gives the file).
std::string hls_join_path(const std::string& folder, const std::string& file);

}  // namespace srs
