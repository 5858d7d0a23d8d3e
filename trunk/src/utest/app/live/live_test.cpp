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

TEST(AppMergedWrite, DueAtTheNextGridPoint) {
    EXPECT_EQ(merged_write_due_ms(0, 350), 350);
    EXPECT_EQ(merged_write_due_ms(349, 350), 350);
    EXPECT_EQ(merged_write_due_ms(350, 350), 700);
    EXPECT_EQ(merged_write_due_ms(1000, 350), 1050);
    EXPECT_EQ(merged_write_due_ms(77, 0), 77);  // no merged write: due at once
}

// Players that joined at different times become ready on the same message
// (the grid point), so the fan-out wakes them together; before it neither
// is, though the early one's queue spans almost mw_latency.
TEST_F(AppLiveTest, MergedWritePlayersAreDueTogether) {
    ConsumerOptions opts;
    opts.mw_latency_us = 350 * kUsPerMs;
    opts.mw_msgs = 2;
    LiveConsumer early(nullptr, opts), late(nullptr, opts);
    uint32_t ts = 40;  // early's first media at 40 ms, late's at 240 ms
    for (; ts < 240; ts += 20) early.enqueue(make(kAudio, ts));
    for (; ts < 350; ts += 20) {
        LiveMessagePtr m = make(kAudio, ts);
        early.enqueue(m);
        late.enqueue(m);
        EXPECT_FALSE(early.ready()) << ts;
        EXPECT_FALSE(late.ready()) << ts;
    }
    EXPECT_EQ(early.duration_us(), 300 * kUsPerMs);  // 40..340: not yet due
    LiveMessagePtr due = make(kAudio, 360);
    early.enqueue(due);
    late.enqueue(due);
    EXPECT_TRUE(early.ready());
    EXPECT_TRUE(late.ready());  // after 120 ms of its own
    std::vector<LiveMessagePtr> out;
    EXPECT_EQ(early.dump(&out, 100), 17u);  // 40..360
    EXPECT_EQ(late.dump(&out, 100), 7u);    // 240..360
    // Both start over on the same grid: due again at 700, not 380 + 350.
    for (ts = 380; ts < 700; ts += 20) {
        LiveMessagePtr m = make(kAudio, ts);
        early.enqueue(m);
        late.enqueue(m);
    }
    EXPECT_FALSE(early.ready());
    LiveMessagePtr next = make(kAudio, 700);
    early.enqueue(next);
    late.enqueue(next);
    EXPECT_TRUE(early.ready());
    EXPECT_TRUE(late.ready());
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

// The source logs each message once; players read the log at their own
// cursor, and the log keeps only what the slowest of them has not read.
TEST_F(AppLiveTest, PlayersReadOneLogThatIsTrimmedBehindTheSlowest) {
    LiveSource source("__defaultVhost__", "live", "s");
    ASSERT_TRUE(source.on_publish("pub", SourceOptions()).ok());
    ConsumerOptions opts;
    std::unique_ptr<LiveConsumer> a(source.create_consumer(opts));
    std::unique_ptr<LiveConsumer> b(source.create_consumer(opts));
    ASSERT_TRUE(source.on_video(0, video(true)).ok());
    std::vector<LiveMessagePtr> got_a, got_b;
    uint32_t ts = 40;
    for (int i = 0; i < 300; i++, ts += 20) {
        ASSERT_TRUE(source.on_audio(ts, audio()).ok());
        if (i % 10 == 0) a->dump(&got_a, 1000);  // a reads now and then, b not yet
    }
    a->dump(&got_a, 1000);
    EXPECT_EQ(got_a.size(), 301u);
    EXPECT_GE(source.message_log().size(), 301u);  // b has read nothing: all kept
    b->dump(&got_b, 1000);
    ASSERT_EQ(got_b.size(), 301u);
    for (size_t i = 0; i < got_a.size(); i++) EXPECT_EQ(got_a[i].get(), got_b[i].get()) << i;  // shared, in order
    EXPECT_EQ(a->size(), 0u);
    // Both caught up: the next trim drops everything read.
    for (int i = 0; i < 700; i++, ts += 20) {
        ASSERT_TRUE(source.on_audio(ts, audio()).ok());
        a->dump(&got_a, 1000);
        b->dump(&got_b, 1000);
    }
    EXPECT_LT(source.message_log().size(), 2 * LiveMessageLog::kMinTrimSize);
    EXPECT_EQ(got_a.size(), 1001u);
    EXPECT_EQ(got_b.size(), 1001u);
    EXPECT_EQ(a->dropped() + b->dropped(), 0u);
    // An unpublish empties the log; what a player had not read is still its.
    ASSERT_TRUE(source.on_audio(ts, audio()).ok());
    source.on_unpublish();
    EXPECT_TRUE(source.message_log().empty());
    EXPECT_EQ(a->dump(&got_a, 1000), 1u);
    EXPECT_TRUE(a->take_unpublished());
    // The last player leaves: nothing is kept.
    a.reset();
    b.reset();
    EXPECT_TRUE(source.message_log().empty());
}

// A player that stops reading holds the log back at most its queue_length
// (and a second): past that the log lets go, and the player resumes at the
// next keyframe with the sequence headers, its drop counted.
TEST_F(AppLiveTest, ALogThatMovedPastAPlayerDropsItToAKeyframe) {
    LiveSource source("__defaultVhost__", "live", "s");
    ASSERT_TRUE(source.on_publish("pub", SourceOptions()).ok());
    ASSERT_TRUE(source.on_video(0, video(true, true)).ok());
    ConsumerOptions opts;
    opts.queue_length_us = 2 * kUsPerSecond;
    std::unique_ptr<LiveConsumer> stuck(source.create_consumer(opts));
    std::vector<LiveMessagePtr> out;
    stuck->dump(&out, 100);  // the primed header
    out.clear();
    uint32_t ts = 40;
    for (; ts < 20000; ts += 40) ASSERT_TRUE(source.on_video(ts, video(ts % 2000 == 40)).ok());
    // 500 messages were sent; the log holds about 3 s of them (75), at most twice that.
    EXPECT_LE(source.message_log().size(), 2 * 76u);
    stuck->dump(&out, 1000);
    ASSERT_FALSE(out.empty());
    EXPECT_TRUE(out[0]->is_sequence_header());
    EXPECT_GT(stuck->dropped(), 400u);
    for (; ts < 21500; ts += 40) ASSERT_TRUE(source.on_video(ts, video(ts % 2000 == 40)).ok());
    stuck->dump(&out, 1000);
    // After the header, it resumes at a keyframe and then gets every message.
    ASSERT_GT(out.size(), 2u);
    EXPECT_TRUE(out[1]->is_keyframe());
    for (size_t i = 2; i < out.size(); i++) EXPECT_EQ(out[i]->timestamp(), out[i - 1]->timestamp() + 40) << i;
}

// Waiters are woken by the first message at or past their due timestamp,
// all of them on the same message; a timestamp that jumps back a second or
// more wakes all, a small step back (audio trailing video) none.
TEST_F(AppLiveTest, WaitersAreWokenAtTheirDueTimestamp) {
    LiveSource source("__defaultVhost__", "live", "s");
    SourceOptions so;
    so.jitter = TimeJitter::kOff;
    ASSERT_TRUE(source.on_publish("pub", so).ok());
    ConsumerOptions opts;
    std::unique_ptr<LiveConsumer> a(source.create_consumer(opts));
    std::unique_ptr<LiveConsumer> b(source.create_consumer(opts));
    std::unique_ptr<LiveConsumer> c(source.create_consumer(opts));
    source.add_waiter(a.get(), 350);
    source.add_waiter(b.get(), 350);
    source.add_waiter(c.get(), 700);
    EXPECT_EQ(source.waiter_count(), 3u);
    ASSERT_TRUE(source.on_audio(340, audio()).ok());
    EXPECT_EQ(source.waiter_count(), 3u);
    ASSERT_TRUE(source.on_audio(360, audio()).ok());
    EXPECT_EQ(source.waiter_count(), 1u);
    EXPECT_EQ(a->waiter_index(), LiveConsumer::kNotWaiting);
    EXPECT_EQ(b->waiter_index(), LiveConsumer::kNotWaiting);
    EXPECT_EQ(c->waiter_index(), 0u);
    source.add_waiter(a.get(), -1);  // realtime: any message
    ASSERT_TRUE(source.on_audio(380, audio()).ok());
    EXPECT_EQ(a->waiter_index(), LiveConsumer::kNotWaiting);
    EXPECT_EQ(source.waiter_count(), 1u);
    ASSERT_TRUE(source.on_audio(370, audio()).ok());  // a small step back (one track behind): nobody
    EXPECT_EQ(source.waiter_count(), 1u);
    ASSERT_TRUE(source.on_audio(2000, audio()).ok());
    EXPECT_EQ(source.waiter_count(), 0u);
    source.add_waiter(a.get(), 2350);
    source.add_waiter(c.get(), 2350);
    ASSERT_TRUE(source.on_audio(100, audio()).ok());  // a jump back (a new clock): everyone
    EXPECT_EQ(source.waiter_count(), 0u);
    // A player that leaves while waiting takes itself off.
    source.add_waiter(b.get(), 5000);
    b.reset();
    EXPECT_EQ(source.waiter_count(), 0u);
    ASSERT_TRUE(source.on_audio(6000, audio()).ok());
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
    std::vector<LiveMessagePtr> got;  // they see the drop when they read on
    a->dump(&got, 1000);
    b->dump(&got, 1000);
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
