// The history of recently sent packets of one track, keyed by the 16-bit RTP
// sequence number, so a NACK can be answered with the packet as it was sent.
//
// A fixed array of slots; a sequence number lives in slot (seq & mask). put()
// overwrites whatever was there, so the ring holds at most the last
// capacity() sequence numbers (fewer if they were not consecutive). find()
// checks the stored sequence number, so a slot reused by a later packet is
// never mistaken for the asked one. Nothing is allocated after construction.
//
// T must be default-constructible and movable (a shared buffer handle, a
// small struct...). clear() resets every value to T() so held buffers are
// released.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace srs {

template <typename T>
class RtpRing {
  public:
    // Rounded up to a power of two, at least 1 and at most 65536 (every
    // sequence number then has its own slot).
    explicit RtpRing(size_t capacity) : slots_(round_capacity(capacity)), mask_(slots_.size() - 1) {}

    void put(uint16_t seq, T value) {
        Slot& s = slots_[seq & mask_];
        s.used = true;
        s.seq = seq;
        s.value = std::move(value);
    }

    // nullptr if seq was never stored or its slot now holds another seq.
    T* find(uint16_t seq) {
        Slot& s = slots_[seq & mask_];
        return s.used && s.seq == seq ? &s.value : nullptr;
    }
    const T* find(uint16_t seq) const {
        const Slot& s = slots_[seq & mask_];
        return s.used && s.seq == seq ? &s.value : nullptr;
    }

    void clear() {
        for (Slot& s : slots_) {
            s.used = false;
            s.value = T();
        }
    }

    size_t capacity() const { return slots_.size(); }

  private:
    struct Slot {
        bool used = false;
        uint16_t seq = 0;
        T value = T();
    };

    static size_t round_capacity(size_t want) {
        size_t n = 1;
        while (n < want && n < 65536) n <<= 1;
        return n;
    }

    std::vector<Slot> slots_;
    size_t mask_;
};

}  // namespace srs
