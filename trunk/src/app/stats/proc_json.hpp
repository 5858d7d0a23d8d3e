// The JSON of SRS's system APIs, built from the parsed figures:
//   /api/v1/rusages, /api/v1/self_proc_stats, /api/v1/system_proc_stats,
//   /api/v1/meminfos and /api/v1/summaries.
//
// Units, as SRS shows them:
//   - `sample_time`, `now_ms`, `*_sample_time`: wall-clock milliseconds (the
//     structs hold microseconds);
//   - every percent is a fraction: 0.25 means 25%;
//   - memory in kB; rusages' ru_utime/ru_stime in whole seconds (SRS emits
//     tv_sec only); /proc/self/stat times in clock ticks.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "app/stats/proc_parsers.hpp"
#include "app/stats/proc_reader.hpp"
#include "core/clock.hpp"

namespace srs {

// What only the server knows, for summaries.
struct SummaryInputs {
    utime_t now = 0;         // wall-clock us; 0 means wall_us()
    utime_t start_time = 0;  // wall-clock us the server started
    int64_t pid = 0;
    int64_t ppid = 0;
    std::string argv;  // the command line, arguments joined by spaces
    std::string cwd;
    int64_t conn_srs = 0;      // connections the server holds now
    uint64_t recv_bytes = 0;   // bytes all connections received, since start
    uint64_t send_bytes = 0;   // bytes all connections sent, since start
};

// The `data` member of each endpoint, fields in SRS's order and spelling;
// comm is shown in parentheses, "(srs)", as SRS shows it. Strings (comm,
// argv, cwd) are put in as the bytes they are: write the JSON out with
// dump_api_json() (app/api/api_json.hpp), which turns invalid UTF-8 into
// U+FFFD instead of throwing.
nlohmann::ordered_json rusages_json(const RUsage& u);
nlohmann::ordered_json self_proc_stats_json(const ProcSelfStat& s);
nlohmann::ordered_json system_proc_stats_json(const ProcSystemStat& s);
nlohmann::ordered_json meminfos_json(const MemInfo& m);
nlohmann::ordered_json summaries_json(const ProcSnapshot& s, const DiskRates& disk, const SummaryInputs& in);

}  // namespace srs
