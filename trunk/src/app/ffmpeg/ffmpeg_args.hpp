// SRS's FFmpeg argument rules as pure functions: an engine block becomes an
// argv, templates get their [variables], a transcode scope matches a stream.
// No config, no processes here, so the unit tests cover every rule.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace srs {

// What an `engine { }` block says (an ingest without engines, or with a
// disabled one, copies: see make_copy_engine).
struct FfmpegEngine {
    std::string name;                  // the engine's name, for [engine]
    std::vector<std::string> perfile;  // "-name", "value" pairs, before the input
    std::string iformat = "flv";       // -f before -i (rtmp:// inputs only); "off": none
    std::vector<std::string> vfilter;  // after the input
    std::string vcodec;                // libx264, copy, vn, png
    int64_t vbitrate = 0;              // kbps
    double vfps = 0;
    int64_t vwidth = 0, vheight = 0;
    int64_t vthreads = 0;
    std::string vprofile, vpreset;
    std::vector<std::string> vparams;
    std::string acodec;  // aac, libfdk_aac, mp3, opus, libaacplus, copy, an
    int64_t abitrate = 0;  // kbps
    int64_t asample_rate = 0;
    int64_t achannels = 0;
    std::vector<std::string> aparams;
    std::string oformat = "flv";  // "off": none
    std::string output;           // with its variables expanded
};

// One FFmpeg to run.
struct FfmpegJob {
    std::string ffmpeg;   // the program
    std::string iparams;  // "-re" for a file ingest, else ""
    std::string input;
    FfmpegEngine engine;
};

// `name value;` lines of a free-form block -> "-name", "value" (a line
// without a value gives "-name" alone).
std::vector<std::string> ffmpeg_options(const std::vector<std::vector<std::string>>& lines);

// An engine that copies both tracks to `output` (flv).
FfmpegEngine make_copy_engine(const std::string& output);

// SRS's checks of a transcoding engine: vcodec libx264 (or copy, vn, png)
// with a profile and a preset; acodec aac, libfdk_aac, libaacplus, mp3,
// opus, copy or an; not both vn and an; achannels 0, 1 or 2; an output.
// Also rounds the size down to even and drops iformat for inputs that are
// not rtmp:// (SRS's rule), which is why it takes the job.
Error check_ffmpeg_job(FfmpegJob* job);

// The argv: program, iparams, perfile, -f iformat, -i input, vfilter,
// -vcodec|-vn and its options (none for copy), -acodec|-an and its options
// (with copy only "-bsf:a aac_adtstoasc" passes), -f oformat, -y output.
std::vector<std::string> build_ffmpeg_argv(const FfmpegJob& job);

// Every "[name]" in `text` replaced by its value; unknown names stay.
std::string expand_variables(const std::string& text, const std::vector<std::pair<std::string, std::string>>& vars);

// What a published stream offers to templates.
struct StreamVars {
    std::string vhost, app, stream;
    std::string param;  // with its leading "?", or ""
    std::string tc_url;
    int port = 1935;    // the server's RTMP port
};

// A transcode engine's output: [vhost] [port] [app] [stream] [param] [engine].
std::string expand_transcode_output(const std::string& text, const StreamVars& s, const std::string& engine);
// An ingest's output: [vhost] [port] (an ingest knows no app or stream);
// "?vhost=__defaultVhost__" and "vhost=__defaultVhost__" are dropped, as SRS does.
std::string expand_ingest_output(const std::string& text, const std::string& vhost, int port);
// An exec word: [vhost] [port] [app] [stream] [param] [tcUrl] [swfUrl]
// [pageUrl] (empty here) and [url], the stream's RTMP URL on this server.
std::string expand_exec_word(const std::string& text, const StreamVars& s);

// Where a transcode reads a published stream: this server, on loopback.
std::string transcode_input_url(const StreamVars& s);

// vhost/app/stream of an RTMP URL as this server would file a publish of it:
// rtmp://HOST[:PORT]/APP[?query]/STREAM[?query]; the vhost is the query's
// vhost= (in either place), else `default_vhost`. False if it is no RTMP URL.
struct OutputStreamKey {
    std::string vhost, app, stream;
    bool operator==(const OutputStreamKey& o) const { return vhost == o.vhost && app == o.app && stream == o.stream; }
    bool operator<(const OutputStreamKey& o) const {
        return vhost != o.vhost ? vhost < o.vhost : app != o.app ? app < o.app : stream < o.stream;
    }
};
bool parse_rtmp_stream_key(const std::string& url, const std::string& default_vhost, OutputStreamKey* out);

// Whether `transcode SCOPE { }` applies to app/stream: "" (the vhost), the
// app, or app/stream.
bool transcode_scope_matches(const std::string& scope, const std::string& app, const std::string& stream);

// Which FFmpeg to run for a conf's path: the path when it exists; else
// `ffmpeg` found in PATH (with *fallback_warning set); an existing path that
// is not executable is an error, and so is nothing found. `exists` and
// `executable` are the file system's answers (tests pass fakes).
struct FfmpegPathProbe {
    bool (*exists)(const std::string& path);
    bool (*executable)(const std::string& path);
};
Error resolve_ffmpeg_path(const std::string& conf_path, const std::string& path_env, const FfmpegPathProbe& probe,
                          std::string* program, std::string* fallback_warning);

}  // namespace srs
