// The edge's pull against scripted origins on loopback: it publishes the
// local source at once, relays media, and on an origin that dies switches to
// the next without unpublishing (players stay), with video held until a
// keyframe and timestamps that never go back.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "app/edge/edge_ingester.hpp"
#include "app/live/consumer_options.hpp"
#include "app/upstream/rtmp_transport.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "protocol/rtmp/rtmp_command.hpp"
#include "utest/app/edge/scripted_rtmp_server.hpp"

using namespace srs;

namespace {

constexpr utime_t kTimeout = 5 * kUsPerSecond;

RtmpMessage media(uint8_t type, uint32_t ts, std::vector<uint8_t> body) {
    RtmpMessage m;
    m.type = type;
    m.timestamp = ts;
    m.stream_id = 1;
    m.cs_id = type == kRtmpAudio ? kRtmpCidAudio : kRtmpCidVideo;
    m.payload = SharedBytes::allocate(body.size());
    memcpy(m.payload.data(), body.data(), body.size());
    return m;
}

// An AVC tag body: frame type 1 key / 2 inter, packet type 0 header / 1
// NALUs. The header need not parse (the source only warns).
std::vector<uint8_t> avc(uint8_t frame, uint8_t packet) {
    return {static_cast<uint8_t>(frame << 4 | 7), packet, 0, 0, 0, 1, 2};
}

// Accepts one edge, answers connect/createStream/play, sends `msgs`, then
// closes (or holds the connection open when hold is set).
class StreamingOrigin : public utest::ScriptedRtmpServer {
  public:
    StreamingOrigin(std::vector<RtmpMessage> msgs, bool hold)
        : ScriptedRtmpServer("o"), msgs_(std::move(msgs)), hold_(hold) {}
    std::string url() const { return base(); }
    std::string seen_play;
    bool done = false;

  private:
    Error serve(TcpConn* conn, RtmpTransport& t) override {
        RtmpCommand cmd;
        if (Error err = expect(t, kRtmpCmdConnect, &cmd); !err.ok()) return err;
        if (Error err = t.send_command(build_connect_result(cmd.transaction_id, 0, Amf0Value::ecma_array()), 0,
                                       kRtmpCidOverConnection);
            !err.ok()) {
            return err;
        }
        if (Error err = expect(t, kRtmpCmdCreateStream, &cmd); !err.ok()) return err;
        if (Error err = t.send_command(build_create_stream_result(cmd.transaction_id, 1), 0, kRtmpCidOverConnection);
            !err.ok()) {
            return err;
        }
        if (Error err = expect(t, kRtmpCmdPlay, &cmd); !err.ok()) return err;
        RtmpPlayRequest play;
        if (Error err = parse_rtmp_request(cmd, &play); !err.ok()) return err;
        seen_play = play.stream_name;
        if (Error err = t.send_command(build_play_start("s", "c"), 1, kRtmpCidOverStream); !err.ok()) return err;
        for (const RtmpMessage& m : msgs_) {
            if (Error err = t.send_message(m); !err.ok()) return err;
        }
        done = true;
        if (hold_) return hold_until_close(t);
        // Closing with unread bytes would reset the connection, and the
        // client could lose media it has not read yet: drain first.
        sleep_us(100 * kUsPerMs).ignore();
        char drain[4096];
        for (int i = 0; i < 64; i++) {
            size_t n = 0;
            Error err = conn->read_nowait(drain, sizeof(drain), &n);
            if (!err.ok()) {
                err.ignore();
                break;
            }
            if (n == 0) break;
        }
        return Error();
    }
    std::vector<RtmpMessage> msgs_;
    bool hold_;
};

class FixedLocator : public OriginLocator {
  public:
    Error locate(const StreamKey& key, std::vector<std::string>* out) override {
        asked++;
        last = key;
        *out = origins;
        return Error();
    }
    std::vector<std::string> origins;
    int asked = 0;
    StreamKey last;
};

class EdgeIngesterTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

// Collects what the consumer gets until `want` video messages or timeout.
void collect(LiveConsumer* c, size_t want, std::vector<LiveMessagePtr>* out) {
    utime_t deadline = monotonic_us() + kTimeout;
    size_t videos = 0;
    while (videos < want && monotonic_us() < deadline) {
        // Lets the ingester and the origins run (wait() may not block).
        sleep_us(10 * kUsPerMs).ignore();
        c->wait(20 * kUsPerMs);
        std::vector<LiveMessagePtr> batch;
        c->dump(&batch, 1000);
        for (auto& m : batch) {
            if (m->is_video()) videos++;
            out->push_back(m);
        }
    }
}

}  // namespace

TEST_F(EdgeIngesterTest, SwitchesOriginsWithoutUnpublishing) {
    // Origin 1: header, keyframe, inter frames at 1000.., then it dies.
    std::vector<RtmpMessage> one = {media(kRtmpVideo, 1000, avc(1, 0)), media(kRtmpVideo, 1000, avc(1, 1)),
                                    media(kRtmpVideo, 1040, avc(2, 1)), media(kRtmpVideo, 1080, avc(2, 1))};
    // Origin 2: an inter frame first (dropped: no keyframe yet), then its
    // own header and keyframe at a clock far behind.
    std::vector<RtmpMessage> two = {media(kRtmpVideo, 5, avc(2, 1)), media(kRtmpVideo, 10, avc(1, 0)),
                                    media(kRtmpVideo, 10, avc(1, 1)), media(kRtmpVideo, 50, avc(2, 1))};
    StreamingOrigin o1(one, false), o2(two, true);
    ASSERT_TRUE(o1.start().ok());
    ASSERT_TRUE(o2.start().ok());
    FixedLocator locator;
    locator.origins = {o1.url(), o2.url()};

    LiveSource source("__defaultVhost__", "live", "s");
    ClientRegistry clients;
    ConsumerOptions copts;
    copts.realtime = true;
    std::unique_ptr<LiveConsumer> consumer(source.create_consumer(copts));
    PullRequest req{"__defaultVhost__", "__defaultVhost__", "live", "s", "?token=t"};
    SourceOptions sopts;
    {
        EdgeIngester ingester(&source, &locator, &clients, req, EdgeOptions(), sopts);
        ASSERT_TRUE(ingester.start().ok());
        EXPECT_TRUE(source.publishing());
        EXPECT_EQ(source.publisher_cid(), ingester.cid());
        ASSERT_NE(clients.find(ingester.cid()), nullptr);
        EXPECT_STREQ(client_kind_name(clients.find(ingester.cid())->info().kind), "edge-ingest");

        std::vector<LiveMessagePtr> got;
        collect(consumer.get(), 7, &got);  // 4 from the first, 3 from the second
        EXPECT_EQ(o1.seen_play, "s?token=t");
        EXPECT_EQ(o2.seen_play, "s?token=t");
        EXPECT_TRUE(source.publishing());
        EXPECT_FALSE(consumer->take_unpublished());
        EXPECT_EQ(ingester.switches(), 1u);
        EXPECT_EQ(ingester.upstream_url(), o2.url() + "/live/s?token=t");

        size_t videos = 0;
        uint32_t last = 0;
        for (auto& m : got) {
            if (!m->is_video()) continue;
            videos++;
            EXPECT_GE(m->timestamp(), last) << "video #" << videos;
            last = m->timestamp();
        }
        EXPECT_EQ(videos, 7u);  // the second origin's leading inter frame was dropped
        ingester.stop();
        EXPECT_FALSE(source.publishing());
        EXPECT_EQ(clients.find(ingester.cid()), nullptr);
    }
    EXPECT_TRUE(consumer->take_unpublished());
}
