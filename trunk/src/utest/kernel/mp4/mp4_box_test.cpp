// Tests for kernel/mp4/mp4_box: the writer's nesting and field bytes, and the
// reader on good, broken and cut-short inputs, each read made right before a
// PROT_NONE page.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/codec/media_codec.hpp"
#include "kernel/mp4/mp4_box.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {


TEST(Mp4BoxWriter, NestedBoxesAndFields) {
    std::string out;
    Mp4BoxWriter w(&out);
    size_t outer = w.begin("moov");
    size_t inner = w.begin_full("mvhd", 1, 0x000203);
    w.u8(0x01);
    w.u16(0x0203);
    w.u24(0x040506);
    w.u32(0x0708090a);
    w.u64(0x0b0c0d0e0f101112ull);
    w.end(inner);
    w.end(outer);
    EXPECT_EQ(hex_string(out),
              "00000026" "6d6f6f76"                   // moov, 38 bytes
              "0000001e" "6d766864" "01000203"        // mvhd v1 flags 0x203, 30 bytes
              "01" "0203" "040506" "0708090a" "0b0c0d0e0f101112");
}

TEST(Mp4BoxReader, WalksBoxesEndToEnd) {
    std::string in = unhex_string("0000000c667265650102030400000008736b6970");
    GuardedBytes g(in);
    Mp4BoxReader r(g.data(), g.size());
    Mp4Box box;
    bool done = false;
    ASSERT_TRUE(ok(r.next(&box, &done)));
    ASSERT_FALSE(done);
    EXPECT_EQ(box.type_name(), "free");
    EXPECT_EQ(box.box_size, 12u);
    EXPECT_EQ(box.size, 4u);
    EXPECT_EQ(box.data[0], 0x01);
    ASSERT_TRUE(ok(r.next(&box, &done)));
    EXPECT_EQ(box.type, make_fourcc("skip"));
    EXPECT_EQ(box.offset, 12u);
    EXPECT_EQ(box.size, 0u);
    ASSERT_TRUE(ok(r.next(&box, &done)));
    EXPECT_TRUE(done);
}

TEST(Mp4BoxReader, LargeSize) {
    std::string in = unhex_string("00000001" "6d646174" "0000000000000012" "aabb");
    GuardedBytes g(in);
    Mp4BoxReader r(g.data(), g.size());
    Mp4Box box;
    bool done = false;
    ASSERT_TRUE(ok(r.next(&box, &done)));
    EXPECT_EQ(box.header_size, 16u);
    EXPECT_EQ(box.size, 2u);
    EXPECT_EQ(box.data[1], 0xbb);
}

TEST(Mp4BoxReader, BrokenInputsAreErrors) {
    const char* cases[] = {
        "000000",                            // header truncated
        "00000007667265650000",              // size below the header
        "0000000d66726565000000",            // size past the end
        "00000000667265650000",              // size 0 (to end of file) is not taken
        "00000001667265650000",              // largesize truncated
        "00000001" "66726565" "0000000000000008",  // largesize below its 16-byte header
        "00000001" "66726565" "ffffffffffffffff",  // largesize past the end
    };
    for (const char* c : cases) {
        std::string in = unhex_string(c);
        GuardedBytes g(in);
        Mp4BoxReader r(g.data(), g.size());
        Mp4Box box;
        bool done = false;
        EXPECT_EQ(code(r.next(&box, &done)), kErrorMp4Box) << c;
    }
}

TEST(Mp4BoxReader, PartialTailEndsTheWalkQuietly) {
    std::string in = unhex_string("0000000866726565" "00000010" "6d646174" "0102");
    for (size_t cut = 8; cut <= in.size(); cut++) {
        GuardedBytes g(in.substr(0, cut));
        Mp4BoxReader r(g.data(), g.size());
        r.allow_partial_tail(true);
        Mp4Box box;
        bool done = false;
        ASSERT_TRUE(ok(r.next(&box, &done)));
        ASSERT_FALSE(done);
        ASSERT_TRUE(ok(r.next(&box, &done)));
        EXPECT_TRUE(done) << cut;
        EXPECT_EQ(r.stopped_at_partial(), cut > 8) << cut;
    }
}

TEST(Mp4BoxReader, FullBoxVersionAndFlags) {
    std::string in = unhex_string("0000001074666474" "01000000" "0000000a");
    GuardedBytes g(in);
    Mp4BoxReader r(g.data(), g.size());
    Mp4Box box;
    bool done = false;
    ASSERT_TRUE(ok(r.next(&box, &done)));
    uint8_t version = 0;
    uint32_t flags = 1;
    ASSERT_TRUE(ok(mp4_read_full_box(&box, &version, &flags)));
    EXPECT_EQ(version, 1);
    EXPECT_EQ(flags, 0u);
    EXPECT_EQ(box.size, 4u);
    Mp4Box tiny;
    tiny.size = 3;
    tiny.data = box.data;
    EXPECT_EQ(code(mp4_read_full_box(&tiny, &version, &flags)), kErrorMp4Box);
}

TEST(Mp4WalkTree, ChildMustFitItsParent) {
    // moov of 16 bytes whose child claims 12: runs past the parent.
    std::string in = unhex_string("000000106d6f6f76" "0000000c7472616b");
    GuardedBytes g(in);
    std::vector<Mp4BoxNode> nodes;
    EXPECT_EQ(code(mp4_walk_tree(g.data(), g.size(), &nodes)), kErrorMp4Box);
    // stsd shorter than its entry count.
    std::string stsd = unhex_string("0000000c7374736400000000");
    GuardedBytes g2(stsd);
    nodes.clear();
    EXPECT_EQ(code(mp4_walk_tree(g2.data(), g2.size(), &nodes)), kErrorMp4Box);
    // The box bound holds.
    std::string many;
    for (int i = 0; i < 20; i++) many += unhex_string("0000000866726565");
    GuardedBytes g3(many);
    nodes.clear();
    EXPECT_EQ(code(mp4_walk_tree(g3.data(), g3.size(), &nodes, 10)), kErrorMp4Box);
}

}  // namespace
