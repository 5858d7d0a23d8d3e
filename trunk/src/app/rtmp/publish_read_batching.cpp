#include "app/rtmp/publish_read_batching.hpp"

namespace srs {

utime_t PublishReadBatching::wait_us(const PublishReadInputs& in) {
    if (in.min_latency) return 0;
    if (in.mr) return in.mr_latency_ms > 0 ? in.mr_latency_ms * kUsPerMs : 0;
    if (in.active_streams < kBatchFromStreams) return 0;
    utime_t wait = static_cast<utime_t>(in.active_streams) * kWaitPerStreamUs;
    return wait < kMaxAdaptiveWaitUs ? wait : kMaxAdaptiveWaitUs;
}

}  // namespace srs
