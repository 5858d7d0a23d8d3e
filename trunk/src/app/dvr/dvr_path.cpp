#include "app/dvr/dvr_path.hpp"

#include <time.h>

#include <cctype>
#include <cstdio>
#include <cstring>

namespace srs {

namespace {

bool ends_with(const std::string& s, const char* suffix) {
    std::string x(suffix);
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

struct TimeVariable {
    const char* name;
    size_t width;  // digits it expands to (0: as many as it takes)
};

// The time variables; the names are SRS's.
const TimeVariable kTimeVariables[] = {
    {"[2006]", 4}, {"[01]", 2}, {"[02]", 2}, {"[15]", 2}, {"[04]", 2}, {"[05]", 2}, {"[999]", 3}, {"[timestamp]", 0},
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    size_t at = 0;
    while ((at = s.find(from, at)) != std::string::npos) {
        s.replace(at, from.size(), to);
        at += to.size();
    }
    return s;
}

std::string padded(int v, int width) {
    char buf[16];
    snprintf(buf, sizeof(buf), "%0*d", width, v);
    return buf;
}

}  // namespace

std::string dvr_path_template(const std::string& dvr_path) {
    if (ends_with(dvr_path, ".flv") || ends_with(dvr_path, ".mp4")) return dvr_path;
    std::string folder = dvr_path;
    while (!folder.empty() && folder.back() == '/') folder.pop_back();
    return folder + "/[stream].[timestamp].flv";
}

bool dvr_path_is_mp4(const std::string& tmpl) { return ends_with(tmpl, ".mp4"); }

std::string expand_dvr_path(const std::string& tmpl, const DvrStreamName& name, int64_t wall_ms) {
    time_t secs = static_cast<time_t>(wall_ms / 1000);
    struct tm t = {};
    localtime_r(&secs, &t);
    std::string s = tmpl;
    s = replace_all(s, "[vhost]", name.vhost);
    s = replace_all(s, "[app]", name.app);
    s = replace_all(s, "[stream]", name.stream);
    s = replace_all(s, "[2006]", padded(t.tm_year + 1900, 4));
    s = replace_all(s, "[01]", padded(t.tm_mon + 1, 2));
    s = replace_all(s, "[02]", padded(t.tm_mday, 2));
    s = replace_all(s, "[15]", padded(t.tm_hour, 2));
    s = replace_all(s, "[04]", padded(t.tm_min, 2));
    s = replace_all(s, "[05]", padded(t.tm_sec, 2));
    s = replace_all(s, "[999]", padded(static_cast<int>(wall_ms % 1000), 3));
    s = replace_all(s, "[timestamp]", std::to_string(wall_ms));
    return s;
}

std::string dvr_search_root(const std::string& tmpl, int* depth) {
    size_t first_var = tmpl.find('[');
    std::string before = tmpl.substr(0, first_var);
    size_t slash = before.rfind('/');
    std::string root = slash == std::string::npos ? "." : before.substr(0, slash == 0 ? 1 : slash);
    std::string rest = slash == std::string::npos ? tmpl : tmpl.substr(slash + 1);
    int d = 0;
    for (char c : rest) d += c == '/';
    *depth = d;
    return root;
}

namespace {

// One piece of a template: literal text, or a variable that matches a run
// of non-slash characters (names) or of digits (times; width 0: any count).
struct Piece {
    std::string literal;
    std::string field;  // "vhost", "app", "stream" for names
    bool variable = false;
    bool digits = false;
    size_t width = 0;
};

std::vector<Piece> split_template(const std::string& tmpl) {
    std::vector<Piece> out;
    for (size_t i = 0; i < tmpl.size();) {
        Piece p;
        p.variable = true;
        size_t len = 0;
        for (const char* n : {"[vhost]", "[app]", "[stream]"}) {
            if (tmpl.compare(i, strlen(n), n) == 0) {
                len = strlen(n);
                p.field = std::string(n + 1, len - 2);
            }
        }
        for (const TimeVariable& v : kTimeVariables) {
            if (len == 0 && tmpl.compare(i, strlen(v.name), v.name) == 0) {
                len = strlen(v.name);
                p.digits = true;
                p.width = v.width;
            }
        }
        if (len) {
            out.push_back(p);
            i += len;
            continue;
        }
        if (out.empty() || out.back().variable) out.push_back(Piece());
        out.back().literal += tmpl[i++];
    }
    return out;
}

// Backtracking match of pieces[k..] against path[at..]; fills *name.
bool match_from(const std::vector<Piece>& pieces, size_t k, const std::string& path, size_t at,
                DvrStreamName* name) {
    if (k == pieces.size()) return at == path.size();
    const Piece& p = pieces[k];
    if (!p.variable) {
        if (path.compare(at, p.literal.size(), p.literal) != 0) return false;
        return match_from(pieces, k + 1, path, at + p.literal.size(), name);
    }
    size_t end = at;
    while (end < path.size() && (p.digits ? isdigit(static_cast<unsigned char>(path[end])) : path[end] != '/')) end++;
    for (size_t stop = end; stop > at; stop--) {
        size_t n = stop - at;
        if (p.width && n != p.width) continue;
        std::string value = path.substr(at, n);
        std::string* field = p.field == "app" ? &name->app : p.field == "stream" ? &name->stream
                             : p.field == "vhost" ? &name->vhost : nullptr;
        DvrStreamName saved = *name;
        // A variable used twice must be the same text both times.
        if (field && !field->empty() && *field != value) continue;
        if (field) *field = value;
        if (match_from(pieces, k + 1, path, stop, name)) return true;
        *name = saved;
    }
    return false;
}

}  // namespace

bool match_dvr_path(const std::string& tmpl, const std::string& path, DvrStreamName* name) {
    DvrStreamName found;
    if (!match_from(split_template(tmpl), 0, path, 0, &found)) return false;
    if (name) {
        if (!found.app.empty()) name->app = found.app;
        if (!found.stream.empty()) name->stream = found.stream;
        if (!found.vhost.empty()) name->vhost = found.vhost;
    }
    return true;
}

bool dvr_applies(const std::vector<std::string>& apply, const std::string& app, const std::string& stream) {
    if (apply.empty()) return true;
    std::string name = app + "/" + stream;
    for (const std::string& a : apply) {
        if (a == "all" || a == name) return true;
    }
    return false;
}

}  // namespace srs
