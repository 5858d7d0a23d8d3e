// How long a publisher's next socket read waits after a small one, so that
// one read (one wake-up, one ACK) takes several messages. Sans-IO: the
// publish loop gives the config and the load, RtmpTransport::set_merged_read
// waits.
//
// With `mr` not in the conf, the server keeps its publishers' reads within a
// budget (kReadBudgetPerSecond for all of them): with N live streams each may
// read every N / budget seconds. The wait is taken only when it batches,
// that is when it is at least kMinMessagesPerRead of this publisher's own
// message intervals: a wait shorter than that adds a wake-up and saves none.
// A lone publisher, or a few hundred, is read as soon as data comes.
#pragma once

#include <cstddef>

#include "core/clock.hpp"

namespace srs {

struct PublishReadInputs {
    bool mr = false;             // publish.mr
    bool mr_set = false;         // publish.mr written in the conf (on or off)
    int mr_latency_ms = 0;       // publish.mr_latency
    bool min_latency = false;    // vhost min_latency (SRS's realtime conf)
    size_t active_streams = 0;   // live sources of the server: the load
    utime_t message_interval_us = 0;  // this publisher's mean gap between messages; 0: not known yet
};

class PublishReadBatching {
  public:
    static constexpr double kReadBudgetPerSecond = 10000;
    static constexpr size_t kMinMessagesPerRead = 3;
    // The most a message waits for its read by default: SRS's mr_latency default.
    static constexpr utime_t kMaxAdaptiveWaitUs = 350 * kUsPerMs;

    // 0: read at once. min_latency wins; publish.mr written in the conf keeps
    // SRS's meaning (mr_latency when on, never when off); else the budget's wait.
    static utime_t wait_us(const PublishReadInputs& in);
};

}  // namespace srs
