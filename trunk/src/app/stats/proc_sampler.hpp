// ProcStatsSampler: the periodic sampling of the process and host figures,
// and the state it keeps between samples.
//
// It keeps the previous sample, so the CPU percents and disk rates are
// measured between two sample() calls; the server calls sample() every few
// seconds and the API only reads what the last call computed (reading /proc
// is never on an API request's path). Not thread-safe: one event loop owns it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/stats/proc_json.hpp"
#include "app/stats/proc_parsers.hpp"
#include "app/stats/proc_reader.hpp"
#include "core/clock.hpp"

namespace srs {

class ProcStatsSampler {
  public:
    // Block devices (names as in /proc/diskstats, e.g. "sda") whose busy time
    // disk_busy_percent reports, like SRS's `stats { disk sda; }`. None by default.
    void set_disk_devices(std::vector<std::string> devices) { disk_devices_ = std::move(devices); }

    // Reads everything now; percents and rates compare with the previous call.
    void sample();
    // The same with a snapshot read elsewhere (tests, replay).
    void update(ProcSnapshot now);

    // Wall-clock us of the last sample, 0 before the first.
    utime_t sample_time() const { return last_.wall_us; }
    const ProcSnapshot& last() const { return last_; }
    const DiskRates& disk() const { return disk_; }

    nlohmann::ordered_json rusages_json() const;
    nlohmann::ordered_json self_proc_stats_json() const;
    nlohmann::ordered_json system_proc_stats_json() const;
    nlohmann::ordered_json meminfos_json() const;
    nlohmann::ordered_json summaries_json(const SummaryInputs& in) const;

  private:
    std::vector<std::string> disk_devices_;
    bool sampled_ = false;
    ProcSnapshot last_;
    DiskRates disk_;
};

}  // namespace srs
