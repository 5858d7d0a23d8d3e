#include "app/http/hls_sessions.hpp"

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

void HlsSession::expire() {
    if (interrupted_) return;
    interrupted_ = true;
    // SRS drops a kicked session from the clients list at once.
    unregister();
}

void HlsSession::unregister() {
    if (!clients_) return;
    clients_->remove(this, false);
    clients_ = nullptr;
    if (listed_) (*listed_)--;
}

HlsSession* HlsSessionTable::find(const std::string& id) const {
    auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : it->second.get();
}

bool HlsSessionTable::id_free(const std::string& id) const {
    return !find(id) && (!clients_ || !clients_->find(id));
}

HlsSession* HlsSessionTable::create(const std::string& id, const std::string& ip, const ClientInfo& info,
                                    HookRequest hook, utime_t now_us, utime_t idle_us) {
    std::unique_ptr<HlsSession> s(new HlsSession(id, ip, std::move(hook)));
    s->info() = info;
    s->info().kind = ClientKind::kHlsPlay;
    s->deadline_us_ = now_us + idle_us;
    HlsSession* raw = s.get();
    sessions_[id] = std::move(s);
    if (clients_) {
        raw->clients_ = clients_;
        raw->listed_ = &listed_;
        listed_++;
        clients_->add(raw);
    }
    return raw;
}

void HlsSessionTable::touch(HlsSession* s, utime_t now_us, utime_t idle_us) {
    if (!s->interrupted_) s->deadline_us_ = now_us + idle_us;
}

void HlsSessionTable::drop(HlsSession* s) {
    s->unregister();
    sessions_.erase(s->id_);
}

std::vector<std::unique_ptr<HlsSession>> HlsSessionTable::take_expired(utime_t now_us) {
    std::vector<std::unique_ptr<HlsSession>> out;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        if (it->second->deadline_us_ > now_us) {
            ++it;
            continue;
        }
        it->second->unregister();
        it->second->listed_ = nullptr;  // the table's count is not its business any more
        out.push_back(std::move(it->second));
        it = sessions_.erase(it);
    }
    return out;
}

void HlsSessionTable::clear() {
    for (auto& kv : sessions_) kv.second->unregister();
    sessions_.clear();
}

}  // namespace srs
