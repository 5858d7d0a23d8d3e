// The WebRTC source: keyframe detection per codec, the players' header and
// numbering (continuous across republishes), the ring, fan-out and the
// keyframe request limit.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "app/rtc/rtc_source.hpp"
#include "core/bytes.hpp"

using namespace srs;

namespace {

std::vector<uint8_t> rtp(uint16_t seq, uint32_t ts, uint8_t pt, std::vector<uint8_t> payload, bool with_ext = false,
                         uint32_t ssrc = 0x11223344) {
    std::vector<uint8_t> p = {0x80, pt, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    store_be16(p.data() + 2, seq);
    store_be32(p.data() + 4, ts);
    store_be32(p.data() + 8, ssrc);
    if (with_ext) {
        p[0] |= 0x10;
        // one-byte form: id 3, 2 bytes (transport-wide seq), padded to a word
        const uint8_t ext[] = {0xBE, 0xDE, 0x00, 0x01, 0x31, 0x12, 0x34, 0x00};
        p.insert(p.end(), ext, ext + sizeof(ext));
    }
    p.insert(p.end(), payload.begin(), payload.end());
    return p;
}

RtpHeader parse(const std::vector<uint8_t>& p) {
    RtpHeader h;
    EXPECT_TRUE(rtp_parse_header(p.data(), p.size(), &h).ok());
    return h;
}

struct Sink : RtcPlayerSink {
    std::vector<std::pair<RtcMediaKind, uint16_t>> got;
    int unpublished = 0;
    void on_source_packet(RtcMediaKind kind, const RtcPacket& p, utime_t) override { got.push_back({kind, p.seq}); }
    void on_source_unpublish() override { unpublished++; }
};

struct Publisher : RtcPublisherControl {
    int requests = 0;
    void request_keyframe(utime_t) override { requests++; }
};

}  // namespace

TEST(RtcKeyframe, H264SingleStapAndFuA) {
    const uint8_t idr[] = {0x65, 0x88, 0x84};
    const uint8_t sps[] = {0x67, 0x42, 0xe0, 0x1f};
    const uint8_t p_slice[] = {0x41, 0x9a};
    EXPECT_TRUE(rtp_payload_starts_keyframe("H264", idr, sizeof(idr)));
    EXPECT_TRUE(rtp_payload_starts_keyframe("h264", sps, sizeof(sps)));
    EXPECT_FALSE(rtp_payload_starts_keyframe("H264", p_slice, sizeof(p_slice)));
    // STAP-A: SEI (6) then SPS (7).
    const uint8_t stap[] = {0x18, 0x00, 0x02, 0x06, 0x05, 0x00, 0x03, 0x67, 0x42, 0xe0};
    EXPECT_TRUE(rtp_payload_starts_keyframe("H264", stap, sizeof(stap)));
    // A STAP-A whose size runs past the end is not trusted.
    const uint8_t stap_bad[] = {0x18, 0x00, 0x09, 0x67, 0x42};
    EXPECT_FALSE(rtp_payload_starts_keyframe("H264", stap_bad, sizeof(stap_bad)));
    // FU-A: start of an IDR is a keyframe start; its middle is not.
    const uint8_t fu_start[] = {0x7c, 0x85, 0xaa};
    const uint8_t fu_middle[] = {0x7c, 0x05, 0xaa};
    const uint8_t fu_p[] = {0x7c, 0x81, 0xaa};
    EXPECT_TRUE(rtp_payload_starts_keyframe("H264", fu_start, sizeof(fu_start)));
    EXPECT_FALSE(rtp_payload_starts_keyframe("H264", fu_middle, sizeof(fu_middle)));
    EXPECT_FALSE(rtp_payload_starts_keyframe("H264", fu_p, sizeof(fu_p)));
    EXPECT_FALSE(rtp_payload_starts_keyframe("H264", fu_start, 1));
    EXPECT_FALSE(rtp_payload_starts_keyframe("H264", idr, 0));
}

TEST(RtcKeyframe, Vp8) {
    // S=1, PID=0, no extension; frame header bit 0 = 0: key frame.
    const uint8_t key[] = {0x10, 0x50, 0x01, 0x00};
    const uint8_t inter[] = {0x10, 0x51, 0x01, 0x00};
    const uint8_t not_start[] = {0x00, 0x50};
    // X=1, I=1 with a 15-bit picture id, then the key frame header.
    const uint8_t ext[] = {0x90, 0x80, 0x81, 0x23, 0x50};
    EXPECT_TRUE(rtp_payload_starts_keyframe("VP8", key, sizeof(key)));
    EXPECT_FALSE(rtp_payload_starts_keyframe("VP8", inter, sizeof(inter)));
    EXPECT_FALSE(rtp_payload_starts_keyframe("VP8", not_start, sizeof(not_start)));
    EXPECT_TRUE(rtp_payload_starts_keyframe("VP8", ext, sizeof(ext)));
    EXPECT_FALSE(rtp_payload_starts_keyframe("VP8", ext, 3));  // cut inside the descriptor
    EXPECT_FALSE(rtp_payload_starts_keyframe("opus", key, sizeof(key)));
}

TEST(RtcTrack, PlayersHeaderDropsExtensionsAndKeepsPayload) {
    RtcTrack t(RtcMediaKind::kVideo, 16, 0xCAFEBABE);
    RtcTrackCodec c;
    c.present = true;
    c.name = "H264";
    t.set_codec(c);
    auto p = rtp(1000, 90000, 102, {0x65, 1, 2, 3}, true);
    p[1] |= 0x80;  // marker
    const RtcPacket* out = t.store(p.data(), p.size(), parse(p));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->size, 12 + 4);
    EXPECT_EQ(out->data[0], 0x80);     // V=2, no X, no CC
    EXPECT_EQ(out->data[1], 0x80 | 102);
    EXPECT_EQ(load_be32(out->data + 8), 0xCAFEBABEu);
    EXPECT_EQ(out->seq, 1000);
    EXPECT_TRUE(out->keyframe);
    EXPECT_TRUE(out->marker);
    EXPECT_EQ(0, memcmp(out->data + 12, p.data() + p.size() - 4, 4));
    // The same packet again (a retransmission we had) is not fanned out twice.
    EXPECT_EQ(t.store(p.data(), p.size(), parse(p)), nullptr);
    EXPECT_NE(t.find(1000), nullptr);
    EXPECT_EQ(t.find(1001), nullptr);
}

TEST(RtcTrack, RepublishContinuesNumberingAndRingWraps) {
    RtcTrack t(RtcMediaKind::kAudio, 4, 1);
    for (uint16_t s = 65533; s != 2; s++) {
        auto p = rtp(s, 1000u * s, 111, {1});
        ASSERT_NE(t.store(p.data(), p.size(), parse(p)), nullptr);
    }
    // 65533..1 stored (5 packets) in a ring of 4: the oldest was overwritten.
    EXPECT_EQ(t.find(65533), nullptr);
    EXPECT_NE(t.find(1), nullptr);
    // A new publisher starts at 5000: players continue at 2.
    t.rebase();
    auto p = rtp(5000, 7, 111, {1});
    const RtcPacket* out = t.store(p.data(), p.size(), parse(p));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->seq, 2);
    auto q = rtp(5001, 967, 111, {1});
    out = t.store(q.data(), q.size(), parse(q));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->seq, 3);
    // Timestamps keep their spacing after the rebase.
    EXPECT_EQ(t.find(3)->timestamp - t.find(2)->timestamp, 960u);
}

TEST(RtcTrack, RefusesOversizedPackets) {
    RtcTrack t(RtcMediaKind::kVideo, 4, 1);
    auto p = rtp(1, 1, 96, std::vector<uint8_t>(kRtcMaxRtpPacket, 0x41));
    EXPECT_EQ(t.store(p.data(), p.size(), parse(p)), nullptr);
}

TEST(RtcSource, FansOutToEveryPlayerAndLimitsKeyframeRequests) {
    RtcSource s("v", "live", "s");
    Sink a, b;
    Publisher pub;
    RtcTrackCodec audio, video;
    audio.present = video.present = true;
    audio.name = "opus";
    video.name = "H264";
    s.add_player(&a);
    s.add_player(&b);
    s.set_publisher(&pub, audio, video);
    EXPECT_TRUE(s.has_publisher());
    auto p = rtp(10, 0, 111, {1, 2});
    s.on_publisher_rtp(RtcMediaKind::kAudio, p.data(), p.size(), parse(p), 0);
    ASSERT_EQ(a.got.size(), 1u);
    ASSERT_EQ(b.got.size(), 1u);
    EXPECT_EQ(a.got[0].first, RtcMediaKind::kAudio);
    s.remove_player(&b);
    auto q = rtp(11, 960, 111, {1, 2});
    s.on_publisher_rtp(RtcMediaKind::kAudio, q.data(), q.size(), parse(q), 0);
    EXPECT_EQ(a.got.size(), 2u);
    EXPECT_EQ(b.got.size(), 1u);

    // Many players asking within the interval: one request reaches the publisher.
    for (int i = 0; i < 100; i++) s.request_keyframe(1000 + i);
    EXPECT_EQ(pub.requests, 1);
    EXPECT_EQ(s.keyframe_suppressed(), 99u);
    s.request_keyframe(1000 + RtcSource::kKeyframeInterval);
    EXPECT_EQ(pub.requests, 2);

    s.clear_publisher(&pub);
    EXPECT_EQ(a.unpublished, 1);
    EXPECT_FALSE(s.has_publisher());
    s.request_keyframe(10 * kUsPerSecond);  // nobody to ask
    EXPECT_EQ(pub.requests, 2);
}

TEST(RtcSourceManager, FreesIdleSourcesOnly) {
    RtcSourceManager m;
    RtcSource* s = m.fetch_or_create("v", "live", "a");
    EXPECT_EQ(m.fetch_or_create("v", "live", "a"), s);
    EXPECT_EQ(m.find("v", "live", "b"), nullptr);
    Sink player;
    s->add_player(&player);
    m.release(s);
    EXPECT_EQ(m.size(), 1u);
    s->remove_player(&player);
    m.release(s);
    EXPECT_EQ(m.size(), 0u);
}

namespace {

// A source of the manager's with an Opus and an H.264 track published.
RtcSource* published_source(RtcSourceManager* m, Publisher* pub) {
    RtcSource* s = m->fetch_or_create("v", "live", "batch");
    RtcTrackCodec audio, video;
    audio.present = video.present = true;
    audio.name = "opus";
    video.name = "H264";
    s->set_publisher(pub, audio, video);
    return s;
}

void publish(RtcSource* s, RtcMediaKind kind, uint16_t seq) {
    auto p = rtp(seq, seq * 3000u, kind == RtcMediaKind::kAudio ? 111 : 96, {0x41, 0x9a});
    s->on_publisher_rtp(kind, p.data(), p.size(), parse(p), 0);
}

}  // namespace

TEST(RtcSource, BatchGivesEachPlayerItsPacketsInARowAudioFirst) {
    RtcSourceManager m;
    Publisher pub;
    RtcSource* s = published_source(&m, &pub);
    // The order the players see is the order in which the sinks are called:
    // one shared log.
    std::vector<std::pair<int, uint16_t>> calls;
    struct Logged : RtcPlayerSink {
        int id = 0;
        std::vector<std::pair<int, uint16_t>>* log = nullptr;
        void on_source_packet(RtcMediaKind kind, const RtcPacket& p, utime_t) override {
            log->push_back({id * 10 + static_cast<int>(kind), p.seq});
        }
        void on_source_unpublish() override {}
    } a, b;
    a.id = 1;
    b.id = 2;
    a.log = b.log = &calls;
    s->add_player(&a);
    s->add_player(&b);
    {
        RtcFanOutBatch batch(&m, 0);
        publish(s, RtcMediaKind::kVideo, 100);
        publish(s, RtcMediaKind::kAudio, 7);
        publish(s, RtcMediaKind::kVideo, 101);
        {
            RtcFanOutBatch nested(&m, 0);  // closing an inner batch fans out nothing yet
            publish(s, RtcMediaKind::kVideo, 102);
        }
        EXPECT_TRUE(calls.empty());
    }
    // Player 1's audio then its three video packets, then player 2's.
    const uint16_t v0 = s->track(RtcMediaKind::kVideo).last_seq() - 2;
    const uint16_t a0 = s->track(RtcMediaKind::kAudio).last_seq();
    std::vector<std::pair<int, uint16_t>> want = {
        {10, a0}, {11, v0}, {11, uint16_t(v0 + 1)}, {11, uint16_t(v0 + 2)},
        {20, a0}, {21, v0}, {21, uint16_t(v0 + 1)}, {21, uint16_t(v0 + 2)}};
    EXPECT_EQ(calls, want);

    // Outside a batch a packet goes out at once.
    calls.clear();
    publish(s, RtcMediaKind::kAudio, 8);
    EXPECT_EQ(calls.size(), 2u);
    s->remove_player(&a);
    s->remove_player(&b);
}

TEST(RtcSource, BatchFansOutBeforeTheRingCouldOverwriteAKeptPacket) {
    RtcSourceManager m;
    Publisher pub;
    RtcSource* s = published_source(&m, &pub);
    Sink player;
    s->add_player(&player);
    const int n = static_cast<int>(RtcSource::kMaxPending) + 10;
    {
        // More than kMaxPending in one batch: the first kMaxPending reach
        // the player before the batch closes, the rest when it does.
        RtcFanOutBatch batch(&m, 0);
        for (int i = 0; i < n; i++) publish(s, RtcMediaKind::kVideo, static_cast<uint16_t>(1000 + i));
        EXPECT_EQ(player.got.size(), RtcSource::kMaxPending);
    }
    // Each once, in order.
    ASSERT_EQ(player.got.size(), static_cast<size_t>(n));
    for (int i = 1; i < n; i++) EXPECT_EQ(uint16_t(player.got[i].second - player.got[i - 1].second), 1);
    s->remove_player(&player);
}

TEST(RtcSourceManager, ReleasedSourceLeavesTheBatch) {
    RtcSourceManager m;
    Publisher pub;
    RtcSource* s = published_source(&m, &pub);
    Sink player;
    s->add_player(&player);
    m.begin_batch();
    publish(s, RtcMediaKind::kAudio, 1);
    // The player and publisher leave inside the batch (they cannot in the
    // server, whose batches never yield; the manager copes all the same).
    s->remove_player(&player);
    s->clear_publisher(&pub);
    m.release(s);
    EXPECT_EQ(m.size(), 0u);
    m.end_batch(0);  // the freed source is not touched (ASAN would say so)
    EXPECT_TRUE(player.got.empty());
}
