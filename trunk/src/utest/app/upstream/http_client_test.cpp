// HttpClient against a tiny in-process server coroutine that reads the request
// with the server's own parser and answers with scripted pieces (delays
// between them), then closes or stalls.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/upstream/http_client.hpp"
#include "core/version.hpp"
#include "io/coroutine.hpp"
#include "io/host_resolver.hpp"
#include "io/runtime.hpp"
#include "io/socket.hpp"
#include "protocol/http/http_request.hpp"
#include "utest/io/read_http_request.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using srs::utest::code;
using srs::utest::ok;

namespace {

struct Piece {
    std::string bytes;
    utime_t delay_before = 0;
};

// Accepts one connection, parses one request, sends the pieces, then closes
// (or sleeps stall_us first, holding the connection open).
class ScriptedServer : public CoroutineHandler {
  public:
    explicit ScriptedServer(std::vector<Piece> pieces, utime_t stall_us = 0)
        : listener_("127.0.0.1", 0), pieces_(std::move(pieces)), stall_us_(stall_us), co_("http-srv", this) {}
    Error start() {
        if (Error err = listener_.listen(); !err.ok()) return err;
        return co_.start();
    }
    void stop() { co_.stop(); }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(listener_.port()) + path; }
    int port() const { return listener_.port(); }
    const HttpRequest& request() const { return req_; }

    Error cycle() override {
        TcpConn* raw = nullptr;
        if (Error err = listener_.accept(&raw, 5 * kUsPerSecond); !err.ok()) return err;
        std::unique_ptr<TcpConn> conn(raw);
        conn->set_recv_timeout(5 * kUsPerSecond);
        if (Error err = utest::read_http_request(conn.get(), &req_); !err.ok()) return err;
        for (const Piece& p : pieces_) {
            if (p.delay_before > 0) {
                if (Error err = sleep_us(p.delay_before); !err.ok()) return err;
            }
            if (Error err = conn->write(p.bytes.data(), p.bytes.size()); !err.ok()) return err;
        }
        if (stall_us_ > 0) return sleep_us(stall_us_);
        return Error();
    }

  private:
    TcpListener listener_;
    std::vector<Piece> pieces_;
    utime_t stall_us_;
    HttpRequest req_;
    Coroutine co_;
};

class HttpClientTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

}  // namespace

TEST_F(HttpClientTest, PostSendsBodyAndReadsContentLengthAnswer) {
    ScriptedServer srv({{"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"code\":0}\n"}});
    ASSERT_TRUE(ok(srv.start()));
    HttpClientResult r;
    std::string json = "{\"device_id\":\"x\",\"ip\":\"10.0.0.1\"}";
    ASSERT_TRUE(ok(http_post(srv.url("/api/v1/servers"), "application/json", json, {}, &r)));
    srv.stop();
    EXPECT_EQ(r.head.status, 200);
    EXPECT_EQ(r.body, "{\"code\":0}\n");
    EXPECT_EQ(srv.request().method, "POST");
    EXPECT_EQ(srv.request().path, "/api/v1/servers");
    EXPECT_EQ(srv.request().body, json);
    ASSERT_NE(srv.request().header("Content-Type"), nullptr);
    EXPECT_EQ(*srv.request().header("Content-Type"), "application/json");
    ASSERT_NE(srv.request().header("Host"), nullptr);
    EXPECT_EQ(*srv.request().header("Host"), "127.0.0.1:" + std::to_string(srv.port()));
}

TEST_F(HttpClientTest, HostHeaderOverrideAndByteCounts) {
    // An edge's FLV pull connects to the origin's address but names a vhost.
    ScriptedServer srv({{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}});
    ASSERT_TRUE(ok(srv.start()));
    HttpClientOptions opts;
    opts.host_header = "vhost.example";
    HttpClient c(opts);
    EXPECT_EQ(c.recv_bytes(), 0u);
    ASSERT_TRUE(ok(c.start("GET", srv.url("/live/a.flv?k=v"))));
    std::string body;
    ASSERT_TRUE(ok(c.read_body_all(&body)));
    srv.stop();
    EXPECT_EQ(body, "ok");
    ASSERT_NE(srv.request().header("Host"), nullptr);
    EXPECT_EQ(*srv.request().header("Host"), "vhost.example");
    EXPECT_EQ(c.recv_bytes(), 40u);  // the whole answer
    EXPECT_GT(c.send_bytes(), 0u);
    c.close();
    EXPECT_EQ(c.recv_bytes(), 0u);
}

TEST_F(HttpClientTest, UserAgentIsTheSignatureUnlessNamed) {
    for (const std::string& agent : {std::string(), std::string("sb_rtc_load")}) {
        ScriptedServer srv({{"HTTP/1.1 204 No Content\r\n\r\n"}});
        ASSERT_TRUE(ok(srv.start()));
        HttpClientOptions opts;
        opts.user_agent = agent;
        HttpClientResult r;
        ASSERT_TRUE(ok(http_get(srv.url("/"), opts, &r)));
        srv.stop();
        EXPECT_EQ(r.head.status, 204);
        ASSERT_NE(srv.request().header("User-Agent"), nullptr);
        EXPECT_EQ(*srv.request().header("User-Agent"), agent.empty() ? std::string(SRS_SIGNATURE) : agent);
    }
}

TEST_F(HttpClientTest, GetChunkedAnswerSplitAcrossWrites) {
    ScriptedServer srv({{"HTTP/1.1 404 Not Found\r\nTransfer-Enc"},
                        {"oding: chunked\r\n\r\n3\r\nno", 20 * kUsPerMs},
                        {"t\r\n6\r\n found\r\n0\r\n\r\n", 20 * kUsPerMs}});
    ASSERT_TRUE(ok(srv.start()));
    HttpClientResult r;
    ASSERT_TRUE(ok(http_get("http://localhost:" + std::to_string(srv.port()) + "/x?y=1", {}, &r)));
    srv.stop();
    EXPECT_EQ(r.head.status, 404);  // any status is an answer; the caller decides
    EXPECT_EQ(r.body, "not found");
    EXPECT_EQ(srv.request().method, "GET");
    EXPECT_EQ(srv.request().query, "y=1");
}

TEST_F(HttpClientTest, StreamingHandsOutPiecesAsTheyArrive) {
    // A close-delimited endless-looking body (HTTP-FLV style): the first piece
    // must be handed out long before the last one is sent.
    ScriptedServer srv({{"HTTP/1.1 200 OK\r\nContent-Type: video/x-flv\r\nConnection: close\r\n\r\nFLV"},
                        {"-tag1", 300 * kUsPerMs},
                        {"-tag2", 300 * kUsPerMs}});
    ASSERT_TRUE(ok(srv.start()));
    HttpClient c;
    utime_t t0 = monotonic_us();
    ASSERT_TRUE(ok(c.start("GET", srv.url("/live/a.flv"))));
    EXPECT_EQ(c.head().status, 200);
    std::string piece;
    bool eof = false;
    ASSERT_TRUE(ok(c.read_body_some(&piece, &eof)));
    EXPECT_EQ(piece, "FLV");
    EXPECT_LT(monotonic_us() - t0, 250 * kUsPerMs);
    EXPECT_FALSE(eof);
    std::string all = piece;
    while (!eof) {
        piece.clear();
        ASSERT_TRUE(ok(c.read_body_some(&piece, &eof)));
        all += piece;
    }
    EXPECT_EQ(all, "FLV-tag1-tag2");
    srv.stop();
}

TEST_F(HttpClientTest, StalledServerTimesOut) {
    ScriptedServer srv({{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"}}, 3 * kUsPerSecond);
    ASSERT_TRUE(ok(srv.start()));
    HttpClientOptions o;
    o.io_timeout = 200 * kUsPerMs;
    HttpClientResult r;
    utime_t t0 = monotonic_us();
    Error err = http_get(srv.url("/"), o, &r);
    EXPECT_LT(monotonic_us() - t0, 1 * kUsPerSecond);
    EXPECT_EQ(code(std::move(err)), kErrorSocketTimeout);
    srv.stop();
}

TEST_F(HttpClientTest, TricklingServerHitsTheTotalDeadline) {
    std::vector<Piece> pieces = {{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"}};
    for (int i = 0; i < 40; ++i) pieces.push_back({"x", 50 * kUsPerMs});
    ScriptedServer srv(pieces);
    ASSERT_TRUE(ok(srv.start()));
    HttpClientOptions o;
    o.io_timeout = 1 * kUsPerSecond;
    o.total_timeout = 400 * kUsPerMs;
    HttpClientResult r;
    utime_t t0 = monotonic_us();
    Error err = http_get(srv.url("/"), o, &r);
    utime_t took = monotonic_us() - t0;
    EXPECT_LT(took, 800 * kUsPerMs);
    int c = code(std::move(err));
    EXPECT_TRUE(c == kErrorHttpClientTimeout || c == kErrorSocketTimeout) << c;
    srv.stop();
}

TEST_F(HttpClientTest, GarbageTruncatedRefusedAndTooLarge) {
    {
        ScriptedServer srv({{"220 smtp.example.com ESMTP\r\n"}});
        ASSERT_TRUE(ok(srv.start()));
        HttpClientResult r;
        EXPECT_EQ(code(http_get(srv.url("/"), {}, &r)), kErrorHttpClientBadStatusLine);
        srv.stop();
    }
    {
        ScriptedServer srv({{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"}});
        ASSERT_TRUE(ok(srv.start()));
        HttpClientResult r;
        EXPECT_EQ(code(http_get(srv.url("/"), {}, &r)), kErrorHttpClientTruncated);
        srv.stop();
    }
    {
        ScriptedServer srv({{"HTTP/1.1 200 OK\r\n\r\n" + std::string(5000, 'z')}});
        ASSERT_TRUE(ok(srv.start()));
        HttpClientOptions o;
        o.max_body = 1000;
        HttpClientResult r;
        EXPECT_EQ(code(http_get(srv.url("/"), o, &r)), kErrorHttpClientBodyTooLarge);
        srv.stop();
    }
    int free_port = 0;
    {
        TcpListener l("127.0.0.1", 0);
        ASSERT_TRUE(ok(l.listen()));
        free_port = l.port();
    }
    HttpClientResult r;
    EXPECT_EQ(code(http_get("http://127.0.0.1:" + std::to_string(free_port) + "/", {}, &r)), kErrorSocketConnect);
    EXPECT_EQ(code(http_get("http://example.com/", {}, &r)), kErrorHttpClientBadUrl);
}

TEST_F(HttpClientTest, NameResolvedAndEachAddressTriedInTurn) {
    ScriptedServer srv({{"HTTP/1.1 204 No Content\r\n\r\n"}});
    ASSERT_TRUE(ok(srv.start()));
    HostResolverOptions ro;
    ro.lookup = [](const std::string& name) {
        HostAnswer a;
        // 127.0.0.2 on the server's port refuses: the client goes on to 127.0.0.1.
        if (name == "manager.test") a.addresses = {"127.0.0.2", "127.0.0.1"};
        else a.error = "Name or service not known";
        return a;
    };
    HostResolver resolver(ro);
    ASSERT_TRUE(ok(resolver.start()));
    HttpClientOptions o;
    o.resolver = &resolver;
    HttpClientResult r;
    const std::string port = std::to_string(srv.port());
    ASSERT_TRUE(ok(http_post("http://Manager.Test.:" + port + "/hb", "application/json", "{}", o, &r)));
    srv.stop();
    EXPECT_EQ(r.head.status, 204);
    ASSERT_NE(srv.request().header("Host"), nullptr);
    EXPECT_EQ(*srv.request().header("Host"), "Manager.Test.:" + port);  // as the URL spells it

    Error err = http_get("http://unknown.test:" + port + "/", o, &r);
    EXPECT_EQ(err.code(), kErrorDnsResolve);
    EXPECT_NE(err.summary().find("Name or service not known"), std::string::npos) << err.summary();
    err.ignore();
    resolver.stop();
}

TEST_F(HttpClientTest, HttpsToAPlainServerFailsTheHandshake) {
    ScriptedServer srv({{"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"}});
    ASSERT_TRUE(ok(srv.start()));
    HttpClientOptions o;
    o.verify_tls = false;
    HttpClientResult r;
    Error err = http_get("https://127.0.0.1:" + std::to_string(srv.port()) + "/", o, &r);
    srv.stop();
    EXPECT_EQ(err.code(), kErrorTlsHandshake) << err.summary();
    err.ignore();
}

TEST_F(HttpClientTest, HttpsHandshakeBoundedByTheConnectTimeout) {
    TcpListener silent("127.0.0.1", 0);
    ASSERT_TRUE(ok(silent.listen()));  // the kernel completes TCP; nobody ever reads
    HttpClientOptions o;
    o.connect_timeout = 300 * kUsPerMs;
    o.io_timeout = 5 * kUsPerSecond;
    o.total_timeout = 0;
    o.verify_tls = false;
    HttpClientResult r;
    utime_t t0 = monotonic_us();
    Error err = http_get("https://127.0.0.1:" + std::to_string(silent.port()) + "/", o, &r);
    utime_t took = monotonic_us() - t0;
    EXPECT_TRUE(err.code() == kErrorSocketTimeout || err.code() == kErrorHttpClientTimeout) << err.summary();
    EXPECT_NE(err.summary().find("TLS handshake"), std::string::npos) << err.summary();
    err.ignore();
    EXPECT_GE(took, 250 * kUsPerMs);
    EXPECT_LT(took, 2 * kUsPerSecond);
}
