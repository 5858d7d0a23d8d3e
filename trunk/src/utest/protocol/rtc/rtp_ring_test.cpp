// Tests of protocol/rtc/rtp_ring: capacity rounding, overwrite by a later
// sequence number of the same slot, lookups across the 65535 -> 0 wrap, and
// clear() releasing what the slots held.
#include <gtest/gtest.h>

#include <memory>

#include "protocol/rtc/rtp_ring.hpp"

using namespace srs;

TEST(RtpRingTest, CapacityRoundsUpToPowerOfTwo) {
    EXPECT_EQ(1u, RtpRing<int>(0).capacity());
    EXPECT_EQ(1u, RtpRing<int>(1).capacity());
    EXPECT_EQ(8u, RtpRing<int>(5).capacity());
    EXPECT_EQ(8u, RtpRing<int>(8).capacity());
    EXPECT_EQ(1024u, RtpRing<int>(1000).capacity());
    EXPECT_EQ(65536u, RtpRing<int>(100000).capacity());
}

TEST(RtpRingTest, FindStoredAndMissing) {
    RtpRing<int> r(8);
    EXPECT_EQ(nullptr, r.find(0));  // never stored, though slot 0 holds a default value
    r.put(3, 33);
    r.put(4, 44);
    ASSERT_NE(nullptr, r.find(3));
    EXPECT_EQ(33, *r.find(3));
    EXPECT_EQ(44, *r.find(4));
    EXPECT_EQ(nullptr, r.find(5));
    EXPECT_EQ(nullptr, r.find(3 + 8));  // same slot, another seq
    *r.find(4) = 45;
    const RtpRing<int>& c = r;
    ASSERT_NE(nullptr, c.find(4));
    EXPECT_EQ(45, *c.find(4));
}

TEST(RtpRingTest, LaterSeqOverwritesSlot) {
    RtpRing<int> r(8);
    r.put(3, 1);
    r.put(11, 2);  // 11 & 7 == 3
    EXPECT_EQ(nullptr, r.find(3));
    ASSERT_NE(nullptr, r.find(11));
    EXPECT_EQ(2, *r.find(11));
    r.put(11, 3);  // the same seq again (a resend stored twice): replaced
    EXPECT_EQ(3, *r.find(11));
}

TEST(RtpRingTest, WrapAt65535) {
    RtpRing<int> r(4);
    r.put(65534, 1);
    r.put(65535, 2);
    r.put(0, 3);
    r.put(1, 4);
    EXPECT_EQ(1, *r.find(65534));
    EXPECT_EQ(2, *r.find(65535));
    EXPECT_EQ(3, *r.find(0));
    EXPECT_EQ(4, *r.find(1));
    r.put(2, 5);  // slot of 65534
    EXPECT_EQ(nullptr, r.find(65534));
    EXPECT_EQ(5, *r.find(2));
    EXPECT_EQ(2, *r.find(65535));
    // A full cycle later the same seq is the same key.
    RtpRing<int> big(65536);
    for (uint32_t s = 0; s < 70000; ++s) big.put(static_cast<uint16_t>(s), static_cast<int>(s));
    EXPECT_EQ(69999, *big.find(static_cast<uint16_t>(69999)));
    EXPECT_EQ(65535, *big.find(65535));
    EXPECT_EQ(65536 + 100, *big.find(100));
}

TEST(RtpRingTest, ClearReleasesValues) {
    RtpRing<std::shared_ptr<int>> r(4);
    auto v = std::make_shared<int>(7);
    r.put(10, v);
    EXPECT_EQ(2, v.use_count());
    ASSERT_NE(nullptr, r.find(10));
    EXPECT_EQ(7, **r.find(10));
    r.clear();
    EXPECT_EQ(1, v.use_count());
    EXPECT_EQ(nullptr, r.find(10));
    EXPECT_EQ(4u, r.capacity());
}
