// Periodic sampling of the process and host figures. See proc_sampler.hpp.
#include "app/stats/proc_sampler.hpp"

namespace srs {

using json = nlohmann::ordered_json;

void ProcStatsSampler::sample() { update(read_proc_snapshot(disk_devices_)); }

void ProcStatsSampler::update(ProcSnapshot now) {
    if (sampled_) {
        utime_t elapsed = now.monotonic_us - last_.monotonic_us;
        now.self.percent = self_cpu_percent(last_.self, now.self, elapsed, now.ticks_per_second);
        now.system.percent = system_cpu_percent(last_.system, now.system);
        disk_ = disk_rates(last_.vmstat, last_.disk_ticks, now.vmstat, now.disk_ticks, elapsed);
    } else {
        disk_ = disk_rates(VmStat{}, DiskTicks{}, now.vmstat, now.disk_ticks, 0);
    }
    last_ = std::move(now);
    sampled_ = true;
}

json ProcStatsSampler::rusages_json() const { return srs::rusages_json(last_.rusage); }
json ProcStatsSampler::self_proc_stats_json() const { return srs::self_proc_stats_json(last_.self); }
json ProcStatsSampler::system_proc_stats_json() const { return srs::system_proc_stats_json(last_.system); }
json ProcStatsSampler::meminfos_json() const { return srs::meminfos_json(last_.mem); }
json ProcStatsSampler::summaries_json(const SummaryInputs& in) const {
    return srs::summaries_json(last_, disk_, in);
}

}  // namespace srs
