#include "app/http/http_answer_cache.hpp"

#include <algorithm>

namespace srs {

SharedAnswerCache::Answer SharedAnswerCache::find(const Body& body, unsigned variant) const {
    if (!body) return nullptr;
    auto it = entries_.find({body.get(), variant});
    if (it == entries_.end()) return nullptr;
    // Same address, but a later blob: the old one was freed and its memory reused.
    if (it->second.body.lock() != body) return nullptr;
    return it->second.answer;
}

SharedAnswerCache::Answer SharedAnswerCache::put(const Body& body, unsigned variant, std::string bytes) {
    Answer answer = std::make_shared<const std::string>(std::move(bytes));
    if (!body) return answer;
    entries_[{body.get(), variant}] = Entry{body, answer};
    if (entries_.size() >= sweep_at_) {
        sweep();
        sweep_at_ = std::max<size_t>(16, 2 * entries_.size());
    }
    return answer;
}

void SharedAnswerCache::sweep() {
    for (auto it = entries_.begin(); it != entries_.end();) {
        if (it->second.body.expired()) {
            it = entries_.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace srs
