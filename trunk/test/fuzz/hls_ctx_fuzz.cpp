// libFuzzer target for app/http/hls_ctx_playlist: the playlist rewrite that
// adds a player's session id (hls_ctx) to every URI it fetches, fed what a
// playlist on disk or in the store could hold. The first line of the input
// is the session id (kept only when it has the form a session id has), the
// rest the playlist. The rewrite must keep the playlist's shape:
//
// - the same number of lines, each line's end ("\r" before "\n") kept;
// - tag lines other than EXT-X-MAP/PART/PRELOAD-HINT (keys too) unchanged,
//   and those three only changed inside their URI="..." attribute;
// - every URI line (not blank, not a tag) carries hls_ctx=<id>, unless it
//   named an hls_ctx already;
// - rewriting the result again changes nothing (a URI that names an
//   hls_ctx is kept).
//
// The master playlist made from the same input (as path and query) ends with
// a newline and names the id once.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "app/http/hls_ctx_playlist.hpp"

using namespace srs;

namespace {

std::vector<std::string_view> lines_of(std::string_view s) {
    std::vector<std::string_view> out;
    size_t pos = 0;
    while (true) {
        size_t nl = s.find('\n', pos);
        if (nl == std::string_view::npos) {
            out.push_back(s.substr(pos));
            return out;
        }
        out.push_back(s.substr(pos, nl - pos));
        pos = nl + 1;
    }
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
    size_t a = s.find_first_not_of(" \t");
    if (a == std::string_view::npos) return {};
    size_t b = s.find_last_not_of(" \t");
    return s.substr(a, b + 1 - a);
}

void check_line(std::string_view in, std::string_view out) {
    const bool cr = !in.empty() && in.back() == '\r';
    if (cr != (!out.empty() && out.back() == '\r')) abort();
    std::string_view body = trim(cr ? in.substr(0, in.size() - 1) : in);
    if (body.empty()) {
        if (in != out) abort();
        return;
    }
    if (body[0] == '#') {
        const bool has_uri = starts_with(body, "#EXT-X-MAP:") || starts_with(body, "#EXT-X-PART:") ||
                             starts_with(body, "#EXT-X-PRELOAD-HINT:");
        if (!has_uri) {
            if (in != out) abort();
            return;
        }
        // Only text is added (inside URI="..."): the input's start is the output's start.
        if (out.size() < in.size()) abort();
        size_t uri = in.find("URI=\"");
        if (uri != std::string_view::npos && in.substr(0, uri) != out.substr(0, uri)) abort();
        return;
    }
    // hls_ctx=<id> added, or the URI named an hls_ctx already (kept as it is).
    if (out.find("hls_ctx=") == std::string_view::npos && in.find("hls_ctx") == std::string_view::npos) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    size_t nl = input.find('\n');
    std::string id(nl == std::string_view::npos ? std::string_view() : input.substr(0, nl));
    if (!is_valid_hls_ctx(id)) id = "k3v9x0qa";
    std::string_view playlist = nl == std::string_view::npos ? input : input.substr(nl + 1);

    const std::string once = hls_rewrite_playlist(playlist, id);
    const std::vector<std::string_view> a = lines_of(playlist), b = lines_of(once);
    if (a.size() != b.size()) abort();
    for (size_t i = 0; i < a.size(); i++) check_line(a[i], b[i]);
    if (hls_rewrite_playlist(once, id) != once) abort();

    // The master playlist, with the input as path and query.
    const std::string master = hls_master_playlist("/live/s.m3u8", id, std::string(playlist.substr(0, 256)));
    if (!starts_with(master, "#EXTM3U\n") || master.back() != '\n') abort();
    if (master.find("hls_ctx=" + id) == std::string::npos) abort();
    std::string app, stream;
    if (hls_stream_of_path(std::string(playlist.substr(0, 256)), &app, &stream) && (app.empty() || stream.empty())) {
        abort();
    }
    return 0;
}
