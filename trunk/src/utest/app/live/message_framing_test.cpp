// Framing slots on live messages: a protocol registers once, caches its
// framing in its own slot, and may hang a bigger cache there (as RTP will).
#include <gtest/gtest.h>

#include <cstring>

#include "app/live/live_message.hpp"

using namespace srs;

namespace {

LiveMessagePtr msg(LiveMessageKind kind) {
    const uint8_t body[] = {1, 2, 3, 4};
    return LiveMessagePtr(LiveMessage::create(kind, 40, SharedBytes::copy_of(body, sizeof(body))));
}

// A stand-in for a frame's RTP packets.
struct FakePackets : FramingExtra {
    explicit FakePackets(int* freed) : freed_(freed) {}
    ~FakePackets() override { (*freed_)++; }
    int* freed_;
};

FramingSlotId test_slot() {
    static const FramingSlotId id = register_framing_slot("test-rtp");
    return id;
}

}  // namespace

TEST(AppFramingSlot, RegistrationIsByNameAndStable) {
    FramingSlotId id = test_slot();
    EXPECT_EQ(register_framing_slot("test-rtp"), id);
    EXPECT_LT(id, kMaxFramingSlots);
    EXPECT_GE(framing_slots_registered(), 1u);
    EXPECT_LE(framing_slots_registered(), kMaxFramingSlots);
}

TEST(AppFramingSlot, KindsAreNamed) {
    EXPECT_TRUE(msg(LiveMessageKind::kAudio)->is_audio());
    EXPECT_TRUE(msg(LiveMessageKind::kVideo)->is_video());
    EXPECT_TRUE(msg(LiveMessageKind::kData)->is_data());
    EXPECT_FALSE(msg(LiveMessageKind::kData)->is_video());
}

TEST(AppFramingSlot, FillHoldsAKeyAndBytes) {
    LiveMessagePtr m = msg(LiveMessageKind::kVideo);
    FramingSlot& slot = m->framing(test_slot());
    EXPECT_TRUE(slot.empty());
    EXPECT_FALSE(slot.holds(0));
    uint8_t* p = slot.fill(0x1234, 12);
    memset(p, 0xab, 12);
    EXPECT_FALSE(slot.empty());
    EXPECT_TRUE(slot.holds(0x1234));
    EXPECT_FALSE(slot.holds(0x1235));
    EXPECT_EQ(slot.size(), 12u);
    EXPECT_EQ(slot.bytes()[11], 0xab);
    // The same message seen through another reference: one cache.
    LiveMessagePtr other = m;
    EXPECT_TRUE(other->framing(test_slot()).holds(0x1234));
}

TEST(AppFramingSlot, SlotsAreIndependent) {
    LiveMessagePtr m = msg(LiveMessageKind::kAudio);
    FramingSlotId id = test_slot();
    FramingSlotId neighbour = static_cast<FramingSlotId>((id + 1) % kMaxFramingSlots);
    m->framing(id).fill(1, 4);
    EXPECT_TRUE(m->framing(neighbour).empty());
}

TEST(AppFramingSlot, ExtraLivesAsLongAsTheMessage) {
    int freed = 0;
    {
        LiveMessagePtr m = msg(LiveMessageKind::kVideo);
        FramingSlot& slot = m->framing(test_slot());
        slot.fill(7, 0);
        slot.set_extra(std::unique_ptr<FramingExtra>(new FakePackets(&freed)));
        EXPECT_NE(dynamic_cast<FakePackets*>(slot.extra()), nullptr);
        LiveMessagePtr held = m;
        m.reset();
        EXPECT_EQ(freed, 0);  // still referenced
    }
    EXPECT_EQ(freed, 1);
    // Refilling for other parameters drops the old extra.
    LiveMessagePtr m = msg(LiveMessageKind::kVideo);
    FramingSlot& slot = m->framing(test_slot());
    slot.fill(7, 0);
    slot.set_extra(std::unique_ptr<FramingExtra>(new FakePackets(&freed)));
    slot.fill(8, 0);
    EXPECT_EQ(freed, 2);
    EXPECT_EQ(slot.extra(), nullptr);
}
