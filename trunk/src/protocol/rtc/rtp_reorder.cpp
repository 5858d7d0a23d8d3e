#include "protocol/rtc/rtp_reorder.hpp"

#include <cstring>

namespace srs {

namespace {

size_t round_capacity(size_t c) {
    size_t n = 2;
    while (n < c && n < 16384) n <<= 1;
    return n;
}

// RFC 1982 distance from `from` to `to`: negative when `to` is older.
int seq_distance(uint16_t from, uint16_t to) {
    return static_cast<int16_t>(static_cast<uint16_t>(to - from));
}

}  // namespace

// Capacity stops at 16384 so that a packet more than a window behind is told
// apart from one a window ahead (the sequence space is 65536).
RtpReorderBuffer::RtpReorderBuffer(size_t capacity, utime_t max_wait)
    : slots_(round_capacity(capacity)), mask_(static_cast<uint16_t>(slots_.size() - 1)), max_wait_(max_wait) {}

void RtpReorderBuffer::push(uint16_t seq, const uint8_t* data, size_t size, utime_t now) {
    if (size > kRtpReorderMaxPacket) {
        ++oversized_;
        return;
    }
    if (!started_) {
        started_ = true;
        next_ = seq;
    }
    if (has_beyond_) {
        // Pushed again before popping what the jump released: what is still
        // held before the jump is given up so the jumped-to packet can settle.
        if (seq == beyond_.seq) {
            ++duplicates_;
            return;
        }
        for (Slot& s : slots_) s.used = false;
        if (beyond_restart_) {  // a jump ahead counts them in its distance; a restart does not
            lost_ += count_;
            lost_pending_ += static_cast<int>(count_);
        }
        count_ = 0;
        settle_beyond();
    }

    int d = seq_distance(next_, seq);
    bool jump = false;
    if (d < 0) {
        if (released_ && seq == last_released_) {
            ++duplicates_;
            return;
        }
        // Far behind: a retransmission that late is implausible; twice in a row
        // with consecutive numbers is a sender that restarted its sequence.
        if (-d > static_cast<int>(slots_.size()) && restart_pending_ && seq == restart_next_) {
            restart_pending_ = false;
            jump = true;
        } else {
            if (-d > static_cast<int>(slots_.size())) {
                restart_pending_ = true;
                restart_next_ = static_cast<uint16_t>(seq + 1);
            }
            ++late_;
            return;
        }
    }
    restart_pending_ = false;
    if (!jump && d >= static_cast<int>(slots_.size())) jump = true;

    if (jump) {
        // Everything held is released at once (pop() skips every gap), then
        // this packet. A restart skips an unknown amount: report one.
        beyond_restart_ = d < 0;
        store(&beyond_, seq, data, size, now);
        has_beyond_ = true;
        deadline_ = -1;
        if (count_ == 0) settle_beyond();
        return;
    }

    Slot& s = slots_[seq & mask_];
    if (s.used) {
        ++duplicates_;  // in the window, a used slot holds this very seq
        return;
    }
    store(&s, seq, data, size, now);
    ++count_;
    if (seq == next_) {
        deadline_ = -1;
    } else if (deadline_ < 0) {
        deadline_ = now + max_wait_;  // the first packet after the gap at next_
    }
}

bool RtpReorderBuffer::pop(utime_t now, RtpReorderPacket* out) {
    if (count_ == 0) {
        if (!has_beyond_) return false;
        settle_beyond();
    }
    Slot* s = &slots_[next_ & mask_];
    if (!(s->used && s->seq == next_)) {
        if (deadline_ < 0) arm_deadline();
        bool expired = has_beyond_ || (deadline_ >= 0 && now >= deadline_);
        if (!expired) return false;
        skip_gap();
        s = &slots_[next_ & mask_];
    }
    s->used = false;
    --count_;
    out->seq = s->seq;
    out->data = s->data;
    out->size = s->size;
    out->lost_before = lost_pending_;
    lost_pending_ = 0;
    released_ = true;
    last_released_ = s->seq;
    next_ = static_cast<uint16_t>(next_ + 1);
    arm_deadline();
    return true;
}

utime_t RtpReorderBuffer::next_timeout() const {
    if (has_beyond_) return 0;  // due now: pop() releases without waiting
    return deadline_;
}

uint64_t RtpReorderBuffer::duplicates() const {
    return duplicates_;
}

uint64_t RtpReorderBuffer::late() const {
    return late_;
}

uint64_t RtpReorderBuffer::lost() const {
    return lost_;
}

void RtpReorderBuffer::store(Slot* slot, uint16_t seq, const uint8_t* data, size_t size, utime_t now) {
    slot->used = true;
    slot->seq = seq;
    slot->size = static_cast<uint16_t>(size);
    slot->arrival = now;
    if (size) memcpy(slot->data, data, size);
}

void RtpReorderBuffer::settle_beyond() {
    int skipped = beyond_restart_ ? 1 : static_cast<uint16_t>(beyond_.seq - next_);
    lost_ += skipped;
    lost_pending_ += skipped;
    next_ = beyond_.seq;
    Slot& s = slots_[next_ & mask_];
    s = beyond_;
    ++count_;
    has_beyond_ = false;
    beyond_.used = false;
    deadline_ = -1;
}

void RtpReorderBuffer::skip_gap() {
    // count_ > 0: a held packet lies within the window.
    size_t i = 0;
    while (i < slots_.size()) {
        uint16_t seq = static_cast<uint16_t>(next_ + i);
        const Slot& s = slots_[seq & mask_];
        if (s.used && s.seq == seq) break;
        ++i;
    }
    lost_ += i;
    lost_pending_ += static_cast<int>(i);
    next_ = static_cast<uint16_t>(next_ + i);
}

void RtpReorderBuffer::arm_deadline() {
    deadline_ = -1;
    if (count_ == 0) return;
    const Slot& head = slots_[next_ & mask_];
    if (head.used && head.seq == next_) return;
    for (size_t i = 1; i < slots_.size(); ++i) {
        uint16_t seq = static_cast<uint16_t>(next_ + i);
        const Slot& s = slots_[seq & mask_];
        if (s.used && s.seq == seq) {
            deadline_ = s.arrival + max_wait_;
            return;
        }
    }
}

}  // namespace srs
