#include "app/live/consumer_options.hpp"

#include <algorithm>

#include "app/config/config.hpp"

namespace srs {

ConsumerOptions consumer_options(const Config& config, const std::string& vhost) {
    ConsumerOptions options;
    options.queue_length_us = config.get(vhost, keys::vhost_play_queue_length) * kUsPerSecond;
    options.realtime = config.get(vhost, keys::vhost_min_latency);
    options.mw_latency_us = config.get(vhost, keys::vhost_play_mw_latency) * kUsPerMs;
    options.mw_msgs = static_cast<int>(config.get(vhost, keys::vhost_play_mw_msgs));
    if (options.realtime && !config.is_set(vhost, keys::vhost_play_mw_msgs)) options.mw_msgs = 0;
    return options;
}

utime_t player_wait_us(const ConsumerOptions& options) {
    // Half a period past the grid point the fan-out wakes the player at, so
    // the fan-out wins and the timer only covers a stalled publisher.
    utime_t merged = options.mw_latency_us + options.mw_latency_us / 2;
    utime_t wait_us = options.realtime ? kPlayerIdleWaitUs : std::min(merged, 2 * kPlayerIdleWaitUs);
    return wait_us > 0 ? wait_us : kPlayerIdleWaitUs;
}

}  // namespace srs
