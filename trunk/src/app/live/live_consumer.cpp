#include "app/live/live_consumer.hpp"

#include "app/live/live_source.hpp"
#include "core/log.hpp"

namespace srs {

LiveConsumer::LiveConsumer(LiveSource* source, const ConsumerOptions& options)
    : source_(source), options_(options) {}

LiveConsumer::~LiveConsumer() {
    if (source_) {
        if (waiter_index_ != kNotWaiting) source_->remove_waiter(this);
        source_->remove_consumer(this);
    }
}

// Metadata and sequence headers lead a new player's queue with the stream's
// first timestamps; only media frames measure how far behind the player is.
static bool measures_lag(const LiveMessage& m) { return !m.is_data() && !m.is_sequence_header(); }

// Called for every message to every player: it reads two cached timestamps
// instead of touching the queued messages (3000 players spent 6% of the CPU
// here dereferencing them).
utime_t LiveConsumer::duration_us() const {
    if (queue_.size() < 2 || first_media_ts_ < 0) return 0;
    int64_t ms = static_cast<int64_t>(last_ts_) - first_media_ts_;
    return ms > 0 ? ms * kUsPerMs : 0;
}

void LiveConsumer::find_first_media() {
    first_media_ts_ = -1;
    for (const auto& m : queue_) {
        if (measures_lag(*m)) {
            first_media_ts_ = m->timestamp();
            return;
        }
    }
}

// The media time at which a merged-write batch whose first media message
// has timestamp first_ms is due: the next multiple of mw_latency after it.
// Every player of a source with the same mw_latency is due at the same
// message, so the fan-out wakes them together and their writes run back to
// back (as one writer walking all players would), instead of each on its
// own phase; a batch still spans one mw_latency in the steady state and no
// message waits longer than that.
int64_t merged_write_due_ms(int64_t first_ms, int64_t mw_ms) {
    if (mw_ms <= 0) return first_ms;
    return (first_ms / mw_ms + 1) * mw_ms;
}

bool LiveConsumer::ready() const {
    if (queue_.empty()) return false;
    if (options_.realtime || primed_) return true;
    if (static_cast<int>(queue_.size()) <= options_.mw_msgs || first_media_ts_ < 0) return false;
    return static_cast<int64_t>(last_ts_) >= merged_write_due_ms(first_media_ts_, options_.mw_latency_us / kUsPerMs);
}

void LiveConsumer::enqueue(const LiveMessagePtr& msg) {
    if (msg->is_video()) {
        has_video_ = true;
        if (msg->is_sequence_header()) video_sh_ = msg;
    } else if (msg->is_audio() && msg->is_sequence_header()) {
        audio_sh_ = msg;
    }
    if (wait_keyframe_) {
        // After a shrink, resume at a keyframe so the decoder gets a clean start.
        bool resume = !has_video_ || (msg->is_video() && (msg->is_keyframe() || msg->is_sequence_header()));
        if (!resume && !msg->is_sequence_header()) {
            dropped_++;
            return;
        }
        if (msg->is_video() && msg->is_keyframe() && !msg->is_sequence_header()) wait_keyframe_ = false;
    }
    queue_.push_back(msg);
    last_ts_ = msg->timestamp();
    if (first_media_ts_ < 0 && measures_lag(*msg)) first_media_ts_ = msg->timestamp();
    if (duration_us() > options_.queue_length_us) shrink(0);
    if (waiting_ && ready()) cond_.signal();
}

void LiveConsumer::shrink(uint64_t missed) {
    size_t n = queue_.size() + missed;
    queue_.clear();
    if (video_sh_) queue_.push_back(video_sh_);
    if (audio_sh_) queue_.push_back(audio_sh_);
    first_media_ts_ = -1;
    wait_keyframe_ = true;
    dropped_ += n;
    srs_warn("player queue over %d ms: dropped %zu messages, resume at the next keyframe",
             (int)(options_.queue_length_us / kUsPerMs), n);
}

void LiveConsumer::on_publish() {
    republished_ = true;
    wakeup();
}

void LiveConsumer::on_unpublish() {
    unpublished_ = true;
    wakeup();
}

void LiveConsumer::wakeup() {
    if (waiting_) cond_.signal();
}

void LiveConsumer::catch_up() {
    if (!source_) return;
    const LiveMessageLog& log = source_->message_log();
    if (cursor_ < log.base()) {
        // The log let go of messages this player never took: it is more
        // than a queue_length behind, so it starts over at a keyframe.
        uint64_t missed = log.base() - cursor_;
        cursor_ = log.base();
        shrink(missed);
    }
    for (; cursor_ < log.end(); cursor_++) enqueue(log.at(cursor_));
}

int64_t LiveConsumer::due_ms() const {
    int64_t mw_ms = options_.mw_latency_us / kUsPerMs;
    if (options_.realtime || mw_ms <= 0) return -1;  // every message
    if (first_media_ts_ >= 0) {
        int64_t due = merged_write_due_ms(first_media_ts_, mw_ms);
        if (static_cast<int64_t>(last_ts_) < due) return due;
    }
    // No media queued yet, or due but short of mw_msgs: the next grid point.
    return merged_write_due_ms(last_ts_, mw_ms);
}

void LiveConsumer::wait(utime_t timeout_us) {
    catch_up();
    if (ready() || unpublished_ || republished_) return;
    if (source_) source_->add_waiter(this, due_ms());
    waiting_ = true;
    cond_.wait(timeout_us);
    waiting_ = false;
    // Woken by the timeout or wakeup(), not by the source.
    if (source_ && waiter_index_ != kNotWaiting) source_->remove_waiter(this);
    catch_up();  // size() counts what the next dump takes
}

size_t LiveConsumer::dump(std::vector<LiveMessagePtr>* out, size_t max) {
    catch_up();
    size_t n = 0;
    uint64_t bytes = 0;
    while (n < max && !queue_.empty()) {
        bytes += queue_.front()->size();
        out->push_back(std::move(queue_.front()));
        queue_.pop_front();
        n++;
    }
    if (n > 0) find_first_media();  // the queue is mostly empty by now
    if (source_) source_->add_send_bytes(bytes);
    if (n > 0) primed_ = false;
    return n;
}

}  // namespace srs
