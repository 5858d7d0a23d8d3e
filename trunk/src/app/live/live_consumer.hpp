// A player's view of a live source: a queue of shared messages that the
// source fills and the player's coroutine drains.
//
// Merged write: the player sleeps until the queue holds more than mw_msgs
// messages and reaches the next multiple of mw_latency in media time after
// its first one (so all players of a source wake on the same message), then
// sends them in one writev; with min_latency (realtime) it wakes for every
// message. A player that falls
// queue_length behind is shrunk to the sequence headers and resumes at the
// next keyframe, so the publisher never waits for a slow player.
#pragma once

#include <cstdint>
#include <vector>

#include "app/live/live_message.hpp"
#include "app/live/live_message_queue.hpp"
#include "core/clock.hpp"
#include "io/coroutine.hpp"

namespace srs {

class LiveSource;

// Merged write: the media timestamp (ms) at which a batch that starts with a
// media message at first_ms is due (live_consumer.cpp says why a grid).
int64_t merged_write_due_ms(int64_t first_ms, int64_t mw_ms);

struct ConsumerOptions {
    utime_t queue_length_us = 30 * kUsPerSecond;
    utime_t mw_latency_us = 350 * kUsPerMs;
    int mw_msgs = 8;
    bool realtime = false;  // min_latency on: wake per message
};

class LiveConsumer {
  public:
    LiveConsumer(LiveSource* source, const ConsumerOptions& options);
    ~LiveConsumer();  // detaches from the source
    LiveConsumer(const LiveConsumer&) = delete;
    LiveConsumer& operator=(const LiveConsumer&) = delete;

    // Source side.
    // Queues msg for this player alone (what a joining player is primed
    // with; every message, for a consumer without a source).
    void enqueue(const LiveMessagePtr& msg);
    // Reads the source's message log from seq on (see live_message_log.hpp).
    void follow(uint64_t seq) { cursor_ = seq; }
    // Queues what the source logged since the cursor (and drops to the next
    // keyframe if the log no longer holds it all). The player does it when
    // it wakes; the source for a player the log moved past.
    void catch_up();
    uint64_t cursor() const { return cursor_; }
    // The source woke this waiting player (its grid point came) and took it
    // off its waiters.
    void on_due() {
        waiter_index_ = kNotWaiting;
        cond_.signal();
    }
    // Where this player sits in the source's waiters (kNotWaiting: not).
    size_t waiter_index() const { return waiter_index_; }
    void set_waiter_index(size_t index) { waiter_index_ = index; }
    static constexpr size_t kNotWaiting = static_cast<size_t>(-1);
    void on_publish();
    void on_unpublish();
    void detach() { source_ = nullptr; }
    // Wakes the player now (kick, source gone).
    void wakeup();
    // Drop video until a keyframe (a player that joins without a GOP).
    void start_at_keyframe() { wait_keyframe_ = true; has_video_ = true; }
    // What a joining player was primed with (headers, GOP cache) leaves at
    // its first wait, not after mw_latency: time to first frame.
    void deliver_primed_now() { primed_ = !queue_.empty(); }

    // Player side. Waits until the merged-write condition holds or timeout.
    void wait(utime_t timeout_us);
    // Moves up to max messages into out (appends). Returns how many.
    size_t dump(std::vector<LiveMessagePtr>* out, size_t max);
    size_t size() const { return queue_.size(); }
    utime_t duration_us() const;
    // Events for the player to announce, in order of occurrence.
    bool take_unpublished() { bool v = unpublished_; unpublished_ = false; return v; }
    bool take_republished() { bool v = republished_; republished_ = false; return v; }
    void set_paused(bool paused) { paused_ = paused; }
    bool paused() const { return paused_; }
    uint64_t dropped() const { return dropped_; }
    const ConsumerOptions& options() const { return options_; }

    // Whether wait() would return at once: messages queued and, for merged
    // write, the grid point reached (or primed, or realtime).
    bool ready() const;

  private:
    // Drops the queue (and `missed` messages the log no longer holds).
    void shrink(uint64_t missed);
    void find_first_media();
    // The media timestamp at which the source should wake this player.
    int64_t due_ms() const;

    LiveSource* source_;
    ConsumerOptions options_;
    LiveMessageQueue queue_;
    // Timestamps of the first lag-measuring message queued (-1: none) and of
    // the last message queued: duration_us() without touching the messages.
    int64_t first_media_ts_ = -1;
    uint32_t last_ts_ = 0;
    // The last sequence headers seen, replayed after a shrink.
    LiveMessagePtr video_sh_;
    LiveMessagePtr audio_sh_;
    bool has_video_ = false;
    bool wait_keyframe_ = false;
    bool waiting_ = false;
    bool primed_ = false;  // deliver_primed_now() until the first dump
    bool paused_ = false;
    bool unpublished_ = false;
    bool republished_ = false;
    uint64_t dropped_ = 0;
    uint64_t cursor_ = 0;  // the next message of the source's log to queue
    size_t waiter_index_ = kNotWaiting;
    CoCond cond_;
};

}  // namespace srs
