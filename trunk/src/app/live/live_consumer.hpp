// A player's view of a live source: a queue of shared messages that the
// source fills and the player's coroutine drains.
//
// Merged write: the player sleeps until the queue holds more than mw_msgs
// messages spanning at least mw_latency, then sends them in one writev; with
// min_latency (realtime) it wakes for every message. A player that falls
// queue_length behind is shrunk to the sequence headers and resumes at the
// next keyframe, so the publisher never waits for a slow player.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "app/live/live_message.hpp"
#include "core/clock.hpp"
#include "io/coroutine.hpp"

namespace srs {

class LiveSource;

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
    void enqueue(const LiveMessagePtr& msg);
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

  private:
    bool ready() const;
    void shrink();
    void find_first_media();

    LiveSource* source_;
    ConsumerOptions options_;
    std::deque<LiveMessagePtr> queue_;
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
    CoCond cond_;
};

}  // namespace srs
