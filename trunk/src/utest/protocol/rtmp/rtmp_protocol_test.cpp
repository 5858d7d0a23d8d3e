// RtmpProtocol: control messages handled in place, aggregates split, what it
// sends (acks, pongs, builders) byte for byte; every input also fed one byte at
// a time.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "protocol/rtmp/rtmp_protocol.hpp"
#include "utest/protocol/rtmp/rtmp_capture.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }



// One whole message in type-0 chunks, written field by field.
Bytes message(uint32_t cs, uint8_t type, uint32_t ts, uint32_t sid, const Bytes& payload, uint32_t chunk = 128) {
    Bytes b;
    auto basic = [&](uint8_t fmt) { b.push_back(static_cast<uint8_t>(fmt << 6 | cs)); };
    auto u24 = [&](uint32_t v) {
        b.push_back(static_cast<uint8_t>(v >> 16));
        b.push_back(static_cast<uint8_t>(v >> 8));
        b.push_back(static_cast<uint8_t>(v));
    };
    basic(0);
    u24(ts);
    u24(static_cast<uint32_t>(payload.size()));
    b.push_back(type);
    for (int i = 0; i < 4; i++) b.push_back(static_cast<uint8_t>(sid >> (8 * i)));
    for (size_t off = 0; off < payload.size(); off += chunk) {
        if (off) basic(3);
        b.insert(b.end(), payload.begin() + off, payload.begin() + off + std::min<size_t>(chunk, payload.size() - off));
    }
    return b;
}

Bytes be32(uint32_t v) {
    return Bytes{static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8),
                 static_cast<uint8_t>(v)};
}

Bytes cat(std::initializer_list<Bytes> parts) {
    Bytes out;
    for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

Bytes pattern(size_t n, uint32_t seed = 1) {
    Bytes p(n);
    for (size_t i = 0; i < n; i++) p[i] = static_cast<uint8_t>(i * 13 + seed);
    return p;
}

Bytes payload_of(const RtmpMessage& m) { return Bytes(m.payload.data(), m.payload.data() + m.payload.size()); }

struct FeedResult {
    std::vector<RtmpMessage> msgs;
    std::string output;
    int error = 0;
    std::string error_message;
    size_t leftover = 0;
};

// Feeds `in` `step` bytes at a time through a receive buffer.
FeedResult feed(RtmpProtocol* proto, const Bytes& in, size_t step) {
    FeedResult r;
    Bytes buf;
    for (size_t fed = 0; fed < in.size() && !r.error;) {
        size_t n = std::min(step, in.size() - fed);
        buf.insert(buf.end(), in.begin() + fed, in.begin() + fed + n);
        fed += n;
        size_t consumed = 0;
        Error err = proto->feed(buf.data(), buf.size(), &consumed);
        if (!err.ok()) {
            r.error = err.code();
            r.error_message = err.message();
        }
        buf.erase(buf.begin(), buf.begin() + consumed);
        for (RtmpMessage m; proto->pop_message(&m);) r.msgs.push_back(m);
        if (proto->has_output()) r.output += proto->take_output();
    }
    r.leftover = buf.size();
    return r;
}

bool same_message(const RtmpMessage& a, const RtmpMessage& b) {
    return a.type == b.type && a.timestamp == b.timestamp && a.stream_id == b.stream_id && a.cs_id == b.cs_id &&
           payload_of(a) == payload_of(b);
}

// Whole and one byte at a time must give the same messages, output and error.
FeedResult feed_both_ways(const Bytes& in, const RtmpProtocolOptions& options = RtmpProtocolOptions()) {
    RtmpProtocol a(options), b(options);
    FeedResult whole = feed(&a, in, in.size() ? in.size() : 1);
    FeedResult bytewise = feed(&b, in, 1);
    EXPECT_EQ(whole.error, bytewise.error);
    EXPECT_EQ(whole.output, bytewise.output);
    if (whole.error == 0) {  // after an error, feeding stops
        EXPECT_EQ(whole.leftover, bytewise.leftover);
    }
    EXPECT_EQ(whole.msgs.size(), bytewise.msgs.size());
    for (size_t i = 0; i < std::min(whole.msgs.size(), bytewise.msgs.size()); i++) {
        EXPECT_TRUE(same_message(whole.msgs[i], bytewise.msgs[i])) << i;
    }
    return whole;
}

// Decodes what the protocol produced, applying its Set Chunk Size.
std::vector<RtmpMessage> decode_output(const std::string& out) {
    RtmpProtocol peer;
    FeedResult r = feed(&peer, to_bytes(out), out.size() ? out.size() : 1);
    EXPECT_EQ(r.error, 0) << r.error_message;
    EXPECT_EQ(r.leftover, 0u);
    // Control messages are consumed by the peer; decode them raw instead.
    RtmpChunkDecoder dec;
    std::vector<RtmpMessage> msgs;
    size_t pos = 0;
    const Bytes bytes = to_bytes(out);
    for (;;) {
        size_t consumed = 0, before = msgs.size();
        Error err = dec.decode(bytes.data() + pos, bytes.size() - pos, &consumed, &msgs);
        EXPECT_TRUE(err.ok());
        for (size_t i = before; i < msgs.size(); i++) {
            if (msgs[i].type == kRtmpSetChunkSize) {
                const Bytes p = payload_of(msgs[i]);
                dec.set_chunk_size((uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3]);
            }
        }
        pos += consumed;
        if (consumed == 0) break;
    }
    EXPECT_EQ(pos, bytes.size());
    return msgs;
}

}  // namespace

TEST(RtmpProtocol, FfmpegPublishCapture) {
    const Bytes in = unhex(kFfmpegPublishHex);
    FeedResult r = feed_both_ways(in);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 8u);
    EXPECT_TRUE(r.msgs[0].is_command());
    EXPECT_EQ(r.msgs[5].type, kRtmpAmf0Data);
    EXPECT_TRUE(r.msgs[6].is_video());
    EXPECT_TRUE(r.msgs[7].is_audio());
    EXPECT_TRUE(r.output.empty());
    RtmpProtocol proto;
    size_t consumed = 0;
    ASSERT_TRUE(proto.feed(in.data(), in.size(), &consumed).ok());
    EXPECT_EQ(consumed, in.size());
    EXPECT_EQ(proto.bytes_in(), in.size());
    EXPECT_EQ(proto.messages_in(), 8u);
    EXPECT_EQ(proto.queued_messages(), 8u);
}

TEST(RtmpProtocol, SetChunkSizeAppliesToTheNextChunk) {
    const Bytes cmd = pattern(3000);
    const Bytes in =
        cat({message(2, kRtmpSetChunkSize, 0, 0, be32(4096)), message(3, kRtmpAmf0Command, 0, 0, cmd, 4096)});
    FeedResult r = feed_both_ways(in);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 1u);  // Set Chunk Size is not passed up
    EXPECT_EQ(payload_of(r.msgs[0]), cmd);
    RtmpProtocol proto;
    FeedResult again = feed(&proto, in, in.size());
    EXPECT_EQ(proto.in_chunk_size(), 4096u);
    EXPECT_EQ(proto.messages_in(), 2u);
}

TEST(RtmpProtocol, InvalidSetChunkSize) {
    for (uint32_t v : {0u, 1u, 127u, 65537u, 0x7fffffffu, 0x80000000u, 0x80000080u, 0xffffffffu}) {
        FeedResult r = feed_both_ways(message(2, kRtmpSetChunkSize, 0, 0, be32(v)));
        EXPECT_EQ(r.error, kErrorRtmpChunkSizeInvalid) << v;
        EXPECT_NE(r.error_message.find(std::to_string(v)), std::string::npos) << r.error_message;
    }
    for (uint32_t v : {128u, 65536u}) {
        RtmpProtocol proto;
        FeedResult r = feed(&proto, message(2, kRtmpSetChunkSize, 0, 0, be32(v)), 100);
        EXPECT_EQ(r.error, 0);
        EXPECT_EQ(proto.in_chunk_size(), v);
    }
}

TEST(RtmpProtocol, AcknowledgesEachWindow) {
    Bytes in = message(2, kRtmpWindowAckSize, 0, 0, be32(1000));  // 16 bytes
    Bytes audio = message(4, kRtmpAudio, 0, 1, pattern(100));     // 112 bytes
    for (int i = 0; i < 20; i++) in.insert(in.end(), audio.begin(), audio.end());  // 2256 in all

    // Fed whole: one ack with everything received, handshake included.
    RtmpProtocol whole;
    whole.add_bytes_in(3073);
    FeedResult r = feed(&whole, in, in.size());
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(whole.in_ack_window(), 1000u);
    std::vector<RtmpMessage> out = decode_output(r.output);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].type, kRtmpAcknowledgement);
    EXPECT_EQ(out[0].cs_id, 2u);
    EXPECT_EQ(payload_of(out[0]), be32(3073 + 2256));
    EXPECT_EQ(whole.bytes_out(), r.output.size());

    // Fed in pieces: an ack each time 1000 more bytes were consumed.
    RtmpProtocol pieces;
    FeedResult p = feed(&pieces, in, 50);
    out = decode_output(p.output);
    ASSERT_EQ(out.size(), 2u);
    uint32_t last = 0;
    for (const RtmpMessage& m : out) {
        const Bytes v = payload_of(m);
        uint32_t seq = (uint32_t(v[0]) << 24) | (v[1] << 16) | (v[2] << 8) | v[3];
        EXPECT_GE(seq - last, 1000u);
        EXPECT_LT(seq - last, 1000u + 112u);
        last = seq;
    }
    EXPECT_EQ(p.msgs.size(), 20u);

    // Not before a window is complete.
    RtmpProtocol early;
    FeedResult e = feed(&early, Bytes(in.begin(), in.begin() + 16 + 112 * 8), 10000);
    EXPECT_TRUE(e.output.empty());

    // in_ack_size acknowledges without a Window Ack Size from the peer.
    RtmpProtocolOptions options;
    options.in_ack_size = 500;
    RtmpProtocol configured(options);
    FeedResult c = feed(&configured, Bytes(in.begin() + 16, in.end()), 112);
    EXPECT_EQ(decode_output(c.output).size(), 4u);  // 2240 bytes: at 560, 1120, 1680, 2240
}

TEST(RtmpProtocol, PingRequestGetsAPingResponse) {
    const Bytes ping = message(2, kRtmpUserControl, 0, 0, unhex("000601020304"));
    FeedResult r = feed_both_ways(ping);
    ASSERT_EQ(r.error, 0);
    EXPECT_TRUE(r.msgs.empty());
    std::vector<RtmpMessage> out = decode_output(r.output);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].type, kRtmpUserControl);
    EXPECT_EQ(out[0].stream_id, 0u);
    EXPECT_EQ(payload_of(out[0]), unhex("000701020304"));
    EXPECT_EQ(r.output, std::string("\x02\x00\x00\x00\x00\x00\x06\x04\x00\x00\x00\x00\x00\x07\x01\x02\x03\x04", 18));
}

TEST(RtmpProtocol, UserControlEventsAreRecorded) {
    RtmpProtocol proto;
    FeedResult r = feed(&proto, message(2, kRtmpUserControl, 0, 0, unhex("00030000000100000bb8")), 1);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(proto.buffer_length_stream_id(), 1u);
    EXPECT_EQ(proto.buffer_length_ms(), 3000u);
    EXPECT_TRUE(r.output.empty());
    r = feed(&proto, message(2, kRtmpUserControl, 0, 0, unhex("000000000005")), 1);
    EXPECT_TRUE(proto.has_user_control());
    EXPECT_EQ(proto.last_user_control_event(), kRtmpStreamBegin);
    EXPECT_EQ(proto.last_user_control_value(), 5u);
    r = feed(&proto, message(2, kRtmpUserControl, 0, 0, unhex("001f")), 1);  // unknown event, no data
    EXPECT_EQ(r.error, 0);
    EXPECT_EQ(proto.last_user_control_event(), 31u);
}

TEST(RtmpProtocol, SetPeerBandwidthAnswersWithWindowAckSize) {
    auto spb = [](uint32_t bw, uint8_t limit) {
        Bytes p = be32(bw);
        p.push_back(limit);
        return message(2, kRtmpSetPeerBandwidth, 0, 0, p);
    };
    RtmpProtocol proto;
    FeedResult r = feed(&proto, spb(2500000, kRtmpLimitDynamic), 1000);  // dynamic first: ignored
    EXPECT_TRUE(r.output.empty());
    EXPECT_EQ(proto.peer_bandwidth(), 2500000u);
    EXPECT_EQ(proto.peer_bandwidth_limit(), kRtmpLimitDynamic);

    r = feed(&proto, spb(2500000, kRtmpLimitHard), 1000);
    std::vector<RtmpMessage> out = decode_output(r.output);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].type, kRtmpWindowAckSize);
    EXPECT_EQ(payload_of(out[0]), be32(2500000));
    EXPECT_EQ(proto.out_ack_window(), 2500000u);

    r = feed(&proto, spb(2500000, kRtmpLimitHard), 1000);  // same as sent: no answer
    EXPECT_TRUE(r.output.empty());
    r = feed(&proto, spb(3000000, kRtmpLimitDynamic), 1000);  // previous hard: acts as hard
    EXPECT_EQ(payload_of(decode_output(r.output).at(0)), be32(3000000));
    r = feed(&proto, spb(1000000, kRtmpLimitSoft), 1000);  // smaller: applies
    EXPECT_EQ(payload_of(decode_output(r.output).at(0)), be32(1000000));
    r = feed(&proto, spb(2000000, kRtmpLimitSoft), 1000);  // larger soft: the smaller stays
    EXPECT_TRUE(r.output.empty());
    r = feed(&proto, spb(5000000, kRtmpLimitDynamic), 1000);  // previous soft: ignored
    EXPECT_TRUE(r.output.empty());

    RtmpProtocol told;
    told.send_window_ack_size(2500000);
    (void)told.take_output();
    r = feed(&told, spb(2500000, kRtmpLimitHard), 1000);
    EXPECT_TRUE(r.output.empty());
}

TEST(RtmpProtocol, AbortDropsThePartialMessage) {
    const Bytes v = pattern(300), w = pattern(50, 7);
    Bytes partial = message(6, kRtmpVideo, 0, 1, v);
    partial.resize(1 + 11 + 128);  // first chunk only
    const Bytes in = cat({partial, message(2, kRtmpAbort, 0, 0, be32(6)), message(6, kRtmpVideo, 40, 1, w)});
    FeedResult r = feed_both_ways(in);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 1u);
    EXPECT_EQ(payload_of(r.msgs[0]), w);
    EXPECT_EQ(r.msgs[0].timestamp, 40u);
}

TEST(RtmpProtocol, AcknowledgementIsRecorded) {
    RtmpProtocol proto;
    FeedResult r = feed(&proto, message(2, kRtmpAcknowledgement, 0, 0, be32(123456)), 3);
    ASSERT_EQ(r.error, 0);
    EXPECT_EQ(proto.peer_acked_bytes(), 123456u);
    EXPECT_EQ(proto.acks_received(), 1u);
    EXPECT_TRUE(r.msgs.empty());
}

namespace {

Bytes tag(uint8_t type, uint32_t ts, const Bytes& data) {
    Bytes b = {type,
               static_cast<uint8_t>(data.size() >> 16),
               static_cast<uint8_t>(data.size() >> 8),
               static_cast<uint8_t>(data.size()),
               static_cast<uint8_t>(ts >> 16),
               static_cast<uint8_t>(ts >> 8),
               static_cast<uint8_t>(ts),
               static_cast<uint8_t>(ts >> 24),
               0,
               0,
               0};
    b.insert(b.end(), data.begin(), data.end());
    Bytes back = be32(static_cast<uint32_t>(11 + data.size()));
    b.insert(b.end(), back.begin(), back.end());
    return b;
}

}  // namespace

TEST(RtmpProtocol, AggregateIsSplit) {
    const Bytes v1 = pattern(10, 1), a1 = pattern(5, 2), m1 = pattern(20, 3);
    const Bytes agg = cat({tag(kRtmpVideo, 1000, v1), tag(kRtmpAudio, 1020, a1), tag(kRtmpVideo, 1040, {}),
                           tag(kRtmpAmf0Data, 0x01000000 + 1000, m1)});
    FeedResult r = feed_both_ways(message(6, kRtmpAggregate, 5000, 1, agg));
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 4u);
    const uint8_t types[] = {kRtmpVideo, kRtmpAudio, kRtmpVideo, kRtmpAmf0Data};
    const uint32_t times[] = {5000, 5020, 5040, 5000 + 0x01000000};
    const Bytes payloads[] = {v1, a1, {}, m1};
    for (size_t i = 0; i < 4; i++) {
        EXPECT_EQ(r.msgs[i].type, types[i]);
        EXPECT_EQ(r.msgs[i].timestamp, times[i]);
        EXPECT_EQ(r.msgs[i].stream_id, 1u);
        EXPECT_EQ(r.msgs[i].cs_id, 6u);
        EXPECT_EQ(payload_of(r.msgs[i]), payloads[i]);
    }
    // Times before the first part wrap around, as 32-bit arithmetic does.
    r = feed_both_ways(message(6, kRtmpAggregate, 100, 1, cat({tag(kRtmpAudio, 500, a1), tag(kRtmpAudio, 400, a1)})));
    ASSERT_EQ(r.msgs.size(), 2u);
    EXPECT_EQ(r.msgs[1].timestamp, 0u);
    // An empty aggregate carries nothing.
    EXPECT_TRUE(feed_both_ways(message(6, kRtmpAggregate, 0, 1, {})).msgs.empty());
}

TEST(RtmpProtocol, BrokenAggregate) {
    const Bytes good = tag(kRtmpVideo, 0, pattern(10));
    Bytes no_back = good;
    no_back.resize(no_back.size() - 1);
    Bytes too_long = good;
    too_long[3] = 11;  // data size 11, one more than there is
    const Bytes cases[] = {
        Bytes(good.begin(), good.begin() + 5),            // header truncated
        no_back,                                          // back pointer truncated
        too_long,                                         // data size past the end
        cat({good, tag(kRtmpAmf0Command, 0, pattern(4))}),  // a command inside
        cat({good, tag(kRtmpAggregate, 0, good)}),        // nested aggregate
        cat({good, Bytes{8, 0, 0}}),                      // trailing bytes
    };
    for (const Bytes& agg : cases) {
        FeedResult r = feed_both_ways(message(6, kRtmpAggregate, 0, 1, agg));
        EXPECT_EQ(r.error, kErrorRtmpAggregateMalformed) << r.error_message;
        EXPECT_TRUE(r.msgs.empty());  // nothing half-split
    }
}

TEST(RtmpProtocol, ShortControlMessagesFail) {
    const std::pair<uint8_t, Bytes> control[] = {
        {kRtmpSetChunkSize, unhex("000010")}, {kRtmpAbort, unhex("00")},     {kRtmpAcknowledgement, {}},
        {kRtmpWindowAckSize, unhex("0001")},  {kRtmpSetPeerBandwidth, unhex("000100")},
    };
    for (const auto& c : control) {
        FeedResult r = feed_both_ways(message(2, c.first, 0, 0, c.second));
        EXPECT_EQ(r.error, kErrorRtmpControlMalformed) << int(c.first);
    }
    for (const char* hex : {"", "00", "0006010203", "000300000001000000", "0000"}) {
        FeedResult r = feed_both_ways(message(2, kRtmpUserControl, 0, 0, unhex(hex)));
        EXPECT_EQ(r.error, kErrorRtmpUserControlMalformed) << hex;
    }
    // Set Peer Bandwidth without its limit type byte is taken as dynamic.
    EXPECT_EQ(feed_both_ways(message(2, kRtmpSetPeerBandwidth, 0, 0, be32(1000))).error, 0);
}

TEST(RtmpProtocol, OtherMessagesPassThrough) {
    const Bytes in = cat({message(3, kRtmpAmf3Command, 0, 0, unhex("0002000474657374")),
                          message(5, kRtmpAmf0SharedObject, 0, 1, pattern(30)),
                          message(5, kRtmpAmf3Data, 9, 1, pattern(3))});
    FeedResult r = feed_both_ways(in);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 3u);
    EXPECT_EQ(r.msgs[0].type, kRtmpAmf3Command);
    EXPECT_EQ(r.msgs[1].type, kRtmpAmf0SharedObject);
    EXPECT_EQ(r.msgs[2].timestamp, 9u);
}

TEST(RtmpProtocol, UnknownMessageTypesAreErrors) {
    // 7, 10-14, 21 and anything above 22 are not RTMP message types.
    for (uint8_t type : {7, 10, 11, 12, 13, 14, 21, 23, 99, 255}) {
        const Bytes in = cat({message(3, kRtmpAmf0Command, 0, 0, unhex("0002000474657374")),
                              message(5, type, 0, 1, pattern(3))});
        FeedResult r = feed_both_ways(in);
        EXPECT_EQ(r.error, kErrorRtmpMessageTypeUnknown) << int(type);
        // What came before the bad message is still delivered.
        EXPECT_EQ(r.msgs.size(), 1u) << int(type);
    }
}

TEST(RtmpProtocol, ChunkErrorsSurface) {
    RtmpProtocolOptions options;
    options.max_message_size = 1000;
    FeedResult r = feed_both_ways(message(6, kRtmpVideo, 0, 1, pattern(1001)), options);
    EXPECT_EQ(r.error, kErrorRtmpChunkMessageTooLarge);
    EXPECT_EQ(feed_both_ways(unhex("c600")).error, kErrorRtmpChunkNoPreviousHeader);
}

TEST(RtmpProtocol, BuildersProduceExactBytes) {
    RtmpProtocol proto;
    proto.send_window_ack_size(2500000);
    EXPECT_EQ(to_bytes(proto.take_output()), unhex("020000000000040500000000002625a0"));
    proto.send_set_peer_bandwidth(2500000, kRtmpLimitDynamic);
    EXPECT_EQ(to_bytes(proto.take_output()), unhex("020000000000050600000000002625a002"));
    proto.send_user_control(kRtmpStreamBegin, 1);
    EXPECT_EQ(to_bytes(proto.take_output()), unhex("020000000000060400000000000000000001"));
    proto.send_user_control(kRtmpStreamEof, 1);
    EXPECT_EQ(to_bytes(proto.take_output()), unhex("020000000000060400000000000100000001"));
    proto.send_user_control(kRtmpPingRequest, 0x1234);
    EXPECT_EQ(to_bytes(proto.take_output()), unhex("020000000000060400000000000600001234"));
    proto.send_user_control(kRtmpSetBufferLength, 1, 3000);
    EXPECT_EQ(to_bytes(proto.take_output()), unhex("0200000000000a040000000000030000000100000bb8"));
    EXPECT_FALSE(proto.has_output());

    size_t consumed = 0;
    const Bytes audio = message(4, kRtmpAudio, 0, 1, pattern(20));
    ASSERT_TRUE(proto.feed(audio.data(), audio.size(), &consumed).ok());
    proto.send_acknowledgement();
    EXPECT_EQ(to_bytes(proto.take_output()), cat({unhex("020000000000040300000000"), be32(32)}));

    proto.set_out_chunk_size(4096);
    EXPECT_EQ(proto.out_chunk_size(), 4096u);
    EXPECT_EQ(to_bytes(proto.take_output()), unhex("02000000000004010000000000001000"));
}

TEST(RtmpProtocol, QueueMessageUsesTheOutChunkSize) {
    RtmpProtocol proto;
    RtmpMessage cmd;
    cmd.type = kRtmpAmf0Command;
    cmd.cs_id = kRtmpCidOverConnection;
    const Bytes body = pattern(5000);
    cmd.payload = SharedBytes::copy_of(body.data(), body.size());
    proto.queue_message(cmd);  // at 128: 40 chunks
    proto.set_out_chunk_size(4096);
    proto.queue_message(cmd);  // at 4096: 2 chunks
    const uint64_t produced = proto.bytes_out();
    const std::string out = proto.take_output();
    EXPECT_EQ(produced, out.size());
    EXPECT_EQ(out.size(), (12 + 5000 + 39) + 16 + (12 + 5000 + 1));
    std::vector<RtmpMessage> msgs = decode_output(out);
    ASSERT_EQ(msgs.size(), 3u);
    EXPECT_EQ(payload_of(msgs[0]), body);
    EXPECT_EQ(msgs[1].type, kRtmpSetChunkSize);
    EXPECT_EQ(payload_of(msgs[2]), body);
    EXPECT_EQ(msgs[2].cs_id, 3u);
}

TEST(RtmpProtocol, MixedSessionWholeAndBytewise) {
    // A client's view of a server: chunk size, window, bandwidth, stream begin,
    // a ping, an aggregate, media; the output must not depend on the splits
    // (no ack window here, acks depend on where the reads end).
    const Bytes in = cat({
        message(2, kRtmpSetChunkSize, 0, 0, be32(4096)),
        message(2, kRtmpSetPeerBandwidth, 0, 0, unhex("002625a002")),
        message(2, kRtmpSetPeerBandwidth, 0, 0, unhex("002625a000")),
        message(2, kRtmpUserControl, 0, 0, unhex("000000000001")),
        message(3, kRtmpAmf0Command, 0, 0, pattern(6000), 4096),
        message(2, kRtmpUserControl, 0, 0, unhex("0006000003e8")),
        message(6, kRtmpAggregate, 100, 1, cat({tag(kRtmpVideo, 7, pattern(5000)), tag(kRtmpAudio, 30, pattern(9))}),
                4096),
        message(4, kRtmpAudio, 130, 1, pattern(9)),
    });
    FeedResult r = feed_both_ways(in);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(r.msgs.size(), 4u);
    EXPECT_EQ(r.msgs[1].timestamp, 100u);
    EXPECT_EQ(r.msgs[2].timestamp, 123u);
    std::vector<RtmpMessage> out = decode_output(r.output);
    ASSERT_EQ(out.size(), 2u);  // Window Ack Size for the hard limit, the pong
    EXPECT_EQ(out[0].type, kRtmpWindowAckSize);
    EXPECT_EQ(payload_of(out[1]), unhex("0007000003e8"));
}
