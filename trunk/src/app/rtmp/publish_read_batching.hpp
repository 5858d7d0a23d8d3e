// How long a publisher's next socket read waits after a small read, so that
// one read (one wakeup, one ACK) takes several messages. Sans-IO: the publish
// loop gives the config and the load, RtmpTransport::set_merged_read waits.
#pragma once

#include <cstddef>

#include "core/clock.hpp"

namespace srs {

struct PublishReadInputs {
    bool mr = false;          // publish.mr
    int mr_latency_ms = 0;    // publish.mr_latency
    bool min_latency = false; // vhost min_latency (SRS's realtime conf)
    size_t active_streams = 0;  // live sources of the server: the load
};

class PublishReadBatching {
  public:
    // Below this many streams the default path reads as soon as data comes:
    // a few publishers cost little, and their latency matters more.
    static constexpr size_t kBatchFromStreams = 100;
    // From there the wait is this much per stream (2 ms at 100)...
    static constexpr utime_t kWaitPerStreamUs = 20;
    // ...up to this bound: the most a message waits for its read by default.
    static constexpr utime_t kMaxAdaptiveWaitUs = 10 * kUsPerMs;

    // 0: read at once. min_latency wins; publish.mr keeps SRS's meaning (its
    // mr_latency, unbounded); else a wait that grows with the load.
    static utime_t wait_us(const PublishReadInputs& in);
};

}  // namespace srs
