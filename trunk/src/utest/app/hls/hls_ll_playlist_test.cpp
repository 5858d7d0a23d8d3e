// Tests for the LL-HLS playlist (exact bytes), the delta update's skip
// count and the program date time format.
#include <gtest/gtest.h>

#include <string>

#include "app/hls/hls_playlist.hpp"

using namespace srs;

namespace {

HlsSegmentEntry seg(int64_t seq, int64_t ms, int64_t pdt_ms, int parts) {
    HlsSegmentEntry s;
    s.seq = seq;
    s.duration_ms = ms;
    s.uri = "s-" + std::to_string(seq) + ".m4s";
    s.map_uri = "s/init.mp4";
    s.pdt_ms = pdt_ms;
    for (int i = 0; i < parts; i++) {
        HlsPartEntry p;
        p.duration_ms = ms / parts;
        p.uri = "s-" + std::to_string(seq) + ".part" + std::to_string(i) + ".m4s";
        p.independent = i == 0;
        s.parts.push_back(p);
    }
    return s;
}

}  // namespace

TEST(HlsLlPlaylist, ProgramDateTime) {
    EXPECT_EQ("2023-11-14T22:13:20.000Z", hls_program_date_time(1700000000000));
    EXPECT_EQ("2023-11-14T22:13:21.042Z", hls_program_date_time(1700000001042));
    EXPECT_EQ("1970-01-01T00:00:00.007Z", hls_program_date_time(7));
}

TEST(HlsLlPlaylist, ByteForByte) {
    std::deque<HlsSegmentEntry> s{seg(7, 1000, 1700000000000, 5), seg(8, 1000, 1700000001000, 2)};
    HlsPlaylistOptions o;
    o.fragment_s = 1;
    HlsLlPlaylist ll;
    ll.part_target_s = 0.2;
    ll.segments_with_parts = 1;  // only segment 8's parts stay listed
    ll.open_seq = 9;
    ll.open_started = true;
    ll.open_pdt_ms = 1700000002000;
    ll.open_map_uri = "s/init.mp4";
    HlsPartEntry p;
    p.duration_ms = 200;
    p.uri = "s-9.part0.m4s";
    p.independent = true;
    ll.open_parts.push_back(p);
    ll.preload_hint_uri = "s-9.part1.m4s";
    EXPECT_EQ(render_ll_hls_playlist(s, o, ll, false),
              "#EXTM3U\n"
              "#EXT-X-VERSION:9\n"
              "#EXT-X-TARGETDURATION:1\n"
              "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=6.000,PART-HOLD-BACK=0.600\n"
              "#EXT-X-PART-INF:PART-TARGET=0.200\n"
              "#EXT-X-MEDIA-SEQUENCE:7\n"
              "#EXT-X-MAP:URI=\"s/init.mp4\"\n"
              "#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:20.000Z\n"
              "#EXTINF:1.000,\n"
              "s-7.m4s\n"
              "#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:21.000Z\n"
              "#EXT-X-PART:DURATION=0.500,URI=\"s-8.part0.m4s\",INDEPENDENT=YES\n"
              "#EXT-X-PART:DURATION=0.500,URI=\"s-8.part1.m4s\"\n"
              "#EXTINF:1.000,\n"
              "s-8.m4s\n"
              "#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:22.000Z\n"
              "#EXT-X-PART:DURATION=0.200,URI=\"s-9.part0.m4s\",INDEPENDENT=YES\n"
              "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"s-9.part1.m4s\"\n");
    // Nothing older than 6 x target from the end: the delta is the whole playlist.
    EXPECT_EQ(render_ll_hls_playlist(s, o, ll, false), render_ll_hls_playlist(s, o, ll, true));
}

TEST(HlsLlPlaylist, SkipCount) {
    std::deque<HlsSegmentEntry> s;
    EXPECT_EQ(0u, hls_skippable_segments(s, 1));
    for (int i = 0; i < 6; i++) s.push_back(seg(i, 1000, 0, 0));
    EXPECT_EQ(0u, hls_skippable_segments(s, 1));  // the oldest ends only 5 s before the end
    s.push_back(seg(6, 1000, 0, 0));
    EXPECT_EQ(1u, hls_skippable_segments(s, 1));  // segment 0 ends 6 s before the end
    for (int i = 7; i < 10; i++) s.push_back(seg(i, 1000, 0, 0));
    EXPECT_EQ(4u, hls_skippable_segments(s, 1));
    EXPECT_EQ(0u, hls_skippable_segments(s, 2));  // 12 s to keep: nothing skipped of 10 s
}

TEST(HlsLlPlaylist, DeltaUpdateSkipsAndKeepsTheMap) {
    std::deque<HlsSegmentEntry> s;
    for (int i = 0; i < 8; i++) s.push_back(seg(i, 1000, 1700000000000 + i * 1000, 0));
    HlsPlaylistOptions o;
    o.fragment_s = 1;
    HlsLlPlaylist ll;
    ll.open_seq = 8;
    std::string delta = render_ll_hls_playlist(s, o, ll, true);
    EXPECT_NE(std::string::npos,
              delta.find("#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-SKIP:SKIPPED-SEGMENTS=2\n#EXT-X-MAP:URI=\"s/init.mp4\"\n"
                         "#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:22.000Z\n#EXTINF:1.000,\ns-2.m4s\n"))
        << delta;
    EXPECT_EQ(std::string::npos, delta.find("s-1.m4s"));
    EXPECT_LT(delta.size(), render_ll_hls_playlist(s, o, ll, false).size());
}

// RFC 8216bis's target: every EXTINF rounded to the nearest second fits.
// A segment a little over 1 s (a late keyframe, a timestamp step) keeps the
// target at 1; one of 1.5 s or more raises it; the configured fragment x
// td_ratio is the floor, as in SRS's rule.
TEST(HlsLlPlaylist, TargetDurationRoundsToTheNearestSecond) {
    HlsPlaylistOptions o;
    o.fragment_s = 1;
    std::deque<HlsSegmentEntry> s;
    EXPECT_EQ(1, hls_ll_target_duration(s, o));
    s.push_back(seg(0, 1000, 0, 0));
    s.push_back(seg(1, 1016, 0, 0));
    s.push_back(seg(2, 1499, 0, 0));
    EXPECT_EQ(1, hls_ll_target_duration(s, o));
    EXPECT_EQ(2, hls_target_duration(s, o));  // SRS's ceil rule for classic HLS stays
    s.push_back(seg(3, 1500, 0, 0));
    EXPECT_EQ(2, hls_ll_target_duration(s, o));
    o.td_ratio = 2.5;
    EXPECT_EQ(3, hls_ll_target_duration(s, o));
    o.fragment_s = 0.2;
    o.td_ratio = 1;
    std::deque<HlsSegmentEntry> short_ones{seg(0, 200, 0, 0)};
    EXPECT_EQ(1, hls_ll_target_duration(short_ones, o));  // never 0
    // The playlist says the same.
    HlsLlPlaylist ll;
    ll.open_seq = 2;
    std::deque<HlsSegmentEntry> late{seg(0, 1000, 0, 0), seg(1, 1016, 0, 0)};
    o.fragment_s = 1;
    EXPECT_NE(std::string::npos, render_ll_hls_playlist(late, o, ll, false).find("#EXT-X-TARGETDURATION:1\n"));
}
