// Tests of kernel/rtp/rtp: packets written out by hand from RFC 3550 and
// RFC 8285 layouts (one shaped like Chromium's video packets, with the
// abs-send-time and transport-cc one-byte extensions), every truncation,
// hostile lengths, writer round trips, in-place rewrites and sequence
// arithmetic. Every parse reads input that ends right before a PROT_NONE page.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/rtp/rtp.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

// V=2 X=1 CC=0, M=1 PT=96, seq 12345, ts 1000, SSRC 0xdeadbeef; one-byte
// extensions: id 2 abs-send-time (3 bytes 0x123456), id 3 transport-wide
// sequence (2 bytes 0x0007), one padding byte; payload 01 02 03 04.
const char* kChromeVideo =
    "90 e0 30 39  00 00 03 e8  de ad be ef"
    "be de 00 02  22 12 34 56  31 00 07 00"
    "01 02 03 04";

Error parse_guarded(const std::vector<uint8_t>& v, RtpHeader* h, GuardPage* g) {
    const uint8_t* p = g->place(v);
    return rtp_parse_header(p, v.size(), h);
}

Error parse(const std::vector<uint8_t>& v, RtpHeader* h) {
    GuardPage g(v.size() + 1);
    return parse_guarded(v, h, &g);
}

}  // namespace

TEST(KernelRtpTest, ParsesChromiumStyleVideoPacket) {
    std::vector<uint8_t> pkt = unhex(kChromeVideo);
    RtpHeader h;
    ASSERT_TRUE(ok(parse(pkt, &h)));
    EXPECT_FALSE(h.padding);
    EXPECT_TRUE(h.extension);
    EXPECT_TRUE(h.marker);
    EXPECT_EQ(0, h.csrc_count);
    EXPECT_EQ(96, h.payload_type);
    EXPECT_EQ(12345, h.sequence);
    EXPECT_EQ(1000u, h.timestamp);
    EXPECT_EQ(0xdeadbeefu, h.ssrc);
    EXPECT_EQ(RtpExtensionForm::kOneByte, h.form);
    EXPECT_EQ(0xBEDE, h.extension_profile);
    EXPECT_EQ(16, h.extension_offset);
    EXPECT_EQ(8u, h.extension_size);
    ASSERT_EQ(2, h.extension_count);
    EXPECT_EQ(2, h.extensions[0].id);
    EXPECT_EQ(3, h.extensions[0].size);
    EXPECT_EQ(17, h.extensions[0].offset);
    EXPECT_EQ(0x123456u, load_be24(pkt.data() + h.extensions[0].offset));
    const RtpExtensionElement* twcc = h.find_extension(3);
    ASSERT_NE(nullptr, twcc);
    EXPECT_EQ(2, twcc->size);
    EXPECT_EQ(7, load_be16(pkt.data() + twcc->offset));
    EXPECT_EQ(nullptr, h.find_extension(4));
    EXPECT_EQ(24u, h.header_size);
    EXPECT_EQ(4u, h.payload_size);
    EXPECT_EQ(0, h.padding_size);
}

TEST(KernelRtpTest, ParsesCsrcsAndPadding) {
    // CC=2, P=1; payload aa bb, then 3 padding bytes (00 00 03).
    std::vector<uint8_t> pkt = unhex(
        "a2 08 ff ff  12 34 56 78  00 00 00 01"
        "00 00 00 0a  00 00 00 0b"
        "aa bb 00 00 03");
    RtpHeader h;
    ASSERT_TRUE(ok(parse(pkt, &h)));
    EXPECT_TRUE(h.padding);
    EXPECT_FALSE(h.marker);
    EXPECT_EQ(8, h.payload_type);
    EXPECT_EQ(65535, h.sequence);
    EXPECT_EQ(2, h.csrc_count);
    EXPECT_EQ(10u, h.csrcs[0]);
    EXPECT_EQ(11u, h.csrcs[1]);
    EXPECT_EQ(20u, h.header_size);
    EXPECT_EQ(2u, h.payload_size);
    EXPECT_EQ(3, h.padding_size);
}

TEST(KernelRtpTest, ParsesTwoByteExtensions) {
    // Profile 0x1002 (appbits 2); id 1 len 0; padding byte; id 200 len 3; pad to 12 bytes.
    std::vector<uint8_t> pkt = unhex(
        "90 6f 00 01  00 00 00 02  00 00 00 03"
        "10 02 00 03  01 00 00 c8  03 aa bb cc  00 00 00 00"
        "ff");
    RtpHeader h;
    ASSERT_TRUE(ok(parse(pkt, &h)));
    EXPECT_EQ(RtpExtensionForm::kTwoByte, h.form);
    ASSERT_EQ(2, h.extension_count);
    EXPECT_EQ(1, h.extensions[0].id);
    EXPECT_EQ(0, h.extensions[0].size);
    EXPECT_EQ(200, h.extensions[1].id);
    EXPECT_EQ(3, h.extensions[1].size);
    EXPECT_EQ(0xaa, pkt[h.extensions[1].offset]);
    EXPECT_EQ(28u, h.header_size);
    EXPECT_EQ(1u, h.payload_size);
}

TEST(KernelRtpTest, OtherProfileKeptRaw) {
    std::vector<uint8_t> pkt = unhex("90 00 00 01 00 00 00 02 00 00 00 03  ab cd 00 01  11 22 33 44");
    RtpHeader h;
    ASSERT_TRUE(ok(parse(pkt, &h)));
    EXPECT_EQ(RtpExtensionForm::kOther, h.form);
    EXPECT_EQ(0xabcd, h.extension_profile);
    EXPECT_EQ(0, h.extension_count);
    EXPECT_EQ(16, h.extension_offset);
    EXPECT_EQ(4u, h.extension_size);
    EXPECT_EQ(0u, h.payload_size);
}

TEST(KernelRtpTest, OneByteId15StopsParsing) {
    // id 1 (1 byte), then id 15 with a length that would run past: ignored.
    std::vector<uint8_t> pkt = unhex("90 00 00 01 00 00 00 02 00 00 00 03  be de 00 01  10 55 ff 00");
    RtpHeader h;
    ASSERT_TRUE(ok(parse(pkt, &h)));
    ASSERT_EQ(1, h.extension_count);
    EXPECT_EQ(1, h.extensions[0].id);
}

TEST(KernelRtpTest, EveryTruncationShorterThanHeaderFails) {
    std::vector<uint8_t> pkt = unhex(kChromeVideo);
    GuardPage g(pkt.size());
    for (size_t n = 0; n < pkt.size(); ++n) {
        std::vector<uint8_t> cut(pkt.begin(), pkt.begin() + n);
        RtpHeader h;
        Error err = parse_guarded(cut, &h, &g);
        if (n < 24) {
            EXPECT_FALSE(err.ok()) << n;
            err.ignore();
        } else {
            // The header is whole; only the payload is shorter.
            ASSERT_TRUE(ok(std::move(err))) << n;
            EXPECT_EQ(n - 24, h.payload_size);
        }
    }
}

TEST(KernelRtpTest, RejectsBrokenPackets) {
    RtpHeader h;
    // Version 1 and version 3.
    EXPECT_EQ(kErrorRtpVersion, code(parse(unhex("40 00 00 01 00 00 00 02 00 00 00 03"), &h)));
    EXPECT_EQ(kErrorRtpVersion, code(parse(unhex("c0 00 00 01 00 00 00 02 00 00 00 03"), &h)));
    // CC=15 with two CSRCs present.
    EXPECT_EQ(kErrorRtpTooShort,
              code(parse(unhex("8f 00 00 01 00 00 00 02 00 00 00 03 00 00 00 01 00 00 00 02"), &h)));
    // Extension header missing.
    EXPECT_EQ(kErrorRtpTooShort, code(parse(unhex("90 00 00 01 00 00 00 02 00 00 00 03 be de"), &h)));
    // Extension length 3 words, 2 present.
    EXPECT_EQ(kErrorRtpExtension,
              code(parse(unhex("90 00 00 01 00 00 00 02 00 00 00 03 be de 00 03 10 00 00 00 00 00 00 00"), &h)));
    // Extension length 0xffff.
    EXPECT_EQ(kErrorRtpExtension, code(parse(unhex("90 00 00 01 00 00 00 02 00 00 00 03 be de ff ff"), &h)));
    // One-byte element of 16 bytes in a 4-byte block.
    EXPECT_EQ(kErrorRtpExtension,
              code(parse(unhex("90 00 00 01 00 00 00 02 00 00 00 03 be de 00 01 1f 00 00 00"), &h)));
    // Two-byte element whose length byte is the last of the block, and one too long.
    EXPECT_EQ(kErrorRtpExtension,
              code(parse(unhex("90 00 00 01 00 00 00 02 00 00 00 03 10 00 00 01 00 00 00 05"), &h)));
    EXPECT_EQ(kErrorRtpExtension,
              code(parse(unhex("90 00 00 01 00 00 00 02 00 00 00 03 10 00 00 01 05 03 00 00"), &h)));
    // Padding count larger than the payload, and zero.
    EXPECT_EQ(kErrorRtpPadding, code(parse(unhex("a0 00 00 01 00 00 00 02 00 00 00 03 aa 00 04"), &h)));
    EXPECT_EQ(kErrorRtpPadding, code(parse(unhex("a0 00 00 01 00 00 00 02 00 00 00 03 aa 00 00"), &h)));
    // Padding bit with nothing after the header.
    EXPECT_EQ(kErrorRtpPadding, code(parse(unhex("a0 00 00 01 00 00 00 02 00 00 00 03"), &h)));
    // Padding that eats the whole payload is fine.
    ASSERT_TRUE(ok(parse(unhex("a0 00 00 01 00 00 00 02 00 00 00 03 00 00 03"), &h)));
    EXPECT_EQ(0u, h.payload_size);
}

TEST(KernelRtpTest, RejectsTooManyElements) {
    // 40 one-byte elements of 1 byte each (80 bytes = 20 words).
    std::string hex = "90 00 00 01 00 00 00 02 00 00 00 03 be de 00 14";
    for (int i = 0; i < 40; ++i) hex += " 10 aa";
    RtpHeader h;
    EXPECT_EQ(kErrorRtpTooManyExtensions, code(parse(unhex(hex), &h)));
}

TEST(KernelRtpTest, WriteRoundTripsChromiumPacket) {
    std::vector<uint8_t> pkt = unhex(kChromeVideo);
    RtpHeader h;
    ASSERT_TRUE(ok(parse(pkt, &h)));
    std::vector<RtpExtensionData> ext;
    for (int i = 0; i < h.extension_count; ++i)
        ext.push_back({h.extensions[i].id, h.extensions[i].size, pkt.data() + h.extensions[i].offset});
    EXPECT_EQ(24u, rtp_header_size(h, ext.data(), ext.size()));
    std::vector<uint8_t> out(64, 0xee);
    size_t n = 0;
    ASSERT_TRUE(ok(rtp_write_header(h, ext.data(), ext.size(), out.data(), out.size(), &n)));
    ASSERT_EQ(24u, n);
    EXPECT_EQ(std::vector<uint8_t>(pkt.begin(), pkt.begin() + 24), std::vector<uint8_t>(out.begin(), out.begin() + 24));
    // Too small by one byte.
    EXPECT_EQ(kErrorRtpBufferTooSmall, code(rtp_write_header(h, ext.data(), ext.size(), out.data(), 23, &n)));
}

TEST(KernelRtpTest, WriteChoosesTwoByteFormAndParsesBack) {
    RtpHeader h;
    h.marker = false;
    h.payload_type = 111;
    h.sequence = 65535;
    h.timestamp = 0xfffffff0;
    h.ssrc = 42;
    h.csrc_count = 1;
    h.csrcs[0] = 7;
    std::vector<uint8_t> big(20, 0x5a);
    const uint8_t small[1] = {9};
    RtpExtensionData ext[3] = {{1, 1, small}, {20, 20, big.data()}, {5, 0, nullptr}};
    RtpExtensionForm form;
    ASSERT_TRUE(ok(rtp_extension_form_for(ext, 3, &form)));
    EXPECT_EQ(RtpExtensionForm::kTwoByte, form);
    std::vector<uint8_t> out(128);
    size_t n = 0;
    ASSERT_TRUE(ok(rtp_write_header(h, ext, 3, out.data(), out.size(), &n)));
    // 12 + 4 csrc + 4 ext header + (3 + 22 + 2 = 27 -> 28).
    EXPECT_EQ(48u, n);
    EXPECT_EQ(rtp_header_size(h, ext, 3), n);
    out.resize(n);
    RtpHeader back;
    ASSERT_TRUE(ok(parse(out, &back)));
    EXPECT_EQ(RtpExtensionForm::kTwoByte, back.form);
    EXPECT_EQ(111, back.payload_type);
    EXPECT_EQ(65535, back.sequence);
    EXPECT_EQ(0xfffffff0u, back.timestamp);
    EXPECT_EQ(42u, back.ssrc);
    ASSERT_EQ(1, back.csrc_count);
    EXPECT_EQ(7u, back.csrcs[0]);
    ASSERT_EQ(3, back.extension_count);
    EXPECT_EQ(20, back.extensions[1].id);
    EXPECT_EQ(20, back.extensions[1].size);
    EXPECT_EQ(0x5a, out[back.extensions[1].offset + 19]);
    EXPECT_EQ(0, back.extensions[2].size);
    EXPECT_EQ(0u, back.payload_size);
}

TEST(KernelRtpTest, WriteWithoutExtensionsAndBadInput) {
    RtpHeader h;
    h.marker = true;
    h.payload_type = 0;
    h.sequence = 1;
    h.ssrc = 2;
    uint8_t out[12];
    size_t n = 0;
    ASSERT_TRUE(ok(rtp_write_header(h, nullptr, 0, out, sizeof(out), &n)));
    EXPECT_EQ(unhex("80 80 00 01 00 00 00 00 00 00 00 02"), std::vector<uint8_t>(out, out + n));
    RtpExtensionData zero[1] = {{0, 1, out}};
    EXPECT_EQ(kErrorRtpWriteInvalid, code(rtp_write_header(h, zero, 1, out, sizeof(out), &n)));
    h.payload_type = 128;
    EXPECT_EQ(kErrorRtpWriteInvalid, code(rtp_write_header(h, nullptr, 0, out, sizeof(out), &n)));
}

TEST(KernelRtpTest, InPlaceRewrites) {
    std::vector<uint8_t> pkt = unhex(kChromeVideo);
    rtp_set_ssrc(pkt.data(), 0x01020304);
    rtp_set_sequence(pkt.data(), 0xfffe);
    rtp_set_timestamp(pkt.data(), 0xa0b0c0d0);
    rtp_set_payload_type(pkt.data(), 102);
    RtpHeader h;
    ASSERT_TRUE(ok(parse(pkt, &h)));
    EXPECT_EQ(0x01020304u, h.ssrc);
    EXPECT_EQ(0xfffe, h.sequence);
    EXPECT_EQ(0xa0b0c0d0u, h.timestamp);
    EXPECT_EQ(102, h.payload_type);
    EXPECT_TRUE(h.marker);  // kept
    rtp_set_marker(pkt.data(), false);
    ASSERT_TRUE(ok(parse(pkt, &h)));
    EXPECT_FALSE(h.marker);
    EXPECT_EQ(102, h.payload_type);
    // The transport-wide sequence (extension id 3) rewritten in place.
    uint8_t size = 0;
    uint8_t* twcc = rtp_extension_data(pkt.data(), h, 3, &size);
    ASSERT_NE(nullptr, twcc);
    ASSERT_EQ(2, size);
    store_be16(twcc, 0xabcd);
    EXPECT_EQ(unhex("31 ab cd 00"), std::vector<uint8_t>(pkt.begin() + 20, pkt.begin() + 24));
    EXPECT_EQ(nullptr, rtp_extension_data(pkt.data(), h, 9, &size));
    store_be16(twcc, 0x0007);
    // Everything after the fixed header is untouched.
    std::vector<uint8_t> orig = unhex(kChromeVideo);
    EXPECT_EQ(std::vector<uint8_t>(orig.begin() + 12, orig.end()), std::vector<uint8_t>(pkt.begin() + 12, pkt.end()));
}

TEST(KernelRtpTest, SequenceArithmetic) {
    EXPECT_EQ(2, seq_distance(65535, 1));
    EXPECT_EQ(-2, seq_distance(1, 65535));
    EXPECT_EQ(0, seq_distance(7, 7));
    EXPECT_EQ(-32768, seq_distance(0, 32768));
    EXPECT_TRUE(seq_newer(0, 65535));
    EXPECT_FALSE(seq_newer(65535, 0));
    EXPECT_FALSE(seq_newer(5, 5));
    EXPECT_TRUE(seq_newer_or_equal(5, 5));
    EXPECT_TRUE(seq_newer(100, 99));
    EXPECT_TRUE(seq_newer(32767, 0));
}

TEST(KernelRtpTest, UnwrapperCrossesWrapBothWays) {
    SeqUnwrapper u;
    EXPECT_EQ(65534, u.unwrap(65534));
    EXPECT_EQ(65535, u.unwrap(65535));
    EXPECT_EQ(65536, u.unwrap(0));
    EXPECT_EQ(65535, u.unwrap(65535));  // reordered
    EXPECT_EQ(65537, u.unwrap(1));
    EXPECT_EQ(65537 + 30000, u.unwrap(30001));
    EXPECT_EQ(65536 + 60000, u.unwrap(60000));
    EXPECT_EQ(131072 + 100, u.unwrap(100));  // forward past the next wrap
    SeqUnwrapper d;
    EXPECT_EQ(0, d.unwrap(0));
    EXPECT_EQ(-1, d.unwrap(65535));  // before the first value
}
