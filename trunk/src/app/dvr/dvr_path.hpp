// Where a DVR recording goes, as pure functions of dvr_path and a time:
// no file system here, so every rule is unit-tested with fixed times.
//
// Variables (SRS's): [vhost] [app] [stream], the local time of the file's
// open as [2006] year, [01] month, [02] day, [15] hour, [04] minute, [05]
// second, [999] milliseconds, and [timestamp] (ms since the epoch).
// A path that ends in neither .flv nor .mp4 names a folder: SRS appends
// "/[stream].[timestamp].flv". ".mp4" picks the MP4 writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace srs {

struct DvrStreamName {
    std::string vhost, app, stream;
};

// dvr_path with the folder form resolved (still with its variables).
std::string dvr_path_template(const std::string& dvr_path);

// Whether the (resolved) template records MP4; else FLV.
bool dvr_path_is_mp4(const std::string& tmpl);

// Every variable of tmpl replaced; wall_ms is the open time (ms since the
// epoch), written in the local time zone as SRS does.
std::string expand_dvr_path(const std::string& tmpl, const DvrStreamName& name, int64_t wall_ms);

// The folder a restart searches for recordings left under their temporary
// name: the directory part of tmpl before its first variable ("." when the
// template starts with one). *depth: how many folder levels below it the
// files can be (0: in it).
std::string dvr_search_root(const std::string& tmpl, int* depth);

// Whether path is what tmpl expands to for some stream and time; sets the
// stream's app and stream when the template names them (vhost is the
// caller's). Numeric variables match digits only.
bool match_dvr_path(const std::string& tmpl, const std::string& path, DvrStreamName* name);

// dvr_apply: "all" (or an empty list) records every stream, else the
// listed "app/stream" names.
bool dvr_applies(const std::vector<std::string>& apply, const std::string& app, const std::string& stream);

}  // namespace srs
