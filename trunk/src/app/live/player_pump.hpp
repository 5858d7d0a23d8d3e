// The player loop every live protocol shares: wait for the consumer's
// merged-write condition, take a batch, filter it, hand it to the protocol to
// frame and write, announce unpublish/republish, check for a kick, and print
// the player's counters now and then.
//
// What differs between protocols is behind PlayerWriter: how a batch is
// framed and written (RTMP chunks, FLV tags, RTP packets) and what the
// player may send meanwhile (RTMP's pause and closeStream; an HTTP-FLV
// player sends nothing, so a read that returns means it left).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/live/live_consumer.hpp"
#include "app/live/live_message.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"

namespace srs {

class PlayerWriter {
  public:
    virtual ~PlayerWriter() = default;
    // Fails once the player must stop (kicked, server stopping). Called at
    // the start of every round.
    virtual Error pull() = 0;
    // Reads what the player sent since the last round, without blocking, and
    // acts on it (may pause the consumer). *done: the player ended the play.
    virtual Error poll_control(LiveConsumer* consumer, bool* done) = 0;
    // The stream was unpublished: tell the player. *done ends the play.
    virtual Error on_unpublish(bool* done) = 0;
    // A publisher is back on the stream.
    virtual Error on_republish() = 0;
    // Frames and writes one batch (never empty), in order.
    virtual Error write(const std::vector<LiveMessagePtr>& msgs) = 0;
    // The first batch left: the player joined (time-to-first-frame tricks end).
    virtual void on_joined() {}
    // Bytes written to the player so far, for the pithy print.
    virtual uint64_t bytes_sent() const = 0;
};

// Messages a player does not get (an HTTP-FLV header that left a track out).
struct MessageFilter {
    bool drop_audio = false;
    bool drop_video = false;
    bool drop_data = false;
    bool any() const { return drop_audio || drop_video || drop_data; }
    bool drops(const LiveMessage& m) const {
        return (drop_audio && m.is_audio()) || (drop_video && m.is_video()) || (drop_data && m.is_data());
    }
};

class PlayerPump {
  public:
    // Neither is owned; both outlive the pump.
    PlayerPump(LiveConsumer* consumer, PlayerWriter* writer);

    void set_filter(const MessageFilter& filter) { filter_ = filter; }
    // Logs "-> tag time=..., msgs=..., okbps=..., stream=url" every every_us
    // (0: never).
    void set_pithy_print(std::string tag, std::string url, utime_t every_us);

    // Rounds until the play ends: Error() when the player or the stream ended
    // it, else the error (kicked, socket closed, write failed).
    Error run();
    // One round: kick check, control, unpublish/republish, wait, dump,
    // filter, write, pithy print. *done: the play ended without an error.
    Error step(bool* done);

    uint64_t messages_sent() const { return messages_; }
    uint64_t batches_sent() const { return batches_; }
    // Room kept between batches (none: see kPlayerMaxMessagesPerSend).
    size_t batch_capacity() const { return batch_.capacity(); }

  private:
    void pithy_print();

    LiveConsumer* consumer_;
    PlayerWriter* writer_;
    MessageFilter filter_;
    utime_t wait_us_;
    bool joined_ = false;
    uint64_t messages_ = 0;
    uint64_t batches_ = 0;
    std::vector<LiveMessagePtr> batch_;  // the batch being written
    std::string pithy_tag_, pithy_url_;
    utime_t pithy_us_ = 0;
    utime_t start_us_;
    utime_t last_print_us_;
    uint64_t last_bytes_ = 0;
};

}  // namespace srs
