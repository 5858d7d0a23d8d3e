// The publisher read-wait policy: none alone, with min_latency or with `mr off`
// written; SRS's mr_latency with `mr on`; by default a wait from the server's
// read budget, taken only when it spans several of the publisher's messages.
#include <gtest/gtest.h>

#include "app/rtmp/publish_read_batching.hpp"

using namespace srs;

namespace {

constexpr utime_t kPaced = 15 * kUsPerMs;  // ~68 messages a second: 25 fps video and AAC

PublishReadInputs load(size_t streams, utime_t interval = kPaced) {
    PublishReadInputs in;
    in.active_streams = streams;
    in.message_interval_us = interval;
    return in;
}

}  // namespace

TEST(PublishReadBatching, LonePublisherReadsAtOnce) {
    EXPECT_EQ(0, PublishReadBatching::wait_us(load(1)));
    EXPECT_EQ(0, PublishReadBatching::wait_us(load(100)));
    // A few hundred paced streams: the budget's wait would not batch yet.
    EXPECT_EQ(0, PublishReadBatching::wait_us(load(449)));
}

TEST(PublishReadBatching, UnknownRateReadsAtOnce) {
    EXPECT_EQ(0, PublishReadBatching::wait_us(load(5000, 0)));
}

TEST(PublishReadBatching, BudgetWaitOnlyWhenItBatches) {
    // 10,000 reads a second for all: 1,000 streams read every 100 ms.
    EXPECT_EQ(45 * kUsPerMs, PublishReadBatching::wait_us(load(450)));
    EXPECT_EQ(100 * kUsPerMs, PublishReadBatching::wait_us(load(1000)));
    // A faster publisher batches sooner; a slow one (a message every 50 ms) only from 1,500.
    EXPECT_EQ(20 * kUsPerMs, PublishReadBatching::wait_us(load(200, 5 * kUsPerMs)));
    EXPECT_EQ(0, PublishReadBatching::wait_us(load(1000, 50 * kUsPerMs)));
    EXPECT_EQ(150 * kUsPerMs, PublishReadBatching::wait_us(load(1500, 50 * kUsPerMs)));
}

TEST(PublishReadBatching, BudgetWaitIsBounded) {
    EXPECT_EQ(PublishReadBatching::kMaxAdaptiveWaitUs, PublishReadBatching::wait_us(load(100000)));
    EXPECT_EQ(350 * kUsPerMs, PublishReadBatching::kMaxAdaptiveWaitUs);
}

TEST(PublishReadBatching, MinLatencyTurnsEveryWaitOff) {
    PublishReadInputs in = load(5000);
    in.min_latency = true;
    EXPECT_EQ(0, PublishReadBatching::wait_us(in));
    in.mr = in.mr_set = true;
    in.mr_latency_ms = 350;
    EXPECT_EQ(0, PublishReadBatching::wait_us(in));
}

TEST(PublishReadBatching, MergedReadWrittenKeepsSrsMeaning) {
    PublishReadInputs in = load(1, 0);
    in.mr = in.mr_set = true;
    in.mr_latency_ms = 350;
    EXPECT_EQ(350 * kUsPerMs, PublishReadBatching::wait_us(in));
    in.active_streams = 5000;
    EXPECT_EQ(350 * kUsPerMs, PublishReadBatching::wait_us(in));
    in.mr_latency_ms = 0;
    EXPECT_EQ(0, PublishReadBatching::wait_us(in));
    // `mr off` written: never a wait, whatever the load.
    in.mr = false;
    in.mr_latency_ms = 350;
    EXPECT_EQ(0, PublishReadBatching::wait_us(in));
}
