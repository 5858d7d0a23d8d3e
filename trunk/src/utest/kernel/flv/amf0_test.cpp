// Tests of kernel/amf0: real bytes captured from ffmpeg 5.1 (Lavf59.27.100),
// every marker, round trips, and hostile input (truncation at every byte,
// huge lengths, deep nesting, bad references, unknown markers, missing
// object-end), with the input placed right before a PROT_NONE page.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/flv/amf0.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

std::string encode(const Amf0Value& v) {
    std::string out;
    ByteWriter w(&out);
    amf0_encode(&w, v);
    return out;
}

// Decodes one value that must fill `bytes` exactly.
Error decode_exact(const std::string& bytes, Amf0Value* out) {
    ByteReader r(bytes.data(), bytes.size());
    Error err = amf0_decode(&r, out);
    if (err.ok() && !r.empty()) return SRS_ERR(kErrorAmf0Truncated, "%zu bytes left over", r.remaining());
    return err;
}

int decode_code(const std::string& bytes) {
    Amf0Value v;
    return decode_exact(bytes, &v).code();
}

// Real bodies sent by ffmpeg (chunk headers and 0xc3 separators removed).
// connect: "connect", 1, {app, type, flashVer, tcUrl}.
const char* kFfmpegConnect =
    "020007636f6e6e656374003ff00000000000000300036170700200046c69766500047479706502000a6e6f6e7072"
    "69766174650008666c617368566572020024464d4c452f332e302028636f6d70617469626c653b204c6176663539"
    "2e32372e313030290005746355726c02001b72746d703a2f2f3132372e302e302e313a31393737382f6c69766500"
    "0009";
// @setDataFrame "onMetaData" ecma{duration, width, height, videodatarate, framerate,
// videocodecid, audiodatarate, audiosamplerate, audiosamplesize, stereo, audiocodecid,
// encoder, filesize} (H.264 + AAC).
const char* kFfmpegSetDataFrame =
    "02000d40736574446174614672616d6502000a6f6e4d65746144617461080000000d00086475726174696f6e003f"
    "f000000000000000057769647468004074000000000000000668656967687400406e000000000000000d76696465"
    "6f646174617261746500000000000000000000096672616d6572617465004039000000000000000c766964656f63"
    "6f646563696400401c000000000000000d617564696f6461746172617465004050d88000000000000f617564696f"
    "73616d706c65726174650040e5888000000000000f617564696f73616d706c6573697a6500403000000000000000"
    "0673746572656f0100000c617564696f636f64656369640040240000000000000007656e636f64657202000d4c61"
    "766635392e32372e313030000866696c6573697a65000000000000000000000009";

// One value of every decodable type, canonical (encode(decode(x)) == x).
std::vector<std::string> canonical_values() {
    return {
        unhex_string("00 3ff0000000000000"),                       // number 1
        unhex_string("00 c00921fb54442d18"),                       // number -3.14159...
        unhex_string("00 7ff0000000000000"),                       // +inf
        unhex_string("01 01"),                                     // true
        unhex_string("01 00"),                                     // false
        unhex_string("02 0000"),                                   // ""
        unhex_string("02 0004 6c697665"),                          // "live"
        unhex_string("03 000009"),                                 // {}
        unhex_string("03 0001 61 05 0001 62 06 000009"),           // {a: null, b: undefined}
        unhex_string("05"),                                        // null
        unhex_string("06"),                                        // undefined
        unhex_string("08 00000000 000009"),                        // ecma{}
        unhex_string("08 00000001 0001 78 00 4000000000000000 000009"),  // ecma{x: 2}
        unhex_string("0a 00000000"),                               // []
        unhex_string("0a 00000002 01 01 02 0001 7a"),              // [true, "z"]
        unhex_string("0b 4276f5e66e800000 0000"),                  // date 2020-01-01
        unhex_string("0b 0000000000000000 fe20"),                  // date, timezone -480
        unhex_string("03 0000 05 000009"),                         // {"": null}
    };
}

}  // namespace

TEST(Amf0Decode, EveryMarker) {
    Amf0Value v;
    ASSERT_TRUE(decode_exact(unhex_string("00 3ff0000000000000"), &v).ok());
    EXPECT_TRUE(v.is_number());
    EXPECT_EQ(v.as_number(), 1.0);

    ASSERT_TRUE(decode_exact(unhex_string("01 02"), &v).ok());
    EXPECT_TRUE(v.is_boolean());
    EXPECT_TRUE(v.as_bool());  // any non-zero byte is true

    ASSERT_TRUE(decode_exact(unhex_string("02 0003 616263"), &v).ok());
    EXPECT_EQ(v.as_string(), "abc");

    ASSERT_TRUE(decode_exact(unhex_string("03 0003 617070 02 0004 6c697665 000009"), &v).ok());
    ASSERT_TRUE(v.is_object());
    ASSERT_NE(v.get("app"), nullptr);
    EXPECT_EQ(v.get("app")->as_string(), "live");

    ASSERT_TRUE(decode_exact(unhex_string("05"), &v).ok());
    EXPECT_TRUE(v.is_null());
    ASSERT_TRUE(decode_exact(unhex_string("06"), &v).ok());
    EXPECT_TRUE(v.is_undefined());

    // Reference 1: the object (index 0 is the strict array, which began first).
    ASSERT_TRUE(decode_exact(unhex_string("0a 00000002 03 0001 61 00 3ff0000000000000 000009 07 0001"), &v).ok());
    ASSERT_EQ(v.elements().size(), 2u);
    EXPECT_EQ(v.elements()[0], v.elements()[1]);
    EXPECT_EQ(v.elements()[1].get_number("a"), 1.0);

    ASSERT_TRUE(decode_exact(unhex_string("08 00000001 0001 6b 01 00 000009"), &v).ok());
    EXPECT_TRUE(v.is_ecma_array());
    EXPECT_TRUE(v.has_properties());
    ASSERT_NE(v.get("k"), nullptr);
    EXPECT_FALSE(v.get("k")->as_bool());

    ASSERT_TRUE(decode_exact(unhex_string("0a 00000003 05 06 00 0000000000000000"), &v).ok());
    ASSERT_TRUE(v.is_strict_array());
    ASSERT_EQ(v.elements().size(), 3u);
    EXPECT_TRUE(v.elements()[0].is_null());
    EXPECT_TRUE(v.elements()[1].is_undefined());
    EXPECT_EQ(v.elements()[2].as_number(), 0.0);

    ASSERT_TRUE(decode_exact(unhex_string("0b 4276f5e66e800000 ffc4"), &v).ok());
    ASSERT_TRUE(v.is_date());
    EXPECT_EQ(v.date_ms(), 1577836800000.0);
    EXPECT_EQ(v.date_timezone(), -60);

    ASSERT_TRUE(decode_exact(unhex_string("0c 00000002 6869"), &v).ok());
    EXPECT_TRUE(v.is_string());
    EXPECT_EQ(v.as_string(), "hi");

    EXPECT_EQ(decode_code(unhex_string("09")), kErrorAmf0UnexpectedObjectEnd);
    for (uint8_t m : {0x04, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x7f, 0xff}) {
        EXPECT_EQ(decode_code(std::string(1, static_cast<char>(m)) + std::string(8, '\0')), kErrorAmf0UnknownMarker)
            << "marker " << int(m);
    }
}

TEST(Amf0Decode, FfmpegConnectBody) {
    std::string body = unhex_string(kFfmpegConnect);
    ByteReader r(body.data(), body.size());
    std::vector<Amf0Value> values;
    ASSERT_TRUE(amf0_decode_all(&r, &values).ok());
    ASSERT_EQ(values.size(), 3u);
    EXPECT_EQ(values[0].as_string(), "connect");
    EXPECT_EQ(values[1].as_number(), 1.0);
    const Amf0Value& obj = values[2];
    ASSERT_TRUE(obj.is_object());
    ASSERT_EQ(obj.properties().size(), 4u);
    EXPECT_EQ(obj.properties()[0].key, "app");
    EXPECT_EQ(obj.get_string("app"), "live");
    EXPECT_EQ(obj.get_string("type"), "nonprivate");
    EXPECT_EQ(obj.get_string("flashVer"), "FMLE/3.0 (compatible; Lavf59.27.100)");
    EXPECT_EQ(obj.get_string("tcUrl"), "rtmp://127.0.0.1:19778/live");

    std::string again;
    ByteWriter w(&again);
    for (const Amf0Value& v : values) amf0_encode(&w, v);
    EXPECT_EQ(again, body);
}

TEST(Amf0Decode, FfmpegMetadataBody) {
    std::string body = unhex_string(kFfmpegSetDataFrame);
    ByteReader r(body.data(), body.size());
    std::vector<Amf0Value> values;
    ASSERT_TRUE(amf0_decode_all(&r, &values).ok());
    ASSERT_EQ(values.size(), 3u);
    EXPECT_EQ(values[0].as_string(), "@setDataFrame");
    EXPECT_EQ(values[1].as_string(), "onMetaData");
    const Amf0Value& meta = values[2];
    ASSERT_TRUE(meta.is_ecma_array());
    EXPECT_EQ(meta.properties().size(), 13u);
    EXPECT_EQ(meta.get_number("width"), 320);
    EXPECT_EQ(meta.get_number("height"), 240);
    EXPECT_EQ(meta.get_number("framerate"), 25);
    EXPECT_EQ(meta.get_number("videocodecid"), 7);
    EXPECT_EQ(meta.get_number("audiocodecid"), 10);
    EXPECT_EQ(meta.get_number("audiosamplerate"), 44100);
    ASSERT_NE(meta.get("stereo"), nullptr);
    EXPECT_TRUE(meta.get("stereo")->is_boolean());
    EXPECT_FALSE(meta.get_bool("stereo", true));  // lavfi sine is mono
    EXPECT_EQ(meta.get_string("encoder"), "Lavf59.27.100");

    std::string again;
    ByteWriter w(&again);
    for (const Amf0Value& v : values) amf0_encode(&w, v);
    EXPECT_EQ(again, body);
}

TEST(Amf0RoundTrip, CanonicalValues) {
    for (const std::string& bytes : canonical_values()) {
        Amf0Value v;
        ASSERT_TRUE(decode_exact(bytes, &v).ok()) << v.to_debug_string();
        EXPECT_EQ(encode(v), bytes) << v.to_debug_string();
        EXPECT_EQ(amf0_encoded_size(v), bytes.size());
    }
}

TEST(Amf0RoundTrip, NanKeepsItsBits) {
    std::string bytes = unhex_string("00 7ff8000000000001");
    Amf0Value v;
    ASSERT_TRUE(decode_exact(bytes, &v).ok());
    EXPECT_TRUE(std::isnan(v.as_number()));
    EXPECT_EQ(encode(v), bytes);
}

TEST(Amf0RoundTrip, LongStrings) {
    std::string big(70000, 'x');
    std::string bytes = encode(Amf0Value::string(big));
    ASSERT_EQ(bytes.size(), 5 + big.size());
    EXPECT_EQ(uint8_t(bytes[0]), kAmf0LongString);
    Amf0Value v;
    ASSERT_TRUE(decode_exact(bytes, &v).ok());
    EXPECT_EQ(v.as_string(), big);
    EXPECT_EQ(encode(v), bytes);

    // 65535 bytes is still a short string; 65536 is long.
    EXPECT_EQ(uint8_t(encode(Amf0Value::string(std::string(65535, 'a')))[0]), kAmf0String);
    EXPECT_EQ(uint8_t(encode(Amf0Value::string(std::string(65536, 'a')))[0]), kAmf0LongString);
    // A long-string marker around a short string re-encodes as a short string.
    ASSERT_TRUE(decode_exact(unhex_string("0c 00000001 41"), &v).ok());
    EXPECT_EQ(encode(v), unhex_string("02 0001 41"));
}

TEST(Amf0RoundTrip, BuiltValues) {
    Amf0Value obj = Amf0Value::object();
    obj.set("app", Amf0Value::string("live"))
        .set("n", Amf0Value::number(3))
        .set("list", Amf0Value::strict_array().push(Amf0Value::boolean(true)).push(Amf0Value::null()))
        .set("map", Amf0Value::ecma_array().set("k", Amf0Value::date(5, 0)));
    std::string bytes = encode(obj);
    Amf0Value back;
    ASSERT_TRUE(decode_exact(bytes, &back).ok());
    EXPECT_EQ(back, obj);
    EXPECT_EQ(amf0_encoded_size(obj), bytes.size());
    EXPECT_EQ(obj.to_debug_string(), "{app: \"live\", n: 3, list: [true, null], map: ecma{k: date(5)}}");
}

TEST(Amf0Value, PropertiesAndAccessors) {
    Amf0Value v = Amf0Value::object();
    v.set("a", Amf0Value::number(1)).set("b", Amf0Value::string("x")).set("a", Amf0Value::number(2));
    ASSERT_EQ(v.properties().size(), 2u);
    EXPECT_EQ(v.properties()[0].key, "a");  // replaced in place
    EXPECT_EQ(v.get_number("a"), 2);
    EXPECT_EQ(v.get_string("b"), "x");
    EXPECT_EQ(v.get_string("a", "fallback"), "fallback");  // wrong type
    EXPECT_EQ(v.get_number("missing", 7), 7);
    EXPECT_FALSE(v.get_bool("missing"));
    EXPECT_EQ(v.get("missing"), nullptr);
    EXPECT_TRUE(v.remove("a"));
    EXPECT_FALSE(v.remove("a"));
    EXPECT_EQ(v.properties().size(), 1u);
    v.get("b")->set("inner", Amf0Value::null());  // a string turned into an object
    EXPECT_TRUE(v.get("b")->is_object());

    Amf0Value n = Amf0Value::number(5);
    EXPECT_EQ(n.as_string(), "");
    EXPECT_FALSE(n.as_bool());
    EXPECT_TRUE(n.properties().empty());
    EXPECT_EQ(n.get("x"), nullptr);
    EXPECT_TRUE(Amf0Value().is_undefined());
    EXPECT_NE(Amf0Value::null(), Amf0Value::undefined());
    EXPECT_NE(Amf0Value::object(), Amf0Value::ecma_array());
    EXPECT_EQ(std::string(amf0_type_name(Amf0Type::kEcmaArray)), "ecma-array");
}

TEST(Amf0Decode, EcmaCountIsAdvisory) {
    Amf0Value v;
    // Claims 0, holds 2.
    ASSERT_TRUE(decode_exact(unhex_string("08 00000000 0001 61 05 0001 62 05 000009"), &v).ok());
    EXPECT_EQ(v.properties().size(), 2u);
    // Claims 4 billion, holds 1.
    ASSERT_TRUE(decode_exact(unhex_string("08 ffffffff 0001 61 05 000009"), &v).ok());
    EXPECT_EQ(v.properties().size(), 1u);
}

TEST(Amf0Decode, TruncatedAtEveryByte) {
    std::vector<std::string> samples = canonical_values();
    std::string connect = unhex_string(kFfmpegConnect);
    samples.push_back(connect.substr(19));  // the command object alone
    std::string meta = unhex_string(kFfmpegSetDataFrame);
    samples.push_back(meta.substr(29));  // the ECMA array alone
    samples.push_back(unhex_string("0a 00000002 03 0001 61 00 3ff0000000000000 000009 07 0001"));
    for (const std::string& bytes : samples) {
        for (size_t n = 0; n < bytes.size(); n++) {
            GuardedBytes g(bytes.substr(0, n));
            ByteReader r(g.data(), g.size());
            Amf0Value v;
            Error err = amf0_decode(&r, &v);
            EXPECT_NE(err.code(), 0) << "prefix " << n << " of " << bytes.size();
            EXPECT_TRUE(v.is_undefined());
        }
    }
}

TEST(Amf0Decode, GuardPageWholeBodies) {
    for (const char* hex : {kFfmpegConnect, kFfmpegSetDataFrame}) {
        std::string body = unhex_string(hex);
        for (size_t n = 0; n <= body.size(); n++) {
            GuardedBytes g(body.substr(0, n));
            ByteReader r(g.data(), g.size());
            std::vector<Amf0Value> values;
            Error err = amf0_decode_all(&r, &values);
            if (n == body.size()) {
                EXPECT_TRUE(err.ok());
            }
            err.ignore();
        }
    }
}

TEST(Amf0Decode, HugeLengthsAreErrorsWithoutAllocation) {
    // A 4 GB long string with 10 bytes left.
    EXPECT_EQ(decode_code(unhex_string("0c ffffffff 00010203040506070809")), kErrorAmf0LengthTooLarge);
    EXPECT_EQ(decode_code(unhex_string("02 ffff 616263")), kErrorAmf0Truncated);
    // A strict array claiming more elements than bytes left.
    EXPECT_EQ(decode_code(unhex_string("0a ffffffff 05 05")), kErrorAmf0LengthTooLarge);
    EXPECT_EQ(decode_code(unhex_string("0a 00000003 05 05")), kErrorAmf0LengthTooLarge);
    EXPECT_EQ(decode_code(unhex_string("0a 00000002 05 00 3ff0")), kErrorAmf0Truncated);
    // A property name longer than the input.
    EXPECT_EQ(decode_code(unhex_string("03 ffff 6162")), kErrorAmf0Truncated);
}

TEST(Amf0Decode, TooManyValues) {
    std::string bytes = unhex_string("0a");
    uint32_t n = kAmf0MaxValues + 10;
    bytes += unhex_string("00000000");
    bytes[1] = char(n >> 24), bytes[2] = char(n >> 16), bytes[3] = char(n >> 8), bytes[4] = char(n);
    bytes += std::string(n, '\x05');
    EXPECT_EQ(decode_code(bytes), kErrorAmf0TooManyValues);
}

TEST(Amf0Decode, DeepNestingIsAnErrorNotACrash) {
    // n nested objects {a: {a: ... {}}}.
    auto nested_objects = [](int n) {
        std::string s;
        for (int i = 0; i < n - 1; i++) s += unhex_string("03 0001 61");
        s += unhex_string("03 000009");
        for (int i = 0; i < n - 1; i++) s += unhex_string("000009");
        return s;
    };
    auto nested_arrays = [](int n) {
        std::string s;
        for (int i = 0; i < n - 1; i++) s += unhex_string("0a 00000001");
        return s + unhex_string("0a 00000000");
    };
    // The top-level value is at depth 0; depth kAmf0MaxDepth is the deepest allowed.
    EXPECT_EQ(decode_code(nested_objects(kAmf0MaxDepth + 1)), 0);
    EXPECT_EQ(decode_code(nested_objects(kAmf0MaxDepth + 2)), kErrorAmf0TooDeep);
    EXPECT_EQ(decode_code(nested_arrays(kAmf0MaxDepth + 1)), 0);
    EXPECT_EQ(decode_code(nested_arrays(kAmf0MaxDepth + 2)), kErrorAmf0TooDeep);
    EXPECT_EQ(decode_code(nested_objects(1000)), kErrorAmf0TooDeep);
    EXPECT_EQ(decode_code(nested_arrays(100000)), kErrorAmf0TooDeep);
    // 1000 nested objects that never close: still the depth error.
    std::string open;
    for (int i = 0; i < 1000; i++) open += unhex_string("03 0001 61");
    EXPECT_EQ(decode_code(open), kErrorAmf0TooDeep);
}

TEST(Amf0Decode, BadReferences) {
    // No complex value yet.
    EXPECT_EQ(decode_code(unhex_string("07 0000")), kErrorAmf0BadReference);
    // Index past the table.
    EXPECT_EQ(decode_code(unhex_string("0a 00000002 03 000009 07 0005")), kErrorAmf0BadReference);
    // A reference to the object that contains it (a cycle).
    EXPECT_EQ(decode_code(unhex_string("03 0001 61 07 0000 000009")), kErrorAmf0BadReference);
    EXPECT_EQ(decode_code(unhex_string("07 00")), kErrorAmf0Truncated);
    // A reference inside a replayed value resolves too.
    Amf0Value v;
    ASSERT_TRUE(decode_exact(unhex_string("0a 00000003 0a 00000000 03 0001 78 07 0001 000009 07 0002"), &v).ok());
    EXPECT_EQ(v.elements()[2].get("x")->type(), Amf0Type::kStrictArray);
}

TEST(Amf0Decode, ReferencesCannotExplode) {
    // [ {s: 60000 bytes}, ref, ref, ... ]: each reference copies 60 KB.
    std::string big = encode(Amf0Value::object().set("s", Amf0Value::string(std::string(60000, 'x'))));
    std::string bytes = unhex_string("0a 00000040") + big;
    for (int i = 0; i < 63; i++) bytes += unhex_string("07 0001");
    EXPECT_EQ(decode_code(bytes), kErrorAmf0ReferenceBudget);

    // Doubling chain: a[i] = [ref a[i-1], ref a[i-1]].
    std::string chain = unhex_string("0a 00000028 0a 00000000");
    for (int i = 1; i < 40; i++) {
        const std::string ref{0, char(i)};
        chain += unhex_string("0a 00000002 07") + ref + unhex_string("07") + ref;
    }
    int code = decode_code(chain);
    EXPECT_TRUE(code == kErrorAmf0ReferenceBudget || code == kErrorAmf0TooManyValues) << code;
}

TEST(Amf0Decode, ObjectEnd) {
    EXPECT_EQ(decode_code(unhex_string("03 0001 61 05")), kErrorAmf0MissingObjectEnd);
    EXPECT_EQ(decode_code(unhex_string("03 0001 61 05 0000")), kErrorAmf0MissingObjectEnd);
    EXPECT_EQ(decode_code(unhex_string("03 0001 61 05 00")), kErrorAmf0MissingObjectEnd);
    EXPECT_EQ(decode_code(unhex_string("08 00000001 0001 61 05")), kErrorAmf0MissingObjectEnd);
    EXPECT_EQ(decode_code(unhex_string("03")), kErrorAmf0MissingObjectEnd);
    // The end marker where a property value belongs.
    EXPECT_EQ(decode_code(unhex_string("03 0001 61 09")), kErrorAmf0UnexpectedObjectEnd);
    // Object end needs the empty key: "00 09" alone is a truncated key length.
    EXPECT_EQ(decode_code(unhex_string("03 09")), kErrorAmf0MissingObjectEnd);
}

TEST(Amf0Decode, DecodeAllStopsAtTheFirstError) {
    std::string bytes = unhex_string("05 06 ff");
    ByteReader r(bytes.data(), bytes.size());
    std::vector<Amf0Value> values;
    Error err = amf0_decode_all(&r, &values);
    EXPECT_EQ(err.code(), kErrorAmf0UnknownMarker);
    EXPECT_EQ(values.size(), 2u);

    // References resolve across the values of one decode_all.
    bytes = unhex_string("03 0001 61 01 01 000009 07 0000");
    ByteReader r2(bytes.data(), bytes.size());
    values.clear();
    ASSERT_TRUE(amf0_decode_all(&r2, &values).ok());
    ASSERT_EQ(values.size(), 2u);
    EXPECT_EQ(values[0], values[1]);
}
