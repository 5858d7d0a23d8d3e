#include "app/live/message_framing.hpp"

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace srs {

namespace {

// Registered protocol names; a slot id is an index. Written only at start
// (or a protocol's first message), read-only afterwards.
struct SlotNames {
    const char* names[kMaxFramingSlots] = {};
    size_t count = 0;
};

SlotNames& slot_names() {
    static SlotNames names;
    return names;
}

}  // namespace

FramingSlotId register_framing_slot(const char* protocol) {
    SlotNames& t = slot_names();
    for (size_t i = 0; i < t.count; i++) {
        if (strcmp(t.names[i], protocol) == 0) return static_cast<FramingSlotId>(i);
    }
    if (t.count == kMaxFramingSlots) {
        fprintf(stderr, "framing slot for %s: all %zu slots taken, raise kMaxFramingSlots\n", protocol,
                kMaxFramingSlots);
        abort();
    }
    t.names[t.count] = protocol;
    return static_cast<FramingSlotId>(t.count++);
}

size_t framing_slots_registered() { return slot_names().count; }

uint8_t* FramingSlot::fill(uint64_t key, size_t size) {
    assert(size <= kInlineBytes);
    key_ = key;
    used_ = true;
    size_ = static_cast<uint8_t>(size);
    extra_.reset();
    return bytes_;
}

}  // namespace srs
