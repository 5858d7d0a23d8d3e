#include "app/server/wakeup_coalesce.hpp"

#include "app/config/config_keys.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

utime_t wakeup_coalesce_us(const Config& config) {
    for (const std::string& vhost : config.vhosts()) {
        if (config.get(vhost, keys::vhost_min_latency)) return 0;
    }
    return static_cast<utime_t>(config.get(keys::wakeup_coalesce_us));
}

void apply_wakeup_coalesce(const Config& config) {
    utime_t us = wakeup_coalesce_us(config);
    set_wakeup_coalesce(us);
    if (us > 0) {
        srs_trace("wake-up coalescing: at most one I/O wake-up per %d us under load", static_cast<int>(us));
    } else {
        srs_trace("wake-up coalescing: off");
    }
}

}  // namespace srs
