// The shared player loop with a fake protocol: messages in, batches out,
// unpublish/republish, filters, control, kick; and the play options.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/live/consumer_options.hpp"
#include "app/live/live_consumer.hpp"
#include "app/live/player_pump.hpp"
#include "io/runtime.hpp"

using namespace srs;

namespace {

LiveMessagePtr msg(LiveMessageKind kind, uint32_t ts, size_t size = 10) {
    std::string body(size, '\x01');
    return LiveMessagePtr(LiveMessage::create(kind, ts, SharedBytes::copy_of(body.data(), body.size())));
}

// Records what the pump asks of a protocol.
class FakeWriter : public PlayerWriter {
  public:
    std::vector<std::vector<LiveMessagePtr>> batches;
    int unpublished = 0, republished = 0, joined = 0, polls = 0;
    bool end_on_unpublish = false;
    bool player_stops = false;  // poll_control reports the player ended the play
    bool pause_on_poll = false;
    int pull_code = 0, write_code = 0;  // errors to fail with
    uint64_t bytes = 0;

    Error pull() override { return pull_code ? SRS_ERR(pull_code, "kicked") : Error(); }
    Error poll_control(LiveConsumer* consumer, bool* done) override {
        polls++;
        if (pause_on_poll) consumer->set_paused(true);
        *done = player_stops;
        return Error();
    }
    Error on_unpublish(bool* done) override {
        unpublished++;
        *done = end_on_unpublish;
        return Error();
    }
    Error on_republish() override {
        republished++;
        return Error();
    }
    Error write(const std::vector<LiveMessagePtr>& msgs) override {
        if (write_code) return SRS_ERR(write_code, "write");
        batches.push_back(msgs);
        for (const auto& m : msgs) bytes += m->size();
        return Error();
    }
    void on_joined() override { joined++; }
    uint64_t bytes_sent() const override { return bytes; }
};

class AppPlayerPumpTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(init_runtime().ok());
        options_.realtime = true;  // ready with one message: no test waits
        consumer_.reset(new LiveConsumer(nullptr, options_));
    }
    ConsumerOptions options_;
    std::unique_ptr<LiveConsumer> consumer_;
    FakeWriter writer_;
};

}  // namespace

TEST_F(AppPlayerPumpTest, MessagesInBatchesOutInOrder) {
    PlayerPump pump(consumer_.get(), &writer_);
    consumer_->enqueue(msg(LiveMessageKind::kData, 0));
    consumer_->enqueue(msg(LiveMessageKind::kVideo, 0));
    consumer_->enqueue(msg(LiveMessageKind::kAudio, 10));
    bool done = true;
    ASSERT_TRUE(pump.step(&done).ok());
    EXPECT_FALSE(done);
    ASSERT_EQ(writer_.batches.size(), 1u);
    ASSERT_EQ(writer_.batches[0].size(), 3u);
    EXPECT_TRUE(writer_.batches[0][0]->is_data());
    EXPECT_TRUE(writer_.batches[0][1]->is_video());
    EXPECT_TRUE(writer_.batches[0][2]->is_audio());
    EXPECT_EQ(writer_.joined, 1);
    EXPECT_EQ(consumer_->size(), 0u);

    consumer_->enqueue(msg(LiveMessageKind::kVideo, 40));
    ASSERT_TRUE(pump.step(&done).ok());
    ASSERT_EQ(writer_.batches.size(), 2u);
    EXPECT_EQ(writer_.batches[1].size(), 1u);
    EXPECT_EQ(writer_.joined, 1);  // joined once, with the first batch
    EXPECT_EQ(pump.messages_sent(), 4u);
    EXPECT_EQ(pump.batches_sent(), 2u);
    EXPECT_EQ(writer_.polls, 2);  // control is polled every round
}

TEST_F(AppPlayerPumpTest, ABatchIsAtMostTheSendLimit) {
    PlayerPump pump(consumer_.get(), &writer_);
    for (size_t i = 0; i < kPlayerMaxMessagesPerSend + 3; i++) consumer_->enqueue(msg(LiveMessageKind::kAudio, 0, 1));
    bool done = false;
    ASSERT_TRUE(pump.step(&done).ok());
    ASSERT_TRUE(pump.step(&done).ok());
    ASSERT_EQ(writer_.batches.size(), 2u);
    EXPECT_EQ(writer_.batches[0].size(), kPlayerMaxMessagesPerSend);
    EXPECT_EQ(writer_.batches[1].size(), 3u);
}

// The first batch of a joining player (the GOP cache) is big, and every
// waiting player would hold its array: none is kept between rounds.
TEST_F(AppPlayerPumpTest, BatchesLeaveNoArrayBehind) {
    PlayerPump pump(consumer_.get(), &writer_);
    for (size_t i = 0; i < 200; i++) consumer_->enqueue(msg(LiveMessageKind::kAudio, static_cast<uint32_t>(i), 1));
    bool done = false;
    ASSERT_TRUE(pump.step(&done).ok());
    ASSERT_EQ(writer_.batches.size(), 1u);
    EXPECT_EQ(writer_.batches[0].size(), 200u);
    EXPECT_EQ(pump.batch_capacity(), 0u);
    for (size_t i = 0; i < 10; i++) consumer_->enqueue(msg(LiveMessageKind::kAudio, 300, 1));
    ASSERT_TRUE(pump.step(&done).ok());
    EXPECT_EQ(writer_.batches[1].size(), 10u);
    EXPECT_EQ(pump.batch_capacity(), 0u);
}

TEST_F(AppPlayerPumpTest, UnpublishIsAnnouncedAndMayEndThePlay) {
    PlayerPump pump(consumer_.get(), &writer_);
    consumer_->on_unpublish();
    bool done = false;
    ASSERT_TRUE(pump.step(&done).ok());  // RTMP: notify and keep playing
    EXPECT_EQ(writer_.unpublished, 1);
    EXPECT_FALSE(done);
    consumer_->on_publish();
    consumer_->enqueue(msg(LiveMessageKind::kVideo, 0));
    ASSERT_TRUE(pump.step(&done).ok());
    EXPECT_EQ(writer_.republished, 1);
    EXPECT_EQ(writer_.batches.size(), 1u);

    // HTTP-FLV: the unpublish ends the response, without an error, before
    // anything else is written.
    writer_.end_on_unpublish = true;
    consumer_->enqueue(msg(LiveMessageKind::kVideo, 40));
    consumer_->on_unpublish();
    EXPECT_TRUE(pump.run().ok());
    EXPECT_EQ(writer_.unpublished, 2);
    EXPECT_EQ(writer_.batches.size(), 1u);
}

TEST_F(AppPlayerPumpTest, FilterDropsUnannouncedTracks) {
    PlayerPump pump(consumer_.get(), &writer_);
    MessageFilter filter;
    filter.drop_audio = true;
    pump.set_filter(filter);
    consumer_->enqueue(msg(LiveMessageKind::kData, 0));
    consumer_->enqueue(msg(LiveMessageKind::kAudio, 0));
    consumer_->enqueue(msg(LiveMessageKind::kVideo, 0));
    consumer_->enqueue(msg(LiveMessageKind::kAudio, 20));
    bool done = false;
    ASSERT_TRUE(pump.step(&done).ok());
    ASSERT_EQ(writer_.batches.size(), 1u);
    ASSERT_EQ(writer_.batches[0].size(), 2u);
    EXPECT_TRUE(writer_.batches[0][0]->is_data());
    EXPECT_TRUE(writer_.batches[0][1]->is_video());
    EXPECT_EQ(pump.messages_sent(), 2u);

    // A batch filtered to nothing writes nothing (and is not the join).
    consumer_->enqueue(msg(LiveMessageKind::kAudio, 40));
    ASSERT_TRUE(pump.step(&done).ok());
    EXPECT_EQ(writer_.batches.size(), 1u);
    EXPECT_EQ(consumer_->size(), 0u);
}

TEST(AppMessageFilter, DropsByKind) {
    MessageFilter f;
    EXPECT_FALSE(f.any());
    f.drop_video = true;
    f.drop_data = true;
    EXPECT_TRUE(f.any());
    EXPECT_TRUE(f.drops(*msg(LiveMessageKind::kVideo, 0)));
    EXPECT_TRUE(f.drops(*msg(LiveMessageKind::kData, 0)));
    EXPECT_FALSE(f.drops(*msg(LiveMessageKind::kAudio, 0)));
}

TEST_F(AppPlayerPumpTest, PlayerControlEndsOrPausesThePlay) {
    PlayerPump pump(consumer_.get(), &writer_);
    consumer_->enqueue(msg(LiveMessageKind::kVideo, 0));
    writer_.pause_on_poll = true;
    bool done = false;
    ASSERT_TRUE(pump.step(&done).ok());
    EXPECT_TRUE(writer_.batches.empty());  // paused: the queue stays
    EXPECT_EQ(consumer_->size(), 1u);
    writer_.player_stops = true;  // closeStream
    EXPECT_TRUE(pump.run().ok());
    EXPECT_TRUE(writer_.batches.empty());
}

TEST_F(AppPlayerPumpTest, KickAndWriteErrorsEndThePlayWithTheError) {
    PlayerPump pump(consumer_.get(), &writer_);
    consumer_->enqueue(msg(LiveMessageKind::kVideo, 0));
    writer_.write_code = kErrorSocketClosed;
    EXPECT_EQ(pump.run().code(), kErrorSocketClosed);
    writer_.write_code = 0;
    writer_.pull_code = kErrorThreadInterrupted;
    EXPECT_EQ(pump.run().code(), kErrorThreadInterrupted);
    EXPECT_EQ(writer_.polls, 1);  // the kick is checked before anything else
}

TEST(AppConsumerOptions, ReadFromTheVhost) {
    std::shared_ptr<const Config> conf;
    ASSERT_TRUE(Config::load_text("listen 1935;\n"
                                  "vhost __defaultVhost__ { play { queue_length 7; mw_latency 200; mw_msgs 3; } }\n",
                                  "t.conf", &conf)
                    .ok());
    ConsumerOptions o = consumer_options(*conf, "__defaultVhost__");
    EXPECT_EQ(o.queue_length_us, 7 * kUsPerSecond);
    EXPECT_EQ(o.mw_latency_us, 200 * kUsPerMs);
    EXPECT_EQ(o.mw_msgs, 3);
    EXPECT_FALSE(o.realtime);
}

TEST(AppConsumerOptions, MinLatencyZeroesMwMsgsUnlessSet) {
    std::shared_ptr<const Config> conf;
    ASSERT_TRUE(Config::load_text("listen 1935;\n"
                                  "vhost __defaultVhost__ { min_latency on; }\n"
                                  "vhost set { min_latency on; play { mw_msgs 5; } }\n"
                                  "vhost off { min_latency off; }\n",
                                  "t.conf", &conf)
                    .ok());
    ConsumerOptions rt = consumer_options(*conf, "__defaultVhost__");
    EXPECT_TRUE(rt.realtime);
    EXPECT_EQ(rt.mw_msgs, 0);
    ConsumerOptions set = consumer_options(*conf, "set");
    EXPECT_TRUE(set.realtime);
    EXPECT_EQ(set.mw_msgs, 5);
    ConsumerOptions off = consumer_options(*conf, "off");
    EXPECT_FALSE(off.realtime);
    EXPECT_EQ(off.mw_msgs, ConsumerOptions().mw_msgs);  // the default stands
}

TEST(AppConsumerOptions, WaitFormula) {
    ConsumerOptions o;
    o.realtime = true;
    EXPECT_EQ(player_wait_us(o), kPlayerIdleWaitUs);
    o.realtime = false;
    o.mw_latency_us = 350 * kUsPerMs;
    EXPECT_EQ(player_wait_us(o), 525 * kUsPerMs);  // past the grid point, which wakes it first
    o.mw_latency_us = 3 * kUsPerSecond;
    EXPECT_EQ(player_wait_us(o), 2 * kPlayerIdleWaitUs);
    o.mw_latency_us = 0;
    EXPECT_EQ(player_wait_us(o), kPlayerIdleWaitUs);
}
