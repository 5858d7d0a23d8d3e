// RtmpClient against a scripted peer on loopback: the peer is made of the
// same pieces the server uses (RtmpTransport as server, the command builders)
// and checks every command the client sends, field by field; the client
// checks what it gets back. No external process.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/upstream/rtmp_client.hpp"
#include "app/upstream/rtmp_transport.hpp"
#include "io/coroutine.hpp"
#include "io/host_resolver.hpp"
#include "io/runtime.hpp"
#include "io/socket.hpp"
#include "kernel/codec/media_codec.hpp"
#include "protocol/rtmp/rtmp_command.hpp"

using namespace srs;

namespace {

constexpr utime_t kTimeout = 5 * kUsPerSecond;

// The peer's side of one connection, run by a coroutine.
using Script = std::function<Error(RtmpTransport& t)>;

class ScriptedPeer : public CoroutineHandler {
  public:
    explicit ScriptedPeer(Script script) : script_(std::move(script)), co_("peer", this) {}
    ~ScriptedPeer() override { co_.stop(); }

    Error start() {
        if (Error err = listener_.listen(); !err.ok()) return err;
        return co_.start();
    }
    int port() const { return listener_.port(); }
    std::string url(const std::string& path) const { return "rtmp://127.0.0.1:" + std::to_string(port()) + path; }

    // Waits for the script to end by itself, then returns its error.
    Error finish() {
        utime_t deadline = monotonic_us() + kTimeout;
        while (co_.running() && monotonic_us() < deadline) sleep_us(kUsPerMs).ignore();
        co_.stop();
        return co_.take_error();
    }

  private:
    Error cycle() override {
        TcpConn* raw = nullptr;
        if (Error err = listener_.accept(&raw, kTimeout); !err.ok()) return SRS_WRAP(err, "accept");
        std::unique_ptr<TcpConn> conn(raw);
        conn->set_recv_timeout(kTimeout);
        conn->set_send_timeout(kTimeout);
        RtmpTransport t(conn.get());
        if (Error err = t.handshake_as_server(); !err.ok()) return SRS_WRAP(err, "handshake");
        return script_(t);
    }

    Script script_;
    TcpListener listener_{"127.0.0.1", 0};
    Coroutine co_;
};

// Reads until a command and checks its name; *sid gets its message stream.
Error expect_command(RtmpTransport& t, const char* name, RtmpCommand* out, uint32_t* sid = nullptr) {
    RtmpMessage msg;
    while (true) {
        if (Error err = t.recv_message(&msg); !err.ok()) return SRS_WRAP(err, "wait for %s", name);
        if (msg.is_command()) break;
    }
    if (Error err = decode_rtmp_command(msg, out); !err.ok()) return SRS_WRAP(err, "decode %s", name);
    if (out->name != name) return SRS_ERR(kErrorRtmpCommandUnexpected, "got %s, want %s", out->name.c_str(), name);
    if (sid) *sid = msg.stream_id;
    return Error();
}

// What our server does after connect: window, bandwidth, chunk size, _result
// with its identity, onBWDone.
Error answer_connect(RtmpTransport& t, uint32_t chunk_size, RtmpConnectRequest* seen = nullptr) {
    RtmpCommand cmd;
    if (Error err = expect_command(t, kRtmpCmdConnect, &cmd); !err.ok()) return err;
    RtmpConnectRequest req;
    if (Error err = parse_rtmp_request(cmd, &req); !err.ok()) return err;
    if (seen) *seen = req;
    RtmpProtocol& p = t.protocol();
    p.send_window_ack_size(2500000);
    p.send_set_peer_bandwidth(2500000, kRtmpLimitDynamic);
    p.set_out_chunk_size(chunk_size);
    Amf0Value data = Amf0Value::ecma_array();
    data.set("srs_server", Amf0Value::string("scripted"));
    data.set("srs_id", Amf0Value::string("peer0001"));
    if (Error err = t.send_command(build_connect_result(req.transaction_id, 0, data), 0, kRtmpCidOverConnection);
        !err.ok()) {
        return err;
    }
    return t.send_command(build_on_bw_done(), 0, kRtmpCidOverConnection);
}

Error answer_create_stream(RtmpTransport& t, double stream_id) {
    RtmpCommand cmd;
    if (Error err = expect_command(t, kRtmpCmdCreateStream, &cmd); !err.ok()) return err;
    return t.send_command(build_create_stream_result(cmd.transaction_id, stream_id), 0, kRtmpCidOverConnection);
}

RtmpMessage media(uint8_t type, uint32_t ts, SharedBytes payload, uint32_t sid = 1) {
    RtmpMessage m;
    m.type = type;
    m.timestamp = ts;
    m.stream_id = sid;
    m.cs_id = type == kRtmpAudio ? kRtmpCidAudio : kRtmpCidVideo;
    m.payload = std::move(payload);
    return m;
}

// An AVC tag body: frame type (1 key, 2 inter), packet type (0 header, 1 NALUs), then filler.
SharedBytes avc(uint8_t frame_type, uint8_t packet_type, size_t size) {
    SharedBytes b = SharedBytes::allocate(size);
    uint8_t* p = b.data();
    p[0] = static_cast<uint8_t>(frame_type << 4 | 7);
    p[1] = packet_type;
    for (size_t i = 2; i < size; i++) p[i] = static_cast<uint8_t>(i * 7);
    return b;
}

SharedBytes aac(size_t size) {
    SharedBytes b = SharedBytes::allocate(size);
    b.data()[0] = 0xaf;
    b.data()[1] = 1;
    for (size_t i = 2; i < size; i++) b.data()[i] = static_cast<uint8_t>(i);
    return b;
}

bool same_bytes(const SharedBytes& a, const SharedBytes& b) {
    return a.size() == b.size() && (a.size() == 0 || memcmp(a.data(), b.data(), a.size()) == 0);
}

class RtmpClientTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

}  // namespace

TEST_F(RtmpClientTest, PlayReceivesEverythingInOrderAcrossChunkSizes) {
    RtmpConnectRequest seen_connect;
    RtmpPlayRequest seen_play;
    uint32_t play_sid = 0;
    uint32_t buffer_ms = 0, buffer_sid = 0;
    uint16_t last_event = 0;
    SharedBytes keyframe = avc(1, 1, 100000);  // two chunks at 60000
    Script script = [&](RtmpTransport& t) -> Error {
        if (Error err = answer_connect(t, 60000, &seen_connect); !err.ok()) return err;
        if (Error err = answer_create_stream(t, 1); !err.ok()) return err;
        RtmpCommand cmd;
        if (Error err = expect_command(t, kRtmpCmdPlay, &cmd, &play_sid); !err.ok()) return err;
        if (Error err = parse_rtmp_request(cmd, &seen_play); !err.ok()) return err;
        t.protocol().send_user_control(kRtmpStreamBegin, 1);
        // Media before Play.Start must not be lost.
        if (Error err = t.send_message(media(kRtmpAudio, 0, aac(10))); !err.ok()) return err;
        if (Error err = t.send_command(build_play_reset("livestream", "c"), 1, kRtmpCidOverStream); !err.ok()) {
            return err;
        }
        if (Error err = t.send_command(build_play_start("livestream", "c"), 1, kRtmpCidOverStream); !err.ok()) {
            return err;
        }
        if (Error err = t.send_data(build_sample_access(true, true), 1); !err.ok()) return err;
        t.protocol().send_user_control(kRtmpPingRequest, 1234);
        if (Error err = t.send_message(media(kRtmpVideo, 0, avc(1, 0, 40))); !err.ok()) return err;
        if (Error err = t.send_message(media(kRtmpVideo, 40, keyframe)); !err.ok()) return err;
        if (Error err = t.send_message(media(kRtmpAudio, 0x1000000, aac(300))); !err.ok()) return err;
        // The client's close(): deleteStream.
        RtmpCommand del;
        if (Error err = expect_command(t, kRtmpCmdDeleteStream, &del); !err.ok()) return err;
        buffer_ms = t.protocol().buffer_length_ms();
        buffer_sid = t.protocol().buffer_length_stream_id();
        last_event = t.protocol().last_user_control_event();
        return Error();
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());

    RtmpClient client;
    Error err = client.connect(peer.url("/live/livestream?token=abc"), kTimeout);
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_TRUE(client.connected());
    EXPECT_TRUE(client.used_complex_handshake());
    EXPECT_EQ(client.server_info().get_string("srs_server"), "scripted");
    EXPECT_EQ(client.last_status().code, kRtmpStatusConnectSuccess);
    err = client.play();
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_TRUE(client.playing());
    EXPECT_EQ(client.stream_id(), 1u);
    EXPECT_EQ(client.last_status().code, kRtmpStatusPlayStart);

    RtmpMessage msg;
    ASSERT_TRUE(client.recv_message(&msg).ok());
    EXPECT_EQ(msg.type, kRtmpAudio);  // kept while play() waited
    EXPECT_EQ(msg.payload.size(), 10u);
    ASSERT_TRUE(client.recv_message(&msg).ok());
    EXPECT_EQ(msg.type, kRtmpAmf0Data);  // |RtmpSampleAccess
    ASSERT_TRUE(client.recv_message(&msg).ok());
    EXPECT_TRUE(msg.is_video());
    EXPECT_TRUE(is_video_sequence_header(msg.payload.data(), msg.payload.size()));
    ASSERT_TRUE(client.recv_message(&msg).ok());
    EXPECT_TRUE(msg.is_video());
    EXPECT_EQ(msg.timestamp, 40u);
    EXPECT_EQ(msg.stream_id, 1u);
    EXPECT_TRUE(same_bytes(msg.payload, keyframe));
    ASSERT_TRUE(client.recv_message(&msg).ok());
    EXPECT_TRUE(msg.is_audio());
    EXPECT_EQ(msg.timestamp, 0x1000000u);  // extended timestamp
    EXPECT_EQ(msg.payload.size(), 300u);
    EXPECT_EQ(client.messages_in(), 5u);
    EXPECT_GT(client.bytes_in(), 100000u);
    ASSERT_TRUE(client.close().ok());
    EXPECT_FALSE(client.connected());

    err = peer.finish();
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_EQ(seen_connect.tc_url, "rtmp://127.0.0.1:" + std::to_string(peer.port()) + "/live");
    EXPECT_EQ(seen_connect.app, "live");
    EXPECT_EQ(seen_connect.flash_ver, "LNX 9,0,124,2");
    EXPECT_EQ(seen_play.stream_name, "livestream?token=abc");
    EXPECT_EQ(play_sid, 1u);
    EXPECT_EQ(buffer_ms, 3000u);
    EXPECT_EQ(buffer_sid, 1u);
    EXPECT_EQ(last_event, kRtmpPingResponse);  // answered the ping on its own
}

TEST_F(RtmpClientTest, PublishFollowsFfmpegFlowAndSendsExactBytes) {
    std::vector<std::string> names;
    RtmpPublishRequest seen_publish;
    std::vector<RtmpMessage> got;
    uint32_t seen_chunk_size = 0;
    std::string fcunpublish_name;
    SharedBytes big = avc(1, 1, 70000);
    Script script = [&](RtmpTransport& t) -> Error {
        if (Error err = answer_connect(t, 128); !err.ok()) return err;
        RtmpCommand cmd;
        for (const char* name : {kRtmpCmdReleaseStream, kRtmpCmdFCPublish}) {
            if (Error err = expect_command(t, name, &cmd); !err.ok()) return err;
            names.push_back(cmd.name + ":" + (cmd.arg(0) ? cmd.arg(0)->as_string() : ""));
            if (Error err = t.send_command(build_simple_result(cmd.transaction_id), 0, kRtmpCidOverConnection);
                !err.ok()) {
                return err;
            }
        }
        if (Error err = answer_create_stream(t, 1); !err.ok()) return err;
        if (Error err = expect_command(t, kRtmpCmdPublish, &cmd); !err.ok()) return err;
        if (Error err = parse_rtmp_request(cmd, &seen_publish); !err.ok()) return err;
        if (Error err = t.send_command(build_on_fc_publish("ok"), 1, kRtmpCidOverStream); !err.ok()) return err;
        if (Error err = t.send_command(build_publish_start("s0", "c"), 1, kRtmpCidOverStream); !err.ok()) return err;
        // Metadata and three media messages, then FCUnpublish.
        RtmpMessage msg;
        while (got.size() < 4) {
            if (Error err = t.recv_message(&msg); !err.ok()) return SRS_WRAP(err, "media");
            got.push_back(std::move(msg));
        }
        seen_chunk_size = t.protocol().in_chunk_size();
        if (Error err = expect_command(t, kRtmpCmdFCUnpublish, &cmd); !err.ok()) return err;
        fcunpublish_name = cmd.arg(0) ? cmd.arg(0)->as_string() : "";
        return expect_command(t, kRtmpCmdDeleteStream, &cmd);
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());

    RtmpClient client;
    Error err = client.connect(peer.url("/live/s0"), kTimeout, false);
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_FALSE(client.used_complex_handshake());
    // Media before publish is refused.
    Error early = client.send_media(kRtmpVideo, 0, big);
    EXPECT_EQ(early.code(), kErrorRtmpClientState);
    ASSERT_TRUE(client.set_chunk_size(4096).ok());
    err = client.publish();
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_TRUE(client.publishing());
    EXPECT_EQ(client.last_status().code, kRtmpStatusPublishStart);

    Amf0Value meta = Amf0Value::ecma_array();
    meta.set("width", Amf0Value::number(768));
    ASSERT_TRUE(client.send_metadata(meta).ok());
    ASSERT_TRUE(client.send_media(kRtmpVideo, 0, avc(1, 0, 30)).ok());
    ASSERT_TRUE(client.send_media(kRtmpVideo, 40, big).ok());
    ASSERT_TRUE(client.send_media(kRtmpAudio, 0xFFFFFF, aac(200)).ok());
    EXPECT_EQ(client.media_out(), 3u);
    EXPECT_EQ(client.media_bytes_out(), 30u + 70000u + 200u);
    ASSERT_TRUE(client.close().ok());

    err = peer.finish();
    ASSERT_TRUE(err.ok()) << err.describe();
    ASSERT_EQ(names.size(), 2u);
    EXPECT_EQ(names[0], "releaseStream:s0");
    EXPECT_EQ(names[1], "FCPublish:s0");
    EXPECT_EQ(seen_publish.stream_name, "s0");
    EXPECT_EQ(seen_publish.type, "live");
    EXPECT_EQ(seen_chunk_size, 4096u);
    EXPECT_EQ(fcunpublish_name, "s0");
    ASSERT_EQ(got.size(), 4u);
    RtmpData data;
    ASSERT_TRUE(decode_rtmp_data(got[0], &data).ok());
    EXPECT_EQ(data.name, kRtmpDataSetDataFrame);
    ASSERT_EQ(data.values.size(), 2u);
    EXPECT_EQ(data.values[0].as_string(), kRtmpDataOnMetaData);
    EXPECT_EQ(data.values[1].get_number("width"), 768);
    EXPECT_EQ(got[1].type, kRtmpVideo);
    EXPECT_EQ(got[1].stream_id, 1u);
    EXPECT_EQ(got[2].timestamp, 40u);
    EXPECT_TRUE(same_bytes(got[2].payload, big));
    EXPECT_EQ(got[3].type, kRtmpAudio);
    EXPECT_EQ(got[3].timestamp, 0xFFFFFFu);  // exactly the escape value: extended
    EXPECT_EQ(got[3].payload.size(), 200u);
}

TEST_F(RtmpClientTest, PublishRefusedCarriesTheStatusCode) {
    Script script = [&](RtmpTransport& t) -> Error {
        if (Error err = answer_connect(t, 60000); !err.ok()) return err;
        RtmpCommand cmd;
        // An _error to FCPublish (as some servers send) is not fatal.
        if (Error err = expect_command(t, kRtmpCmdReleaseStream, &cmd); !err.ok()) return err;
        if (Error err = expect_command(t, kRtmpCmdFCPublish, &cmd); !err.ok()) return err;
        RtmpStatus st;
        st.level = kRtmpLevelError;
        st.code = "NetStream.Publish.Denied";
        if (Error err = t.send_command(build_error(cmd.transaction_id, st), 0, kRtmpCidOverConnection); !err.ok()) {
            return err;
        }
        if (Error err = answer_create_stream(t, 1); !err.ok()) return err;
        if (Error err = expect_command(t, kRtmpCmdPublish, &cmd); !err.ok()) return err;
        return t.send_command(build_publish_bad_name("s0", "c"), 1, kRtmpCidOverStream);
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());
    RtmpClient client;
    Error err = client.connect(peer.url("/live/s0"), kTimeout);
    ASSERT_TRUE(err.ok()) << err.describe();
    err = client.publish();
    ASSERT_TRUE(err.failed());
    EXPECT_EQ(err.code(), kErrorRtmpClientRejected);
    EXPECT_NE(err.summary().find(kRtmpStatusPublishBadName), std::string::npos) << err.summary();
    EXPECT_EQ(client.last_status().code, kRtmpStatusPublishBadName);
    EXPECT_FALSE(client.publishing());
    err.ignore();
    ASSERT_TRUE(peer.finish().ok());
}

TEST_F(RtmpClientTest, PlayRefusedByOnStatusError) {
    Script script = [&](RtmpTransport& t) -> Error {
        if (Error err = answer_connect(t, 60000); !err.ok()) return err;
        if (Error err = answer_create_stream(t, 1); !err.ok()) return err;
        RtmpCommand cmd;
        if (Error err = expect_command(t, kRtmpCmdPlay, &cmd); !err.ok()) return err;
        RtmpStatus st;
        st.level = kRtmpLevelError;
        st.code = "NetStream.Play.StreamNotFound";
        return t.send_command(build_on_status(st), 1, kRtmpCidOverStream);
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());
    RtmpClient client;
    ASSERT_TRUE(client.connect(peer.url("/live/none"), kTimeout).ok());
    Error err = client.play();
    EXPECT_EQ(err.code(), kErrorRtmpClientRejected);
    EXPECT_NE(err.summary().find("NetStream.Play.StreamNotFound"), std::string::npos) << err.summary();
    err.ignore();
    ASSERT_TRUE(peer.finish().ok());
}

TEST_F(RtmpClientTest, ConnectRejected) {
    Script script = [&](RtmpTransport& t) -> Error {
        RtmpCommand cmd;
        if (Error err = expect_command(t, kRtmpCmdConnect, &cmd); !err.ok()) return err;
        return t.send_command(build_connect_rejected(cmd.transaction_id, "vhost disabled"), 0,
                              kRtmpCidOverConnection);
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());
    RtmpClient client;
    Error err = client.connect(peer.url("/live/s"), kTimeout);
    EXPECT_EQ(err.code(), kErrorRtmpClientRejected);
    EXPECT_NE(err.summary().find(kRtmpStatusConnectRejected), std::string::npos) << err.summary();
    EXPECT_NE(err.summary().find("vhost disabled"), std::string::npos) << err.summary();
    EXPECT_FALSE(client.connected());
    err.ignore();
    ASSERT_TRUE(peer.finish().ok());
}

TEST_F(RtmpClientTest, PeerClosingIsAnError) {
    Script script = [&](RtmpTransport& t) -> Error {
        if (Error err = answer_connect(t, 60000); !err.ok()) return err;
        if (Error err = answer_create_stream(t, 1); !err.ok()) return err;
        RtmpCommand cmd;
        if (Error err = expect_command(t, kRtmpCmdPlay, &cmd); !err.ok()) return err;
        return t.send_command(build_play_start("s", "c"), 1, kRtmpCidOverStream);
        // ...and the connection closes.
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());
    RtmpClient client;
    ASSERT_TRUE(client.connect(peer.url("/live/s"), kTimeout).ok());
    ASSERT_TRUE(client.play().ok());
    ASSERT_TRUE(peer.finish().ok());
    RtmpMessage msg;
    Error err = client.recv_message(&msg);
    EXPECT_EQ(err.code(), kErrorSocketClosed) << err.summary();
    err.ignore();
}

TEST_F(RtmpClientTest, HostMustBeAnAddress) {
    RtmpClient client;
    utime_t t0 = monotonic_us();
    Error err = client.connect("rtmp://localhost:1935/live/s", kTimeout);
    EXPECT_EQ(err.code(), kErrorRtmpClientNoDns);
    EXPECT_LT(monotonic_us() - t0, kUsPerSecond);
    err.ignore();
    err = client.connect("http://127.0.0.1/live/s", kTimeout);
    EXPECT_TRUE(err.failed());
    err.ignore();
}

TEST_F(RtmpClientTest, NamesGoThroughTheResolverAndEachAddressIsTried) {
    // The name's first address has nobody listening; the second is the peer.
    std::string dead = "127.0.0.2";  // same port, another loopback address: refused
    HostResolverOptions o;
    o.lookup = [dead](const std::string& name) {
        HostAnswer a;
        if (name == "origin.test") a.addresses = {dead, "127.0.0.1"};
        else a.error = "Name or service not known";
        return a;
    };
    HostResolver resolver(o);
    ASSERT_TRUE(resolver.start().ok());
    Script script = [&](RtmpTransport& t) -> Error {
        RtmpCommand cmd;
        if (Error err = expect_command(t, kRtmpCmdConnect, &cmd); !err.ok()) return err;
        return t.send_command(build_connect_rejected(cmd.transaction_id, "seen"), 0, kRtmpCidOverConnection);
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());
    RtmpClient client;
    client.set_resolver(&resolver);
    Error err = client.connect("rtmp://origin.test:" + std::to_string(peer.port()) + "/live/s", kTimeout);
    EXPECT_EQ(err.code(), kErrorRtmpClientRejected) << err.summary();  // it reached the peer
    err.ignore();
    ASSERT_TRUE(peer.finish().ok());

    Error bad = client.connect("rtmp://nowhere.test/live/s", kTimeout);
    EXPECT_EQ(bad.code(), kErrorDnsResolve);
    EXPECT_NE(bad.summary().find("nowhere.test"), std::string::npos) << bad.summary();
    bad.ignore();
    resolver.stop();
}

TEST_F(RtmpClientTest, SilentServerTimesOut) {
    // Listening, never accepting: TCP connects, the handshake gets no answer.
    TcpListener listener("127.0.0.1", 0);
    ASSERT_TRUE(listener.listen().ok());
    RtmpClient client;
    utime_t t0 = monotonic_us();
    Error err = client.connect("rtmp://127.0.0.1:" + std::to_string(listener.port()) + "/live/s", 200 * kUsPerMs);
    utime_t took = monotonic_us() - t0;
    EXPECT_EQ(err.code(), kErrorSocketTimeout) << err.summary();
    EXPECT_GE(took, 150 * kUsPerMs);
    EXPECT_LT(took, 2 * kUsPerSecond);
    err.ignore();
    // Nothing stays half-open: a second try is a new attempt, not "connect twice".
    EXPECT_FALSE(client.connected());
    err = client.connect("rtmp://127.0.0.1:" + std::to_string(listener.port()) + "/live/s", 100 * kUsPerMs);
    EXPECT_EQ(err.code(), kErrorSocketTimeout) << err.summary();
    err.ignore();
}

TEST_F(RtmpClientTest, CallsOutOfOrderAreRefused) {
    RtmpClient client;
    Error err = client.play();
    EXPECT_EQ(err.code(), kErrorRtmpClientState);
    err.ignore();
    err = client.publish();
    EXPECT_EQ(err.code(), kErrorRtmpClientState);
    err.ignore();
    RtmpMessage msg;
    err = client.recv_message(&msg);
    EXPECT_EQ(err.code(), kErrorRtmpClientState);
    err.ignore();
    EXPECT_TRUE(client.close().ok());  // nothing to close
}

TEST_F(RtmpClientTest, BatchOfMessagesWithMoreIovecsThanOneWritev) {
    // At the default chunk size of 128, 100000 bytes are 782 chunks: 1564
    // iovecs, more than one writev takes.
    SharedBytes big = avc(1, 1, 100000);
    std::vector<RtmpMessage> got;
    Script script = [&](RtmpTransport& t) -> Error {
        if (Error err = answer_connect(t, 60000); !err.ok()) return err;
        RtmpCommand cmd;
        if (Error err = expect_command(t, kRtmpCmdReleaseStream, &cmd); !err.ok()) return err;
        if (Error err = expect_command(t, kRtmpCmdFCPublish, &cmd); !err.ok()) return err;
        if (Error err = answer_create_stream(t, 7); !err.ok()) return err;
        if (Error err = expect_command(t, kRtmpCmdPublish, &cmd); !err.ok()) return err;
        if (Error err = t.send_command(build_publish_start("s0", "c"), 7, kRtmpCidOverStream); !err.ok()) return err;
        RtmpMessage msg;
        while (got.size() < 4) {
            if (Error err = t.recv_message(&msg); !err.ok()) return SRS_WRAP(err, "media");
            got.push_back(std::move(msg));
        }
        return Error();
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());
    RtmpClient client;
    ASSERT_TRUE(client.connect(peer.url("/live/s0"), kTimeout).ok());
    ASSERT_TRUE(client.publish().ok());
    EXPECT_EQ(client.stream_id(), 7u);
    std::vector<RtmpMessage> batch(4);
    batch[0].type = kRtmpVideo;
    batch[0].timestamp = 0;
    batch[0].payload = avc(1, 0, 20);
    batch[1].type = kRtmpVideo;
    batch[1].timestamp = 40;
    batch[1].payload = big;
    batch[2].type = kRtmpAudio;
    batch[2].timestamp = 23;  // audio and video timestamps are independent
    batch[2].payload = aac(10);
    batch[3].type = kRtmpAmf0Data;
    batch[3].timestamp = 41;
    batch[3].payload = SharedBytes::copy_of("\x02\x00\x01x", 4);
    Error err = client.send_messages(batch.data(), batch.size());
    ASSERT_TRUE(err.ok()) << err.describe();
    EXPECT_EQ(client.media_out(), 4u);
    ASSERT_TRUE(peer.finish().ok());
    ASSERT_EQ(got.size(), 4u);
    for (size_t i = 0; i < 4; i++) {
        EXPECT_EQ(got[i].type, batch[i].type) << i;
        EXPECT_EQ(got[i].timestamp, batch[i].timestamp) << i;
        EXPECT_EQ(got[i].stream_id, 7u) << i;
        EXPECT_TRUE(same_bytes(got[i].payload, batch[i].payload)) << i;
    }
    // Commands are not media.
    RtmpMessage cmd = make_rtmp_command_message(build_on_bw_done(), 7);
    err = client.send_messages(&cmd, 1);
    EXPECT_EQ(err.code(), kErrorRtmpClientState);
    err.ignore();
}

TEST_F(RtmpClientTest, MediaBeforeTheAnswerIsBoundedInBytes) {
    // A broken server streams 1 MB video messages instead of answering
    // connect: the client keeps at most 32 MB of them, then gives up (a
    // count bound alone would let 4096 such messages in).
    Script script = [&](RtmpTransport& t) -> Error {
        RtmpCommand cmd;
        if (Error err = expect_command(t, kRtmpCmdConnect, &cmd); !err.ok()) return err;
        t.protocol().set_out_chunk_size(60000);
        for (uint32_t i = 0; i < 64; i++) {
            if (Error err = t.send_message(media(kRtmpVideo, i * 40, avc(2, 1, 1024 * 1024))); !err.ok()) return err;
        }
        return Error();
    };
    ScriptedPeer peer(script);
    ASSERT_TRUE(peer.start().ok());
    RtmpClient client;
    Error err = client.connect(peer.url("/live/s"), kTimeout);
    EXPECT_EQ(err.code(), kErrorRtmpClientState) << err.summary();
    EXPECT_NE(err.summary().find("bytes) before the answer 1"), std::string::npos) << err.summary();
    EXPECT_FALSE(client.connected());
    err.ignore();
    peer.finish().ignore();  // its writes fail once the client hung up
}
