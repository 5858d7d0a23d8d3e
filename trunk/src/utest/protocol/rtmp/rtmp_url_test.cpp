// Tests of protocol/rtmp_url: the URL forms SRS documents, as a server sees
// them (tcUrl + stream name) and as a client writes them (one URL).
#include <gtest/gtest.h>

#include "protocol/rtmp/rtmp_url.hpp"

using namespace srs;

namespace {

RtmpRequestInfo discover(const std::string& tc_url, const std::string& stream) {
    RtmpRequestInfo info;
    Error err = discover_rtmp_request(tc_url, stream, &info);
    EXPECT_TRUE(err.ok()) << err.summary();
    return info;
}

RtmpRequestInfo parse(const std::string& url) {
    RtmpRequestInfo info;
    Error err = parse_rtmp_url(url, &info);
    EXPECT_TRUE(err.ok()) << err.summary();
    return info;
}

}  // namespace

TEST(RtmpUrl, FfmpegPublish) {
    // What ffmpeg sent for rtmp://127.0.0.1:19778/live/livestream.
    RtmpRequestInfo r = discover("rtmp://127.0.0.1:19778/live", "livestream");
    EXPECT_EQ(r.schema, "rtmp");
    EXPECT_EQ(r.host, "127.0.0.1");
    EXPECT_EQ(r.port, 19778);
    EXPECT_EQ(r.vhost, "127.0.0.1");  // the caller maps an IP to __defaultVhost__
    EXPECT_EQ(r.app, "live");
    EXPECT_EQ(r.stream, "livestream");
    EXPECT_EQ(r.param, "");
    EXPECT_EQ(r.stream_url(), "/live/livestream");
    EXPECT_EQ(r.tc_url(), "rtmp://127.0.0.1:19778/live");
    EXPECT_TRUE(is_ip_literal(r.host));
    // ffmpeg's publish of livestream?token=abc.
    r = discover("rtmp://127.0.0.1:19780/live", "livestream?token=abc");
    EXPECT_EQ(r.stream, "livestream");
    EXPECT_EQ(r.param, "?token=abc");
    EXPECT_EQ(r.stream_with_param(), "livestream?token=abc");
}

TEST(RtmpUrl, VhostInAppParams) {
    // rtmp://ip/live?vhost=v/stream, split as a client does.
    RtmpRequestInfo r = discover("rtmp://192.168.1.10/live?vhost=v.ossrs.net", "livestream");
    EXPECT_EQ(r.host, "192.168.1.10");
    EXPECT_EQ(r.port, 1935);
    EXPECT_EQ(r.vhost, "v.ossrs.net");
    EXPECT_EQ(r.app, "live");
    EXPECT_EQ(r.stream, "livestream");
    EXPECT_EQ(r.param, "?vhost=v.ossrs.net");
    EXPECT_EQ(r.tc_url(), "rtmp://192.168.1.10/live");

    RtmpRequestInfo full = parse("rtmp://192.168.1.10/live?vhost=v.ossrs.net/livestream");
    EXPECT_EQ(full.vhost, "v.ossrs.net");
    EXPECT_EQ(full.app, "live");
    EXPECT_EQ(full.stream, "livestream");
    EXPECT_EQ(full.param, "?vhost=v.ossrs.net");
}

TEST(RtmpUrl, DefinstAndPortAndStreamParams) {
    RtmpRequestInfo r = discover("rtmp://host.com:19350/live/_definst_", "stream?token=1");
    EXPECT_EQ(r.host, "host.com");
    EXPECT_EQ(r.port, 19350);
    EXPECT_EQ(r.vhost, "host.com");
    EXPECT_EQ(r.app, "live");
    EXPECT_EQ(r.stream, "stream");
    EXPECT_EQ(r.param, "?token=1");
    EXPECT_EQ(r.tc_url(), "rtmp://host.com:19350/live");
    EXPECT_FALSE(is_ip_literal(r.host));

    RtmpRequestInfo full = parse("rtmp://host.com:19350/live/_definst_/stream?token=1");
    EXPECT_EQ(full.app, "live");
    EXPECT_EQ(full.stream, "stream");
    EXPECT_EQ(full.param, "?token=1");
}

TEST(RtmpUrl, LegacyVhostForm) {
    RtmpRequestInfo r = discover("rtmp://10.0.0.1/live...vhost...v.ossrs.net", "livestream");
    EXPECT_EQ(r.vhost, "v.ossrs.net");
    EXPECT_EQ(r.app, "live");
    EXPECT_EQ(r.stream, "livestream");
    EXPECT_EQ(r.param, "?vhost=v.ossrs.net");
    EXPECT_EQ(parse("rtmp://10.0.0.1/live...vhost...v.ossrs.net/livestream").vhost, "v.ossrs.net");
}

TEST(RtmpUrl, FmleParamsOnTheApp) {
    // FMLE/OBS put params on the app: app?k=v, stream separately.
    RtmpRequestInfo r = discover("rtmp://127.0.0.1/live?token=abc&domain=d.com", "livestream");
    EXPECT_EQ(r.app, "live");
    EXPECT_EQ(r.stream, "livestream");
    EXPECT_EQ(r.vhost, "d.com");
    EXPECT_EQ(r.param, "?token=abc&domain=d.com");
    // Params on both: they join, the stream's first.
    r = discover("rtmp://127.0.0.1/live?vhost=v", "livestream?token=1");
    EXPECT_EQ(r.vhost, "v");
    EXPECT_EQ(r.param, "?token=1&vhost=v");
    // vhost wins over domain.
    r = discover("rtmp://h/live?domain=d&vhost=v", "s");
    EXPECT_EQ(r.vhost, "v");
}

TEST(RtmpUrl, Ipv6Host) {
    RtmpRequestInfo r = discover("rtmp://[::1]:1935/live", "livestream");
    EXPECT_EQ(r.host, "::1");
    EXPECT_EQ(r.port, 1935);
    EXPECT_EQ(r.vhost, "::1");
    EXPECT_EQ(r.app, "live");
    EXPECT_EQ(r.tc_url(), "rtmp://[::1]/live");
    EXPECT_TRUE(is_ip_literal(r.host));
    r = parse("rtmp://[2001:db8::2]:19350/live/s");
    EXPECT_EQ(r.host, "2001:db8::2");
    EXPECT_EQ(r.port, 19350);
    EXPECT_EQ(r.tc_url(), "rtmp://[2001:db8::2]:19350/live");
    r = parse("rtmp://[::1]/live/s");
    EXPECT_EQ(r.port, 1935);
}

TEST(RtmpUrl, AppsAndStreams) {
    RtmpRequestInfo r = parse("rtmp://h/live/sub/stream");
    EXPECT_EQ(r.app, "live/sub");
    EXPECT_EQ(r.stream, "stream");
    EXPECT_EQ(r.stream_url(), "/live/sub/stream");
    // The same split either way round: the stream is the last segment.
    r = discover("rtmp://h/live", "sub/stream");
    EXPECT_EQ(r.app, "live/sub");
    EXPECT_EQ(r.stream, "stream");
    // After connect there is no stream yet; a trailing slash changes nothing.
    r = discover("rtmp://h/live/", "");
    EXPECT_EQ(r.app, "live");
    EXPECT_EQ(r.stream, "");
    // No app at all.
    r = discover("rtmp://h", "");
    EXPECT_EQ(r.app, kRtmpDefaultApp);
    EXPECT_EQ(r.host, "h");
    // A default-vhost param alone is dropped; with others it is kept.
    r = discover("rtmp://h/live?vhost=__defaultVhost__", "s");
    EXPECT_EQ(r.vhost, "h");
    EXPECT_EQ(r.param, "");
    r = discover("rtmp://h/live?vhost=__defaultVhost__&k=v", "s");
    EXPECT_EQ(r.vhost, "h");
    EXPECT_EQ(r.param, "?vhost=__defaultVhost__&k=v");
    // Empty params vanish.
    EXPECT_EQ(discover("rtmp://h/live?", "s?&a=1&").param, "?a=1");
    // A key that merely starts with "vhost" is not the vhost.
    EXPECT_EQ(discover("rtmp://h/live?vhostx=1", "s").vhost, "h");
}

TEST(RtmpUrl, ClientUrlRoundTrip) {
    // A client splits a URL into tcUrl + stream name; the server rebuilds the same request.
    for (const char* url : {"rtmp://192.168.1.10/live?vhost=v/livestream", "rtmp://h:19350/live/_definst_/s?token=1",
                            "rtmp://[::1]:1936/a/b/s?x=1", "rtmp://h/live/s"}) {
        RtmpRequestInfo client = parse(url);
        RtmpRequestInfo server = discover(client.tc_url(), client.stream_with_param());
        EXPECT_EQ(server.host, client.host) << url;
        EXPECT_EQ(server.port, client.port) << url;
        EXPECT_EQ(server.vhost, client.vhost) << url;
        EXPECT_EQ(server.app, client.app) << url;
        EXPECT_EQ(server.stream, client.stream) << url;
        EXPECT_EQ(server.param, client.param) << url;
    }
}

TEST(RtmpUrl, Invalid) {
    for (const char* url : {"", "live/stream", "://h/live", "rtmp:///live/s", "rtmp://h:abc/live/s",
                            "rtmp://h:70000/live/s", "rtmp://h:0/live", "rtmp://h:/live", "rtmp://[::1/live/s",
                            "rtmp://[::1]x/live/s", "rtmp://[]/live/s"}) {
        RtmpRequestInfo info;
        EXPECT_EQ(parse_rtmp_url(url, &info).code(), kErrorRtmpUrlInvalid) << url;
    }
    RtmpRequestInfo info;
    EXPECT_EQ(discover_rtmp_request("not a url", "s", &info).code(), kErrorRtmpUrlInvalid);
    EXPECT_FALSE(is_ip_literal("example.com"));
    EXPECT_FALSE(is_ip_literal(""));
    EXPECT_TRUE(is_ip_literal("10.1.2.3"));
}
