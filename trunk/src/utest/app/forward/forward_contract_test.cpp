// SRS's forward contract: destination URLs, the on_forward body and the
// reading of its answer; and the conf forms of vhost.forward.
#include <gtest/gtest.h>

#include "app/config/config.hpp"
#include "app/config/config_keys.hpp"
#include "app/forward/forward_contract.hpp"

using namespace srs;

TEST(ForwardUrl, KeepsParamAndNamesTheVhost) {
    EXPECT_EQ("rtmp://127.0.0.1:19350/live/livestream",
              forward_destination_url("127.0.0.1:19350", "__defaultVhost__", "live", "livestream", ""));
    EXPECT_EQ("rtmp://10.0.0.1:1935/live/s?token=1",
              forward_destination_url("10.0.0.1", "__defaultVhost__", "live", "s", "?token=1"));
    EXPECT_EQ("rtmp://10.0.0.1:1935/live/s?vhost=v.example",
              forward_destination_url("10.0.0.1", "v.example", "live", "s", ""));
    EXPECT_EQ("rtmp://10.0.0.1:1936/live/s?token=1&vhost=v.example",
              forward_destination_url("10.0.0.1:1936", "v.example", "live", "s", "?token=1"));
    // A param that names a vhost already is kept as it is.
    EXPECT_EQ("rtmp://10.0.0.1:1935/live/s?vhost=other",
              forward_destination_url("10.0.0.1", "v.example", "live", "s", "?vhost=other"));
    EXPECT_EQ("rtmp://[::1]:1935/live/s", forward_destination_url("[::1]", "__defaultVhost__", "live", "s", ""));
    EXPECT_EQ("rtmp://[::1]:1936/live/s", forward_destination_url("[::1]:1936", "__defaultVhost__", "live", "s", ""));
}

TEST(ForwardHook, BodyHasTheCommonFieldsThenTheStream) {
    OnForwardRequest r;
    r.server_id = "vid-1";
    r.service_id = "svc";
    r.client_id = "c1";
    r.ip = "127.0.0.1";
    r.vhost = "__defaultVhost__";
    r.app = "live";
    r.tc_url = "rtmp://127.0.0.1/live";
    r.stream = "s\"x";
    r.param = "?a=1";
    EXPECT_EQ("{\"server_id\":\"vid-1\",\"service_id\":\"svc\",\"action\":\"on_forward\",\"client_id\":\"c1\","
              "\"ip\":\"127.0.0.1\",\"vhost\":\"__defaultVhost__\",\"app\":\"live\",\"tcUrl\":\"rtmp://127.0.0.1/"
              "live\",\"stream\":\"s\\\"x\",\"param\":\"?a=1\"}",
              build_on_forward_body(r));
}

TEST(ForwardHook, ReadsTheUrls) {
    std::vector<std::string> urls;
    ASSERT_TRUE(parse_on_forward_reply(200, "{\"code\":0,\"data\":{\"urls\":[\"rtmp://a/live/s\", \"rtmp://b:1936/x/y?k=v\"]}}",
                                       &urls).ok());
    EXPECT_EQ((std::vector<std::string>{"rtmp://a/live/s", "rtmp://b:1936/x/y?k=v"}), urls);
    ASSERT_TRUE(parse_on_forward_reply(201, " { \"data\" : { \"urls\" : [ ] } , \"code\" : 0 } ", &urls).ok());
    EXPECT_TRUE(urls.empty());
    ASSERT_TRUE(parse_on_forward_reply(200, "{\"code\":0}", &urls).ok());
    EXPECT_TRUE(urls.empty());
    ASSERT_TRUE(parse_on_forward_reply(200, "{\"code\":0,\"data\":{\"urls\":[\"rtmp:\\/\\/a\\/l\\/s\"]}}", &urls).ok());
    EXPECT_EQ((std::vector<std::string>{"rtmp://a/l/s"}), urls);
}

TEST(ForwardHook, RefusesBadAnswers) {
    std::vector<std::string> urls;
    const char* ok = "{\"code\":0,\"data\":{\"urls\":[\"rtmp://a/live/s\"]}}";
    for (int status : {204, 302, 404, 500}) {
        Error err = parse_on_forward_reply(status, ok, &urls);
        EXPECT_TRUE(err.failed()) << status;
        err.ignore();
    }
    for (const char* body : {"", "0", "[]", "{}", "{\"code\":1}", "{\"code\":\"0\"}", "{\"code\":0,\"data\":{\"urls\":\"x\"}}",
                             "{\"code\":0,\"data\":{\"urls\":[1]}}", "{\"code\":0,\"data\":{\"urls\":[\"a\"",
                             "{\"code\":0,\"data\":{\"urls\":[\"a\" \"b\"]}}"}) {
        Error err = parse_on_forward_reply(200, body, &urls);
        EXPECT_TRUE(err.failed()) << body;
        EXPECT_TRUE(urls.empty()) << body;
        err.ignore();
    }
}

TEST(ForwardConfig, BlockAndOldOneLineForm) {
    std::shared_ptr<const Config> conf;
    ASSERT_TRUE(Config::load_text("vhost __defaultVhost__ { forward 127.0.0.1:19350 127.0.0.1:19351; }\n"
                                  "vhost b { forward { enabled on; destination 10.0.0.1:1935; backend "
                                  "http://127.0.0.1:8085/api/v1/forward; } }\n"
                                  "vhost c { forward { destination 10.0.0.2; } }\n",
                                  "t.conf", &conf)
                    .ok());
    EXPECT_TRUE(conf->get("__defaultVhost__", keys::vhost_forward_enabled));
    EXPECT_EQ((std::vector<std::string>{"127.0.0.1:19350", "127.0.0.1:19351"}),
              conf->get("__defaultVhost__", keys::vhost_forward_destination));
    EXPECT_TRUE(conf->get("b", keys::vhost_forward_enabled));
    EXPECT_EQ("http://127.0.0.1:8085/api/v1/forward", conf->get("b", keys::vhost_forward_backend));
    EXPECT_FALSE(conf->get("c", keys::vhost_forward_enabled));
    bool noted = false;
    for (const std::string& w : conf->warnings()) noted = noted || w.find("t.conf:1: directive forward HOST:PORT is the old form") == 0;
    EXPECT_TRUE(noted);
}
