// The pure parts of the WebRTC signalling API: SRS's stream URLs and the
// HTTP status each refusal gets.
#include <gtest/gtest.h>

#include "app/api/rtc_api.hpp"
#include "core/error.hpp"

using namespace srs;

TEST(RtcApi, ParsesWebrtcUrls) {
    std::string host, app, stream, query;
    ASSERT_TRUE(parse_webrtc_url("webrtc://127.0.0.1/live/livestream", &host, &app, &stream, &query));
    EXPECT_EQ(host, "127.0.0.1");
    EXPECT_EQ(app, "live");
    EXPECT_EQ(stream, "livestream");
    EXPECT_EQ(query, "");
    ASSERT_TRUE(parse_webrtc_url("webrtc://d.example.com:1985/a/b/c?vhost=v&codec=vp8", &host, &app, &stream, &query));
    EXPECT_EQ(host, "d.example.com");
    EXPECT_EQ(app, "a/b");
    EXPECT_EQ(stream, "c");
    EXPECT_EQ(query, "vhost=v&codec=vp8");
    ASSERT_TRUE(parse_webrtc_url("webrtc://[::1]:1985/live/s", &host, &app, &stream, &query));
    EXPECT_EQ(host, "::1");
    // Any scheme: SRS uses only host, app, stream and query.
    for (const char* url : {"http://127.0.0.1/live/s", "https://h.example.com:443/live/s?k=v", "rtmp://h:1935/live/s",
                            "webrtc://h/live/s"}) {
        ASSERT_TRUE(parse_webrtc_url(url, &host, &app, &stream, &query)) << url;
        EXPECT_EQ(app, "live") << url;
        EXPECT_EQ(stream, "s") << url;
    }
    EXPECT_EQ(query, "");
    ASSERT_TRUE(parse_webrtc_url("https://h.example.com:443/live/s?k=v", &host, &app, &stream, &query));
    EXPECT_EQ(host, "h.example.com");
    EXPECT_EQ(query, "k=v");
    for (const char* bad : {"h/live/s", "://h/live/s", "1http://h/live/s", "ht tp://h/live/s", "webrtc://h/live",
                            "webrtc://h/live/", "webrtc:///live/s", "webrtc://h", "webrtc://h//s", ""}) {
        EXPECT_FALSE(parse_webrtc_url(bad, &host, &app, &stream, &query)) << bad;
    }
}

TEST(RtcApi, StatusPerRefusal) {
    EXPECT_EQ(rtc_error_status(kErrorSdpTooLarge), 400);
    EXPECT_EQ(rtc_error_status(kErrorSdpNoCodec), 400);
    EXPECT_EQ(rtc_error_status(kErrorRtcInvalidParams), 400);
    EXPECT_EQ(rtc_error_status(kErrorRtcApiBody), 400);
    EXPECT_EQ(rtc_error_status(kErrorRtcDisabled), 403);
    EXPECT_EQ(rtc_error_status(kErrorRtcNoSession), 404);
    EXPECT_EQ(rtc_error_status(kErrorRtcSourceBusy), 409);
    EXPECT_EQ(rtc_error_status(kErrorExceedConnections), 503);  // the pending sessions, or max_connections, full
    EXPECT_EQ(rtc_error_status(kErrorDtlsInit), 500);
}
