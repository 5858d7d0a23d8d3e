// The WebRTC source: keyframe detection per codec, the players' header and
// numbering (continuous across republishes), the ring, fan-out and the
// keyframe request limit.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
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

TEST(RtcSource, FanOutAsksForEachPlayersStateTwoStepsAhead) {
    RtcSourceManager m;
    Publisher pub;
    RtcSource* s = published_source(&m, &pub);
    // Each player is asked for stage 0 (its own lines) two players before its
    // turn and for stage 1 (what they point to) one before. The first two are
    // due before they could be: player 0 is asked for nothing, player 1 only
    // for stage 1.
    std::vector<std::string> calls;
    struct Logged : RtcPlayerSink {
        int id = 0;
        std::vector<std::string>* log = nullptr;
        void on_source_packet(RtcMediaKind, const RtcPacket&, utime_t) override {
            log->push_back("send " + std::to_string(id));
        }
        void prefetch(int stage) const override {
            log->push_back("stage " + std::to_string(stage) + " " + std::to_string(id));
        }
        void on_source_unpublish() override {}
    } players[4];
    for (int i = 0; i < 4; i++) {
        players[i].id = i;
        players[i].log = &calls;
        s->add_player(&players[i]);
    }
    publish(s, RtcMediaKind::kAudio, 7);  // outside a batch: at once
    std::vector<std::string> want = {"stage 0 2", "stage 1 1", "send 0",  // player 0 is due at once
                                     "stage 0 3", "stage 1 2", "send 1",
                                     "stage 1 3", "send 2",
                                     "send 3"};
    EXPECT_EQ(calls, want);
    // A batch's fan-out: the same pipeline, each player taking its packets in a row.
    calls.clear();
    {
        RtcFanOutBatch batch(&m, 0);
        publish(s, RtcMediaKind::kAudio, 8);
        publish(s, RtcMediaKind::kVideo, 100);
    }
    want = {"stage 0 2", "stage 1 1", "send 0", "send 0", "stage 0 3", "stage 1 2", "send 1", "send 1",
            "stage 1 3", "send 2", "send 2", "send 3", "send 3"};
    EXPECT_EQ(calls, want);
    // One player: no one ahead to ask for.
    for (int i = 1; i < 4; i++) s->remove_player(&players[i]);
    calls.clear();
    publish(s, RtcMediaKind::kAudio, 9);
    EXPECT_EQ(calls, std::vector<std::string>{"send 0"});
    s->remove_player(&players[0]);
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

// The ring's storage: slots own buffers sized to their packet, the ring is
// bounded by packets and bytes, and a source with a WHIP-like publisher keeps
// no ring while nobody plays.
namespace {

RtcTrackCodec h264() {
    RtcTrackCodec c;
    c.present = true;
    c.name = "H264";
    return c;
}

// An H.264 packet of `size` payload bytes: an IDR slice (0x65) or a non-IDR one (0x41).
std::vector<uint8_t> h264_rtp(uint16_t seq, uint32_t ts, bool idr, size_t size) {
    std::vector<uint8_t> payload(size, 0x9a);
    payload[0] = idr ? 0x65 : 0x41;
    return rtp(seq, ts, 96, payload);
}

struct ManualPublisher : RtcPublisherControl {
    bool honours = true;
    int requests = 0;
    void request_keyframe(utime_t) override { requests++; }
    bool honours_keyframe_requests() const override { return honours; }
};

}  // namespace

TEST(RtcRing, BuffersAreSizedToThePacket) {
    RtcTrack t(RtcMediaKind::kAudio, 256, 1);
    // 100 Opus packets of 12 + 88 bytes: 128-byte buffers, not 1.5 KB slots.
    for (uint16_t s = 0; s < 100; s++) {
        auto p = rtp(s, s * 960u, 111, std::vector<uint8_t>(88, 0x7c));
        ASSERT_NE(t.store(p.data(), p.size(), parse(p)), nullptr);
    }
    EXPECT_EQ(t.ring_packets(), 100u);
    size_t slots = t.ring_bytes() - 100 * 128;
    EXPECT_LT(slots, 256u * 64u);  // the slot array itself: small headers only
    EXPECT_LT(t.ring_bytes(), 256u * 1500u / 10);
    // A full-sized packet fits (1500 bytes on the wire); one byte more does not.
    RtcTrack v(RtcMediaKind::kVideo, 4, 1);
    auto full = rtp(1, 1, 96, std::vector<uint8_t>(kRtcMaxRtpPacket - 12, 0x41));
    const RtcPacket* out = v.store(full.data(), full.size(), parse(full));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->size, kRtcMaxRtpPacket);
    EXPECT_EQ(0, memcmp(out->data + 12, full.data() + 12, kRtcMaxRtpPacket - 12));
    auto big = rtp(2, 1, 96, std::vector<uint8_t>(kRtcMaxRtpPacket - 11, 0x41));
    EXPECT_EQ(v.store(big.data(), big.size(), parse(big)), nullptr);
    EXPECT_EQ(v.find(2), nullptr);
    EXPECT_EQ(v.ring_packets(), 1u);
}

TEST(RtcRing, WrapAroundWithChangingSizesKeepsEachPacketsBytes) {
    RtcTrack t(RtcMediaKind::kVideo, 8, 0x01020304);
    t.set_codec(h264());
    // Three laps of the ring across the 16-bit wrap, sizes cycling 20..1400.
    const size_t sizes[] = {20, 1400, 300, 1200, 60};
    for (int i = 0; i < 24; i++) {
        uint16_t seq = static_cast<uint16_t>(65530 + i);
        auto p = h264_rtp(seq, 3000u * i, false, sizes[i % 5]);
        p.back() = static_cast<uint8_t>(i);
        const RtcPacket* out = t.store(p.data(), p.size(), parse(p));
        ASSERT_NE(out, nullptr) << i;
        EXPECT_EQ(out->size, 12 + sizes[i % 5]);
    }
    EXPECT_EQ(t.ring_packets(), 8u);
    for (int i = 0; i < 24; i++) {
        uint16_t seq = static_cast<uint16_t>(65530 + i);
        const RtcPacket* p = t.find(seq);
        if (i < 16) {
            EXPECT_EQ(p, nullptr) << i;  // overwritten by later laps
            continue;
        }
        ASSERT_NE(p, nullptr) << i;
        EXPECT_EQ(p->size, 12 + sizes[i % 5]);
        EXPECT_EQ(load_be16(p->data + 2), seq);
        EXPECT_EQ(p->data[12], 0x41);
        EXPECT_EQ(p->data[p->size - 1], static_cast<uint8_t>(i));
    }
    // The buffers are what the eight packets need, within the 64-byte steps
    // and the "at most twice" slack.
    size_t need = 0;
    for (int i = 16; i < 24; i++) need += 12 + sizes[i % 5];
    EXPECT_LE(t.ring_bytes(), 8 * 64 + 2 * need + 8 * 128);
    // A late packet of a lap already overwritten is refused, not stored over a newer one.
    auto late = h264_rtp(static_cast<uint16_t>(65530 + 3), 9, false, 100);
    EXPECT_EQ(t.store(late.data(), late.size(), parse(late)), nullptr);
    EXPECT_NE(t.find(static_cast<uint16_t>(65530 + 19)), nullptr);
}

TEST(RtcRing, ByteBoundEvictsTheOldestAndANackOfItFindsNothing) {
    // 64 slots, but bytes for only 10 full-sized packets.
    RtcTrack t(RtcMediaKind::kVideo, 64, 1, 10 * 1536);
    t.set_codec(h264());
    for (uint16_t s = 0; s < 40; s++) {
        auto p = h264_rtp(s, 0, s == 0, 1400);
        ASSERT_NE(t.store(p.data(), p.size(), parse(p)), nullptr) << s;
        EXPECT_LE(t.ring_bytes(), 10u * 1536u + 64u * 64u);  // the buffers plus the slot array
    }
    EXPECT_EQ(t.ring_packets(), 10u);
    // A NACK of an evicted packet: nothing to resend (the player says so, see
    // RtcPlayerSession::resend); the newest ten are all there.
    EXPECT_EQ(t.find(0), nullptr);
    EXPECT_EQ(t.find(29), nullptr);
    for (uint16_t s = 30; s < 40; s++) EXPECT_NE(t.find(s), nullptr) << s;
    // The keyframe (seq 0) was evicted: no start from the ring.
    uint16_t first = 0;
    EXPECT_FALSE(t.keyframe_start(&first));
    // Small packets after big ones: many more fit in the same bytes.
    for (uint16_t s = 40; s < 100; s++) {
        auto p = h264_rtp(s, 0, false, 50);
        ASSERT_NE(t.store(p.data(), p.size(), parse(p)), nullptr);
    }
    EXPECT_EQ(t.ring_packets(), 64u);
}

TEST(RtcRing, NoRingWhileNobodyPlaysThenTheFirstPlayerStartsAtTheNextKeyframe) {
    RtcSource s("v", "live", "whip");
    ManualPublisher pub;
    RtcTrackCodec audio;
    audio.present = true;
    audio.name = "opus";
    s.set_publisher(&pub, audio, h264());
    const RtcTrack& video = s.track(RtcMediaKind::kVideo);
    utime_t now = 0;
    uint16_t seq = 500;
    auto send = [&](bool idr) {
        auto p = h264_rtp(seq, seq * 3000u, idr, 1000);
        s.on_publisher_rtp(RtcMediaKind::kVideo, p.data(), p.size(), parse(p), now);
        seq++;
        now += 10 * kUsPerMs;
    };
    // A keyframe and its GOP with nobody playing: nothing kept.
    send(true);
    for (int i = 0; i < 20; i++) send(false);
    EXPECT_FALSE(video.ring_kept());
    EXPECT_EQ(video.ring_bytes(), 0u);
    EXPECT_EQ(video.find(static_cast<uint16_t>(seq - 1)), nullptr);
    EXPECT_EQ(video.packets(), 21u);
    // The ring starts late: the first player finds no keyframe in it (so it
    // asks the publisher, RtcPlayerSession::on_connected) ...
    Sink player;
    s.add_player(&player);
    EXPECT_TRUE(video.ring_kept());
    uint16_t first = 0;
    EXPECT_FALSE(s.track(RtcMediaKind::kVideo).keyframe_start(&first));
    s.request_keyframe(now);
    EXPECT_EQ(pub.requests, 1);
    send(false);
    // ... and the keyframe the publisher sends is where players start; the
    // numbering went on through the time without a ring.
    const uint16_t key = seq;
    send(true);
    send(false);
    ASSERT_TRUE(s.track(RtcMediaKind::kVideo).keyframe_start(&first));
    EXPECT_EQ(first, key);
    ASSERT_EQ(player.got.size(), 3u);
    EXPECT_EQ(player.got[1].second, key);
    EXPECT_EQ(video.last_seq(), static_cast<uint16_t>(seq - 1));

    // The last player leaves: the ring stays kRingLinger, then goes.
    s.remove_player(&player);
    const utime_t left = now;
    while (now - left < RtcSource::kRingLinger) {
        send(false);
        EXPECT_TRUE(video.ring_kept());
    }
    send(false);
    send(false);
    EXPECT_FALSE(video.ring_kept());
    EXPECT_EQ(video.ring_bytes(), 0u);
    EXPECT_FALSE(s.track(RtcMediaKind::kVideo).keyframe_start(&first));
}

TEST(RtcRing, APublisherThatCannotBeAskedKeepsItsRingWithoutPlayers) {
    RtcSource s("v", "live", "rtmp");
    ManualPublisher bridge;
    bridge.honours = false;  // the RTMP bridge: a player's start is the ring's keyframe
    RtcTrackCodec none;
    s.set_publisher(&bridge, none, h264());
    auto p = h264_rtp(7, 0, true, 200);
    s.on_publisher_rtp(RtcMediaKind::kVideo, p.data(), p.size(), parse(p), 0);
    for (int i = 0; i < 3; i++) {
        auto q = h264_rtp(static_cast<uint16_t>(8 + i), 0, false, 200);
        s.on_publisher_rtp(RtcMediaKind::kVideo, q.data(), q.size(), parse(q), (i + 1) * 10 * kUsPerSecond);
    }
    EXPECT_TRUE(s.track(RtcMediaKind::kVideo).ring_kept());
    uint16_t first = 0;
    ASSERT_TRUE(s.track(RtcMediaKind::kVideo).keyframe_start(&first));
    EXPECT_EQ(first, 7);
}
