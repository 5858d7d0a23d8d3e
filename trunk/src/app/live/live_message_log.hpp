// The messages a live source handed to its players, in order, numbered.
//
// Players read it by index instead of the source pushing every message into
// every player's queue: with 1,000 players, pushing touched 1,000 consumers
// (and their queues' tails) per message, 40,000 cold touches a second at
// 600 kbps, the largest piece of our code in the play profile. Now the
// source appends once and each player copies what it has not seen when it
// wakes, in one warm loop. The log keeps what the slowest player still
// needs, up to a time bound (checked each time the log doubles); a player
// that falls behind that bound loses its messages and drops to the next
// keyframe, as its own queue would have.
#pragma once

#include <cstdint>
#include <deque>

#include "app/live/live_message.hpp"

namespace srs {

class LiveMessageLog {
  public:
    // Sequence numbers: [base(), end()) are held.
    uint64_t base() const { return base_; }
    uint64_t end() const { return base_ + messages_.size(); }
    size_t size() const { return messages_.size(); }
    bool empty() const { return messages_.empty(); }
    const LiveMessagePtr& at(uint64_t seq) const { return messages_[seq - base_]; }

    void append(const LiveMessagePtr& msg) { messages_.push_back(msg); }
    // Drops messages before seq (no player needs them).
    void trim_to(uint64_t seq);
    // Drops messages older than span_ms before the newest one's timestamp:
    // the longest a player's queue may grow (queue_length).
    void trim_older_than(int64_t span_ms);
    void clear() { trim_to(end()); }

    // When the owner should look for the slowest reader again: the log has
    // doubled since the last trim (at least kMinTrimSize), so each message
    // costs O(players / that size) of walking.
    bool trim_due() const { return messages_.size() >= next_trim_size_; }
    void trimmed() { next_trim_size_ = messages_.size() * 2 > kMinTrimSize ? messages_.size() * 2 : kMinTrimSize; }

    static constexpr size_t kMinTrimSize = 64;

  private:
    std::deque<LiveMessagePtr> messages_;
    uint64_t base_ = 0;
    size_t next_trim_size_ = kMinTrimSize;
};

}  // namespace srs
