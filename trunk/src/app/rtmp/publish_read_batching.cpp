#include "app/rtmp/publish_read_batching.hpp"

namespace srs {

utime_t PublishReadBatching::wait_us(const PublishReadInputs& in) {
    if (in.min_latency) return 0;
    if (in.mr_set) return in.mr && in.mr_latency_ms > 0 ? in.mr_latency_ms * kUsPerMs : 0;
    if (in.message_interval_us <= 0) return 0;
    utime_t wait = static_cast<utime_t>(static_cast<double>(in.active_streams) * kUsPerSecond / kReadBudgetPerSecond);
    if (wait > kMaxAdaptiveWaitUs) wait = kMaxAdaptiveWaitUs;
    if (wait < static_cast<utime_t>(kMinMessagesPerRead) * in.message_interval_us) return 0;
    return wait;
}

}  // namespace srs
