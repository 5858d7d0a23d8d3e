#include "app/hls/hls_path.hpp"

#include <time.h>

#include <cstdio>

namespace srs {

namespace {

void replace_all(std::string* s, const std::string& from, const std::string& to) {
    for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size())) {
        s->replace(at, from.size(), to);
    }
}

std::string two_digits(int v) {
    char b[16];  // room for any int: no truncation warning
    snprintf(b, sizeof(b), "%02d", v);
    return b;
}

}  // namespace

std::string hls_expand_path(const std::string& tmpl, const HlsPathVars& vars) {
    std::string s = tmpl;
    replace_all(&s, "[vhost]", vars.vhost);
    replace_all(&s, "[app]", vars.app);
    replace_all(&s, "[stream]", vars.stream);
    replace_all(&s, "[seq]", std::to_string(vars.seq));
    replace_all(&s, "[duration]", std::to_string(vars.duration_ms));
    replace_all(&s, "[timestamp]", std::to_string(vars.timestamp));
    if (s.find('[') == std::string::npos) return s;
    time_t secs = static_cast<time_t>(vars.wall_ms / 1000);
    struct tm t = {};
    localtime_r(&secs, &t);
    replace_all(&s, "[2006]", std::to_string(t.tm_year + 1900));
    replace_all(&s, "[01]", two_digits(t.tm_mon + 1));
    replace_all(&s, "[02]", two_digits(t.tm_mday));
    replace_all(&s, "[15]", two_digits(t.tm_hour));
    replace_all(&s, "[04]", two_digits(t.tm_min));
    replace_all(&s, "[05]", two_digits(t.tm_sec));
    char ms[8];
    snprintf(ms, sizeof(ms), "%03d", static_cast<int>(vars.wall_ms % 1000));
    replace_all(&s, "[999]", ms);
    return s;
}

std::string hls_join_path(const std::string& folder, const std::string& file) {
    if (folder.empty()) return file;
    std::string f = file;
    while (!f.empty() && f[0] == '/') f.erase(0, 1);
    if (folder.back() == '/') return folder + f;
    return folder + "/" + f;
}

}  // namespace srs
