// The formats an http_remux mount can serve and what picks them: the
// extension of the vhost's one mount template, as SRS (one mount per vhost,
// so one format per vhost). Pure, for the handler and tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/live/live_message.hpp"

namespace srs {

enum class RemuxFormat { kNone, kFlv, kTs, kMp3, kAac };

// By the extension of a mount template or request path (".flv", ".ts",
// ".mp3", ".aac", exact case); kNone for anything else.
RemuxFormat remux_format_of(const std::string& path);
// The response's Content-Type (SRS's): video/x-flv, video/MP2T, audio/mpeg,
// audio/x-aac.
const char* remux_content_type(RemuxFormat format);
// ".flv", ".ts", ".mp3", ".aac" ("" for kNone).
const char* remux_extension(RemuxFormat format);
// "FLV", "TS", "MP3", "AAC": the tag of the format's log lines.
const char* remux_format_name(RemuxFormat format);
// Audio-only formats drop video and start from fast_cache, not the GOP.
inline bool remux_audio_only(RemuxFormat format) { return format == RemuxFormat::kMp3 || format == RemuxFormat::kAac; }

// What an HTTP-MP3 response starts with, as SRS's: an ID3v2.3 tag that holds
// only 10 bytes of padding (some players want a tag before the frames).
constexpr size_t kId3HeaderSize = 20;
extern const uint8_t kId3Header[kId3HeaderSize];

// fast_cache for an audio player: of what a new consumer was primed with
// (metadata, sequence headers, the GOP cache, oldest first), the sequence
// headers and the audio of the last fast_cache_ms before the newest audio
// message; fast_cache_ms 0 keeps only the sequence headers (start live).
std::vector<LiveMessagePtr> select_fast_cache(const std::vector<LiveMessagePtr>& primed, uint32_t fast_cache_ms);

}  // namespace srs
