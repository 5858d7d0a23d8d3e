// core/base64.hpp: the RFC 4648 §10 test vectors both ways, binary bytes, and
// the inputs a strict decoder must refuse.
#include <gtest/gtest.h>

#include <string>

#include "core/base64.hpp"

namespace srs {
namespace {

struct Vector {
    const char* plain;
    const char* encoded;
};

// RFC 4648 §10.
const Vector kRfc4648[] = {
    {"", ""},         {"f", "Zg=="},        {"fo", "Zm8="},         {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
};

TEST(CoreBase64, Rfc4648VectorsEncode) {
    for (const Vector& v : kRfc4648) EXPECT_EQ(base64_encode(v.plain), v.encoded) << v.plain;
}

TEST(CoreBase64, Rfc4648VectorsDecode) {
    for (const Vector& v : kRfc4648) {
        std::string out = "junk";
        ASSERT_TRUE(base64_decode(v.encoded, &out)) << v.encoded;
        EXPECT_EQ(out, v.plain) << v.encoded;
    }
}

TEST(CoreBase64, BasicAuthCredentials) {
    // RFC 7617 §2's example.
    EXPECT_EQ(base64_encode("Aladdin:open sesame"), "QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
    std::string out;
    ASSERT_TRUE(base64_decode("QWxhZGRpbjpvcGVuIHNlc2FtZQ==", &out));
    EXPECT_EQ(out, "Aladdin:open sesame");
}

TEST(CoreBase64, BinaryRoundTrip) {
    // Every byte value, NULs included, at each length modulo 3.
    std::string all;
    for (int i = 0; i < 256; i++) all.push_back(static_cast<char>(i));
    for (size_t len : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(254), size_t(255), size_t(256)}) {
        std::string in = all.substr(0, len), back;
        std::string enc = base64_encode(in);
        EXPECT_EQ(enc.size() % 4, 0u);
        ASSERT_TRUE(base64_decode(enc, &back)) << len;
        EXPECT_EQ(back, in) << len;
    }
    EXPECT_EQ(base64_encode(std::string("\xff\xfe\x00", 3)), "//4A");
    std::string out;
    ASSERT_TRUE(base64_decode("AAAA", &out));
    EXPECT_EQ(out, std::string(3, '\0'));
}

TEST(CoreBase64, BadInputIsRefusedAndLeavesTheOutput) {
    const char* bad[] = {
        "Zg",        // not a multiple of 4
        "Zg=",       // idem
        "Zm9vY",     // idem
        "=Zg=",      // '=' not at the end
        "Z===",      // three '='
        "Zg==Zg==",  // padding in the middle
        "Zm=v",      // '=' before a data character
        "Zm9v\n",    // a line break
        " Zm9v",     // leading space (EVP_DecodeBlock would skip it)
        "Zm9v ",     // trailing space
        "Zm 9v",     // inner space
        "Zm9-",      // URL-safe alphabet
        "Zm9_",      // idem
        "Zm9*",      // not base64 at all
        "====",      // only padding
    };
    for (const char* s : bad) {
        std::string out = "keep";
        EXPECT_FALSE(base64_decode(s, &out)) << s;
        EXPECT_EQ(out, "keep") << s;
    }
    std::string out = "keep";
    EXPECT_FALSE(base64_decode(std::string("Zm9v\0\0\0\0", 8), &out));  // NULs
    EXPECT_EQ(out, "keep");
}

}  // namespace
}  // namespace srs
