// hls_ctx's text work, without I/O or sessions: the session id's form, the
// stream a playlist path names, the one-entry master playlist, and the media
// playlist rewritten so every URI a player fetches carries the session id.
// Apart from the session table (hls_sessions) so the fuzz target
// (test/fuzz/hls_ctx_fuzz.cpp) links it with core alone.
#pragma once

#include <string>
#include <string_view>

namespace srs {

// The query parameter that carries the session id (SRS's name).
constexpr const char* kHlsCtxParam = "hls_ctx";

// Whether a client-supplied id may name a new session: 1 to 32 bytes of
// [A-Za-z0-9_-] (it ends up in logs, JSON and URIs).
bool is_valid_hls_ctx(std::string_view id);

// "/live/livestream.m3u8" -> app "live", stream "livestream"; false when the
// path has no app folder or no name before ".m3u8".
bool hls_stream_of_path(const std::string& path, std::string* app, std::string* stream);

// The in-memory master playlist of a new session: one variant, the
// requested path with the id, then the original query unless it already
// named an hls_ctx (as SRS).
std::string hls_master_playlist(const std::string& path, const std::string& id, const std::string& query);

// The media playlist with the id added to every URI a player fetches for
// the session: URI lines (segments) and the URI attribute of EXT-X-MAP,
// EXT-X-PART and EXT-X-PRELOAD-HINT (keys are left alone). "?hls_ctx=<id>"
// or "&hls_ctx=<id>" when the URI has a query; a URI that already carries an
// hls_ctx is kept. Line endings (LF or CRLF) and a missing final newline are
// kept as they are.
std::string hls_rewrite_playlist(std::string_view playlist, const std::string& id);

}  // namespace srs
