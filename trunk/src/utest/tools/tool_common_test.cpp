// The load tools' shared pieces (research/tools/tool_common.hpp): option
// parsing and what a verifying player checks, with real FLV/RTMP bodies.
#include <gtest/gtest.h>
#include <getopt.h>

#include <string>
#include <vector>

#include "tools/tool_common.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

// Real first bytes of FLV video/audio tag bodies (as ffmpeg writes them).
const uint8_t kAvcHeader[] = {0x17, 0x00, 0x00, 0x00, 0x00, 0x01, 0x64, 0x00, 0x0d, 0xff};
const uint8_t kAvcKey[] = {0x17, 0x01, 0x00, 0x00, 0x50, 0x00, 0x00, 0x00, 0x10, 0x65};
const uint8_t kAvcInter[] = {0x27, 0x01, 0x00, 0x00, 0x50, 0x00, 0x00, 0x00, 0x10, 0x41};
const uint8_t kAacHeader[] = {0xaf, 0x00, 0x12, 0x10};
const uint8_t kAacRaw[] = {0xaf, 0x01, 0x21, 0x10, 0x04};

std::vector<char*> argv_of(std::vector<std::string>& args) {
    std::vector<char*> out;
    for (auto& a : args) out.push_back(&a[0]);
    out.push_back(nullptr);
    return out;
}

void no_usage(const char*) {}

}  // namespace

TEST(ToolsCommon, CommonOptions) {
    ToolOptions o;
    EXPECT_TRUE(parse_common_option('c', "5000", &o));
    EXPECT_TRUE(parse_common_option('r', "rtmp://127.0.0.1/live/s", &o));
    EXPECT_TRUE(parse_common_option('s', "3000", &o));
    EXPECT_TRUE(parse_common_option('d', "200", &o));
    EXPECT_TRUE(parse_common_option('e', "100", &o));
    EXPECT_TRUE(parse_common_option('m', "1000", &o));
    EXPECT_TRUE(parse_common_option('j', nullptr, &o));
    EXPECT_FALSE(parse_common_option('i', "x.flv", &o));  // a tool's own option
    EXPECT_EQ(o.clients, 5000);
    EXPECT_EQ(o.url, "rtmp://127.0.0.1/live/s");
    EXPECT_EQ(o.startup_spread_ms, 3000);
    EXPECT_EQ(o.delay_ms, 200);
    EXPECT_EQ(o.error_sleep_ms, 100);
    EXPECT_EQ(o.report_ms, 1000);
    EXPECT_TRUE(o.json);
}

TEST(ToolsCommon, BadNumbersEndTheToolWithCode2) {
    EXPECT_EXIT(parse_int("12x", "-c", 1), ::testing::ExitedWithCode(2), "bad -c: 12x");
    EXPECT_EXIT(parse_int("0", "-c", 1), ::testing::ExitedWithCode(2), "bad -c");
    EXPECT_EXIT(parse_int("", "-c", 1), ::testing::ExitedWithCode(2), "bad -c");
    EXPECT_EXIT(parse_int("100000001", "-c", 1), ::testing::ExitedWithCode(2), "bad -c");
    EXPECT_EQ(parse_int("7", "-c", 1), 7);
    EXPECT_EXIT(parse_int(" 7", "-c", 1), ::testing::ExitedWithCode(2), "bad -c");
    EXPECT_EXIT(parse_int("+7", "-c", 1), ::testing::ExitedWithCode(2), "bad -c");
    EXPECT_EXIT(parse_int("99999999999999999999", "-c", 1), ::testing::ExitedWithCode(2), "bad -c");
    EXPECT_EQ(parse_int("-5", "-x", -10, 10), -5);

    EXPECT_EQ(parse_double_arg("1.5", "-t", 0, 10), 1.5);
    EXPECT_EQ(parse_double_arg("0", "-t", 0, 10), 0);
    EXPECT_EXIT(parse_double_arg("-1", "-t", 0, 10), ::testing::ExitedWithCode(2), "bad -t: -1");
    EXPECT_EXIT(parse_double_arg("1s", "-t", 0, 10), ::testing::ExitedWithCode(2), "bad -t: 1s");
    EXPECT_EXIT(parse_double_arg("nan", "-t", 0, 10), ::testing::ExitedWithCode(2), "bad -t");
    EXPECT_EXIT(parse_double_arg("inf", "-t", 0, 1e300), ::testing::ExitedWithCode(2), "bad -t");
    EXPECT_EXIT(parse_double_arg("", "--warmup", 0, 10), ::testing::ExitedWithCode(2), "bad --warmup");
}

TEST(ToolsCommon, CommandLineWithAToolsOwnOption) {
    std::vector<std::string> args = {"sb_rtmp_publish", "-c", "3", "-i", "in.flv", "--json",
                                     "-r", "rtmp://h/live/s%d", "--timeout", "2500"};
    std::vector<char*> argv = argv_of(args);
    ToolOptions o;
    std::string input;
    optind = 1;
    parse_command_line(static_cast<int>(args.size()), argv.data(), "c:r:s:d:e:m:t:i:h",
                       {{"input", required_argument, nullptr, 'i'}}, no_usage, &o, [&](int c, const char* arg) {
                           if (c != 'i') return false;
                           input = arg;
                           return true;
                       });
    EXPECT_EQ(o.clients, 3);
    EXPECT_EQ(o.url, "rtmp://h/live/s%d");
    EXPECT_EQ(input, "in.flv");
    EXPECT_TRUE(o.json);
    EXPECT_EQ(o.timeout_ms, 2500);
}

TEST(ToolsCommon, CommandLineWithoutAUrlIsRefused) {
    auto parse_without_url = [] {
        std::vector<std::string> args = {"sb_rtmp_load", "-c", "3"};
        std::vector<char*> argv = argv_of(args);
        ToolOptions o;
        optind = 1;
        parse_command_line(static_cast<int>(args.size()), argv.data(), "c:r:h", {}, no_usage, &o,
                           [](int, const char*) { return false; });
    };
    EXPECT_EXIT(parse_without_url(), ::testing::ExitedWithCode(2), "");
}

TEST(ToolsCommon, VerifierAcceptsAHeaderThenAKeyframe) {
    MediaVerifier v;
    PlayerStats s;
    v.on_audio(0, kAacHeader, sizeof(kAacHeader), &s);
    v.on_video(0, kAvcHeader, sizeof(kAvcHeader), &s);
    v.on_video(0, kAvcKey, sizeof(kAvcKey), &s);
    v.on_audio(23, kAacRaw, sizeof(kAacRaw), &s);
    v.on_video(40, kAvcInter, sizeof(kAvcInter), &s);
    v.on_video(80, kAvcInter, sizeof(kAvcInter), &s);
    EXPECT_EQ(s.sequence_headers, 2u);
    EXPECT_EQ(s.video_frames, 3u);
    EXPECT_EQ(s.keyframes, 1u);
    EXPECT_EQ(s.audio_frames, 1u);
    EXPECT_EQ(s.keyframe_ok, 1u);
    EXPECT_EQ(s.keyframe_bad, 0u);
    EXPECT_EQ(s.ts_violations, 0u);
}

TEST(ToolsCommon, VerifierCountsWhatIsWrong) {
    MediaVerifier v;
    PlayerStats s;
    // A session that starts with an inter frame (no keyframe, no header).
    v.on_video(0, kAvcInter, sizeof(kAvcInter), &s);
    v.on_video(40, kAvcKey, sizeof(kAvcKey), &s);
    // Timestamps going back, per track.
    v.on_video(20, kAvcInter, sizeof(kAvcInter), &s);
    v.on_audio(100, kAacRaw, sizeof(kAacRaw), &s);
    v.on_audio(90, kAacRaw, sizeof(kAacRaw), &s);
    EXPECT_EQ(s.keyframe_bad, 1u);
    EXPECT_EQ(s.keyframe_ok, 0u);
    EXPECT_EQ(s.ts_violations, 2u);
    // A keyframe without a sequence header before it is a bad start too.
    v.reset();
    PlayerStats t;
    v.on_video(0, kAvcKey, sizeof(kAvcKey), &t);
    EXPECT_EQ(t.keyframe_bad, 1u);
    // A new session (reset) checks its own first frame again; empty bodies are skipped.
    v.reset();
    v.on_video(0, kAvcHeader, sizeof(kAvcHeader), &t);
    v.on_video(0, nullptr, 0, &t);
    v.on_video(0, kAvcKey, sizeof(kAvcKey), &t);
    EXPECT_EQ(t.keyframe_ok, 1u);
}

TEST(ToolsCommon, TotalsOverPlayers) {
    PlayerStats a, b;
    a.video_frames = 100;
    a.keyframe_ok = 1;
    b.video_frames = 90;
    b.keyframe_ok = 1;
    b.keyframe_bad = 1;
    b.ts_violations = 3;
    PlayerTotals t;
    t.add_player(a);
    t.add_player(b);
    EXPECT_EQ(t.video_min, 90u);
    EXPECT_EQ(t.video_max, 100u);
    EXPECT_EQ(t.first_video_keyframe_ok, 1);  // b had a bad session
    EXPECT_EQ(t.ts_violations, 3u);
    EXPECT_TRUE(player_verify_failed(t));
    PlayerTotals good;
    good.add_player(a);
    EXPECT_FALSE(player_verify_failed(good));
    EXPECT_EQ(error_kind_index("timeout"), 1);
    EXPECT_EQ(error_kind_index("no-such-kind"), kErrorKindCount - 1);
}
