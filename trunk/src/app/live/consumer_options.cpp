#include "app/live/consumer_options.hpp"

#include <algorithm>

#include "app/config/config.hpp"

namespace srs {

ConsumerOptions consumer_options(const Config& config, const std::string& vhost) {
    ConsumerOptions options;
    options.queue_length_us = config.vhost_get_int(vhost, "play.queue_length") * kUsPerSecond;
    options.realtime = config.vhost_get_bool(vhost, "min_latency");
    options.mw_latency_us = config.vhost_get_int(vhost, "play.mw_latency") * kUsPerMs;
    options.mw_msgs = static_cast<int>(config.vhost_get_int(vhost, "play.mw_msgs"));
    if (options.realtime && !config.vhost_is_set(vhost, "play.mw_msgs")) options.mw_msgs = 0;
    return options;
}

utime_t player_wait_us(const ConsumerOptions& options) {
    utime_t wait_us = options.realtime ? kPlayerIdleWaitUs : std::min(options.mw_latency_us, kPlayerIdleWaitUs);
    return wait_us > 0 ? wait_us : kPlayerIdleWaitUs;
}

}  // namespace srs
