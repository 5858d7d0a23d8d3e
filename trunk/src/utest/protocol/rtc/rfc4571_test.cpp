// RFC 4571 framing: a stream of real WebRTC packets (a STUN binding request,
// the start of a DTLS ClientHello, an SRTP packet) cut at every byte, several
// frames in one read, the limits, and broken lengths.
#include <gtest/gtest.h>

#include <vector>

#include "protocol/rtc/rfc4571.hpp"

using namespace srs;

namespace {

using Bytes = std::vector<uint8_t>;

// Three packets as an ICE-TCP peer sends them.
const Bytes kStun = {0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xa4, 0x42, 0x6b, 0x4c, 0x37, 0x56,
                     0x62, 0x4c, 0x61, 0x32, 0x4f, 0x58, 0x48, 0x74};  // binding request, no attributes
const Bytes kDtls = {0x16, 0xfe, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04,
                     0x01, 0x00, 0x00, 0x00};  // handshake record header + the start of a ClientHello
const Bytes kSrtp = {0x80, 0x6f, 0x1a, 0x2b, 0x00, 0x00, 0x03, 0xe8, 0xde, 0xad, 0xbe, 0xef, 0x99};

Bytes framed(const Bytes& packet) {
    Bytes out(2);
    EXPECT_TRUE(rfc4571_header(packet.size(), out.data()).ok());
    out.insert(out.end(), packet.begin(), packet.end());
    return out;
}

Bytes stream_of(const std::vector<Bytes>& packets) {
    Bytes out;
    for (const Bytes& p : packets) {
        Bytes f = framed(p);
        out.insert(out.end(), f.begin(), f.end());
    }
    return out;
}

void drain(Rfc4571Decoder* dec, std::vector<Bytes>* got) {
    uint8_t* frame = nullptr;
    size_t size = 0;
    while (dec->next(&frame, &size)) got->emplace_back(frame, frame + size);
}

}  // namespace

TEST(Rfc4571, HeaderIsBigEndianLength) {
    uint8_t h[2];
    ASSERT_TRUE(rfc4571_header(1, h).ok());
    EXPECT_EQ(h[0], 0x00);
    EXPECT_EQ(h[1], 0x01);
    ASSERT_TRUE(rfc4571_header(0x1234, h).ok());
    EXPECT_EQ(h[0], 0x12);
    EXPECT_EQ(h[1], 0x34);
    ASSERT_TRUE(rfc4571_header(65535, h).ok());
    EXPECT_EQ(h[0], 0xff);
    EXPECT_EQ(h[1], 0xff);
    EXPECT_EQ(rfc4571_header(0, h).code(), kErrorRfc4571Frame);
    EXPECT_EQ(rfc4571_header(65536, h).code(), kErrorRfc4571Frame);
}

TEST(Rfc4571, ThreeFramesInOneFeed) {
    Bytes s = stream_of({kStun, kDtls, kSrtp});
    ASSERT_EQ(s.size(), 20u + 17u + 13u + 6u);
    EXPECT_EQ(s[0], 0x00);
    EXPECT_EQ(s[1], 0x14);  // 20
    Rfc4571Decoder dec;
    ASSERT_TRUE(dec.feed(s.data(), s.size()).ok());
    EXPECT_EQ(dec.buffered(), s.size());
    std::vector<Bytes> got;
    drain(&dec, &got);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0], kStun);
    EXPECT_EQ(got[1], kDtls);
    EXPECT_EQ(got[2], kSrtp);
    EXPECT_EQ(dec.buffered(), 0u);
}

TEST(Rfc4571, EverySplitOfTheStreamGivesTheSameFrames) {
    Bytes s = stream_of({kStun, kDtls, kSrtp});
    // Two pieces cut at every position.
    for (size_t cut = 0; cut <= s.size(); cut++) {
        Rfc4571Decoder dec;
        std::vector<Bytes> got;
        ASSERT_TRUE(dec.feed(s.data(), cut).ok()) << cut;
        drain(&dec, &got);
        ASSERT_TRUE(dec.feed(s.data() + cut, s.size() - cut).ok()) << cut;
        drain(&dec, &got);
        ASSERT_EQ(got.size(), 3u) << "cut at " << cut;
        EXPECT_EQ(got[0], kStun);
        EXPECT_EQ(got[1], kDtls);
        EXPECT_EQ(got[2], kSrtp);
        EXPECT_EQ(dec.buffered(), 0u);
    }
    // One byte at a time: a frame comes out exactly when its last byte is in.
    Rfc4571Decoder dec;
    std::vector<Bytes> got;
    std::vector<size_t> ends;
    for (size_t i = 0; i < s.size(); i++) {
        ASSERT_TRUE(dec.feed(&s[i], 1).ok());
        size_t before = got.size();
        drain(&dec, &got);
        if (got.size() != before) ends.push_back(i + 1);
        EXPECT_LE(dec.buffered(), 2 + kStun.size());  // never more than one partial frame
    }
    EXPECT_EQ(ends, (std::vector<size_t>{22, 22 + 19, 22 + 19 + 15}));
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[2], kSrtp);
}

TEST(Rfc4571, PartialFrameIsNotGiven) {
    Bytes s = framed(kSrtp);
    Rfc4571Decoder dec;
    ASSERT_TRUE(dec.feed(s.data(), s.size() - 1).ok());
    uint8_t* frame = nullptr;
    size_t size = 0;
    EXPECT_FALSE(dec.next(&frame, &size));
    EXPECT_EQ(dec.buffered(), s.size() - 1);
    ASSERT_TRUE(dec.feed(&s.back(), 1).ok());
    ASSERT_TRUE(dec.next(&frame, &size));
    EXPECT_EQ(Bytes(frame, frame + size), kSrtp);
    EXPECT_FALSE(dec.next(&frame, &size));
    ASSERT_TRUE(dec.feed(nullptr, 0).ok());  // an empty read changes nothing
    EXPECT_FALSE(dec.next(&frame, &size));
}

TEST(Rfc4571, ZeroLengthFrameBreaksTheStream) {
    // A good frame, then a zero length: the good one is still given, feed fails.
    Bytes s = framed(kStun);
    s.push_back(0x00);
    s.push_back(0x00);
    s.push_back(0x01);
    Rfc4571Decoder dec;
    Error err = dec.feed(s.data(), s.size());
    EXPECT_EQ(err.code(), kErrorRfc4571Frame);
    std::vector<Bytes> got;
    drain(&dec, &got);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], kStun);
    // Broken for good: later bytes are refused too.
    Bytes more = framed(kSrtp);
    EXPECT_EQ(dec.feed(more.data(), more.size()).code(), kErrorRfc4571Frame);
    // The zero length is seen as soon as its two bytes are in, split or not.
    Rfc4571Decoder split;
    const uint8_t zero[] = {0x00, 0x00};
    ASSERT_TRUE(split.feed(zero, 1).ok());
    EXPECT_EQ(split.feed(zero + 1, 1).code(), kErrorRfc4571Frame);
}

TEST(Rfc4571, MaxLengthFrames) {
    // 65535, the largest the header can say, in pieces of 1000 bytes.
    Bytes big(65535);
    for (size_t i = 0; i < big.size(); i++) big[i] = static_cast<uint8_t>(i * 7);
    Bytes s = stream_of({big, kSrtp});
    EXPECT_EQ(s[0], 0xff);
    EXPECT_EQ(s[1], 0xff);
    Rfc4571Decoder dec;
    std::vector<Bytes> got;
    for (size_t off = 0; off < s.size(); off += 1000) {
        ASSERT_TRUE(dec.feed(s.data() + off, std::min<size_t>(1000, s.size() - off)).ok());
        drain(&dec, &got);
        EXPECT_LE(dec.buffered(), 65535u + 2 + 1000);
    }
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0], big);
    EXPECT_EQ(got[1], kSrtp);

    // A smaller limit: exactly max_frame passes, one more fails at its header.
    Rfc4571Decoder small(20);
    Bytes ok = framed(kStun);  // 20 bytes
    ASSERT_TRUE(small.feed(ok.data(), ok.size()).ok());
    got.clear();
    drain(&small, &got);
    ASSERT_EQ(got.size(), 1u);
    const uint8_t over[] = {0x00, 21};
    EXPECT_EQ(small.feed(over, sizeof(over)).code(), kErrorRfc4571Frame);
    // A limit above what 16 bits say is the 16-bit limit.
    Rfc4571Decoder huge(1 << 20);
    ASSERT_TRUE(huge.feed(s.data(), s.size()).ok());
    got.clear();
    drain(&huge, &got);
    EXPECT_EQ(got.size(), 2u);
}

TEST(Rfc4571, UntakenFramesSurviveTheNextFeed) {
    // The caller may take frames later: they are kept (and moved) in order.
    Bytes a = framed(kStun), b = framed(kDtls);
    Rfc4571Decoder dec;
    ASSERT_TRUE(dec.feed(a.data(), a.size()).ok());
    uint8_t* frame = nullptr;
    size_t size = 0;
    ASSERT_TRUE(dec.feed(b.data(), 5).ok());
    ASSERT_TRUE(dec.next(&frame, &size));
    EXPECT_EQ(Bytes(frame, frame + size), kStun);
    ASSERT_TRUE(dec.feed(b.data() + 5, b.size() - 5).ok());
    EXPECT_EQ(dec.buffered(), b.size());
    ASSERT_TRUE(dec.next(&frame, &size));
    EXPECT_EQ(Bytes(frame, frame + size), kDtls);
    EXPECT_EQ(dec.buffered(), 0u);
}
