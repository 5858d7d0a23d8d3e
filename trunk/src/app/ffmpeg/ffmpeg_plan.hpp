// What the conf asks to run: the ingests of a vhost, and the transcodes and
// exec commands of a publish, as argvs ready for the supervisor. Reads the
// config; runs nothing.
#pragma once

#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/ffmpeg/ffmpeg_args.hpp"
#include "io/child_process.hpp"

namespace srs {

struct PlannedProcess {
    std::string label;  // for logs: "ingest livestream", "transcode engine ff", "exec ./on_publish.sh"
    ChildSpec spec;
    // argv[0] is an ffmpeg path from the conf, resolved at each start
    // (resolve_ffmpeg_path: a missing path falls back to PATH).
    bool ffmpeg = false;
    bool transcode = false;
    OutputStreamKey output;  // a transcode's output stream (for the loop check)
};

// The engine block's settings (an ingest's or a transcode's engine rows).
FfmpegEngine read_ffmpeg_engine(const ConfigSection& engine);

// The server's RTMP port: the first `listen` (SRS's [port]).
int server_rtmp_port(const Config& conf);

// One process per engine of an enabled ingest (one copying process when it
// has no engine). A broken ingest is an error naming it.
Error plan_ingest(const Config& conf, const std::string& vhost, const ConfigSection& ingest,
                  std::vector<PlannedProcess>* out);

// The transcodes and exec commands of a publish. Engines that are broken are
// skipped with a warning (the others still run).
void plan_publish(const Config& conf, const StreamVars& stream, std::vector<PlannedProcess>* out);

}  // namespace srs
