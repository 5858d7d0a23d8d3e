#include "app/live/live_consumer.hpp"

#include "app/live/live_source.hpp"
#include "core/log.hpp"

namespace srs {

LiveConsumer::LiveConsumer(LiveSource* source, const ConsumerOptions& options)
    : source_(source), options_(options) {}

LiveConsumer::~LiveConsumer() {
    if (source_) source_->remove_consumer(this);
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

bool LiveConsumer::ready() const {
    if (queue_.empty()) return false;
    if (options_.realtime || primed_) return true;
    return static_cast<int>(queue_.size()) > options_.mw_msgs && duration_us() >= options_.mw_latency_us;
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
    if (duration_us() > options_.queue_length_us) shrink();
    if (waiting_ && ready()) cond_.signal();
}

void LiveConsumer::shrink() {
    size_t n = queue_.size();
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

void LiveConsumer::wait(utime_t timeout_us) {
    if (ready() || unpublished_ || republished_) return;
    waiting_ = true;
    cond_.wait(timeout_us);
    waiting_ = false;
}

size_t LiveConsumer::dump(std::vector<LiveMessagePtr>* out, size_t max) {
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
