// How players of a vhost consume a live source: the one place the play
// options are read from the config, and the one wait formula every player
// loop uses.
#pragma once

#include <string>

#include "app/live/live_consumer.hpp"
#include "core/clock.hpp"

namespace srs {

class Config;

// The longest a player waits for media before it looks at its connection
// again (pause, closeStream, a peer that left, a kick).
constexpr utime_t kPlayerIdleWaitUs = 500 * kUsPerMs;
// How many messages one send takes from a player's queue at most.
constexpr size_t kPlayerMaxMessagesPerSend = 512;
// A player's batch arrays (messages, iovecs, scratch framing) live only while
// the batch is written: one allocation each per batch of ~25 messages, and
// no player holds them between batches (1.6 KiB a player at 600 kbps, a
// GOP's worth, ~8 KiB, had the first batch stayed).

// play.queue_length, play.mw_latency, play.mw_msgs and min_latency of vhost.
// As SRS: with min_latency on, mw_msgs is 0 unless play.mw_msgs is set.
ConsumerOptions consumer_options(const Config& config, const std::string& vhost);

// How long one wait of the player loop lasts: realtime players wake per
// message anyway, so they wait the idle bound; merged-write players wait
// 1.5 x mw_latency (the source wakes them on its mw_latency grid), at most
// twice the idle bound.
utime_t player_wait_us(const ConsumerOptions& options);

}  // namespace srs
