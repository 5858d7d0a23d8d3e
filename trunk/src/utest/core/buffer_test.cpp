#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/buffer.hpp"

using namespace srs;

TEST(CoreBuffer, ReadsBigEndianFields) {
    const uint8_t bytes[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
                             0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13};
    ByteReader r(bytes, sizeof(bytes));
    uint8_t u8;
    uint16_t u16;
    uint32_t u24, u32, le;
    uint64_t u64;
    ASSERT_TRUE(r.read_u8(&u8));
    ASSERT_TRUE(r.read_u16be(&u16));
    ASSERT_TRUE(r.read_u24be(&u24));
    ASSERT_TRUE(r.read_u32be(&u32));
    ASSERT_TRUE(r.read_u32le(&le));
    uint32_t tail;
    ASSERT_TRUE(r.read_u32be(&tail));
    EXPECT_EQ(tail, 0x0f101112u);
    EXPECT_EQ(u8, 0x01);
    EXPECT_EQ(u16, 0x0203);
    EXPECT_EQ(u24, 0x040506u);
    EXPECT_EQ(u32, 0x0708090au);
    EXPECT_EQ(le, 0x0e0d0c0bu);
    EXPECT_EQ(r.remaining(), 1u);
    EXPECT_FALSE(r.read_u64be(&u64));
    EXPECT_EQ(r.remaining(), 1u);  // a failed read consumes nothing
}

TEST(CoreBuffer, NeverReadsPastTheEnd) {
    const uint8_t bytes[] = {0xff, 0xfe};
    ByteReader r(bytes, sizeof(bytes));
    uint32_t v;
    std::string s;
    EXPECT_FALSE(r.read_u24be(&v));
    EXPECT_FALSE(r.read_u32be(&v));
    EXPECT_FALSE(r.read_string(&s, 3));
    EXPECT_FALSE(r.skip(3));
    EXPECT_TRUE(r.skip(2));
    EXPECT_TRUE(r.empty());
}

TEST(CoreBuffer, WriterRoundTrip) {
    std::string out;
    ByteWriter w(&out);
    w.write_u8(7);
    w.write_u16be(0x1234);
    w.write_u24be(0xabcdef);
    w.write_u32be(0xdeadbeef);
    w.write_u32le(0x01020304);
    w.write_u64be(0x0102030405060708ull);
    ByteReader r(out.data(), out.size());
    uint8_t a;
    uint16_t b;
    uint32_t c, d, e;
    uint64_t f;
    ASSERT_TRUE(r.read_u8(&a) && r.read_u16be(&b) && r.read_u24be(&c) && r.read_u32be(&d) && r.read_u32le(&e) &&
                r.read_u64be(&f));
    EXPECT_EQ(a, 7);
    EXPECT_EQ(b, 0x1234);
    EXPECT_EQ(c, 0xabcdefu);
    EXPECT_EQ(d, 0xdeadbeefu);
    EXPECT_EQ(e, 0x01020304u);
    EXPECT_EQ(f, 0x0102030405060708ull);
}

TEST(CoreBuffer, IoBufferGrowsCompactsAndLimits) {
    IoBuffer buf(8);
    ASSERT_TRUE(buf.ensure_free(6));
    memcpy(buf.free_space(), "abcdef", 6);
    buf.commit(6);
    buf.consume(4);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), buf.size()), "ef");
    // Needs compaction, not growth.
    ASSERT_TRUE(buf.ensure_free(6));
    EXPECT_EQ(buf.capacity(), 8u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), buf.size()), "ef");
    ASSERT_TRUE(buf.ensure_free(100));
    EXPECT_GE(buf.free_size(), 100u);
    buf.set_max_capacity(128);
    EXPECT_FALSE(buf.ensure_free(1000));
    buf.consume(100);
    EXPECT_EQ(buf.size(), 0u);
}

// shrink_to gives memory back but never loses data, and the buffer grows
// again when asked.
TEST(CoreBuffer, IoBufferShrinksWithoutLosingData) {
    IoBuffer buf(4096);
    memcpy(buf.free_space(), "0123456789", 10);
    buf.commit(10);
    buf.consume(4);
    buf.shrink_to(512);
    EXPECT_EQ(buf.capacity(), 512u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), buf.size()), "456789");
    EXPECT_EQ(buf.free_size(), 512u - 6);
    buf.shrink_to(2);  // less than it holds: only down to its data
    EXPECT_EQ(buf.capacity(), 6u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), buf.size()), "456789");
    buf.shrink_to(100);  // bigger than now: nothing changes
    EXPECT_EQ(buf.capacity(), 6u);
    ASSERT_TRUE(buf.ensure_free(2048));
    EXPECT_GE(buf.free_size(), 2048u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), buf.size()), "456789");
    buf.consume(6);
    buf.shrink_to(0);
    EXPECT_EQ(buf.capacity(), 1u);
}
