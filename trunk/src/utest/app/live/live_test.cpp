// The live fan-out: GOP cache, timestamp jitter, consumer queues (merged
// write, shrink) and the shared RTMP framing, without sockets.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "app/live/gop_cache.hpp"
#include "app/live/live_consumer.hpp"
#include "app/live/live_source.hpp"
#include "app/live/source_manager.hpp"
#include "io/runtime.hpp"

using namespace srs;

namespace {

// FLV video tag bodies: AVC keyframe/inter frame/sequence header.
SharedBytes video(bool key, bool sh = false) {
    const uint8_t body[] = {static_cast<uint8_t>(key || sh ? 0x17 : 0x27), static_cast<uint8_t>(sh ? 0 : 1), 0, 0, 0,
                            0, 0, 0, 1, 0x65};
    return SharedBytes::copy_of(body, sizeof(body));
}
SharedBytes audio() {
    const uint8_t body[] = {0xaf, 0x01, 0x21, 0x00};
    return SharedBytes::copy_of(body, sizeof(body));
}
const LiveMessageKind kAudio = LiveMessageKind::kAudio;
const LiveMessageKind kVideo = LiveMessageKind::kVideo;
LiveMessagePtr make(LiveMessageKind kind, uint32_t ts, bool key = false, bool sh = false) {
    LiveMessagePtr m(LiveMessage::create(kind, ts, kind == kVideo ? video(key, sh) : audio()));
    m->set_keyframe(key);
    m->set_sequence_header(sh);
    return m;
}

class AppLiveTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

}  // namespace

TEST(AppGopCache, KeepsMessagesFromTheLastKeyframe) {
    GopCache gop;
    gop.append(make(kAudio, 0));  // audio before any keyframe (video not seen yet: kept)
    gop.append(make(kVideo, 10, true));
    gop.append(make(kVideo, 50));
    gop.append(make(kAudio, 60));
    ASSERT_EQ(gop.messages().size(), 3u);  // the keyframe cleared the earlier audio
    EXPECT_TRUE(gop.messages()[0]->is_keyframe());
    gop.append(make(kVideo, 2010, true));
    ASSERT_EQ(gop.messages().size(), 1u);
    EXPECT_EQ(gop.messages()[0]->timestamp(), 2010u);
}

TEST(AppGopCache, DropsAGopLongerThanTheLimitAndCanBeOff) {
    GopCache gop;
    gop.set_max_frames(3);
    gop.append(make(kVideo, 0, true));
    gop.append(make(kVideo, 40));
    gop.append(make(kVideo, 80));
    EXPECT_EQ(gop.messages().size(), 3u);
    gop.append(make(kVideo, 120));  // 4th frame: over the limit
    EXPECT_TRUE(gop.empty());
    gop.append(make(kVideo, 160));  // not a keyframe: waits for one
    EXPECT_TRUE(gop.empty());
    gop.set_enabled(false);
    gop.append(make(kVideo, 200, true));
    EXPECT_TRUE(gop.empty());
}

TEST(AppJitter, FullStartsAtZeroAndSmoothsJumps) {
    TimestampJitter j;
    EXPECT_EQ(j.correct(5000, TimeJitter::kFull), 0u);
    EXPECT_EQ(j.correct(5040, TimeJitter::kFull), 40u);
    EXPECT_EQ(j.correct(5030, TimeJitter::kFull), 40u);   // a track never goes back
    EXPECT_EQ(j.correct(90000, TimeJitter::kFull), 40u);  // a jump becomes one nominal frame (10 ms after 30)
    EXPECT_EQ(j.correct(90040, TimeJitter::kFull), 80u);
    // A republish starting again at 0 continues from where players are.
    EXPECT_EQ(j.correct(0, TimeJitter::kFull), 90u);
}

TEST(AppJitter, FullKeepsEachTrackMonotonic) {
    TimestampJitter j;
    EXPECT_EQ(j.correct(0, TimeJitter::kFull, true), 0u);
    EXPECT_EQ(j.correct(100, TimeJitter::kFull, false), 100u);
    EXPECT_EQ(j.correct(40, TimeJitter::kFull, true), 40u);  // video behind audio: allowed
    EXPECT_EQ(j.correct(80, TimeJitter::kFull, true), 80u);
    // The shared clock steps back 80 ms: each track holds its last value
    // until the clock passes it again.
    EXPECT_EQ(j.correct(0, TimeJitter::kFull, true), 80u);
    EXPECT_EQ(j.correct(0, TimeJitter::kFull, false), 100u);
    EXPECT_EQ(j.correct(120, TimeJitter::kFull, false), 120u);
    EXPECT_EQ(j.correct(125, TimeJitter::kFull, true), 125u);
}

TEST(AppJitter, ZeroRebasesAndOffPassesThrough) {
    TimestampJitter j;
    EXPECT_EQ(j.correct(7000, TimeJitter::kZero), 0u);
    EXPECT_EQ(j.correct(7040, TimeJitter::kZero), 40u);
    j.reset_base();
    EXPECT_EQ(j.correct(100, TimeJitter::kZero), 0u);
    TimestampJitter off;
    EXPECT_EQ(off.correct(123456, TimeJitter::kOff), 123456u);
}

TEST_F(AppLiveTest, MergedWriteWaitsForEnoughMessagesAndTime) {
    ConsumerOptions opts;
    opts.mw_latency_us = 350 * kUsPerMs;
    opts.mw_msgs = 8;
    LiveConsumer c(nullptr, opts);
    for (int i = 0; i < 5; i++) c.enqueue(make(kAudio, i * 23));
    utime_t t0 = monotonic_us();
    c.wait(30 * kUsPerMs);  // not ready: times out
    EXPECT_GE(monotonic_us() - t0, 25 * kUsPerMs);
    for (int i = 5; i < 20; i++) c.enqueue(make(kAudio, i * 23));  // 19 * 23 = 437 ms, 20 msgs
    t0 = monotonic_us();
    c.wait(kUsPerSecond);  // ready: returns at once
    EXPECT_LT(monotonic_us() - t0, 10 * kUsPerMs);
    std::vector<LiveMessagePtr> out;
    EXPECT_EQ(c.dump(&out, 100), 20u);
    EXPECT_EQ(c.size(), 0u);
}

TEST_F(AppLiveTest, RealtimeIsReadyWithOneMessage) {
    ConsumerOptions opts;
    opts.realtime = true;
    LiveConsumer c(nullptr, opts);
    c.enqueue(make(kAudio, 0));
    utime_t t0 = monotonic_us();
    c.wait(kUsPerSecond);
    EXPECT_LT(monotonic_us() - t0, 10 * kUsPerMs);
}

TEST_F(AppLiveTest, SlowConsumerShrinksToHeadersAndResumesAtKeyframe) {
    ConsumerOptions opts;
    opts.queue_length_us = 2 * kUsPerSecond;
    LiveConsumer c(nullptr, opts);
    c.enqueue(make(kVideo, 0, true, true));  // sequence header
    c.enqueue(make(kAudio, 0, false, true));
    c.enqueue(make(kVideo, 0, true));
    for (uint32_t ts = 40; ts <= 2040; ts += 40) c.enqueue(make(kVideo, ts));
    // Over 2 s: cut to the two sequence headers.
    EXPECT_EQ(c.size(), 2u);
    EXPECT_GT(c.dropped(), 0u);
    c.enqueue(make(kVideo, 2080));  // inter frame: dropped until a keyframe
    c.enqueue(make(kAudio, 2085));  // audio too
    EXPECT_EQ(c.size(), 2u);
    c.enqueue(make(kVideo, 2120, true));
    c.enqueue(make(kVideo, 2160));
    EXPECT_EQ(c.size(), 4u);
    std::vector<LiveMessagePtr> out;
    c.dump(&out, 10);
    EXPECT_TRUE(out[0]->is_sequence_header());
    EXPECT_TRUE(out[2]->is_keyframe());
}

TEST_F(AppLiveTest, SourceSharesOneMessageWithEveryConsumer) {
    LiveSource source("__defaultVhost__", "live", "s");
    SourceOptions so;
    ASSERT_TRUE(source.on_publish("pub", so).ok());
    ConsumerOptions opts;
    opts.realtime = true;
    std::unique_ptr<LiveConsumer> a(source.create_consumer(opts));
    std::unique_ptr<LiveConsumer> b(source.create_consumer(opts));
    ASSERT_TRUE(source.on_video(1000, video(true)).ok());
    std::vector<LiveMessagePtr> ma, mb;
    a->dump(&ma, 10);
    b->dump(&mb, 10);
    ASSERT_EQ(ma.size(), 1u);
    ASSERT_EQ(mb.size(), 1u);
    EXPECT_EQ(ma[0].get(), mb[0].get());  // the same message, not a copy
    EXPECT_EQ(ma[0]->timestamp(), 0u);    // jitter: starts at zero
    EXPECT_EQ(source.consumer_count(), 2u);
    a.reset();
    EXPECT_EQ(source.consumer_count(), 1u);
}

TEST_F(AppLiveTest, JoiningConsumerGetsHeadersAndGop) {
    LiveSource source("__defaultVhost__", "live", "s");
    ASSERT_TRUE(source.on_publish("pub", SourceOptions()).ok());
    ASSERT_TRUE(source.on_video(0, video(true, true)).ok());
    ASSERT_TRUE(source.on_video(0, video(true)).ok());
    ASSERT_TRUE(source.on_video(40, video(false)).ok());
    ASSERT_TRUE(source.on_video(80, video(false)).ok());
    ConsumerOptions opts;
    std::unique_ptr<LiveConsumer> c(source.create_consumer(opts));
    std::vector<LiveMessagePtr> out;
    c->dump(&out, 10);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_TRUE(out[0]->is_sequence_header());
    EXPECT_TRUE(out[1]->is_keyframe());
    // A second publisher is refused while the first publishes.
    EXPECT_EQ(source.on_publish("other", SourceOptions()).code(), kErrorStreamBusy);
    source.on_unpublish();
    EXPECT_TRUE(c->take_unpublished());
}

TEST_F(AppLiveTest, BadMediaIsAnError) {
    LiveSource source("__defaultVhost__", "live", "s");
    ASSERT_TRUE(source.on_publish("pub", SourceOptions()).ok());
    const uint8_t junk[] = {0x17};  // AVC keyframe with no packet type
    Error err = source.on_video(0, SharedBytes::copy_of(junk, 1));
    EXPECT_NE(err.code(), kSuccess);
}

TEST_F(AppLiveTest, JoiningConsumerGetsItsPrimedMessagesAtOnce) {
    LiveSource source("__defaultVhost__", "live", "s");
    ASSERT_TRUE(source.on_publish("pub", SourceOptions()).ok());
    ASSERT_TRUE(source.on_video(0, video(true, true)).ok());
    ASSERT_TRUE(source.on_video(0, video(true)).ok());  // a GOP that just began: 0 ms long
    ConsumerOptions opts;
    opts.mw_latency_us = 350 * kUsPerMs;
    opts.mw_msgs = 8;
    std::unique_ptr<LiveConsumer> c(source.create_consumer(opts));
    // Merged write would wait 350 ms; the primed header and keyframe go now.
    utime_t t0 = monotonic_us();
    c->wait(kUsPerSecond);
    EXPECT_LT(monotonic_us() - t0, 10 * kUsPerMs);
    std::vector<LiveMessagePtr> out;
    c->dump(&out, 10);
    EXPECT_EQ(out.size(), 2u);
    // After that, merged write as usual.
    ASSERT_TRUE(source.on_video(40, video(false)).ok());
    t0 = monotonic_us();
    c->wait(30 * kUsPerMs);  // not ready: times out
    EXPECT_GE(monotonic_us() - t0, 25 * kUsPerMs);
}

// The server-wide dropped-messages counter never goes down: players that
// leave and sources that are freed keep their part in it.
TEST_F(AppLiveTest, DroppedMessagesOutliveTheirPlayersAndSources) {
    SourceManager manager(0);  // no grace: an idle source is freed at once
    LiveSource* source = manager.fetch_or_create("__defaultVhost__", "live", "s");
    ASSERT_TRUE(source->on_publish("pub", SourceOptions()).ok());
    ConsumerOptions opts;
    opts.queue_length_us = 2 * kUsPerSecond;
    std::unique_ptr<LiveConsumer> a(source->create_consumer(opts));
    std::unique_ptr<LiveConsumer> b(source->create_consumer(opts));
    ASSERT_TRUE(source->on_video(0, video(true)).ok());
    for (uint32_t ts = 40; ts <= 2040; ts += 40) ASSERT_TRUE(source->on_video(ts, video(false)).ok());
    ASSERT_GT(a->dropped(), 0u);
    uint64_t total = a->dropped() + b->dropped();
    EXPECT_EQ(source->dropped_messages(), total);
    EXPECT_EQ(manager.dropped_messages_total(), total);

    a.reset();  // a player leaves
    EXPECT_EQ(source->dropped_messages(), total);
    b.reset();
    source->on_unpublish();
    manager.collect_idle();  // the source is freed
    EXPECT_EQ(manager.size(), 0u);
    EXPECT_EQ(manager.dropped_messages_total(), total);
}
