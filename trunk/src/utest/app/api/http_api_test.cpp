// The API's clients list and kick with a client that is not a TCP
// connection (as a WebRTC session will be): the same JSON fields and type
// strings as for RTMP/HTTP clients, DELETE expires it.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "app/api/http_api.hpp"
#include "io/runtime.hpp"
#include "utest/app/api/api_test_util.hpp"
#include "utest/app/conn/fake_live_context.hpp"

using namespace srs;

namespace {

// Serves one request and returns the JSON body the API wrote.
nlohmann::json call(HttpApiHandler* api, HttpRequest req) {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    TcpConn* raw = nullptr;
    EXPECT_TRUE(TcpConn::adopt(fds[0], &raw).ok());
    std::unique_ptr<TcpConn> sock(raw);
    {
        HttpResponse res(sock.get(), req, false);
        EXPECT_TRUE(api->serve(req, &res).ok());
    }
    sock.reset();  // EOF for the reader
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[1], buf, sizeof(buf))) > 0) out.append(buf, n);
    ::close(fds[1]);
    size_t body = out.find("\r\n\r\n");
    EXPECT_NE(body, std::string::npos) << out;
    return nlohmann::json::parse(out.substr(body + 4));
}

}  // namespace

TEST(AppHttpApiClients, ANonTcpClientIsListedAndKickedLikeAny) {
    ASSERT_TRUE(init_runtime().ok());
    FakeLiveContext ctx;
    HttpApiHandler api(&ctx);
    FakeRtcSession joining("aaa"), playing("bbb");
    playing.sent = 1000;
    playing.received = 200;
    ctx.clients().add(&joining);
    ctx.clients().add(&playing);
    playing.info().kind = ClientKind::kRtcPlay;
    playing.info().vhost = "__defaultVhost__";
    playing.info().app = "live";
    playing.info().stream = "livestream";

    nlohmann::json j = call(&api, utest::api_get("/api/v1/clients", ""));
    ASSERT_EQ(j["code"], 0);
    ASSERT_EQ(j["clients"].size(), 1u);  // the one not playing yet is not listed
    const nlohmann::json& c = j["clients"][0];
    EXPECT_EQ(c["id"], "bbb");
    EXPECT_EQ(c["type"], "rtc-play");
    EXPECT_EQ(c["ip"], "192.0.2.7");
    EXPECT_EQ(c["url"], "/live/livestream");
    EXPECT_EQ(c["name"], "livestream");
    EXPECT_EQ(c["publish"], false);
    EXPECT_EQ(c["send_bytes"], 1000);
    EXPECT_EQ(c["recv_bytes"], 200);
    for (const char* field : {"vhost", "stream", "pageUrl", "swfUrl", "tcUrl", "alive", "kbps"}) {
        EXPECT_TRUE(c.contains(field)) << field;
    }

    EXPECT_EQ(call(&api, utest::api_get("/api/v1/clients/aaa", ""))["code"], 404);
    HttpRequest kick = utest::api_get("/api/v1/clients/bbb", "");
    kick.method = "DELETE";
    EXPECT_EQ(call(&api, kick)["code"], 0);
    EXPECT_TRUE(playing.expired);
    EXPECT_FALSE(joining.expired);
}
