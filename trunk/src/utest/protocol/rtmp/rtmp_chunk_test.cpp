// RtmpChunkDecoder / RtmpChunkEncoder: real ffmpeg bytes, every header form,
// extended timestamps, errors, round trips; every decode also one byte at a time.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#ifdef SRS_SANITIZER
// From ASAN's allocator interface (the header is not installed with gcc).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

#include "protocol/rtmp/rtmp_chunk.hpp"
#include "utest/protocol/rtmp/rtmp_capture.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

using Bytes = std::vector<uint8_t>;



// Hand-built chunks, written field by field (independent of the encoder).
struct Chunks {
    Bytes b;
    Chunks& basic(uint8_t fmt, uint32_t cs) {
        if (cs < 64) {
            b.push_back(static_cast<uint8_t>(fmt << 6 | cs));
        } else if (cs < 320) {
            b.push_back(static_cast<uint8_t>(fmt << 6));
            b.push_back(static_cast<uint8_t>(cs - 64));
        } else {
            b.push_back(static_cast<uint8_t>(fmt << 6 | 1));
            b.push_back(static_cast<uint8_t>((cs - 64) & 0xff));
            b.push_back(static_cast<uint8_t>((cs - 64) >> 8));
        }
        return *this;
    }
    Chunks& u8(uint8_t v) {
        b.push_back(v);
        return *this;
    }
    Chunks& u24(uint32_t v) {
        return u8(static_cast<uint8_t>(v >> 16)).u8(static_cast<uint8_t>(v >> 8)).u8(static_cast<uint8_t>(v));
    }
    Chunks& u32(uint32_t v) { return u8(static_cast<uint8_t>(v >> 24)).u24(v & 0xffffff); }
    Chunks& u32le(uint32_t v) {
        for (int i = 0; i < 4; i++) u8(static_cast<uint8_t>(v >> (8 * i)));
        return *this;
    }
    Chunks& data(const Bytes& p, size_t off, size_t n) {
        b.insert(b.end(), p.begin() + off, p.begin() + off + n);
        return *this;
    }
    // fmt 0 header: basic + ts + length + type + stream id (LE).
    Chunks& fmt0(uint32_t cs, uint32_t ts, uint32_t len, uint8_t type, uint32_t sid) {
        basic(0, cs).u24(ts >= 0xffffff ? 0xffffff : ts).u24(len).u8(type).u32le(sid);
        if (ts >= 0xffffff) u32(ts);
        return *this;
    }
};

Bytes pattern(size_t n, uint32_t seed = 1) {
    Bytes p(n);
    for (size_t i = 0; i < n; i++) p[i] = static_cast<uint8_t>(i * 7 + seed);
    return p;
}

// Applies what RtmpProtocol would: Set Chunk Size and Abort.
void apply_control(RtmpChunkDecoder* dec, const RtmpMessage& m) {
    if (m.payload.size() < 4) return;
    const uint8_t* p = m.payload.data();
    uint32_t v = (uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
    if (m.type == kRtmpSetChunkSize) dec->set_chunk_size(v);
    if (m.type == kRtmpAbort) dec->abort(v);
}

// Decodes from memory in place until no whole chunk is left; returns the
// bytes used or sets *error.
size_t decode_in_place(RtmpChunkDecoder* dec, const uint8_t* data, size_t size, std::vector<RtmpMessage>* out,
                       int* error) {
    size_t pos = 0;
    for (;;) {
        size_t consumed = 0, before = out->size();
        Error err = dec->decode(data + pos, size - pos, &consumed, out);
        if (!err.ok()) {
            *error = err.code();
            return pos;
        }
        for (size_t i = before; i < out->size(); i++) apply_control(dec, (*out)[i]);
        pos += consumed;
        if (consumed == 0) return pos;
    }
}

struct Result {
    std::vector<RtmpMessage> msgs;
    size_t leftover = 0;
    int error = 0;
};

// Feeds `in` `step` bytes at a time through a receive buffer, as a connection does.
Result decode_all(const Bytes& in, size_t step, uint32_t chunk_size = 128, RtmpChunkDecoder* use = nullptr) {
    RtmpChunkDecoder own;
    RtmpChunkDecoder* dec = use ? use : &own;
    dec->set_chunk_size(chunk_size);
    Result r;
    Bytes buf;
    for (size_t fed = 0; fed < in.size() && !r.error;) {
        size_t n = std::min(step, in.size() - fed);
        buf.insert(buf.end(), in.begin() + fed, in.begin() + fed + n);
        fed += n;
        size_t used = decode_in_place(dec, buf.data(), buf.size(), &r.msgs, &r.error);
        buf.erase(buf.begin(), buf.begin() + used);
    }
    r.leftover = buf.size();
    return r;
}

bool same_message(const RtmpMessage& a, const RtmpMessage& b) {
    return a.type == b.type && a.timestamp == b.timestamp && a.stream_id == b.stream_id && a.cs_id == b.cs_id &&
           a.payload.size() == b.payload.size() &&
           (a.payload.size() == 0 || memcmp(a.payload.data(), b.payload.data(), a.payload.size()) == 0);
}

void expect_same(const std::vector<RtmpMessage>& a, const std::vector<RtmpMessage>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); i++) EXPECT_TRUE(same_message(a[i], b[i])) << "message " << i;
}

// Decodes whole and one byte at a time; both must agree.
Result decode_both_ways(const Bytes& in, uint32_t chunk_size = 128) {
    Result whole = decode_all(in, in.size() ? in.size() : 1, chunk_size);
    Result bytewise = decode_all(in, 1, chunk_size);
    EXPECT_EQ(whole.error, bytewise.error);
    if (whole.error == 0) {  // after an error, feeding stops
        EXPECT_EQ(whole.leftover, bytewise.leftover);
    }
    expect_same(whole.msgs, bytewise.msgs);
    return whole;
}

Bytes payload_of(const RtmpMessage& m) { return Bytes(m.payload.data(), m.payload.data() + m.payload.size()); }

size_t heap_bytes() {
#ifdef SRS_SANITIZER
    return __sanitizer_get_current_allocated_bytes();
#else
    return mallinfo2().uordblks;
#endif
}

struct Expect {
    uint8_t type;
    uint32_t length, timestamp, cs_id, stream_id;
};

}  // namespace

TEST(RtmpChunkDecoder, FfmpegPublishCapture) {
    const Bytes in = unhex(kFfmpegPublishHex);
    ASSERT_EQ(in.size(), 733u);
    Result r = decode_both_ways(in);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(r.leftover, 0u);
    const Expect want[] = {
        {kRtmpAmf0Command, 140, 0, 3, 0},  // connect
        {kRtmpAmf0Command, 39, 0, 3, 0},   // releaseStream
        {kRtmpAmf0Command, 35, 0, 3, 0},   // FCPublish
        {kRtmpAmf0Command, 25, 0, 3, 0},   // createStream
        {kRtmpAmf0Command, 40, 0, 8, 1},   // publish
        {kRtmpAmf0Data, 309, 0, 4, 1},     // @setDataFrame onMetaData
        {kRtmpVideo, 51, 0, 6, 1},         // AVC sequence header
        {kRtmpAudio, 7, 0, 4, 1},          // AAC sequence header
    };
    ASSERT_EQ(r.msgs.size(), sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < r.msgs.size(); i++) {
        EXPECT_EQ(r.msgs[i].type, want[i].type) << i;
        EXPECT_EQ(r.msgs[i].payload.size(), want[i].length) << i;
        EXPECT_EQ(r.msgs[i].timestamp, want[i].timestamp) << i;
        EXPECT_EQ(r.msgs[i].cs_id, want[i].cs_id) << i;
        EXPECT_EQ(r.msgs[i].stream_id, want[i].stream_id) << i;
    }
    // connect's two chunks joined without the 0xC3 between them.
    const Bytes connect = payload_of(r.msgs[0]);
    EXPECT_EQ(std::string(connect.begin() + 3, connect.begin() + 10), "connect");
    EXPECT_EQ(std::string(connect.end() - 23, connect.end() - 3), "127.0.0.1:19351/live");
    EXPECT_EQ(payload_of(r.msgs[7]), unhex("af00120856e500"));

    // Truncated anywhere: the complete messages come out, the partial chunk stays.
    for (size_t cut : {1u, 12u, 140u, 152u, 153u, 400u, 732u}) {
        Result part = decode_both_ways(Bytes(in.begin(), in.begin() + cut));
        ASSERT_EQ(part.error, 0);
        EXPECT_LT(part.msgs.size(), 8u);
        EXPECT_LE(part.leftover, 128u + 12u) << cut;
    }
}

TEST(RtmpChunkDecoder, FfmpegPublishWholeSession) {
    std::ifstream f("test/fuzz/corpus/rtmp_chunk/ffmpeg_publish.bin", std::ios::binary);
    if (!f) GTEST_SKIP() << "run from trunk/ to find the capture";
    const Bytes in((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ASSERT_EQ(in.size(), 48703u);
    Result r = decode_both_ways(in);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(r.leftover, 0u);
    ASSERT_EQ(r.msgs.size(), 217u);
    size_t audio = 0, video = 0, commands = 0;
    uint32_t last_audio = 0, last_video = 0;
    for (const RtmpMessage& m : r.msgs) {
        if (m.is_audio()) {
            audio++;
            EXPECT_GE(m.timestamp, last_audio);  // deltas (fmt 1/2/3) add up
            last_audio = m.timestamp;
        }
        if (m.is_video()) {
            video++;
            EXPECT_GE(m.timestamp, last_video);
            last_video = m.timestamp;
        }
        if (m.is_command()) commands++;
    }
    EXPECT_EQ(audio, 132u);
    EXPECT_EQ(video, 77u);
    EXPECT_EQ(commands, 7u);
    EXPECT_EQ(r.msgs[8].payload.size(), 3666u);  // the first keyframe, 29 chunks
    EXPECT_EQ(r.msgs[9].timestamp, 40u);
    EXPECT_EQ(r.msgs[10].timestamp, 57u);
    EXPECT_EQ(last_video, 2960u);
}

TEST(RtmpChunkDecoder, AllMessageHeaderTypes) {
    Chunks c;
    c.fmt0(4, 1000, 3, kRtmpAudio, 1).u8(0xaa).u8(0xbb).u8(0xcc);
    c.basic(1, 4).u24(20).u24(2).u8(kRtmpVideo).u8(1).u8(2);  // delta 20, new length and type
    c.basic(2, 4).u24(30).u8(3).u8(4);                         // delta 30
    c.basic(3, 4).u8(5).u8(6);                                 // new message: delta 30 again
    Result r = decode_both_ways(c.b);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 4u);
    const Expect want[] = {{kRtmpAudio, 3, 1000, 4, 1}, {kRtmpVideo, 2, 1020, 4, 1},
                           {kRtmpVideo, 2, 1050, 4, 1}, {kRtmpVideo, 2, 1080, 4, 1}};
    for (size_t i = 0; i < 4; i++) {
        EXPECT_EQ(r.msgs[i].type, want[i].type);
        EXPECT_EQ(r.msgs[i].payload.size(), want[i].length);
        EXPECT_EQ(r.msgs[i].timestamp, want[i].timestamp);
        EXPECT_EQ(r.msgs[i].cs_id, 4u);
        EXPECT_EQ(r.msgs[i].stream_id, 1u);
    }
    EXPECT_EQ(payload_of(r.msgs[3]), (Bytes{5, 6}));
}

TEST(RtmpChunkDecoder, Type3AfterType0AddsTheTimestampFieldAgain) {
    // ffmpeg's encoder sends fmt 3 when a delta equals the last timestamp field,
    // which after a fmt 0 is the absolute time: 40, then fmt 3 means 80.
    Chunks c;
    c.fmt0(6, 40, 1, kRtmpVideo, 1).u8(1);
    c.basic(3, 6).u8(2);
    c.basic(3, 6).u8(3);
    Result r = decode_both_ways(c.b);
    ASSERT_EQ(r.msgs.size(), 3u);
    EXPECT_EQ(r.msgs[0].timestamp, 40u);
    EXPECT_EQ(r.msgs[1].timestamp, 80u);
    EXPECT_EQ(r.msgs[2].timestamp, 120u);
}

TEST(RtmpChunkDecoder, ZeroLengthMessage) {
    Chunks c;
    c.fmt0(3, 5, 0, kRtmpAmf0Data, 1);
    c.basic(3, 3);  // another empty message, same header
    Result r = decode_both_ways(c.b);
    ASSERT_EQ(r.msgs.size(), 2u);
    EXPECT_EQ(r.msgs[0].payload.size(), 0u);
    EXPECT_EQ(r.msgs[1].timestamp, 10u);
}

// One 300-byte message at ts 0x12345678 in three chunks, type-3 chunks with
// or without the repeated extended timestamp, then a fmt 3 new message.
Bytes extended_message(bool repeat) {
    const Bytes p = pattern(300);
    Chunks c;
    c.fmt0(6, 0x12345678, 300, kRtmpVideo, 1).data(p, 0, 128);
    c.basic(3, 6);
    if (repeat) c.u32(0x12345678);
    c.data(p, 128, 128).basic(3, 6);
    if (repeat) c.u32(0x12345678);
    c.data(p, 256, 44);
    return c.b;
}

TEST(RtmpChunkDecoder, ExtendedTimestampRepeatedOnType3) {
    Bytes in = extended_message(true);
    EXPECT_EQ(in.size(), 1u + 11 + 4 + 300 + 2 * 5);
    // A fmt 3 new message after it, extended timestamp present: ts doubles.
    const Bytes p = pattern(300, 9);
    Chunks c;
    c.basic(3, 6).u32(0x12345678).data(p, 0, 128).basic(3, 6).u32(0x12345678).data(p, 128, 128);
    c.basic(3, 6).u32(0x12345678).data(p, 256, 44);
    in.insert(in.end(), c.b.begin(), c.b.end());
    Result r = decode_both_ways(in);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 2u);
    EXPECT_EQ(r.msgs[0].timestamp, 0x12345678u);
    EXPECT_EQ(payload_of(r.msgs[0]), pattern(300));
    EXPECT_EQ(r.msgs[1].timestamp, 0x2468acf0u);
    EXPECT_EQ(payload_of(r.msgs[1]), p);
    EXPECT_EQ(r.leftover, 0u);
}

TEST(RtmpChunkDecoder, ExtendedTimestampAbsentOnType3) {
    Result r = decode_both_ways(extended_message(false));
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 1u);
    EXPECT_EQ(r.msgs[0].timestamp, 0x12345678u);
    EXPECT_EQ(payload_of(r.msgs[0]), pattern(300));
    // Both encoder behaviours give the same message.
    expect_same(r.msgs, decode_both_ways(extended_message(true)).msgs);
}

TEST(RtmpChunkDecoder, ExtendedTimestampDeltas) {
    Chunks c;
    c.fmt0(5, 0x10, 4, kRtmpAudio, 1).u32(0xa0a1a2a3);
    c.basic(2, 5).u24(0xffffff).u32(0x01000000).u32(0xb0b1b2b3);  // fmt 2, extended delta
    c.basic(3, 5).u32(0x01000000).u32(0xc0c1c2c3);                 // new message, delta repeated
    c.basic(3, 5).u32(0x55565758);                                 // new message, not repeated
    c.basic(1, 5).u24(7).u24(4).u8(kRtmpAudio).u32(0x01020304);     // back to a short delta
    c.basic(3, 5).u32(0x01000000);  // no longer extended: these 4 bytes are payload
    Result r = decode_both_ways(c.b);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 6u);
    EXPECT_EQ(r.msgs[0].timestamp, 0x10u);
    EXPECT_EQ(r.msgs[1].timestamp, 0x01000010u);
    EXPECT_EQ(r.msgs[2].timestamp, 0x02000010u);
    EXPECT_EQ(r.msgs[3].timestamp, 0x03000010u);
    EXPECT_EQ(payload_of(r.msgs[3]), (Bytes{0x55, 0x56, 0x57, 0x58}));
    EXPECT_EQ(r.msgs[4].timestamp, 0x03000017u);
    EXPECT_EQ(r.msgs[5].timestamp, 0x0300001eu);
    EXPECT_EQ(payload_of(r.msgs[5]), (Bytes{1, 0, 0, 0}));
}

TEST(RtmpChunkDecoder, ExtendedTimestampPeekNeedsNoMoreInputOnMismatch) {
    // The last chunk holds 2 bytes and no repeated timestamp; the input ends
    // there. The first byte already differs, so the message completes now.
    const Bytes p = pattern(130, 0x40);
    Chunks c;
    c.fmt0(7, 0x01000000, 130, kRtmpAudio, 1).data(p, 0, 128).basic(3, 7).data(p, 128, 2);
    RtmpChunkDecoder dec;
    std::vector<RtmpMessage> out;
    size_t consumed = 0;
    ASSERT_TRUE(dec.decode(c.b.data(), c.b.size(), &consumed, &out).ok());
    EXPECT_EQ(consumed, c.b.size());
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(payload_of(out[0]), p);

    // A matching prefix cannot be told apart yet: wait for more.
    Chunks d;
    d.fmt0(7, 0x01000000, 130, kRtmpAudio, 1).data(p, 0, 128).basic(3, 7).u8(0x01).u8(0x00);
    RtmpChunkDecoder dec2;
    out.clear();
    ASSERT_TRUE(dec2.decode(d.b.data(), d.b.size(), &consumed, &out).ok());
    EXPECT_EQ(consumed, 1u + 11 + 4 + 128);
    EXPECT_TRUE(out.empty());
}

TEST(RtmpChunkDecoder, ChunkStreamIdBoundaries) {
    for (uint32_t cs : {2u, 3u, 63u, 64u, 65u, 319u, 320u, 321u, 65598u, 65599u}) {
        Chunks c;
        const Bytes p = pattern(300, cs);
        c.fmt0(cs, 100, 300, kRtmpVideo, 1).data(p, 0, 128).basic(3, cs).data(p, 128, 128);
        c.basic(3, cs).data(p, 256, 44);
        Result r = decode_both_ways(c.b);
        ASSERT_EQ(r.error, 0) << cs;
        ASSERT_EQ(r.msgs.size(), 1u) << cs;
        EXPECT_EQ(r.msgs[0].cs_id, cs);
        EXPECT_EQ(payload_of(r.msgs[0]), p);
    }
    // The three forms, byte for byte.
    auto first_bytes = [](uint32_t cs) {
        RtmpMessage m;
        m.cs_id = cs;
        std::string first, cont;
        RtmpChunkEncoder::encode_headers(m, 128, &first, &cont);
        return std::make_pair(Bytes(first.begin(), first.end() - 11), Bytes(cont.begin(), cont.end()));
    };
    EXPECT_EQ(first_bytes(63).first, (Bytes{0x3f}));
    EXPECT_EQ(first_bytes(63).second, (Bytes{0xff}));
    EXPECT_EQ(first_bytes(64).first, (Bytes{0x00, 0x00}));
    EXPECT_EQ(first_bytes(64).second, (Bytes{0xc0, 0x00}));
    EXPECT_EQ(first_bytes(319).first, (Bytes{0x00, 0xff}));
    EXPECT_EQ(first_bytes(320).first, (Bytes{0x01, 0x00, 0x01}));
    EXPECT_EQ(first_bytes(65599).first, (Bytes{0x01, 0xff, 0xff}));
    EXPECT_EQ(first_bytes(65599).second, (Bytes{0xc1, 0xff, 0xff}));
    // A 3-byte form of a small id is legal and decodes to the same stream.
    Chunks c;
    c.u8(0x01).u8(0x00).u8(0x01).u24(0).u24(1).u8(kRtmpAudio).u32le(1).u8(9);  // cs 320
    c.u8(0xc0).u8(0x00).u8(0x00);  // fmt 3 would be cs 64: unknown -> error
    Result r = decode_all(c.b, c.b.size());
    EXPECT_EQ(r.msgs.size(), 1u);
    EXPECT_EQ(r.error, kErrorRtmpChunkNoPreviousHeader);
}

TEST(RtmpChunkDecoder, ManyChunksAt128And65536) {
    RtmpMessage m;
    m.type = kRtmpVideo;
    m.timestamp = 123;
    m.stream_id = 1;
    m.cs_id = kRtmpCidVideo;
    const Bytes p = pattern(200000, 3);
    m.payload = SharedBytes::copy_of(p.data(), p.size());
    for (uint32_t cs : {128u, 65536u}) {
        std::string wire;
        RtmpChunkEncoder::encode_message(m, cs, &wire);
        const size_t chunks = RtmpChunkEncoder::chunk_count(p.size(), cs);
        EXPECT_EQ(chunks, cs == 128 ? 1563u : 4u);
        EXPECT_EQ(wire.size(), 12 + p.size() + (chunks - 1));
        const Bytes in(wire.begin(), wire.end());
        Result r = decode_all(in, in.size(), cs);
        ASSERT_EQ(r.error, 0);
        ASSERT_EQ(r.msgs.size(), 1u);
        EXPECT_TRUE(same_message(r.msgs[0], m));
        Result slow = decode_all(in, cs == 128 ? 1 : 997, cs);
        expect_same(r.msgs, slow.msgs);
    }
    // Odd chunk sizes within the decoder's range.
    for (uint32_t cs : {1u, 2u, 127u, 129u, 16u * 1024 * 1024}) {
        std::string wire;
        RtmpMessage small = m;
        small.payload = SharedBytes::copy_of(p.data(), 1000);
        RtmpChunkEncoder::encode_message(small, cs, &wire);
        Result r = decode_all(Bytes(wire.begin(), wire.end()), 7, cs);
        ASSERT_EQ(r.msgs.size(), 1u) << cs;
        EXPECT_TRUE(same_message(r.msgs[0], small));
    }
}

TEST(RtmpChunkDecoder, InterleavedAudioAndVideo) {
    const Bytes v = pattern(300, 1), a = pattern(200, 2);
    Chunks c;
    c.fmt0(6, 40, 300, kRtmpVideo, 1).data(v, 0, 128);
    c.fmt0(4, 46, 200, kRtmpAudio, 1).data(a, 0, 128);
    c.basic(3, 6).data(v, 128, 128);
    c.basic(3, 4).data(a, 128, 72);  // audio completes first
    c.basic(3, 6).data(v, 256, 44);
    c.basic(2, 4).u24(23).data(a, 0, 128);  // next audio message, delta 23
    c.basic(1, 6).u24(40).u24(10).u8(kRtmpVideo).data(v, 0, 10);
    c.basic(3, 4).data(a, 128, 72);
    Result r = decode_both_ways(c.b);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 4u);
    EXPECT_TRUE(r.msgs[0].is_audio());
    EXPECT_EQ(r.msgs[0].timestamp, 46u);
    EXPECT_EQ(payload_of(r.msgs[0]), a);
    EXPECT_TRUE(r.msgs[1].is_video());
    EXPECT_EQ(payload_of(r.msgs[1]), v);
    EXPECT_TRUE(r.msgs[2].is_video());
    EXPECT_EQ(r.msgs[2].timestamp, 80u);
    EXPECT_EQ(r.msgs[2].payload.size(), 10u);
    EXPECT_TRUE(r.msgs[3].is_audio());
    EXPECT_EQ(r.msgs[3].timestamp, 69u);
}

TEST(RtmpChunkDecoder, StopsAfterSetChunkSizeSoItAppliesToTheNextChunk) {
    const Bytes p = pattern(1000);
    Chunks c;
    c.fmt0(2, 0, 4, kRtmpSetChunkSize, 0).u32(4096);
    c.fmt0(3, 0, 1000, kRtmpAmf0Command, 0).data(p, 0, 1000);  // one chunk at 4096
    RtmpChunkDecoder dec;
    std::vector<RtmpMessage> out;
    size_t consumed = 0;
    ASSERT_TRUE(dec.decode(c.b.data(), c.b.size(), &consumed, &out).ok());
    EXPECT_EQ(consumed, 16u);
    ASSERT_EQ(out.size(), 1u);
    dec.set_chunk_size(4096);
    ASSERT_TRUE(dec.decode(c.b.data() + 16, c.b.size() - 16, &consumed, &out).ok());
    EXPECT_EQ(consumed, c.b.size() - 16);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(payload_of(out[1]), p);
    expect_same(decode_both_ways(c.b).msgs, out);
}

TEST(RtmpChunkDecoder, AbortDropsThePartialMessage) {
    const Bytes p = pattern(300);
    Chunks c;
    c.fmt0(6, 0, 300, kRtmpVideo, 1).data(p, 0, 128);
    c.fmt0(2, 0, 4, kRtmpAbort, 0).u32(6);
    c.basic(3, 6).data(p, 0, 128).basic(3, 6).data(p, 128, 128).basic(3, 6).data(p, 256, 44);  // a new message
    Result r = decode_both_ways(c.b);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 2u);
    EXPECT_EQ(r.msgs[0].type, kRtmpAbort);
    EXPECT_EQ(payload_of(r.msgs[1]), p);

    RtmpChunkDecoder dec;
    std::vector<RtmpMessage> out;
    size_t consumed = 0;
    ASSERT_TRUE(dec.decode(c.b.data(), 140, &consumed, &out).ok());
    EXPECT_EQ(dec.pending_bytes(), 300u);
    dec.abort(6);
    dec.abort(99);  // unknown: ignored
    EXPECT_EQ(dec.pending_bytes(), 0u);
}

TEST(RtmpChunkDecoder, MessageTooLargeFailsBeforeAllocating) {
    // The 24-bit field cannot say 16 MiB + 1, so the limit is configured below
    // what a header can carry: max 1 MiB, a header claiming 1 MiB + 1.
    Chunks c;
    c.fmt0(6, 0, (1u << 20) + 1, kRtmpVideo, 1);
    {
        RtmpChunkDecoder dec;
        dec.set_max_message_size(1u << 20);
        std::vector<RtmpMessage> out;
        size_t consumed = 99;
        const size_t before = heap_bytes();
        Error err = dec.decode(c.b.data(), c.b.size(), &consumed, &out);
        EXPECT_LT(heap_bytes() - before, 64u * 1024);
        EXPECT_EQ(err.code(), kErrorRtmpChunkMessageTooLarge);
        EXPECT_NE(err.message().find("1048577"), std::string::npos) << err.message();
        EXPECT_EQ(dec.pending_bytes(), 0u);
    }
    // The largest a header can say, 16 MiB - 1, is within the default limit;
    // with the limit one lower it fails, and nothing is allocated either way
    // until the first chunk is whole.
    Chunks big;
    big.fmt0(6, 0, 0xffffff, kRtmpVideo, 1).data(pattern(100), 0, 100);
    for (uint32_t max : {kRtmpMaxMessageSize, kRtmpMaxMessageSize - 1}) {
        RtmpChunkDecoder dec;
        dec.set_max_message_size(max);
        std::vector<RtmpMessage> out;
        size_t consumed = 99;
        const size_t before = heap_bytes();
        Error err = dec.decode(big.b.data(), big.b.size(), &consumed, &out);
        EXPECT_LT(heap_bytes() - before, 64u * 1024);
        EXPECT_EQ(dec.pending_bytes(), 0u);
        if (max == kRtmpMaxMessageSize) {
            EXPECT_TRUE(err.ok());
            EXPECT_EQ(consumed, 0u);
        } else {
            EXPECT_EQ(err.code(), kErrorRtmpChunkMessageTooLarge);
        }
        err.ignore();
    }
}

TEST(RtmpChunkDecoder, FirstChunkWithoutPreviousHeader) {
    for (uint8_t fmt : {2, 3}) {
        Chunks c;
        c.basic(fmt, 5);
        if (fmt == 2) c.u24(10);
        c.u8(0);
        Result r = decode_both_ways(c.b);
        EXPECT_EQ(r.error, kErrorRtmpChunkNoPreviousHeader) << int(fmt);
        RtmpChunkDecoder dec;
        std::vector<RtmpMessage> out;
        size_t consumed = 0;
        Error err = dec.decode(c.b.data(), c.b.size(), &consumed, &out);
        EXPECT_NE(err.message().find("chunk stream 5 starts with a fmt " + std::to_string(fmt)), std::string::npos)
            << err.message();
        err.ignore();
    }
    // librtmp answers a ping with a fmt 1 chunk on a fresh chunk stream 2:
    // accepted, message stream 0.
    Result r = decode_both_ways(unhex("4200000000000604000700000d0f"));
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 1u);
    EXPECT_EQ(r.msgs[0].type, kRtmpUserControl);
    EXPECT_EQ(r.msgs[0].stream_id, 0u);
    EXPECT_EQ(payload_of(r.msgs[0]), unhex("000700000d0f"));
}

TEST(RtmpChunkDecoder, LengthChangeInTheMiddleOfAMessage) {
    const Bytes p = pattern(300);
    Chunks ok;
    ok.fmt0(6, 0, 300, kRtmpVideo, 1).data(p, 0, 128);
    ok.basic(1, 6).u24(0).u24(300).u8(kRtmpVideo).data(p, 128, 128);  // same length: continues
    ok.basic(3, 6).data(p, 256, 44);
    Result r = decode_both_ways(ok.b);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 1u);
    EXPECT_EQ(payload_of(r.msgs[0]), p);

    for (uint8_t fmt : {0, 1}) {
        Chunks bad;
        bad.fmt0(6, 0, 300, kRtmpVideo, 1).data(p, 0, 128);
        if (fmt == 0) bad.fmt0(6, 0, 301, kRtmpVideo, 1);
        else bad.basic(1, 6).u24(0).u24(299).u8(kRtmpVideo);
        Result e = decode_both_ways(bad.b);
        EXPECT_EQ(e.error, kErrorRtmpChunkLengthChanged);
    }
}

TEST(RtmpChunkDecoder, TooManyChunkStreams) {
    Chunks c;
    for (uint32_t cs = 2; cs < 2 + 64; cs++) c.fmt0(cs, 0, 1, kRtmpAudio, 1).u8(1);  // ids 2..65
    Result r = decode_both_ways(c.b);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(r.msgs.size(), 64u);
    c.fmt0(3, 0, 1, kRtmpAudio, 1).u8(1);    // a known one: fine
    c.fmt0(400, 0, 1, kRtmpAudio, 1).u8(1);  // the 65th
    r = decode_both_ways(c.b);
    EXPECT_EQ(r.error, kErrorRtmpChunkTooManyStreams);
    EXPECT_EQ(r.msgs.size(), 65u);
}

TEST(RtmpChunkDecoder, PendingBytesAreBounded) {
    RtmpChunkDecoder dec;
    dec.set_max_pending_bytes(1000);
    Chunks c;
    c.fmt0(4, 0, 600, kRtmpAudio, 1).data(pattern(128), 0, 128);
    c.fmt0(6, 0, 600, kRtmpVideo, 1).data(pattern(128), 0, 128);
    Result r = decode_all(c.b, c.b.size(), 128, &dec);
    EXPECT_EQ(r.error, kErrorRtmpChunkPendingTooLarge);
}

TEST(RtmpChunkDecoder, UnderAGuardPage) {
    // Every prefix of each input is placed right before a PROT_NONE page, so
    // reading one byte too far crashes.
    std::vector<Bytes> inputs = {unhex(kFfmpegPublishHex), extended_message(true), extended_message(false)};
    Chunks c;
    c.u8(0x01).u8(0xff).u8(0xff).u24(0xffffff).u24(5).u8(kRtmpAudio).u32le(1).u32(0x01000000).u32(1).u8(2);
    c.u8(0xc1).u8(0xff).u8(0xff).u32(0x01000000).u32(3).u8(4);
    inputs.push_back(c.b);
    for (const Bytes& in : inputs) {
        GuardPage guard(in.size());
        std::vector<RtmpMessage> last;
        for (size_t len = 0; len <= in.size(); len++) {
            const uint8_t* at = guard.place(in.data(), len);
            RtmpChunkDecoder dec;
            std::vector<RtmpMessage> out;
            int error = 0;
            decode_in_place(&dec, at, len, &out, &error);
            EXPECT_EQ(error, 0);
            last.swap(out);
        }
        expect_same(last, decode_all(in, in.size()).msgs);
        EXPECT_FALSE(last.empty());
    }
}

TEST(RtmpChunkEncoder, HeadersAndExtendedTimestamp) {
    RtmpMessage m;
    m.type = kRtmpVideo;
    m.timestamp = 0x123456;
    m.stream_id = 0x01020304;
    m.cs_id = 6;
    m.payload = SharedBytes::copy_of("abc", 3);
    std::string first, cont;
    RtmpChunkEncoder::encode_headers(m, 128, &first, &cont);
    EXPECT_EQ(Bytes(first.begin(), first.end()), unhex("061234560000030904030201"));
    EXPECT_EQ(Bytes(cont.begin(), cont.end()), unhex("c6"));

    for (uint32_t ts : {0xfffffeu, 0xffffffu, 0x01000000u, 0xffffffffu}) {
        m.timestamp = ts;
        RtmpChunkEncoder::encode_headers(m, 128, &first, &cont);
        const bool ext = ts >= 0xffffff;
        EXPECT_EQ(first.size(), ext ? 16u : 12u);
        EXPECT_EQ(cont.size(), ext ? 5u : 1u);
        if (ext) {
            EXPECT_EQ(Bytes(first.begin() + 1, first.begin() + 4), unhex("ffffff"));
            EXPECT_EQ(first.substr(12), cont.substr(1));
            EXPECT_EQ(static_cast<uint8_t>(cont[1]), ts >> 24);
        }
    }
}

TEST(RtmpChunkEncoder, RoundTripsThroughTheDecoderAndIovecs) {
    std::mt19937 rng(42);
    const uint32_t cs_ids[] = {2, 3, 4, 5, 6, 7, 8, 63, 64, 100, 319, 320, 1000, 65599};
    const uint8_t types[] = {kRtmpAudio, kRtmpVideo, kRtmpAmf0Data, kRtmpAmf0Command, kRtmpAmf3Command,
                             kRtmpUserControl, kRtmpAggregate, 0, 255};
    std::vector<RtmpMessage> msgs;
    for (int i = 0; i < 300; i++) {
        RtmpMessage m;
        m.type = types[rng() % (sizeof(types))];
        m.cs_id = cs_ids[rng() % (sizeof(cs_ids) / sizeof(cs_ids[0]))];
        m.stream_id = rng() % 3 == 0 ? rng() : rng() % 4;
        switch (rng() % 4) {
            case 0: m.timestamp = rng() % 100000; break;
            case 1: m.timestamp = 0xffffff; break;
            case 2: m.timestamp = 0xffffff + rng() % 1000; break;
            default: m.timestamp = rng(); break;
        }
        const size_t size = rng() % 5 == 0 ? 0 : rng() % 3000;
        m.payload = SharedBytes::copy_of(pattern(size, rng()).data(), size);
        msgs.push_back(m);
    }
    for (uint32_t cs : {1u, 127u, 128u, 4096u, 65536u}) {
        std::string wire, via_iov;
        for (const RtmpMessage& m : msgs) {
            const size_t before = wire.size();
            RtmpChunkEncoder::encode_message(m, cs, &wire);
            std::string first, cont;
            RtmpChunkEncoder::encode_headers(m, cs, &first, &cont);
            const size_t chunks = RtmpChunkEncoder::chunk_count(m.payload.size(), cs);
            std::vector<iovec> iov(chunks * 2);
            EXPECT_EQ(RtmpChunkEncoder::fill_iovecs(first, cont, m.payload.data(), m.payload.size(), cs, iov.data(),
                                                    iov.size() - 1),
                      m.payload.size() ? 0u : 1u);  // too small: nothing
            const size_t n = RtmpChunkEncoder::fill_iovecs(first, cont, m.payload.data(), m.payload.size(), cs,
                                                           iov.data(), iov.size());
            ASSERT_EQ(n, m.payload.size() ? chunks * 2 : 1u);
            for (size_t k = 0; k < n; k++) via_iov.append(static_cast<const char*>(iov[k].iov_base), iov[k].iov_len);
            EXPECT_EQ(wire.size() - before, first.size() + m.payload.size() + (chunks - 1) * cont.size());
        }
        EXPECT_EQ(wire, via_iov);
        const Bytes in(wire.begin(), wire.end());
        Result whole = decode_all(in, in.size(), cs);
        ASSERT_EQ(whole.error, 0);
        EXPECT_EQ(whole.leftover, 0u);
        expect_same(whole.msgs, msgs);
        if (cs >= 128) expect_same(decode_all(in, 1, cs).msgs, msgs);
    }
}

TEST(RtmpChunkEncoder, ChunkCount) {
    EXPECT_EQ(RtmpChunkEncoder::chunk_count(0, 128), 1u);
    EXPECT_EQ(RtmpChunkEncoder::chunk_count(1, 128), 1u);
    EXPECT_EQ(RtmpChunkEncoder::chunk_count(128, 128), 1u);
    EXPECT_EQ(RtmpChunkEncoder::chunk_count(129, 128), 2u);
    EXPECT_EQ(RtmpChunkEncoder::chunk_count(65536, 65536), 1u);
    EXPECT_EQ(RtmpChunkEncoder::chunk_count(0xffffff, 128), 131072u);
}
