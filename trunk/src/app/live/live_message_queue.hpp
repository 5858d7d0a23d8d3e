// The messages one player holds between catching up with its source's log
// and the pump taking them: usually a batch that fills and empties within
// one wake-up.
//
// A std::deque allocates a 512-byte node and its map when it is made and
// keeps them while empty; one per player was 576 bytes of the 12.3 KiB a
// waiting RTMP player costs. This queue is a vector read from a head index:
// its block is freed whenever it empties, so a waiting player holds none.
#pragma once

#include <cstddef>
#include <vector>

#include "app/live/live_message.hpp"

namespace srs {

class LiveMessageQueue {
  public:
    using const_iterator = std::vector<LiveMessagePtr>::const_iterator;

    size_t size() const { return items_.size() - head_; }
    bool empty() const { return head_ == items_.size(); }
    const_iterator begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
    const_iterator end() const { return items_.end(); }
    LiveMessagePtr& front() { return items_[head_]; }

    void push_back(const LiveMessagePtr& msg) {
        if (items_.empty()) items_.reserve(kFirstCapacity);
        items_.push_back(msg);
    }
    // Frees the block when the last message leaves; a queue that is never
    // emptied drops what it read once that is half of it (amortized O(1)).
    void pop_front() {
        items_[head_++] = LiveMessagePtr();
        if (head_ == items_.size()) {
            clear();
        } else if (head_ >= kFirstCapacity && head_ * 2 >= items_.size()) {
            items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
            head_ = 0;
        }
    }
    void clear() {
        std::vector<LiveMessagePtr>().swap(items_);
        head_ = 0;
    }
    // Messages the block holds room for (0: no block).
    size_t capacity() const { return items_.capacity(); }

    // A merged-write batch (350 ms) is about 25 messages at 600 kbps.
    static constexpr size_t kFirstCapacity = 32;

  private:
    std::vector<LiveMessagePtr> items_;
    size_t head_ = 0;
};

}  // namespace srs
