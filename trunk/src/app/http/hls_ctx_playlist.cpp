// The pure text work of hls_ctx (see hls_ctx_playlist.hpp).
#include "app/http/hls_ctx_playlist.hpp"

namespace srs {

bool is_valid_hls_ctx(std::string_view id) {
    if (id.empty() || id.size() > 32) return false;
    for (char c : id) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

bool hls_stream_of_path(const std::string& path, std::string* app, std::string* stream) {
    static const std::string kExt = ".m3u8";
    if (path.size() <= kExt.size() || path.compare(path.size() - kExt.size(), kExt.size(), kExt) != 0) return false;
    size_t slash = path.find_last_of('/');
    if (slash == std::string::npos || slash == 0) return false;  // no app folder
    size_t name_len = path.size() - kExt.size() - (slash + 1);
    if (name_len == 0) return false;
    *app = path.substr(1, slash - 1);
    *stream = path.substr(slash + 1, name_len);
    return !app->empty();
}

// Whether a raw query names the parameter (with or without a value).
static bool query_has_param(std::string_view query, std::string_view name) {
    size_t pos = 0;
    while (pos <= query.size()) {
        size_t amp = query.find('&', pos);
        std::string_view part = query.substr(pos, amp == std::string_view::npos ? std::string_view::npos : amp - pos);
        std::string_view key = part.substr(0, part.find('='));
        if (key == name) return true;
        if (amp == std::string_view::npos) break;
        pos = amp + 1;
    }
    return false;
}

std::string hls_master_playlist(const std::string& path, const std::string& id, const std::string& query) {
    std::string out = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,AVERAGE-BANDWIDTH=1\n";
    out += path + "?" + kHlsCtxParam + "=" + id;
    if (!query.empty() && !query_has_param(query, kHlsCtxParam)) out += "&" + query;
    out += "\n";
    return out;
}

// The URI with the session id: before any fragment, after any query.
static std::string uri_with_ctx(std::string_view uri, const std::string& id) {
    size_t hash = uri.find('#');
    std::string_view base = uri.substr(0, hash);
    std::string_view frag = hash == std::string_view::npos ? std::string_view() : uri.substr(hash);
    size_t q = base.find('?');
    if (q != std::string_view::npos && query_has_param(base.substr(q + 1), kHlsCtxParam)) return std::string(uri);
    std::string out(base);
    if (q == std::string_view::npos) {
        out += "?";
    } else if (q + 1 < base.size() && base.back() != '&') {
        out += "&";
    }
    out += kHlsCtxParam;
    out += "=";
    out += id;
    out += frag;
    return out;
}

// A tag's URI="..." attribute rewritten; the line as it is without one.
static std::string tag_with_ctx(std::string_view line, const std::string& id) {
    static const std::string_view kAttr = "URI=\"";
    size_t at = 0;
    // The attribute name starts the list or follows a comma (not "XURI=").
    while ((at = line.find(kAttr, at)) != std::string_view::npos) {
        if (at > 0 && (line[at - 1] == ':' || line[at - 1] == ',')) break;
        at += kAttr.size();
    }
    if (at == std::string_view::npos) return std::string(line);
    size_t begin = at + kAttr.size();
    size_t end = line.find('"', begin);
    if (end == std::string_view::npos) return std::string(line);  // broken: left alone
    std::string out(line.substr(0, begin));
    out += uri_with_ctx(line.substr(begin, end - begin), id);
    out += line.substr(end);
    return out;
}

static bool starts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::string hls_rewrite_playlist(std::string_view playlist, const std::string& id) {
    std::string out;
    out.reserve(playlist.size() + playlist.size() / 4);
    size_t pos = 0;
    while (pos < playlist.size()) {
        size_t nl = playlist.find('\n', pos);
        size_t end = nl == std::string_view::npos ? playlist.size() : nl;
        std::string_view line = playlist.substr(pos, end - pos);
        std::string_view eol;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
            eol = "\r";
        }
        // Leading blanks are not part of a URI line's meaning; trailing ones neither.
        size_t first = line.find_first_not_of(" \t");
        if (first == std::string_view::npos) {
            out += line;
        } else if (line[first] == '#') {
            bool has_uri = starts_with(line, "#EXT-X-MAP:") || starts_with(line, "#EXT-X-PART:") ||
                           starts_with(line, "#EXT-X-PRELOAD-HINT:");
            out += has_uri ? tag_with_ctx(line, id) : std::string(line);
        } else {
            size_t last = line.find_last_not_of(" \t");
            out += line.substr(0, first);
            out += uri_with_ctx(line.substr(first, last + 1 - first), id);
            out += line.substr(last + 1);
        }
        out += eol;
        if (nl == std::string_view::npos) break;
        out += '\n';
        pos = nl + 1;
    }
    return out;
}

}  // namespace srs
