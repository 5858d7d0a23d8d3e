#include "app/ffmpeg/ffmpeg_args.hpp"

#include <cmath>
#include <cstdio>

namespace srs {

namespace {

const char* kCopy = "copy";
const char* kNoVideo = "vn";
const char* kNoAudio = "an";

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
        s.replace(at, from.size(), to);
    }
    return s;
}

// "25" for 25.0, "29.97" for 29.97: what ffmpeg's -r takes.
std::string number_text(double v) {
    char buf[64];
    if (std::floor(v) == v) {
        snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
    } else {
        snprintf(buf, sizeof(buf), "%g", v);
    }
    return buf;
}

bool one_of(const std::string& v, std::initializer_list<const char*> set) {
    for (const char* s : set) {
        if (v == s) return true;
    }
    return false;
}

void append(std::vector<std::string>* out, const std::vector<std::string>& more) {
    for (const std::string& s : more) {
        if (!s.empty()) out->push_back(s);
    }
}

// The vhost= value of a query ("a=1&vhost=x" -> "x"), "" when none.
std::string query_vhost(const std::string& query) {
    size_t at = 0;
    while (at <= query.size()) {
        size_t amp = query.find('&', at);
        if (amp == std::string::npos) amp = query.size();
        std::string kv = query.substr(at, amp - at);
        if (starts_with(kv, "vhost=")) return kv.substr(6);
        if (starts_with(kv, "domain=")) return kv.substr(7);
        at = amp + 1;
    }
    return "";
}

}  // namespace

std::vector<std::string> ffmpeg_options(const std::vector<std::vector<std::string>>& lines) {
    std::vector<std::string> out;
    for (const auto& line : lines) {
        if (line.empty() || line[0].empty()) continue;
        out.push_back("-" + line[0]);
        for (size_t i = 1; i < line.size(); i++) out.push_back(line[i]);
    }
    return out;
}

FfmpegEngine make_copy_engine(const std::string& output) {
    FfmpegEngine e;
    e.vcodec = kCopy;
    e.acodec = kCopy;
    e.iformat = "";
    e.output = output;
    return e;
}

Error check_ffmpeg_job(FfmpegJob* job) {
    FfmpegEngine& e = job->engine;
    e.vwidth -= e.vwidth % 2;
    e.vheight -= e.vheight % 2;
    if (e.vcodec.empty() || e.acodec.empty()) {
        return SRS_ERR(kErrorConfigInvalid, "engine %s: vcodec and acodec are both needed", e.name.c_str());
    }
    if (e.vcodec == kNoVideo && e.acodec == kNoAudio) {
        return SRS_ERR(kErrorConfigInvalid, "engine %s: video and audio both disabled (vn and an)", e.name.c_str());
    }
    if (!one_of(e.vcodec, {kCopy, kNoVideo, "png"})) {
        if (e.vcodec != "libx264") {
            return SRS_ERR(kErrorConfigInvalid, "engine %s: vcodec %s, must be libx264, copy or vn", e.name.c_str(),
                           e.vcodec.c_str());
        }
        if (e.vprofile.empty() || e.vpreset.empty()) {
            return SRS_ERR(kErrorConfigInvalid, "engine %s: libx264 needs vprofile and vpreset", e.name.c_str());
        }
    }
    if (!one_of(e.acodec, {kCopy, kNoAudio})) {
        if (!one_of(e.acodec, {"aac", "libfdk_aac", "libaacplus", "mp3", "libmp3lame", "opus", "libopus"})) {
            return SRS_ERR(kErrorConfigInvalid, "engine %s: acodec %s, must be aac, libfdk_aac, mp3, opus, copy or an",
                           e.name.c_str(), e.acodec.c_str());
        }
        if (e.acodec == "libaacplus" && e.abitrate != 0 && (e.abitrate < 16 || e.abitrate > 72)) {
            return SRS_ERR(kErrorConfigInvalid, "engine %s: abitrate %lld for libaacplus, must be in [16, 72]",
                           e.name.c_str(), static_cast<long long>(e.abitrate));
        }
        if (e.achannels != 0 && e.achannels != 1 && e.achannels != 2) {
            return SRS_ERR(kErrorConfigInvalid, "engine %s: achannels %lld, must be 1 or 2", e.name.c_str(),
                           static_cast<long long>(e.achannels));
        }
    }
    if (e.output.empty()) return SRS_ERR(kErrorConfigInvalid, "engine %s: no output", e.name.c_str());
    // "-f flv" before "-i udp://..." would be wrong: only an RTMP input is FLV.
    if (!starts_with(job->input, "rtmp://")) e.iformat = "";
    return Error();
}

std::vector<std::string> build_ffmpeg_argv(const FfmpegJob& job) {
    const FfmpegEngine& e = job.engine;
    std::vector<std::string> a{job.ffmpeg};
    if (!job.iparams.empty()) a.push_back(job.iparams);
    append(&a, e.perfile);
    if (!e.iformat.empty() && e.iformat != "off") {
        a.push_back("-f");
        a.push_back(e.iformat);
    }
    a.push_back("-i");
    a.push_back(job.input);
    append(&a, e.vfilter);

    if (e.vcodec == kNoVideo) {
        a.push_back("-vn");
    } else {
        a.push_back("-vcodec");
        a.push_back(e.vcodec);
    }
    if (e.vcodec != kCopy && e.vcodec != kNoVideo) {
        if (e.vbitrate > 0) {
            a.push_back("-b:v");
            a.push_back(std::to_string(e.vbitrate * 1000));
        }
        if (e.vfps > 0) {
            a.push_back("-r");
            a.push_back(number_text(e.vfps));
        }
        if (e.vwidth > 0 && e.vheight > 0) {
            a.push_back("-s");
            a.push_back(std::to_string(e.vwidth) + "x" + std::to_string(e.vheight));
            a.push_back("-aspect");
            a.push_back(std::to_string(e.vwidth) + ":" + std::to_string(e.vheight));
        }
        if (e.vthreads > 0) {
            a.push_back("-threads");
            a.push_back(std::to_string(e.vthreads));
        }
        if (!e.vprofile.empty()) {
            a.push_back("-profile:v");
            a.push_back(e.vprofile);
        }
        if (!e.vpreset.empty()) {
            a.push_back("-preset");
            a.push_back(e.vpreset);
        }
        append(&a, e.vparams);
    }

    if (e.acodec == kNoAudio) {
        a.push_back("-an");
    } else {
        a.push_back("-acodec");
        a.push_back(e.acodec);
    }
    if (e.acodec != kCopy && e.acodec != kNoAudio) {
        if (e.abitrate > 0) {
            a.push_back("-b:a");
            a.push_back(std::to_string(e.abitrate * 1000));
        }
        if (e.asample_rate > 0) {
            a.push_back("-ar");
            a.push_back(std::to_string(e.asample_rate));
        }
        if (e.achannels > 0) {
            a.push_back("-ac");
            a.push_back(std::to_string(e.achannels));
        }
        append(&a, e.aparams);
    } else if (e.acodec == kCopy) {
        // A copied track takes no encoder option; only the ADTS -> ASC filter.
        for (size_t i = 0; i + 1 < e.aparams.size(); i++) {
            if (e.aparams[i] == "-bsf:a" && e.aparams[i + 1] == "aac_adtstoasc") {
                a.push_back("-bsf:a");
                a.push_back("aac_adtstoasc");
                break;
            }
        }
    }

    if (!e.oformat.empty() && e.oformat != "off") {
        a.push_back("-f");
        a.push_back(e.oformat);
    }
    a.push_back("-y");
    a.push_back(e.output);
    return a;
}

std::string expand_variables(const std::string& text, const std::vector<std::pair<std::string, std::string>>& vars) {
    std::string out = text;
    for (const auto& v : vars) out = replace_all(out, "[" + v.first + "]", v.second);
    return out;
}

std::string expand_transcode_output(const std::string& text, const StreamVars& s, const std::string& engine) {
    return expand_variables(text, {{"vhost", s.vhost},
                                   {"port", std::to_string(s.port)},
                                   {"app", s.app},
                                   {"stream", s.stream},
                                   {"param", s.param},
                                   {"engine", engine}});
}

std::string expand_ingest_output(const std::string& text, const std::string& vhost, int port) {
    std::string out = expand_variables(text, {{"vhost", vhost}, {"port", std::to_string(port)}});
    out = replace_all(out, "?vhost=__defaultVhost__", "");
    out = replace_all(out, "vhost=__defaultVhost__", "");
    return out;
}

std::string transcode_input_url(const StreamVars& s) {
    std::string url = "rtmp://127.0.0.1:" + std::to_string(s.port) + "/" + s.app + "/" + s.stream;
    if (s.vhost != "__defaultVhost__") url += "?vhost=" + s.vhost;
    return url;
}

std::string expand_exec_word(const std::string& text, const StreamVars& s) {
    std::string url = "rtmp://127.0.0.1:" + std::to_string(s.port) + "/" + s.app + "/" + s.stream;
    std::string query = s.param;
    if (s.vhost != "__defaultVhost__" && query.find("vhost=") == std::string::npos) {
        query += (query.empty() ? "?" : "&") + std::string("vhost=") + s.vhost;
    }
    url += query;
    return expand_variables(text, {{"vhost", s.vhost},
                                   {"port", std::to_string(s.port)},
                                   {"app", s.app},
                                   {"stream", s.stream},
                                   {"param", s.param},
                                   {"tcUrl", s.tc_url},
                                   {"swfUrl", ""},
                                   {"pageUrl", ""},
                                   {"url", url}});
}

bool parse_rtmp_stream_key(const std::string& url, const std::string& default_vhost, OutputStreamKey* out) {
    if (!starts_with(url, "rtmp://")) return false;
    size_t path = url.find('/', 7);
    if (path == std::string::npos) return false;
    std::string rest = url.substr(path + 1);  // app[?q]/stream[?q]
    // The stream is after the last "/" (an app query can hold no "/").
    size_t slash = rest.rfind('/');
    if (slash == std::string::npos) return false;
    std::string app = rest.substr(0, slash);
    std::string stream = rest.substr(slash + 1);
    std::string vhost;
    size_t q = app.find('?');
    if (q != std::string::npos) {
        vhost = query_vhost(app.substr(q + 1));
        app = app.substr(0, q);
    }
    q = stream.find('?');
    if (q != std::string::npos) {
        std::string v = query_vhost(stream.substr(q + 1));
        if (!v.empty()) vhost = v;
        stream = stream.substr(0, q);
    }
    if (app.empty() || stream.empty()) return false;
    out->vhost = vhost.empty() ? default_vhost : vhost;
    out->app = app;
    out->stream = stream;
    return true;
}

bool transcode_scope_matches(const std::string& scope, const std::string& app, const std::string& stream) {
    return scope.empty() || scope == app || scope == app + "/" + stream;
}

Error resolve_ffmpeg_path(const std::string& conf_path, const std::string& path_env, const FfmpegPathProbe& probe,
                          std::string* program, std::string* fallback_warning) {
    fallback_warning->clear();
    if (conf_path.empty()) return SRS_ERR(kErrorConfigInvalid, "no ffmpeg path");
    bool has_slash = conf_path.find('/') != std::string::npos;
    if (has_slash && probe.exists(conf_path)) {
        if (!probe.executable(conf_path)) {
            return SRS_ERR(kErrorConfigInvalid, "ffmpeg %s exists but is not executable", conf_path.c_str());
        }
        *program = conf_path;
        return Error();
    }
    // A bare name, or a path that is not there (SRS confs name
    // ./objs/ffmpeg/bin/ffmpeg): the system's ffmpeg.
    std::string name = has_slash ? "ffmpeg" : conf_path;
    size_t at = 0;
    while (at <= path_env.size()) {
        size_t colon = path_env.find(':', at);
        if (colon == std::string::npos) colon = path_env.size();
        std::string dir = path_env.substr(at, colon - at);
        at = colon + 1;
        if (dir.empty()) continue;
        std::string full = dir + "/" + name;
        if (probe.exists(full) && probe.executable(full)) {
            *program = full;
            if (has_slash) *fallback_warning = "ffmpeg " + conf_path + " does not exist, using " + full;
            return Error();
        }
    }
    if (has_slash) {
        return SRS_ERR(kErrorConfigInvalid, "ffmpeg %s does not exist and no %s in PATH", conf_path.c_str(),
                       name.c_str());
    }
    return SRS_ERR(kErrorConfigInvalid, "no %s in PATH", name.c_str());
}

}  // namespace srs
