#include "app/live/live_message_log.hpp"

namespace srs {

void LiveMessageLog::trim_to(uint64_t seq) {
    while (base_ < seq && !messages_.empty()) {
        messages_.pop_front();
        base_++;
    }
}

void LiveMessageLog::trim_older_than(int64_t span_ms) {
    if (messages_.empty()) return;
    int64_t newest = messages_.back()->timestamp();
    // Timestamps that went back (a republish with time_jitter off) only
    // make this keep more, never drop what is newer.
    while (messages_.size() > 1 && newest - static_cast<int64_t>(messages_.front()->timestamp()) > span_ms) {
        messages_.pop_front();
        base_++;
    }
}

}  // namespace srs
