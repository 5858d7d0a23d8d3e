// Whole HTTP answers (head and body in one buffer) built once per body and
// shared: a playlist version woken to a thousand parked LL-HLS players is
// formatted once and each of them gets one write of the same bytes, instead
// of a head built, allocated and written per answer.
//
// An answer is found by the body's identity (the store's blob, a pointer that
// stays unique while the blob lives) and a variant number that covers what
// else shapes the bytes (keep-alive, HTTP/1.0, HEAD, CORS; the caller makes
// it). An entry whose body the store dropped is dead: find() misses it, and
// put() sweeps dead entries whenever the table doubled since the last sweep,
// so the table stays about the size of the live bodies times their variants.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace srs {

class SharedAnswerCache {
  public:
    using Body = std::shared_ptr<const std::string>;
    using Answer = std::shared_ptr<const std::string>;

    // The answer stored for this body and variant; null when there is none
    // (or the one there was made for a dropped body at the same address).
    Answer find(const Body& body, unsigned variant) const;
    // Stores `bytes` as the answer for body and variant and returns it.
    Answer put(const Body& body, unsigned variant, std::string bytes);
    // Drops the entries whose body is gone.
    void sweep();
    size_t size() const { return entries_.size(); }

  private:
    struct Entry {
        std::weak_ptr<const std::string> body;
        Answer answer;
    };
    std::map<std::pair<const std::string*, unsigned>, Entry> entries_;
    size_t sweep_at_ = 16;
};

}  // namespace srs
