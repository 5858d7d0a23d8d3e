// hls_ctx without I/O: ids, paths, the master playlist, the rewrite of media
// playlists (classic, fMP4, LL-HLS, broken ones) and the session table on a
// fake clock.
#include <gtest/gtest.h>

#include "app/http/hls_sessions.hpp"

using namespace srs;

TEST(AppHlsCtx, ValidIds) {
    EXPECT_TRUE(is_valid_hls_ctx("a1b2c3d4"));
    EXPECT_TRUE(is_valid_hls_ctx("Player_7-x"));
    EXPECT_FALSE(is_valid_hls_ctx(""));
    EXPECT_FALSE(is_valid_hls_ctx(std::string(33, 'a')));
    EXPECT_TRUE(is_valid_hls_ctx(std::string(32, 'a')));
    EXPECT_FALSE(is_valid_hls_ctx("a b"));
    EXPECT_FALSE(is_valid_hls_ctx("x\"y"));
    EXPECT_FALSE(is_valid_hls_ctx("a/../b"));
    EXPECT_FALSE(is_valid_hls_ctx("%41"));
}

TEST(AppHlsCtx, StreamOfPath) {
    std::string app, stream;
    ASSERT_TRUE(hls_stream_of_path("/live/livestream.m3u8", &app, &stream));
    EXPECT_EQ("live", app);
    EXPECT_EQ("livestream", stream);
    ASSERT_TRUE(hls_stream_of_path("/a/b/s.m3u8", &app, &stream));
    EXPECT_EQ("a/b", app);
    EXPECT_EQ("s", stream);
    EXPECT_FALSE(hls_stream_of_path("/s.m3u8", &app, &stream));  // no app
    EXPECT_FALSE(hls_stream_of_path("/live/.m3u8", &app, &stream));
    EXPECT_FALSE(hls_stream_of_path("/live/s.ts", &app, &stream));
    EXPECT_FALSE(hls_stream_of_path("", &app, &stream));
    EXPECT_FALSE(hls_stream_of_path(".m3u8", &app, &stream));
}

TEST(AppHlsCtx, MasterPlaylistAsSrs) {
    EXPECT_EQ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,AVERAGE-BANDWIDTH=1\n/live/livestream.m3u8?hls_ctx=abcd1234\n",
              hls_master_playlist("/live/livestream.m3u8", "abcd1234", ""));
    // The original query follows the id.
    EXPECT_EQ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,AVERAGE-BANDWIDTH=1\n/live/s.m3u8?hls_ctx=x1&token=9&a=b\n",
              hls_master_playlist("/live/s.m3u8", "x1", "token=9&a=b"));
    // A query that named an (unknown) hls_ctx is not repeated.
    EXPECT_EQ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,AVERAGE-BANDWIDTH=1\n/live/s.m3u8?hls_ctx=old\n",
              hls_master_playlist("/live/s.m3u8", "old", "hls_ctx=old&token=9"));
}

// What ffmpeg's hls muxer writes (-hls_time 1 -hls_list_size 5).
static const char* kFfmpegPlaylist =
    "#EXTM3U\n"
    "#EXT-X-VERSION:3\n"
    "#EXT-X-TARGETDURATION:2\n"
    "#EXT-X-MEDIA-SEQUENCE:3\n"
    "#EXTINF:2.000000,\n"
    "livestream3.ts\n"
    "#EXTINF:2.000000,\n"
    "livestream4.ts\n";

TEST(AppHlsCtx, RewriteClassicSegments) {
    EXPECT_EQ(
        "#EXTM3U\n"
        "#EXT-X-VERSION:3\n"
        "#EXT-X-TARGETDURATION:2\n"
        "#EXT-X-MEDIA-SEQUENCE:3\n"
        "#EXTINF:2.000000,\n"
        "livestream3.ts?hls_ctx=k9\n"
        "#EXTINF:2.000000,\n"
        "livestream4.ts?hls_ctx=k9\n",
        hls_rewrite_playlist(kFfmpegPlaylist, "k9"));
}

TEST(AppHlsCtx, RewriteSrsShapeWithKeysAndQueries) {
    const char* in =
        "#EXTM3U\n"
        "#EXT-X-VERSION:3\n"
        "#EXT-X-MEDIA-SEQUENCE:10\n"
        "#EXT-X-TARGETDURATION:10\n"
        "#EXT-X-DISCONTINUITY\n"
        "#EXT-X-KEY:METHOD=AES-128,URI=\"https://k.example.com/live/s-10.key\",IV=0x0123\n"
        "#EXTINF:9.960, no desc\n"
        "http://cdn.example.com/live/s-10.ts?token=1\n"
        "#EXTINF:9.960, no desc\n"
        "s-11.ts?\n"
        "#EXTINF:9.960, no desc\n"
        "s-12.ts?a=1&hls_ctx=mine\n"
        "#EXTINF:1.0,\n"
        "s-13.ts#frag\n";
    EXPECT_EQ(
        "#EXTM3U\n"
        "#EXT-X-VERSION:3\n"
        "#EXT-X-MEDIA-SEQUENCE:10\n"
        "#EXT-X-TARGETDURATION:10\n"
        "#EXT-X-DISCONTINUITY\n"
        "#EXT-X-KEY:METHOD=AES-128,URI=\"https://k.example.com/live/s-10.key\",IV=0x0123\n"
        "#EXTINF:9.960, no desc\n"
        "http://cdn.example.com/live/s-10.ts?token=1&hls_ctx=id\n"
        "#EXTINF:9.960, no desc\n"
        "s-11.ts?hls_ctx=id\n"
        "#EXTINF:9.960, no desc\n"
        "s-12.ts?a=1&hls_ctx=mine\n"
        "#EXTINF:1.0,\n"
        "s-13.ts?hls_ctx=id#frag\n",
        hls_rewrite_playlist(in, "id"));
}

TEST(AppHlsCtx, RewriteFmp4AndLowLatency) {
    const char* in =
        "#EXTM3U\n"
        "#EXT-X-VERSION:7\n"
        "#EXT-X-TARGETDURATION:1\n"
        "#EXT-X-MAP:URI=\"s/init.mp4\"\n"
        "#EXT-X-PART:DURATION=0.2,URI=\"s-5.0.m4s\",INDEPENDENT=YES\n"
        "#EXTINF:1.000,\n"
        "s-5.m4s\n"
        "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"s-6.0.m4s?x=1\"\n";
    EXPECT_EQ(
        "#EXTM3U\n"
        "#EXT-X-VERSION:7\n"
        "#EXT-X-TARGETDURATION:1\n"
        "#EXT-X-MAP:URI=\"s/init.mp4?hls_ctx=c\"\n"
        "#EXT-X-PART:DURATION=0.2,URI=\"s-5.0.m4s?hls_ctx=c\",INDEPENDENT=YES\n"
        "#EXTINF:1.000,\n"
        "s-5.m4s?hls_ctx=c\n"
        "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"s-6.0.m4s?x=1&hls_ctx=c\"\n",
        hls_rewrite_playlist(in, "c"));
}

TEST(AppHlsCtx, RewriteKeepsCrlfAndMissingFinalNewline) {
    EXPECT_EQ("#EXTM3U\r\n#EXTINF:1,\r\na.ts?hls_ctx=z\r\n#EXTINF:1,\r\nb.ts?hls_ctx=z",
              hls_rewrite_playlist("#EXTM3U\r\n#EXTINF:1,\r\na.ts\r\n#EXTINF:1,\r\nb.ts", "z"));
    EXPECT_EQ("a.ts?hls_ctx=z", hls_rewrite_playlist("a.ts", "z"));
    // Blank lines and blanks around a URI stay where they were.
    EXPECT_EQ("#EXTM3U\n\n  a.ts?hls_ctx=z \n", hls_rewrite_playlist("#EXTM3U\n\n  a.ts \n", "z"));
    EXPECT_EQ("", hls_rewrite_playlist("", "z"));
    EXPECT_EQ("\n\n", hls_rewrite_playlist("\n\n", "z"));
}

TEST(AppHlsCtx, RewriteBrokenInput) {
    // A MAP whose URI never closes, and a tag that only looks like one: left alone.
    EXPECT_EQ("#EXT-X-MAP:URI=\"init.mp4\n", hls_rewrite_playlist("#EXT-X-MAP:URI=\"init.mp4\n", "z"));
    EXPECT_EQ("#EXT-X-MAP:XURI=\"init.mp4\"\n", hls_rewrite_playlist("#EXT-X-MAP:XURI=\"init.mp4\"\n", "z"));
    EXPECT_EQ("#EXT-X-MAP:BYTERANGE=\"1@0\",URI=\"i.mp4?hls_ctx=z\"\n",
              hls_rewrite_playlist("#EXT-X-MAP:BYTERANGE=\"1@0\",URI=\"i.mp4\"\n", "z"));
    // A very long line, and binary junk: no crash, every URI line gets the id.
    std::string long_uri(200000, 'a');
    std::string out = hls_rewrite_playlist("#EXTM3U\n" + long_uri + ".ts\n", "z");
    EXPECT_EQ("#EXTM3U\n" + long_uri + ".ts?hls_ctx=z\n", out);
    std::string junk("\x00\x01\xff\r\r\n#\n", 8);
    EXPECT_EQ(std::string("\x00\x01\xff\r?hls_ctx=z\r\n#\n", 18), hls_rewrite_playlist(junk, "z"));
}

TEST(AppHlsCtx, SessionsRegisterTouchAndExpire) {
    ClientRegistry clients;
    {
        HlsSessionTable table(&clients);
        ClientInfo info;
        info.vhost = "__defaultVhost__";
        info.app = "live";
        info.stream = "s";
        HookRequest hook;
        hook.client_id = "abc";
        const utime_t idle = 4 * kUsPerSecond;  // hls_window 2
        HlsSession* s = table.create("abc", "127.0.0.1", info, hook, 1000, idle);
        ASSERT_EQ(s, table.find("abc"));
        ASSERT_EQ(s, clients.find("abc"));
        EXPECT_STREQ("hls-play", client_kind_name(s->info().kind));
        EXPECT_TRUE(s->listed());
        EXPECT_FALSE(table.id_free("abc"));
        EXPECT_TRUE(table.id_free("abd"));

        s->add_send_bytes(1500);
        EXPECT_EQ(1500u, s->send_bytes());
        EXPECT_EQ(0u, clients.totals().send_bytes);
        EXPECT_EQ(1u, clients.totals().clients);

        // Not yet: touched at 3 s, alive until 7 s.
        EXPECT_TRUE(table.take_expired(1000 + idle - 1).empty());
        table.touch(s, 3 * kUsPerSecond, idle);
        EXPECT_TRUE(table.take_expired(6 * kUsPerSecond).empty());
        auto gone = table.take_expired(7 * kUsPerSecond);
        ASSERT_EQ(1u, gone.size());
        EXPECT_EQ("abc", gone[0]->cid());
        EXPECT_EQ("abc", gone[0]->hook().client_id);
        EXPECT_EQ(nullptr, table.find("abc"));
        EXPECT_EQ(nullptr, clients.find("abc"));
        EXPECT_EQ(0u, table.size());
    }
    // Counted as a client; its bytes are its HTTP connections' (not twice).
    ClientTotals t = clients.totals();
    EXPECT_EQ(1u, t.clients);
    EXPECT_EQ(0u, t.send_bytes);
}

TEST(AppHlsCtx, KickedSessionLeavesTheListButStaysUntilExpiry) {
    ClientRegistry clients;
    HlsSessionTable table(&clients);
    HlsSession* s = table.create("k1", "10.0.0.1", ClientInfo(), HookRequest(), 0, 10);
    clients.find("k1")->expire();  // the API's DELETE
    EXPECT_TRUE(s->interrupted());
    EXPECT_EQ(nullptr, clients.find("k1"));
    EXPECT_EQ(s, table.find("k1"));
    EXPECT_FALSE(table.id_free("k1"));
    // A kicked session is not kept alive by its requests.
    table.touch(s, 5, 10);
    EXPECT_EQ(10, s->deadline_us());
    EXPECT_EQ(1u, table.take_expired(10).size());
    EXPECT_EQ(0u, clients.size());
}

TEST(AppHlsCtx, DropAndClear) {
    ClientRegistry clients;
    HlsSessionTable table(&clients);
    HlsSession* a = table.create("a", "", ClientInfo(), HookRequest(), 0, 10);
    table.create("b", "", ClientInfo(), HookRequest(), 0, 10);
    EXPECT_EQ(2u, clients.size());
    table.drop(a);
    EXPECT_EQ(nullptr, table.find("a"));
    EXPECT_EQ(1u, clients.size());
    table.clear();
    EXPECT_EQ(0u, table.size());
    EXPECT_EQ(0u, clients.size());
    // An id another client holds is not free.
    HlsSessionTable other(&clients);
    HlsSession* c = other.create("c", "", ClientInfo(), HookRequest(), 0, 10);
    EXPECT_FALSE(table.id_free("c"));
    (void)c;
}

TEST(AppHlsCtx, ListedCountFollowsTheRegistry) {
    ClientRegistry clients;
    HlsSessionTable table(&clients);
    table.create("a", "", ClientInfo(), HookRequest(), 0, 10);
    HlsSession* b = table.create("b", "", ClientInfo(), HookRequest(), 0, 20);
    HlsSession* c = table.create("c", "", ClientInfo(), HookRequest(), 0, 30);
    EXPECT_EQ(3u, table.listed());
    c->expire();
    c->expire();  // twice: counted once
    EXPECT_EQ(2u, table.listed());
    EXPECT_EQ(3u, table.size());
    table.drop(b);
    EXPECT_EQ(1u, table.listed());
    EXPECT_EQ(1u, table.take_expired(10).size());
    EXPECT_EQ(0u, table.listed());
    EXPECT_EQ(clients.size(), table.listed());
    // The kicked one expires without touching the count again.
    auto gone = table.take_expired(30);
    ASSERT_EQ(1u, gone.size());
    gone[0]->expire();
    EXPECT_EQ(0u, table.listed());
    EXPECT_EQ(0u, table.size());
}
