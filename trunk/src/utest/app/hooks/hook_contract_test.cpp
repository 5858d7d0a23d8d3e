// SRS's http_hooks contract: the body of every action (field order and
// types), the answer rule with real and broken answers, the on_hls_notify
// template and the stream URL.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "app/hooks/hook_contract.hpp"

using namespace srs;

namespace {

HookRequest sample() {
    HookRequest r;
    r.server_id = "vid-0xk989d";
    r.service_id = "ez1l7r9w";
    r.client_id = "341w361a";
    r.ip = "127.0.0.1";
    r.vhost = "__defaultVhost__";
    r.app = "live";
    r.stream = "livestream";
    r.param = "?token=abc&k=v";
    r.tc_url = "rtmp://127.0.0.1/live";
    r.page_url = "http://example.com/player.html";
    r.stream_id = "vid-4t57z8j";
    return r;
}

std::vector<std::string> keys_of(const std::string& body) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(body);
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    return keys;
}

using Keys = std::vector<std::string>;
const Keys kCommon = {"server_id", "service_id", "action", "client_id", "ip", "vhost", "app"};

Keys with_common(const Keys& extra) {
    Keys k = kCommon;
    k.insert(k.end(), extra.begin(), extra.end());
    return k;
}

}  // namespace

TEST(HookBody, OnConnectIsExact) {
    HookRequest r = sample();
    r.stream.clear();
    r.param.clear();
    r.stream_id.clear();
    EXPECT_EQ("{\"server_id\":\"vid-0xk989d\",\"service_id\":\"ez1l7r9w\",\"action\":\"on_connect\",\"client_id\":"
              "\"341w361a\",\"ip\":\"127.0.0.1\",\"vhost\":\"__defaultVhost__\",\"app\":\"live\",\"stream\":\"\","
              "\"param\":\"\",\"tcUrl\":\"rtmp://127.0.0.1/live\",\"pageUrl\":\"http://example.com/player.html\"}",
              build_hook_body(HookAction::kConnect, r));
}

TEST(HookBody, FieldsPerActionInSrsOrder) {
    HookRequest r = sample();
    EXPECT_EQ(with_common({"send_bytes", "recv_bytes"}), keys_of(build_hook_body(HookAction::kClose, r)));
    Keys publish = with_common({"tcUrl", "stream", "param", "stream_url", "stream_id"});
    EXPECT_EQ(publish, keys_of(build_hook_body(HookAction::kPublish, r)));
    EXPECT_EQ(publish, keys_of(build_hook_body(HookAction::kUnpublish, r)));
    EXPECT_EQ(publish, keys_of(build_hook_body(HookAction::kStop, r)));
    EXPECT_EQ(with_common({"stream", "tcUrl", "param", "pageUrl", "stream_url", "stream_id"}),
              keys_of(build_hook_body(HookAction::kPlay, r)));
    EXPECT_EQ(with_common({"tcUrl", "stream", "param", "cwd", "file", "stream_url", "stream_id"}),
              keys_of(build_hook_body(HookAction::kDvr, r)));
    EXPECT_EQ(with_common({"tcUrl", "stream", "param", "duration", "cwd", "file", "url", "m3u8", "m3u8_url", "seq_no",
                           "stream_url", "stream_id"}),
              keys_of(build_hook_body(HookAction::kHls, r)));
    EXPECT_EQ(with_common({"tcUrl", "stream", "param"}), keys_of(build_hook_body(HookAction::kForward, r)));
}

TEST(HookBody, StreamIdOnlyWhenTheSourceExists) {
    HookRequest r = sample();
    r.stream_id.clear();
    for (HookAction a : {HookAction::kPublish, HookAction::kUnpublish, HookAction::kPlay, HookAction::kStop,
                         HookAction::kDvr, HookAction::kHls}) {
        nlohmann::json j = nlohmann::json::parse(build_hook_body(a, r));
        EXPECT_FALSE(j.contains("stream_id")) << hook_action_name(a);
        EXPECT_EQ("/live/livestream", j["stream_url"]) << hook_action_name(a);
    }
}

TEST(HookBody, TypesAndValues) {
    HookRequest r = sample();
    r.send_bytes = 5000000000LL;  // past 32 bits
    r.recv_bytes = 12345;
    nlohmann::json c = nlohmann::json::parse(build_hook_body(HookAction::kClose, r));
    EXPECT_TRUE(c["send_bytes"].is_number_integer());
    EXPECT_EQ(5000000000LL, c["send_bytes"].get<int64_t>());
    EXPECT_EQ(12345, c["recv_bytes"].get<int64_t>());
    EXPECT_EQ("on_close", c["action"]);

    r.duration = 9.96;
    r.seq_no = 42;
    r.cwd = "/srs";
    r.file = "./objs/nginx/html/live/livestream-42.ts";
    r.url = "live/livestream-42.ts";
    r.m3u8 = "./objs/nginx/html/live/livestream.m3u8";
    r.m3u8_url = "live/livestream.m3u8";
    nlohmann::json h = nlohmann::json::parse(build_hook_body(HookAction::kHls, r));
    EXPECT_TRUE(h["duration"].is_number_float());
    EXPECT_DOUBLE_EQ(9.96, h["duration"].get<double>());
    EXPECT_TRUE(h["seq_no"].is_number_integer());
    EXPECT_EQ(42, h["seq_no"].get<int>());
    EXPECT_EQ("./objs/nginx/html/live/livestream-42.ts", h["file"]);
    EXPECT_EQ("?token=abc&k=v", h["param"]);
}

TEST(HookBody, ParamKeepsOrGetsItsQuestionMark) {
    EXPECT_EQ("", hook_param(""));
    EXPECT_EQ("?a=1", hook_param("?a=1"));
    EXPECT_EQ("?a=1", hook_param("a=1"));
    HookRequest r = sample();
    r.param = "k=v";
    EXPECT_EQ("?k=v", nlohmann::json::parse(build_hook_body(HookAction::kPlay, r))["param"]);
}

TEST(HookBody, StreamUrlCarriesANamedVhost) {
    EXPECT_EQ("/live/s", hook_stream_url("__defaultVhost__", "live", "s"));
    EXPECT_EQ("/live/s", hook_stream_url("", "live", "s"));
    EXPECT_EQ("hooks.test/live/s", hook_stream_url("hooks.test", "live", "s"));
}

TEST(HookBody, HostileStringsStayValidJson) {
    HookRequest r = sample();
    r.stream = std::string("a\"b\\c\x01\xff\xfe", 8);  // quotes, control and invalid UTF-8 bytes
    r.page_url = "</script>";
    std::string body = build_hook_body(HookAction::kPlay, r);
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << body;
    EXPECT_EQ(0u, j["stream"].get<std::string>().find("a\"b\\c\x01"));
}

TEST(HookAnswer, SrsAccepts) {
    for (const char* body : {"0", " 0\n", "{\"code\":0}", "{\"code\":0,\"data\":{\"x\":1}}", "{ \"data\":null, \"code\" : 0 }",
                             "{\"code\":-0}"}) {
        for (int status : {200, 201}) {
            Error err = check_hook_answer(status, body);
            EXPECT_TRUE(err.ok()) << status << " " << body << ": " << err.summary();
            err.ignore();
        }
    }
}

TEST(HookAnswer, EveryOtherStatusFails) {
    for (int status : {100, 202, 204, 301, 302, 307, 308, 400, 403, 404, 500, 502, 503}) {
        Error err = check_hook_answer(status, "{\"code\":0}");
        ASSERT_TRUE(err.failed()) << status;
        EXPECT_EQ(kErrorHttpClientStatus, err.code());
        EXPECT_EQ(kSrsHookStatusCode, hook_refusal_code(err));
        EXPECT_NE(std::string::npos, err.summary().find("status " + std::to_string(status))) << err.summary();
        err.ignore();
    }
}

TEST(HookAnswer, BrokenBodiesFailWithTheirReason) {
    struct Case {
        const char* body;
        int code;
        const char* reason;
    };
    const Case cases[] = {
        {"", kErrorHookAnswerData, "empty"},
        {"ok", kErrorHookAnswerData, "not JSON"},
        {"<html>hi</html>", kErrorHookAnswerData, "not JSON"},
        {"{\"code\":0", kErrorHookAnswerData, "not JSON"},
        {"{\"code\":0}{", kErrorHookAnswerData, "not JSON"},
        {"1", kErrorHookAnswerData, "neither 0 nor an object"},
        {"0.0", kErrorHookAnswerData, "neither 0 nor an object"},
        {"\"0\"", kErrorHookAnswerData, "neither 0 nor an object"},
        {"[0]", kErrorHookAnswerData, "neither 0 nor an object"},
        {"null", kErrorHookAnswerData, "neither 0 nor an object"},
        {"true", kErrorHookAnswerData, "neither 0 nor an object"},
        {"{}", kErrorHookAnswerCode, "no code"},
        {"{\"data\":{\"code\":0}}", kErrorHookAnswerCode, "no code"},
        {"{\"code\":1}", kErrorHookAnswerCode, "code 1"},
        {"{\"code\":-1}", kErrorHookAnswerCode, "code -1"},
        {"{\"code\":403,\"msg\":\"denied\"}", kErrorHookAnswerCode, "code 403"},
        {"{\"code\":\"0\"}", kErrorHookAnswerCode, "not an integer"},
        {"{\"code\":0.0}", kErrorHookAnswerCode, "not an integer"},
        {"{\"code\":false}", kErrorHookAnswerCode, "not an integer"},
        {"{\"code\":null}", kErrorHookAnswerCode, "not an integer"},
        {"{\"code\":[0]}", kErrorHookAnswerCode, "not an integer"},
    };
    for (const Case& c : cases) {
        Error err = check_hook_answer(200, c.body);
        ASSERT_TRUE(err.failed()) << c.body;
        EXPECT_EQ(c.code, err.code()) << c.body;
        EXPECT_EQ(c.code, hook_refusal_code(err)) << c.body;
        EXPECT_NE(std::string::npos, err.summary().find(c.reason)) << c.body << ": " << err.summary();
        err.ignore();
    }
}

TEST(HookAnswer, DeepNestingIsRefusedBeforeParsing) {
    std::string deep(100000, '[');
    Error err = check_hook_answer(200, deep);
    ASSERT_TRUE(err.failed());
    EXPECT_EQ(kErrorHookAnswerData, err.code());
    EXPECT_NE(std::string::npos, err.summary().find("deeper")) << err.summary();
    err.ignore();
    // Brackets inside strings do not count.
    Error fine = check_hook_answer(200, "{\"code\":0,\"s\":\"" + std::string(1000, '[') + "\"}");
    EXPECT_TRUE(fine.ok()) << fine.summary();
    fine.ignore();
}

TEST(HookAnswer, ExcerptIsBoundedAndEscaped) {
    EXPECT_EQ("ab\\x0a\\x22", hook_body_excerpt("ab\n\""));
    std::string big(100000, 'x');
    std::string e = hook_body_excerpt(big, 16);
    EXPECT_EQ(std::string(16, 'x') + "...(100000 bytes)", e);
    Error err = check_hook_answer(500, big);
    EXPECT_LT(err.summary().size(), 1000u);
    err.ignore();
}

TEST(HlsNotify, TemplateIsExpanded) {
    EXPECT_EQ("http://127.0.0.1:8085/api/v1/hls/vid-1/live/s/live/s-3.ts?k=v",
              expand_hls_notify_url("http://127.0.0.1:8085/api/v1/hls/[server_id]/[app]/[stream]/[ts_url][param]",
                                    "vid-1", "live", "s", "live/s-3.ts", "?k=v"));
    EXPECT_EQ("http://h/s/s?x", expand_hls_notify_url("http://h/[stream]/[stream][param]", "v", "a", "s", "t", "?x"));
    EXPECT_EQ("http://h/plain", expand_hls_notify_url("http://h/plain", "v", "a", "s", "t", ""));
    // A value holding a variable's name is not expanded again.
    EXPECT_EQ("http://h/[app]", expand_hls_notify_url("http://h/[stream]", "v", "a", "[app]", "t", ""));
    // A ts_url that is a URL already is the URL.
    EXPECT_EQ("https://cdn.test/live/s-1.ts", expand_hls_notify_url("http://h/[ts_url]", "v", "live", "s",
                                                                    "https://cdn.test/live/s-1.ts", ""));
}

TEST(HookAction, Names) {
    EXPECT_STREQ("on_connect", hook_action_name(HookAction::kConnect));
    EXPECT_STREQ("on_close", hook_action_name(HookAction::kClose));
    EXPECT_STREQ("on_publish", hook_action_name(HookAction::kPublish));
    EXPECT_STREQ("on_unpublish", hook_action_name(HookAction::kUnpublish));
    EXPECT_STREQ("on_play", hook_action_name(HookAction::kPlay));
    EXPECT_STREQ("on_stop", hook_action_name(HookAction::kStop));
    EXPECT_STREQ("on_dvr", hook_action_name(HookAction::kDvr));
    EXPECT_STREQ("on_hls", hook_action_name(HookAction::kHls));
    EXPECT_STREQ("on_forward", hook_action_name(HookAction::kForward));
}
