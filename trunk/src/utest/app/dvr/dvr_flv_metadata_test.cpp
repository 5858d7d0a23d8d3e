// Tests for app/dvr/dvr_flv_metadata: the onMetaData bytes a DVR FLV starts
// with, where its duration and filesize sit, the patch bytes, and the
// publisher's metadata read from real and broken data messages.
#include <gtest/gtest.h>

#include <string>

#include "app/dvr/dvr_flv_metadata.hpp"
#include "core/buffer.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

TEST(DvrFlvMetadataTest, NumberBytes) {
    EXPECT_EQ("0000000000000000", hex_string(amf0_number_bytes(0)));
    EXPECT_EQ("3ff8000000000000", hex_string(amf0_number_bytes(1.5)));
    EXPECT_EQ("40c81c8000000000", hex_string(amf0_number_bytes(12345)));
}

TEST(DvrFlvMetadataTest, WithoutPublisherMetadata) {
    DvrFlvMetadata m = dvr_flv_metadata(nullptr);
    // "onMetaData", then an ECMA array of two: duration 0, filesize 0, end.
    EXPECT_EQ("02000a6f6e4d65746144617461"
              "0800000002"
              "0008" "6475726174696f6e" "00" "0000000000000000"
              "0008" "66696c6573697a65" "00" "0000000000000000"
              "000009",
              hex_string(m.body));
    EXPECT_EQ(29u, m.duration_at);
    EXPECT_EQ(48u, m.filesize_at);
    // The patch: 12.5 s and 4096 bytes land on the two numbers.
    std::string patched = m.body;
    patched.replace(m.duration_at, 8, amf0_number_bytes(12.5));
    patched.replace(m.filesize_at, 8, amf0_number_bytes(4096));
    Amf0Value meta;
    ASSERT_TRUE(ok(dvr_parse_metadata(reinterpret_cast<const uint8_t*>(patched.data()), patched.size(), &meta)));
    EXPECT_DOUBLE_EQ(12.5, meta.get_number("duration"));
    EXPECT_DOUBLE_EQ(4096, meta.get_number("filesize"));
}

TEST(DvrFlvMetadataTest, KeepsThePublishersPropertiesAfterOurs) {
    // What ffmpeg's FLV muxer sends, cut down: @setDataFrame, onMetaData, an
    // ECMA array with duration, width, encoder and filesize.
    Amf0Value pub = Amf0Value::ecma_array();
    pub.set("duration", Amf0Value::number(0));
    pub.set("width", Amf0Value::number(640));
    pub.set("encoder", Amf0Value::string("Lavf60.16.100"));
    pub.set("filesize", Amf0Value::number(0));
    std::string msg;
    ByteWriter w(&msg);
    amf0_encode(&w, Amf0Value::string("@setDataFrame"));
    amf0_encode(&w, Amf0Value::string("onMetaData"));
    amf0_encode(&w, pub);
    Amf0Value parsed;
    ASSERT_TRUE(ok(dvr_parse_metadata(reinterpret_cast<const uint8_t*>(msg.data()), msg.size(), &parsed)));
    EXPECT_EQ(pub, parsed);

    DvrFlvMetadata m = dvr_flv_metadata(&parsed);
    Amf0Value out;
    ASSERT_TRUE(ok(dvr_parse_metadata(reinterpret_cast<const uint8_t*>(m.body.data()), m.body.size(), &out)));
    ASSERT_EQ(4u, out.properties().size());
    EXPECT_EQ("duration", out.properties()[0].key);
    EXPECT_EQ("filesize", out.properties()[1].key);
    EXPECT_EQ("width", out.properties()[2].key);
    EXPECT_EQ("encoder", out.properties()[3].key);
    size_t d = 0, f = 0;
    ASSERT_TRUE(dvr_find_metadata_fields(m.body, &d, &f));
    EXPECT_EQ(m.duration_at, d);
    EXPECT_EQ(m.filesize_at, f);
}

TEST(DvrFlvMetadataTest, BrokenAndForeignInput) {
    Amf0Value out;
    // No onMetaData, a truncated string, an onMetaData without an object.
    for (const char* hex : {"", "0200047465737400", "02000a6f6e4d657461", "02000a6f6e4d6574614461746105"}) {
        std::string b = unhex_string(hex);
        EXPECT_FALSE(ok(dvr_parse_metadata(reinterpret_cast<const uint8_t*>(b.data()), b.size(), &out))) << hex;
    }
    size_t d = 0, f = 0;
    // A metadata of another muxer (duration not first), and cut ones.
    Amf0Value other = Amf0Value::ecma_array();
    other.set("width", Amf0Value::number(1));
    other.set("duration", Amf0Value::number(1));
    other.set("filesize", Amf0Value::number(1));
    std::string body;
    ByteWriter w(&body);
    amf0_encode(&w, Amf0Value::string("onMetaData"));
    amf0_encode(&w, other);
    EXPECT_FALSE(dvr_find_metadata_fields(body, &d, &f));
    std::string ours = dvr_flv_metadata(nullptr).body;
    EXPECT_FALSE(dvr_find_metadata_fields(ours.substr(0, 50), &d, &f));
    EXPECT_FALSE(dvr_find_metadata_fields("", &d, &f));
}
