// RTMP framing of live messages: the chunk headers cached in the message's
// RTMP slot are the chunk encoder's, for every kind of message.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "app/rtmp/rtmp_media_sender.hpp"
#include "io/runtime.hpp"
#include "protocol/rtmp/rtmp_chunk.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

using namespace srs;

namespace {

LiveMessagePtr msg(LiveMessageKind kind, uint32_t ts, size_t size) {
    std::string body(size, '\x42');
    return LiveMessagePtr(LiveMessage::create(kind, ts, SharedBytes::copy_of(body.data(), body.size())));
}

std::string str(const uint8_t* p, size_t n) { return std::string(reinterpret_cast<const char*>(p), n); }

void expect_encoder_headers(const LiveMessage& m, uint8_t type, uint32_t cs_id, uint32_t chunk_size,
                            uint32_t stream_id) {
    FramingSlot slot;
    build_rtmp_framing(m, chunk_size, stream_id, &slot);
    RtmpChunkHeaders h = rtmp_headers_in(slot);
    RtmpMessage want;
    want.type = type;
    want.timestamp = m.timestamp();
    want.stream_id = stream_id;
    want.cs_id = cs_id;
    want.payload = m.payload();
    std::string first, cont;
    RtmpChunkEncoder::encode_headers(want, chunk_size, &first, &cont);
    EXPECT_EQ(str(h.first, h.first_size), first);
    EXPECT_EQ(str(h.continuation, h.continuation_size), cont);
}

}  // namespace

TEST(AppRtmpFraming, MessageTypesOfKinds) {
    EXPECT_EQ(rtmp_message_type_of(*msg(LiveMessageKind::kAudio, 0, 1)), kRtmpAudio);
    EXPECT_EQ(rtmp_message_type_of(*msg(LiveMessageKind::kVideo, 0, 1)), kRtmpVideo);
    EXPECT_EQ(rtmp_message_type_of(*msg(LiveMessageKind::kData, 0, 1)), kRtmpAmf0Data);
}

TEST(AppRtmpFraming, SlotHoldsTheEncodersHeaders) {
    expect_encoder_headers(*msg(LiveMessageKind::kVideo, 40, 300), kRtmpVideo, kRtmpCidVideo, 128, 1);
    expect_encoder_headers(*msg(LiveMessageKind::kAudio, 23, 10), kRtmpAudio, kRtmpCidAudio, 4096, 1);
    expect_encoder_headers(*msg(LiveMessageKind::kData, 0, 100), kRtmpAmf0Data, kRtmpCidOverStream, 60000, 7);
    // An extended timestamp: the longest headers still fit a slot.
    expect_encoder_headers(*msg(LiveMessageKind::kVideo, 0x1234567, 300), kRtmpVideo, kRtmpCidVideo, 128, 1);
}

TEST(AppRtmpFraming, KeyedByChunkSizeAndStream) {
    LiveMessagePtr m = msg(LiveMessageKind::kVideo, 40, 300);
    FramingSlot& slot = m->framing(rtmp_framing_slot());
    build_rtmp_framing(*m, 128, 1, &slot);
    // Another player with the same chunk size and stream reuses the slot.
    FramingSlot same;
    build_rtmp_framing(*m, 128, 1, &same);
    EXPECT_EQ(same.key(), slot.key());
    FramingSlot other_cs, other_sid;
    build_rtmp_framing(*m, 4096, 1, &other_cs);
    build_rtmp_framing(*m, 128, 2, &other_sid);
    EXPECT_NE(other_cs.key(), slot.key());
    EXPECT_NE(other_sid.key(), slot.key());
    EXPECT_EQ(rtmp_framing_slot(), rtmp_framing_slot());
}

TEST(AppRtmpFraming, IovecsFromTheSlotChunkThePayload) {
    LiveMessagePtr m = msg(LiveMessageKind::kVideo, 40, 300);
    FramingSlot slot;
    build_rtmp_framing(*m, 128, 1, &slot);
    RtmpChunkHeaders h = rtmp_headers_in(slot);
    struct iovec iov[6];
    size_t n = RtmpChunkEncoder::fill_iovecs(h.first, h.first_size, h.continuation, h.continuation_size,
                                             m->payload().data(), m->size(), 128, iov, 6);
    ASSERT_EQ(n, 6u);  // 3 chunks: header + payload each
    std::string wire;
    for (size_t i = 0; i < n; i++) wire.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
    RtmpMessage whole;
    whole.type = kRtmpVideo;
    whole.timestamp = 40;
    whole.stream_id = 1;
    whole.cs_id = kRtmpCidVideo;
    whole.payload = m->payload();
    std::string want;
    RtmpChunkEncoder::encode_message(whole, 128, &want);
    EXPECT_EQ(wire, want);
}

namespace {

// What the chunk encoder writes for these messages on stream 1.
std::string encoded(const std::vector<LiveMessagePtr>& msgs, uint32_t chunk_size) {
    std::string want;
    for (const auto& m : msgs) {
        RtmpMessage whole;
        whole.type = rtmp_message_type_of(*m);
        whole.timestamp = m->timestamp();
        whole.stream_id = 1;
        whole.cs_id = m->is_video() ? kRtmpCidVideo : kRtmpCidAudio;
        whole.payload = m->payload();
        RtmpChunkEncoder::encode_message(whole, chunk_size, &want);
    }
    return want;
}

std::string drain(int fd) {
    std::string out;
    char buf[65536];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
}

}  // namespace

// A batch's iovec and scratch arrays are freed once it is written: a
// joining player's GOP is one big batch, and even a steady one held by a
// thousand waiting players is 1.3 MB (measured).
TEST(AppRtmpMediaSender, BatchesLeaveNoArraysBehind) {
    ASSERT_TRUE(init_runtime().ok());
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    TcpConn* raw = nullptr;
    ASSERT_TRUE(TcpConn::adopt(fds[0], &raw).ok());
    std::unique_ptr<TcpConn> sock(raw);
    RtmpMediaSender sender(sock.get(), 1);
    sender.set_chunk_size(60000);

    std::vector<LiveMessagePtr> gop;
    for (uint32_t i = 0; i < 150; i++) gop.push_back(msg(i % 3 ? LiveMessageKind::kAudio : LiveMessageKind::kVideo, i, 50));
    ASSERT_TRUE(sender.send(gop).ok());
    EXPECT_EQ(drain(fds[1]), encoded(gop, 60000));
    EXPECT_EQ(sender.iovec_capacity(), 0u);
    EXPECT_EQ(sender.scratch_capacity(), 0u);  // every message's shared slot fit

    // A steady batch, messages of two chunks among them.
    std::vector<LiveMessagePtr> steady(gop.begin(), gop.begin() + 20);
    std::vector<LiveMessagePtr> fresh;
    for (uint32_t i = 0; i < 20; i++) fresh.push_back(msg(LiveMessageKind::kAudio, 1000 + i, 70000));
    steady.push_back(fresh[19]);
    ASSERT_TRUE(sender.send(steady).ok());
    EXPECT_EQ(drain(fds[1]), encoded(steady, 60000));
    EXPECT_EQ(sender.iovec_capacity(), 0u);

    // Messages framed first for another chunk size: this player frames its
    // own in scratch, and the wire is still right.
    for (int i = 0; i < 2; i++) build_rtmp_framing(*fresh[i], 128, 1, &fresh[i]->framing(rtmp_framing_slot()));
    std::vector<LiveMessagePtr> few(fresh.begin(), fresh.begin() + 2);
    ASSERT_TRUE(sender.send(few).ok());
    EXPECT_EQ(drain(fds[1]), encoded(few, 60000));
    EXPECT_EQ(sender.scratch_capacity(), 0u);
    EXPECT_EQ(sender.iovec_capacity(), 0u);
    ::close(fds[1]);
}
