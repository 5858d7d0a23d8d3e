// Tests for app/hls's pure parts: the playlist bytes (TS, fMP4, keys,
// discontinuities), the target duration rule, SRS's window shrink, URIs
// relative to the playlist, path variables, the cut rule and the
// discontinuity decision on real sequence headers.
#include <gtest/gtest.h>

#include <string>

#include "app/hls/hls_crypto.hpp"
#include "app/hls/hls_cut_rule.hpp"
#include "app/hls/hls_path.hpp"
#include "app/hls/hls_playlist.hpp"
#include "utest/test_util.hpp"

using namespace srs;
using namespace srs::utest;

namespace {

HlsSegmentEntry seg(int64_t seq, int64_t ms, const std::string& uri) {
    HlsSegmentEntry s;
    s.seq = seq;
    s.duration_ms = ms;
    s.uri = uri;
    s.path = "./objs/nginx/html/live/" + uri;
    return s;
}

}  // namespace

TEST(HlsPlaylist, SrsShapeByteForByte) {
    std::deque<HlsSegmentEntry> s{seg(3, 9960, "livestream-3.ts"), seg(4, 10027, "livestream-4.ts")};
    HlsPlaylistOptions o;
    EXPECT_EQ(render_hls_playlist(s, o),
              "#EXTM3U\n"
              "#EXT-X-VERSION:3\n"
              "#EXT-X-MEDIA-SEQUENCE:3\n"
              "#EXT-X-TARGETDURATION:11\n"
              "#EXTINF:9.960, no desc\n"
              "livestream-3.ts\n"
              "#EXTINF:10.027, no desc\n"
              "livestream-4.ts\n");
}

TEST(HlsPlaylist, TargetDurationIsCeilOfLongestOrFragmentTimesRatio) {
    HlsPlaylistOptions o;
    o.fragment_s = 2;
    o.td_ratio = 1.5;
    std::deque<HlsSegmentEntry> s{seg(0, 2000, "a.ts")};
    EXPECT_EQ(3, hls_target_duration(s, o));  // fragment x ratio wins
    s.push_back(seg(1, 3001, "b.ts"));
    EXPECT_EQ(4, hls_target_duration(s, o));  // a longer segment rounds up
    std::deque<HlsSegmentEntry> none;
    EXPECT_EQ(3, hls_target_duration(none, o));
}

TEST(HlsPlaylist, DiscontinuityMapAndKeyLines) {
    HlsPlaylistOptions o;
    o.version = 7;
    o.fragment_s = 2;
    std::deque<HlsSegmentEntry> s{seg(5, 2000, "x-5.m4s"), seg(6, 2000, "x-6.m4s"), seg(7, 1500, "x-7.m4s")};
    s[0].map_uri = s[1].map_uri = "x/init.mp4";
    s[2].map_uri = "x/init-1.mp4";
    s[2].discontinuity = true;
    for (auto& e : s) {
        e.key_uri = "k-5.key";
        e.key_iv_hex = "000102030405060708090a0b0c0d0e0f";
    }
    s[2].key_uri = "k-7.key";
    s[2].new_key = true;
    EXPECT_EQ(render_hls_playlist(s, o),
              "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-MEDIA-SEQUENCE:5\n#EXT-X-TARGETDURATION:2\n"
              "#EXT-X-MAP:URI=\"x/init.mp4\"\n"
              // The first listed segment repeats its key even though it did not start it.
              "#EXT-X-KEY:METHOD=AES-128,URI=\"k-5.key\",IV=0x000102030405060708090a0b0c0d0e0f\n"
              "#EXTINF:2.000, no desc\nx-5.m4s\n"
              "#EXTINF:2.000, no desc\nx-6.m4s\n"
              "#EXT-X-MAP:URI=\"x/init-1.mp4\"\n"
              "#EXT-X-DISCONTINUITY\n"
              "#EXT-X-KEY:METHOD=AES-128,URI=\"k-7.key\",IV=0x000102030405060708090a0b0c0d0e0f\n"
              "#EXTINF:1.500, no desc\nx-7.m4s\n");
}

TEST(HlsPlaylist, WindowShrinkKeepsTheSegmentThatCrossesTheWindow) {
    std::deque<HlsSegmentEntry> s;
    for (int i = 0; i < 8; i++) s.push_back(seg(i, 2000, std::to_string(i) + ".ts"));
    // 10 s window: from the newest, 2+2+2+2+2 = 10 is not over; the 6th (seq 2) crosses and stays.
    std::vector<HlsSegmentEntry> gone = hls_shrink_window(&s, 10);
    ASSERT_EQ(2u, gone.size());
    EXPECT_EQ(0, gone[0].seq);
    EXPECT_EQ(1, gone[1].seq);
    EXPECT_EQ(2, s.front().seq);
    EXPECT_EQ(6u, s.size());
    // Nothing crosses: nothing goes.
    EXPECT_TRUE(hls_shrink_window(&s, 60).empty());
    // A window of 0 keeps the newest only.
    gone = hls_shrink_window(&s, 0);
    EXPECT_EQ(5u, gone.size());
    ASSERT_EQ(1u, s.size());
    EXPECT_EQ(7, s.front().seq);
}

TEST(HlsPlaylist, UrisRelativeToThePlaylist) {
    EXPECT_EQ("livestream-0.ts", hls_relative_uri("live/livestream.m3u8", "live/livestream-0.ts"));
    EXPECT_EQ("livestream/init.mp4", hls_relative_uri("live/livestream.m3u8", "live/livestream/init.mp4"));
    EXPECT_EQ("../ts/x.ts", hls_relative_uri("live/a.m3u8", "ts/x.ts"));
    EXPECT_EQ("live/x.ts", hls_relative_uri("a.m3u8", "live/x.ts"));
    EXPECT_EQ("../../x.ts", hls_relative_uri("a/b/c.m3u8", "x.ts"));
}

TEST(HlsPath, EveryVariable) {
    HlsPathVars v;
    v.vhost = "v.example";
    v.app = "live";
    v.stream = "cam";
    v.seq = 42;
    v.duration_ms = 10010;
    v.wall_ms = 1700000000123;  // 2023-11-14 22:13:20.123 UTC
    v.timestamp = v.wall_ms;
    setenv("TZ", "UTC", 1);
    tzset();
    EXPECT_EQ("v.example/live/cam-42-10010-1700000000123.ts",
              hls_expand_path("[vhost]/[app]/[stream]-[seq]-[duration]-[timestamp].ts", v));
    EXPECT_EQ("2023/11/14/22-13-20-123-cam.ts", hls_expand_path("[2006]/[01]/[02]/[15]-[04]-[05]-[999]-[stream].ts", v));
    EXPECT_EQ("[unknown]/x", hls_expand_path("[unknown]/x", v));
    EXPECT_EQ("./objs/nginx/html/live/a.m3u8", hls_join_path("./objs/nginx/html", "live/a.m3u8"));
    EXPECT_EQ("/tmp/h/live/a.m3u8", hls_join_path("/tmp/h/", "/live/a.m3u8"));
    EXPECT_EQ("live/a.m3u8", hls_join_path("", "live/a.m3u8"));
}

TEST(HlsCutRule, VideoCutsAtKeyframeOnceLongEnough) {
    HlsCutOptions o;
    o.fragment_s = 2;
    EXPECT_FALSE(hls_video_cut_due(o, 1999, true));
    EXPECT_TRUE(hls_video_cut_due(o, 2000, true));  // a 2 s GOP gives 2 s segments (not SRS #3191's 4 s)
    EXPECT_FALSE(hls_video_cut_due(o, 5000, false));
    o.wait_keyframe = false;
    EXPECT_TRUE(hls_video_cut_due(o, 2000, false));
    o.td_ratio = 1.5;
    EXPECT_FALSE(hls_video_cut_due(o, 2999, true));
    EXPECT_TRUE(hls_video_cut_due(o, 3000, true));
    // Never below 200 ms, whatever the fragment.
    o.fragment_s = 0;
    EXPECT_FALSE(hls_video_cut_due(o, 199, true));
    EXPECT_TRUE(hls_video_cut_due(o, 200, true));
}

TEST(HlsCutRule, AudioCutsAtAofRatio) {
    HlsCutOptions o;
    o.fragment_s = 2;
    EXPECT_FALSE(hls_audio_cut_due(o, 4199));  // 2 x 2.1
    EXPECT_TRUE(hls_audio_cut_due(o, 4200));
    o.aof_ratio = 1;
    EXPECT_TRUE(hls_audio_cut_due(o, 2000));
    EXPECT_FALSE(hls_segment_kept(99));
    EXPECT_TRUE(hls_segment_kept(100));
}

TEST(HlsCutRule, DiscontinuityOnlyWhenTheCodecConfigReallyChanged) {
    // FLV video sequence header bodies: 0x17 0x00 + composition time + avcC.
    std::string avc160 = unhex_string("1700000000014d500bffe10016674d500beca146d80880000003008000000a078912cb01000468ebecb2");
    std::string avc_other = avc160;
    avc_other[avc_other.size() - 1] ^= 1;  // another PPS
    std::string aac = unhex_string("af001210");
    std::string aac_mono = unhex_string("af001208");
    auto u8 = [](const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); };
    HlsCodecTracker t;
    EXPECT_FALSE(t.on_sequence_header(true, u8(avc160), avc160.size()));  // the first is no change
    EXPECT_FALSE(t.on_sequence_header(false, u8(aac), aac.size()));
    // The same bytes at every IDR (our WebRTC->RTMP bridge, SRS #4695): no discontinuity.
    for (int i = 0; i < 5; i++) EXPECT_FALSE(t.on_sequence_header(true, u8(avc160), avc160.size()));
    EXPECT_TRUE(t.on_sequence_header(true, u8(avc_other), avc_other.size()));
    EXPECT_FALSE(t.on_sequence_header(true, u8(avc_other), avc_other.size()));
    EXPECT_TRUE(t.on_sequence_header(false, u8(aac_mono), aac_mono.size()));
}

TEST(HlsCrypto, Aes128CbcMatchesTheRfc3602Vector) {
    // RFC 3602 case #2: two blocks; our output adds one PKCS7 block of 0x10.
    HlsKey k;
    k.key = unhex_string("c286696d887c9aa0611bbb3e2025a45a");
    k.iv = unhex_string("562e17996d093d28ddb3ba695a2e6f58");
    std::string plain = unhex_string("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    std::string out;
    ASSERT_TRUE(ok(hls_encrypt_segment(k, plain, &out)));
    ASSERT_EQ(48u, out.size());
    EXPECT_EQ(out.substr(0, 32), unhex_string("d296cd94c2cccf8a3a863028b5e1dc0a7586602d253cfff91b8266bea6d61ab1"));
    EXPECT_EQ("562e17996d093d28ddb3ba695a2e6f58", hls_iv_hex(k.iv));
    HlsKey bad;
    EXPECT_FALSE(ok(hls_encrypt_segment(bad, plain, &out)));
    HlsKey fresh;
    ASSERT_TRUE(ok(hls_new_key(&fresh)));
    EXPECT_EQ(16u, fresh.key.size());
    EXPECT_EQ(16u, fresh.iv.size());
}
