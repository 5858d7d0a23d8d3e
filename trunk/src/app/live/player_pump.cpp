#include "app/live/player_pump.hpp"

#include <algorithm>

#include "app/live/consumer_options.hpp"
#include "core/log.hpp"

namespace srs {

PlayerPump::PlayerPump(LiveConsumer* consumer, PlayerWriter* writer)
    : consumer_(consumer),
      writer_(writer),
      wait_us_(player_wait_us(consumer->options())),
      start_us_(monotonic_us()),
      last_print_us_(start_us_) {}

void PlayerPump::set_pithy_print(std::string tag, std::string url, utime_t every_us) {
    pithy_tag_ = std::move(tag);
    pithy_url_ = std::move(url);
    pithy_us_ = every_us;
    last_bytes_ = writer_->bytes_sent();
}

Error PlayerPump::run() {
    while (true) {
        bool done = false;
        if (Error err = step(&done); !err.ok()) return err;
        if (done) return Error();
    }
}

Error PlayerPump::step(bool* done) {
    *done = false;
    if (Error err = writer_->pull(); !err.ok()) return err;
    if (Error err = writer_->poll_control(consumer_, done); !err.ok() || *done) return err;
    if (consumer_->take_unpublished()) {
        if (Error err = writer_->on_unpublish(done); !err.ok() || *done) return err;
    }
    if (consumer_->take_republished()) {
        if (Error err = writer_->on_republish(); !err.ok()) return err;
    }

    consumer_->wait(wait_us_);
    if (consumer_->paused()) return Error();
    batch_.clear();
    batch_.reserve(std::min(consumer_->size(), kPlayerMaxMessagesPerSend));
    consumer_->dump(&batch_, kPlayerMaxMessagesPerSend);
    if (filter_.any()) {
        batch_.erase(std::remove_if(batch_.begin(), batch_.end(),
                                    [this](const LiveMessagePtr& m) { return filter_.drops(*m); }),
                     batch_.end());
    }
    if (!batch_.empty()) {
        if (Error err = writer_->write(batch_); !err.ok()) return err;
        messages_ += batch_.size();
        batches_++;
        if (!joined_) {
            joined_ = true;
            writer_->on_joined();
        }
    }
    // The messages' references go now, not at the next round; the array too.
    std::vector<LiveMessagePtr>().swap(batch_);
    pithy_print();
    return Error();
}

void PlayerPump::pithy_print() {
    if (pithy_us_ <= 0) return;
    utime_t now = monotonic_us();
    if (now - last_print_us_ < pithy_us_) return;
    uint64_t bytes = writer_->bytes_sent();
    int okbps = (int)((bytes - last_bytes_) * 8 * 1000 / (uint64_t)(now - last_print_us_));
    const ConsumerOptions& options = consumer_->options();
    srs_trace("-> %s time=%d ms, msgs=%llu, okbps=%d, ikbps=0, queue=%zu, dropped=%llu, mw=%d/%d, stream=%s",
              pithy_tag_.c_str(), (int)((now - start_us_) / kUsPerMs), (unsigned long long)messages_, okbps,
              consumer_->size(), (unsigned long long)consumer_->dropped(), (int)(options.mw_latency_us / kUsPerMs),
              options.mw_msgs, pithy_url_.c_str());
    last_print_us_ = now;
    last_bytes_ = bytes;
}

}  // namespace srs
