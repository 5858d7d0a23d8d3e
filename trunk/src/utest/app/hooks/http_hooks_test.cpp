// HttpHooks against in-process hook servers (coroutines with scripted
// answers): URLs in order and the first failure stops the hook, a trickling
// answer is bounded by the timeout, the running config per call, and the
// asynchronous queue (drop the oldest when full, drained by its coroutine).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "app/hooks/http_hooks.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "io/socket.hpp"
#include "protocol/http/http_request.hpp"
#include "utest/io/read_http_request.hpp"

using namespace srs;

namespace {

// Accepts one connection, reads one request, writes `answer`, then (when
// trickle_us > 0) one byte every trickle_us until stopped.
class HookServer : public CoroutineHandler {
  public:
    explicit HookServer(std::string answer, utime_t trickle_us = 0)
        : listener_("127.0.0.1", 0), answer_(std::move(answer)), trickle_us_(trickle_us), co_("hook-srv", this) {}
    ~HookServer() override { co_.stop(); }
    void start() {
        ASSERT_TRUE(listener_.listen().ok());
        ASSERT_TRUE(co_.start().ok());
    }
    std::string url(const std::string& path) const {
        return "http://127.0.0.1:" + std::to_string(listener_.port()) + path;
    }
    bool got_request = false;
    HttpRequest request;

    Error cycle() override {
        TcpConn* raw = nullptr;
        if (Error err = listener_.accept(&raw, 10 * kUsPerSecond); !err.ok()) return err;
        std::unique_ptr<TcpConn> conn(raw);
        conn->set_recv_timeout(5 * kUsPerSecond);
        if (Error err = utest::read_http_request(conn.get(), &request); !err.ok()) return err;
        got_request = true;
        if (Error err = conn->write(answer_.data(), answer_.size()); !err.ok()) return err;
        while (trickle_us_ > 0) {
            if (Error err = sleep_us(trickle_us_); !err.ok()) return err;
            if (Error err = conn->write("x", 1); !err.ok()) return err;
        }
        return Error();
    }

  private:
    TcpListener listener_;
    std::string answer_;
    utime_t trickle_us_;
    Coroutine co_;
};

std::string answer(int status, const std::string& body) {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
}

std::shared_ptr<const Config> load(const std::string& text) {
    std::shared_ptr<const Config> c;
    Error err = Config::load_text(text, "t.conf", &c);
    EXPECT_TRUE(err.ok()) << err.summary();
    err.ignore();
    return c;
}

HookRequest player() {
    HookRequest r;
    r.client_id = "c1";
    r.ip = "127.0.0.1";
    r.vhost = "__defaultVhost__";
    r.app = "live";
    r.stream = "s";
    r.tc_url = "rtmp://127.0.0.1/live";
    return r;
}

class HttpHooksTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
    void use(const std::string& text) { config_ = load(text); }
    ConfigSnapshot snapshot() {
        return [this] { return config_; };
    }
    std::shared_ptr<const Config> config_;
};

}  // namespace

TEST(HookOptions, TimeoutsAndBound) {
    HttpClientOptions base;
    base.user_agent = "kept";
    HttpClientOptions o = hook_client_options(base, 700 * kUsPerMs);
    EXPECT_EQ(700 * kUsPerMs, o.total_timeout);
    EXPECT_EQ(700 * kUsPerMs, o.io_timeout);
    EXPECT_LE(o.connect_timeout, 700 * kUsPerMs);
    EXPECT_EQ(kHookMaxAnswerBytes, o.max_body);
    EXPECT_EQ("kept", o.user_agent);
}

TEST_F(HttpHooksTest, OffOrNoUrlCallsNothing) {
    use("vhost __defaultVhost__ { http_hooks { enabled off; on_play http://127.0.0.1:1/x; } }\n");
    HttpHooks hooks(snapshot(), HttpClientOptions());
    bool called = true;
    ASSERT_TRUE(hooks.call(HookAction::kPlay, player(), &called).ok());
    EXPECT_FALSE(called);
    EXPECT_FALSE(hooks.configured("__defaultVhost__", HookAction::kPlay));
    use("vhost __defaultVhost__ { http_hooks { enabled on; on_publish http://127.0.0.1:1/x; } }\n");
    ASSERT_TRUE(hooks.call(HookAction::kPlay, player(), &called).ok());
    EXPECT_FALSE(called);
    EXPECT_TRUE(hooks.configured("__defaultVhost__", HookAction::kPublish));
}

TEST_F(HttpHooksTest, UrlsInOrderAndTheFirstFailureStops) {
    HookServer a(answer(200, "{\"code\":0}")), b(answer(500, "oops")), c(answer(200, "0"));
    a.start();
    b.start();
    c.start();
    use("server_id vid-test;\nvhost __defaultVhost__ { http_hooks { enabled on; on_play " + a.url("/a") + " " +
        b.url("/b") + " " + c.url("/c") + "; timeout 2000; } }\n");
    HttpHooks hooks(snapshot(), HttpClientOptions());
    hooks.set_service_id("svc12345");
    Error err = hooks.call(HookAction::kPlay, player());
    ASSERT_TRUE(err.failed());
    EXPECT_EQ(kErrorHttpClientStatus, err.code());
    EXPECT_NE(std::string::npos, err.summary().find(b.url("/b"))) << err.summary();
    err.ignore();
    ASSERT_TRUE(a.got_request);
    ASSERT_TRUE(b.got_request);
    EXPECT_FALSE(c.got_request);  // after the failure nothing more is called
    EXPECT_EQ("POST", a.request.method);
    EXPECT_EQ("/a", a.request.path);
    nlohmann::json j = nlohmann::json::parse(a.request.body);
    EXPECT_EQ("vid-test", j["server_id"]);
    EXPECT_EQ("svc12345", j["service_id"]);
    EXPECT_EQ("on_play", j["action"]);
    EXPECT_EQ("c1", j["client_id"]);
    EXPECT_EQ(2u, hooks.stats().calls);
    EXPECT_EQ(1u, hooks.stats().failures);
}

TEST_F(HttpHooksTest, EveryUrlPassingPasses) {
    HookServer a(answer(201, "{\"code\":0,\"data\":null}")), b(answer(200, "0"));
    a.start();
    b.start();
    use("vhost __defaultVhost__ { http_hooks { enabled on; on_publish " + a.url("/a") + " " + b.url("/b") + "; } }\n");
    HttpHooks hooks(snapshot(), HttpClientOptions());
    Error err = hooks.call(HookAction::kPublish, player());
    EXPECT_TRUE(err.ok()) << err.summary();
    err.ignore();
    EXPECT_TRUE(a.got_request && b.got_request);
}

TEST_F(HttpHooksTest, TricklingAnswerEndsAtTheTimeout) {
    // A head promising a long body, then a byte every 50 ms: each read
    // succeeds, only the total deadline ends it.
    HookServer slow("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{", 50 * kUsPerMs);
    slow.start();
    use("vhost __defaultVhost__ { http_hooks { enabled on; on_play " + slow.url("/slow") + "; timeout 400; } }\n");
    HttpHooks hooks(snapshot(), HttpClientOptions());
    utime_t start = monotonic_us();
    Error err = hooks.call(HookAction::kPlay, player());
    utime_t took = monotonic_us() - start;
    ASSERT_TRUE(err.failed());
    // The deadline cuts the last read's timeout: either error says it ran out.
    EXPECT_TRUE(err.code() == kErrorHttpClientTimeout || err.code() == kErrorSocketTimeout) << err.summary();
    err.ignore();
    EXPECT_GE(took, 350 * kUsPerMs);
    EXPECT_LT(took, 1500 * kUsPerMs);
}

TEST_F(HttpHooksTest, HugeAnswerIsAFailureNotAnAllocation) {
    std::string big(kHookMaxAnswerBytes * 4, ' ');
    HookServer huge(answer(200, "{\"code\":0,\"pad\":\"" + big + "\"}"));
    huge.start();
    use("vhost __defaultVhost__ { http_hooks { enabled on; on_play " + huge.url("/huge") + "; } }\n");
    HttpHooks hooks(snapshot(), HttpClientOptions());
    Error err = hooks.call(HookAction::kPlay, player());
    ASSERT_TRUE(err.failed());
    EXPECT_EQ(kErrorHttpClientBodyTooLarge, err.code()) << err.summary();
    err.ignore();
}

TEST_F(HttpHooksTest, ReloadAppliesToTheNextCall) {
    HookServer a(answer(200, "{\"code\":1}"));
    a.start();
    use("vhost __defaultVhost__ { http_hooks { enabled on; on_play " + a.url("/a") + "; } }\n");
    HttpHooks hooks(snapshot(), HttpClientOptions());
    Error err = hooks.call(HookAction::kPlay, player());
    EXPECT_EQ(kErrorHookAnswerCode, err.code());
    err.ignore();
    use("vhost __defaultVhost__ { http_hooks { enabled on; } }\n");  // on_play removed
    EXPECT_TRUE(hooks.call(HookAction::kPlay, player()).ok());
}

TEST_F(HttpHooksTest, FullQueueDropsTheOldest) {
    use("vhost __defaultVhost__ { http_hooks { enabled on; on_dvr http://127.0.0.1:1/dvr; } }\n");
    HttpHooks hooks(snapshot(), HttpClientOptions());  // not started: nothing drains
    for (size_t i = 0; i < kHookQueueCapacity + 6; i++) hooks.post_async(HookAction::kDvr, player());
    EXPECT_EQ(kHookQueueCapacity, hooks.queue_size());
    EXPECT_EQ(6u, hooks.stats().dropped);
    EXPECT_EQ(kHookQueueCapacity + 6, hooks.stats().queued);
    hooks.post_async(HookAction::kHls, player());  // no on_hls URL: nothing queued
    EXPECT_EQ(kHookQueueCapacity + 6, hooks.stats().queued);
    hooks.stop();
    EXPECT_EQ(0u, hooks.queue_size());
}

TEST_F(HttpHooksTest, QueueIsDrainedByItsCoroutine) {
    HookServer dvr(answer(200, "{\"code\":0}")), notify(answer(404, ""));
    dvr.start();
    notify.start();
    use("vhost __defaultVhost__ { http_hooks { enabled on; on_dvr " + dvr.url("/dvr") + "; on_hls_notify " +
        notify.url("/n/[app]/[stream]/[ts_url][param]") + "; } }\n");
    HttpHooks hooks(snapshot(), HttpClientOptions());
    ASSERT_TRUE(hooks.start().ok());
    HookRequest r = player();
    r.file = "./objs/nginx/html/live/s.flv";
    r.param = "?k=v";
    hooks.post_async(HookAction::kDvr, r);
    hooks.post_hls_notify(r, "live/s-1.ts");
    for (int i = 0; i < 200 && !(dvr.got_request && notify.got_request); i++) ASSERT_TRUE(sleep_us(10 * kUsPerMs).ok());
    ASSERT_TRUE(dvr.got_request);
    ASSERT_TRUE(notify.got_request);
    EXPECT_EQ("on_dvr", nlohmann::json::parse(dvr.request.body)["action"]);
    EXPECT_EQ("GET", notify.request.method);
    EXPECT_EQ("/n/live/s/live/s-1.ts", notify.request.path);
    EXPECT_EQ("k=v", notify.request.query);
    hooks.stop();
}
