// core/bytes.hpp: loads and stores on real byte vectors, at every offset of a
// buffer ending at a guard page (so a load that reads one byte too many faults).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "core/bytes.hpp"
#include "utest/test_util.hpp"

namespace srs {
namespace {

using utest::unhex;

// Compile-time use: the loads and stores are constexpr.
constexpr uint32_t stored_then_loaded(uint32_t v) {
    uint8_t b[4] = {};
    store_be32(b, v);
    return load_be32(b);
}
static_assert(stored_then_loaded(0xdeadbeef) == 0xdeadbeef);
static_assert(load_be16(std::array<uint8_t, 2>{0x12, 0x34}.data()) == 0x1234);
// From a string literal too: a FourCC is its big-endian UI32.
static_assert(load_be32("hvc1") == 0x68766331);
static_assert(load_le16("\xff\x01") == 0x01ff);

uint32_t make_fourcc_for_test() {
    constexpr uint32_t kAvc1 = load_be32("avc1");  // as media_codec.hpp's make_fourcc
    return kAvc1;
}

TEST(CoreBytes, LoadsFromRealHeaders) {
    // An RTMP fmt-0 chunk header as OBS sends it (cs 3, ts 0, length 0x1b,
    // type 0x14 AMF0 command, stream id 0 little-endian) and an extended
    // timestamp after it.
    std::vector<uint8_t> chunk = unhex("03 000000 00001b 14 01000000 01020304");
    EXPECT_EQ(load_be24(chunk.data() + 1), 0u);
    EXPECT_EQ(load_be24(chunk.data() + 4), 0x1bu);
    EXPECT_EQ(load_le32(chunk.data() + 8), 1u);
    EXPECT_EQ(load_be32(chunk.data() + 12), 0x01020304u);

    // An FLV tag header: video, 0x2a bytes, timestamp 0x7f0001 + extended 0x01.
    std::vector<uint8_t> tag = unhex("09 00002a 7f0001 01 000000");
    EXPECT_EQ(load_be24(tag.data() + 1), 0x2au);
    EXPECT_EQ(load_be24(tag.data() + 4) | uint32_t(tag[7]) << 24, 0x017f0001u);

    // An AMF0 number: 1.0 as an IEEE 754 big-endian double.
    std::vector<uint8_t> number = unhex("3ff0000000000000");
    EXPECT_EQ(load_be64(number.data()), 0x3ff0000000000000ull);

    // High bits set in every byte: no sign extension anywhere.
    std::vector<uint8_t> ff = unhex("ffffffffffffffff");
    EXPECT_EQ(load_be16(ff.data()), 0xffffu);
    EXPECT_EQ(load_be24(ff.data()), 0xffffffu);
    EXPECT_EQ(load_be32(ff.data()), 0xffffffffu);
    EXPECT_EQ(load_be64(ff.data()), ~0ull);
    EXPECT_EQ(load_le16(ff.data()), 0xffffu);
    EXPECT_EQ(load_le32(ff.data()), 0xffffffffu);

    std::vector<uint8_t> seq = unhex("0102030405060708");
    EXPECT_EQ(load_be16(seq.data()), 0x0102u);
    EXPECT_EQ(load_le16(seq.data()), 0x0201u);
    EXPECT_EQ(load_be24(seq.data()), 0x010203u);
    EXPECT_EQ(load_be32(seq.data()), 0x01020304u);
    EXPECT_EQ(load_le32(seq.data()), 0x04030201u);
    EXPECT_EQ(load_be64(seq.data()), 0x0102030405060708ull);
}

TEST(CoreBytes, StoresGiveTheExpectedBytes) {
    std::vector<uint8_t> b(8, 0xaa);
    store_be16(b.data(), 0x0102);
    EXPECT_EQ(b, unhex("0102aaaaaaaaaaaa"));
    store_be24(b.data(), 0xff030405);  // only the low 24 bits
    EXPECT_EQ(b, unhex("030405aaaaaaaaaa"));
    store_be32(b.data(), 0x0a0b0c0d);
    EXPECT_EQ(b, unhex("0a0b0c0daaaaaaaa"));
    store_be64(b.data(), 0x1122334455667788ull);
    EXPECT_EQ(b, unhex("1122334455667788"));
    store_le16(b.data(), 0x0102);
    EXPECT_EQ(b, unhex("0201334455667788"));
    store_le32(b.data() + 4, 0x01020304);
    EXPECT_EQ(b, unhex("0201334404030201"));
}

TEST(CoreBytes, CharOverloadsMatch) {
    std::string s = utest::unhex_string("80 01 02 03 04 05 06 07");
    EXPECT_EQ(load_be16(s.data()), 0x8001u);
    EXPECT_EQ(load_be24(s.data()), 0x800102u);
    EXPECT_EQ(load_be32(s.data()), 0x80010203u);
    EXPECT_EQ(load_be64(s.data()), 0x8001020304050607ull);
    EXPECT_EQ(load_le16(s.data()), 0x0180u);
    EXPECT_EQ(load_le32(s.data()), 0x03020180u);
    char out[8] = {};
    store_be32(out, 0x80010203);
    store_le32(out + 4, 0x80010203);
    EXPECT_EQ(std::string(out, 8), utest::unhex_string("80010203 03020180"));
    store_be16(out, 0xfffe);
    store_le16(out + 2, 0xfffe);
    EXPECT_EQ(std::string(out, 4), utest::unhex_string("fffe feff"));
    store_be24(out, 0xabcdef);
    EXPECT_EQ(std::string(out, 3), utest::unhex_string("abcdef"));
    store_be64(out, 0x0102030405060708ull);
    EXPECT_EQ(std::string(out, 8), utest::unhex_string("0102030405060708"));
    // signed char: bytes >= 0x80 are not sign-extended either.
    const signed char sc[4] = {-1, -128, 127, 0};
    EXPECT_EQ(load_be32(sc), 0xff807f00u);
    EXPECT_EQ(make_fourcc_for_test(), 0x61766331u);
}

TEST(CoreBytes, RoundTripAtEveryOffsetUpToTheGuardPage) {
    // Each width loaded from the very last bytes before a PROT_NONE page: a
    // load touching one byte more crashes here.
    utest::GuardPage guard(64);
    std::vector<uint8_t> buf(16);
    for (size_t i = 0; i < buf.size(); i++) buf[i] = static_cast<uint8_t>(0xf0 + i);
    for (size_t width : {2, 3, 4, 8}) {
        const uint8_t* p = guard.place(buf.data() + buf.size() - width, width);
        uint64_t want = 0;
        for (size_t i = 0; i < width; i++) want = want << 8 | buf[buf.size() - width + i];
        switch (width) {
            case 2: EXPECT_EQ(load_be16(p), want); break;
            case 3: EXPECT_EQ(load_be24(p), want); break;
            case 4: EXPECT_EQ(load_be32(p), want); break;
            case 8: EXPECT_EQ(load_be64(p), want); break;
        }
    }
    // Unaligned addresses: store then load at every offset.
    for (size_t off = 0; off < 8; off++) {
        uint8_t b[16] = {};
        store_be64(b + off, 0x8899aabbccddeeffull);
        EXPECT_EQ(load_be64(b + off), 0x8899aabbccddeeffull);
        store_le32(b + off, 0x12345678);
        EXPECT_EQ(load_le32(b + off), 0x12345678u);
        EXPECT_EQ(b[off], 0x78);
    }
}

}  // namespace
}  // namespace srs
