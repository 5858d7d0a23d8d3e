// Per-protocol framing caches carried by a LiveMessage.
//
// Every protocol that sends live messages frames them its own way (RTMP
// chunk headers, FLV tag headers, RTP packets). The framing depends on the
// message and on a few per-player parameters, so the first player to send a
// message builds it once into the message's slot for that protocol and every
// later player with the same parameters reuses it.
//
// A protocol gets its slot id once from register_framing_slot(); LiveMessage
// holds kMaxFramingSlots slots and knows nothing about what is in them, so a
// new protocol adds its cache without touching the message or the others.
// A slot holds up to kInlineBytes bytes inline (headers: no allocation), and
// optionally one protocol-owned object for bigger caches (a frame's RTP
// packets), freed with the message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace srs {

using FramingSlotId = uint8_t;
constexpr size_t kMaxFramingSlots = 4;

// The slot id of a protocol, by name: the same name always gets the same id.
// Aborts when more than kMaxFramingSlots protocols register (a build-time
// limit: raise it with the new protocol).
FramingSlotId register_framing_slot(const char* protocol);
// How many protocols registered so far (for tests and logs).
size_t framing_slots_registered();

// A cache bigger than a slot's inline bytes; owned by the slot.
class FramingExtra {
  public:
    virtual ~FramingExtra() = default;
};

class FramingSlot {
  public:
    static constexpr size_t kInlineBytes = 32;

    // Nothing built yet.
    bool empty() const { return !used_; }
    // Built for these parameters (protocol-defined key, e.g. RTMP's chunk
    // size and stream id).
    bool holds(uint64_t key) const { return used_ && key_ == key; }
    uint64_t key() const { return key_; }
    // Claims the slot for key and size (<= kInlineBytes) and returns the
    // inline storage to build into. A previous extra is dropped.
    uint8_t* fill(uint64_t key, size_t size);
    const uint8_t* bytes() const { return bytes_; }
    size_t size() const { return size_; }

    FramingExtra* extra() const { return extra_.get(); }
    void set_extra(std::unique_ptr<FramingExtra> extra) { extra_ = std::move(extra); }

  private:
    uint64_t key_ = 0;
    bool used_ = false;
    uint8_t size_ = 0;
    uint8_t bytes_[kInlineBytes];
    std::unique_ptr<FramingExtra> extra_;
};

}  // namespace srs
