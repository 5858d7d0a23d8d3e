#include "protocol/rtc/nack_generator.hpp"

#include <algorithm>

#include "kernel/rtp/rtp.hpp"

namespace srs {

NackGenerator::NackGenerator(NackOptions o) : opt_(o) {
    if (opt_.max_retries < 1) opt_.max_retries = 1;
    if (opt_.max_missing < 1) opt_.max_missing = 1;
    if (opt_.max_per_collect < 1) opt_.max_per_collect = 1;
}

void NackGenerator::reset_to(int64_t ext) {
    stats_.given_up += missing_.size();
    missing_.clear();
    ++stats_.resets;
    keyframe_needed_ = true;
    highest_ = ext;
}

void NackGenerator::give_up_oldest_over_limit() {
    while (missing_.size() > opt_.max_missing) {
        missing_.erase(missing_.begin());
        ++stats_.given_up;
        keyframe_needed_ = true;
    }
}

bool NackGenerator::on_packet(uint16_t seq, utime_t now) {
    if (!started_) {
        started_ = true;
        highest_ = seq;
        return false;
    }
    // Placed as the number closest to the highest seen.
    int64_t ext = highest_ + seq_distance(static_cast<uint16_t>(highest_), seq);
    if (ext > highest_) {
        int64_t gap = ext - highest_ - 1;
        if (static_cast<uint64_t>(gap) > opt_.max_missing) {
            reset_to(ext);
            return false;
        }
        for (int64_t s = highest_ + 1; s < ext; ++s) missing_[s].since = now;
        highest_ = ext;
        give_up_oldest_over_limit();
        return false;
    }
    auto it = missing_.find(ext);
    if (it != missing_.end()) {
        missing_.erase(it);
        ++stats_.recovered;
        return true;
    }
    // A duplicate, a late packet given up on, or a restart far behind.
    if (static_cast<uint64_t>(highest_ - ext) > opt_.reset_behind) reset_to(ext);
    return false;
}

void NackGenerator::collect(utime_t now, std::vector<uint16_t>* out) {
    utime_t interval = std::max(rtt_, opt_.min_interval);
    size_t handed = 0;
    for (auto it = missing_.begin(); it != missing_.end();) {
        Missing& m = it->second;
        bool waited = m.retries == 0 || now - m.last_nack >= interval;
        bool too_old = now - m.since > opt_.max_age;
        bool exhausted = m.retries >= opt_.max_retries && waited;
        if (too_old || exhausted) {
            it = missing_.erase(it);
            ++stats_.given_up;
            keyframe_needed_ = true;
            continue;
        }
        if (waited && m.retries < opt_.max_retries && handed < opt_.max_per_collect) {
            out->push_back(static_cast<uint16_t>(it->first));
            m.last_nack = now;
            ++m.retries;
            ++stats_.nacked;
            ++handed;
        }
        ++it;
    }
}

void NackGenerator::set_rtt(utime_t rtt) { rtt_ = rtt > 0 ? rtt : 0; }

bool NackGenerator::take_keyframe_needed() {
    bool v = keyframe_needed_;
    keyframe_needed_ = false;
    return v;
}

size_t NackGenerator::missing() const { return missing_.size(); }

const NackGenerator::Stats& NackGenerator::stats() const { return stats_; }

}  // namespace srs
