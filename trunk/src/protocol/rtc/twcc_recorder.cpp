#include "protocol/rtc/twcc_recorder.hpp"

#include <algorithm>
#include <vector>

#include "kernel/rtp/rtcp.hpp"
#include "kernel/rtp/rtp.hpp"

namespace srs {

namespace {

constexpr int64_t kUsPerTick = 250;  // receive delta unit
constexpr int64_t kMaxDeltaTicks = 32767;
constexpr int64_t kMinDeltaTicks = -32768;

}  // namespace

TwccRecorder::TwccRecorder(TwccOptions o) : opt_(o) {
    if (opt_.max_pending < 1) opt_.max_pending = 1;
    if (opt_.max_span < 1) opt_.max_span = 1;
    if (opt_.max_span > 0xffff) opt_.max_span = 0xffff;
}

void TwccRecorder::on_packet(uint16_t transport_seq, utime_t arrival) {
    if (arrival < 0) arrival = 0;  // the monotonic clock never is; the builder refuses it
    int64_t ext = transport_seq;
    if (started_) {
        ext = highest_ + seq_distance(static_cast<uint16_t>(highest_), transport_seq);
    }
    if (!started_ || ext > highest_) highest_ = ext;
    started_ = true;

    if (highest_ - ext > kTwccRestartBehind) {
        // The sender restarted its numbering: what waits cannot share a
        // feedback with the new numbers.
        stats_.overflow += pending_.size();
        pending_.clear();
        reported_ = false;
        has_anchor_ = false;
        highest_ = ext;
        ++stats_.restarts;
    }
    if (reported_ && ext < next_base_) {
        ++stats_.late;
        return;
    }
    bool first = pending_.empty();
    if (!pending_.emplace(ext, arrival).second) {
        ++stats_.duplicates;
        return;
    }
    if (first || arrival < oldest_arrival_) oldest_arrival_ = arrival;
    ++stats_.received;
    while (pending_.size() > opt_.max_pending) {
        next_base_ = pending_.begin()->first + 1;
        reported_ = true;
        has_anchor_ = false;  // the numbers up to next_base_ were not reported
        pending_.erase(pending_.begin());
        ++stats_.overflow;
    }
}

bool TwccRecorder::feedback_due(utime_t now) const {
    if (pending_.empty()) return false;
    return pending_.size() >= opt_.max_packets || now - oldest_arrival_ >= opt_.interval;
}

size_t TwccRecorder::pending() const { return pending_.size(); }

bool TwccRecorder::can_follow(const std::vector<Entry>& all, size_t first, size_t j) const {
    int64_t delta = all[j].arrival / kUsPerTick - all[j - 1].arrival / kUsPerTick;
    if (delta > kMaxDeltaTicks || delta < kMinDeltaTicks) return false;
    return static_cast<uint64_t>(all[j].seq - all[first].seq) + 1 <= opt_.max_span;
}

Error TwccRecorder::build(uint32_t sender_ssrc, uint32_t media_ssrc, std::string* out) {
    if (pending_.empty()) return Error();
    // all[0] is the anchor when there is one: reported already, it opens the
    // packet again so the numbers lost right after it are reported too.
    std::vector<Entry> all;
    all.reserve(pending_.size() + 1);
    bool anchored = has_anchor_;
    if (has_anchor_) all.push_back(anchor_);
    for (const auto& p : pending_) all.push_back(Entry{p.first, p.second});
    pending_.clear();
    anchor_ = all.back();
    has_anchor_ = true;
    next_base_ = anchor_.seq + 1;
    reported_ = true;

    std::vector<TwccArrival> part;
    std::string packet;
    size_t i = 0, n = all.size();
    while (anchored ? i + 1 < n : i < n) {
        if (anchored && !can_follow(all, i, i + 1)) {
            // Too far (in time or numbers) from the next: not reported again.
            ++i;
            anchored = false;
            continue;
        }
        // The longest run from i the format can carry, then as many of them
        // as fit max_size: try them all, shrink by the overshoot ratio.
        size_t j = i + 1;
        while (j < n && can_follow(all, i, j)) ++j;
        size_t min_k = anchored ? 2 : 1;
        size_t k = j - i;
        for (;;) {
            part.clear();
            for (size_t x = i; x < i + k; ++x) {
                TwccArrival a;
                a.seq = static_cast<uint16_t>(all[x].seq);
                a.arrival_us = all[x].arrival;
                part.push_back(a);
            }
            packet.clear();
            if (Error err = rtcp_build_twcc(sender_ssrc, media_ssrc, fb_count_, part, &packet); err.failed()) {
                return SRS_WRAP(err, "twcc feedback of %zu packets from %u", k, part[0].seq);
            }
            if (packet.size() <= opt_.max_size || k == min_k) break;
            size_t fit = k * opt_.max_size / packet.size();
            k = std::max(min_k, std::min(k - 1, fit));
        }
        out->append(packet);
        ++fb_count_;
        ++stats_.feedbacks;
        // The last one reported anchors the next packet.
        i += k - 1;
        anchored = true;
    }
    return Error();
}

}  // namespace srs
