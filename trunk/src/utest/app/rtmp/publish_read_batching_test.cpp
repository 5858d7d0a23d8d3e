// The publisher read-wait policy: no wait alone or with min_latency, SRS's
// mr_latency when mr is on, a wait bounded by 10 ms that grows with the load.
#include <gtest/gtest.h>

#include "app/rtmp/publish_read_batching.hpp"

using namespace srs;

namespace {

PublishReadInputs load(size_t streams) {
    PublishReadInputs in;
    in.active_streams = streams;
    return in;
}

}  // namespace

TEST(PublishReadBatching, LonePublisherReadsAtOnce) {
    EXPECT_EQ(0, PublishReadBatching::wait_us(load(0)));
    EXPECT_EQ(0, PublishReadBatching::wait_us(load(1)));
    EXPECT_EQ(0, PublishReadBatching::wait_us(load(PublishReadBatching::kBatchFromStreams - 1)));
}

TEST(PublishReadBatching, WaitGrowsWithLoadAndIsBounded) {
    EXPECT_EQ(2 * kUsPerMs, PublishReadBatching::wait_us(load(100)));
    EXPECT_EQ(4 * kUsPerMs, PublishReadBatching::wait_us(load(200)));
    EXPECT_EQ(10 * kUsPerMs, PublishReadBatching::wait_us(load(500)));
    EXPECT_EQ(10 * kUsPerMs, PublishReadBatching::wait_us(load(1000)));
    EXPECT_EQ(PublishReadBatching::kMaxAdaptiveWaitUs, PublishReadBatching::wait_us(load(100000)));
    EXPECT_LE(PublishReadBatching::kMaxAdaptiveWaitUs, 10 * kUsPerMs);
}

TEST(PublishReadBatching, MinLatencyTurnsEveryWaitOff) {
    PublishReadInputs in = load(5000);
    in.min_latency = true;
    EXPECT_EQ(0, PublishReadBatching::wait_us(in));
    in.mr = true;
    in.mr_latency_ms = 350;
    EXPECT_EQ(0, PublishReadBatching::wait_us(in));
}

TEST(PublishReadBatching, MergedReadKeepsSrsLatencyUnbounded) {
    PublishReadInputs in = load(1);
    in.mr = true;
    in.mr_latency_ms = 350;
    EXPECT_EQ(350 * kUsPerMs, PublishReadBatching::wait_us(in));
    in.active_streams = 5000;
    EXPECT_EQ(350 * kUsPerMs, PublishReadBatching::wait_us(in));
}

TEST(PublishReadBatching, MergedReadWithoutLatencyReadsAtOnce) {
    PublishReadInputs in = load(5000);
    in.mr = true;
    in.mr_latency_ms = 0;
    EXPECT_EQ(0, PublishReadBatching::wait_us(in));
    in.mr_latency_ms = -5;
    EXPECT_EQ(0, PublishReadBatching::wait_us(in));
}
