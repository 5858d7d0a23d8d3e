// Tests for app/dvr/dvr_path and dvr_plan: every path variable at a fixed
// time (TZ pinned), the folder form, the restart's search root, the match
// of a file name against its template, dvr_apply, and the plan's cut
// decisions on a made-up timeline.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <time.h>

#include <string>

#include "app/dvr/dvr_path.hpp"
#include "app/dvr/dvr_plan.hpp"

using namespace srs;

namespace {

// Runs the test body with TZ=UTC and puts the old zone back.
class UtcZone {
  public:
    UtcZone() {
        const char* tz = getenv("TZ");
        had_ = tz != nullptr;
        if (had_) old_ = tz;
        setenv("TZ", "UTC", 1);
        tzset();
    }
    ~UtcZone() {
        if (had_) setenv("TZ", old_.c_str(), 1);
        else unsetenv("TZ");
        tzset();
    }

  private:
    bool had_ = false;
    std::string old_;
};

const DvrStreamName kName{"__defaultVhost__", "live", "cam1"};
// 2026-03-04 05:06:07.089 UTC
const int64_t kWhen = 1772600767089;

}  // namespace

TEST(DvrPathTest, ExpandsEveryVariable) {
    UtcZone utc;
    std::string got = expand_dvr_path("/d/[vhost]/[app]/[stream]-[2006][01][02]-[15][04][05].[999]-[timestamp].flv",
                                      kName, kWhen);
    EXPECT_EQ("/d/__defaultVhost__/live/cam1-20260304-050607.089-1772600767089.flv", got);
    // The default path, and a variable used twice.
    EXPECT_EQ("./objs/nginx/html/live/cam1.1772600767089.flv",
              expand_dvr_path("./objs/nginx/html/[app]/[stream].[timestamp].flv", kName, kWhen));
    EXPECT_EQ("cam1/cam1.mp4", expand_dvr_path("[stream]/[stream].mp4", kName, kWhen));
    // Text that only looks like a variable stays.
    EXPECT_EQ("x[foo][01.flv", expand_dvr_path("x[foo][01.flv", kName, kWhen));
    // Milliseconds keep three digits.
    EXPECT_EQ("005", expand_dvr_path("[999]", kName, 1772600767005));
}

TEST(DvrPathTest, FolderFormAndFormat) {
    EXPECT_EQ("./objs/dvr/[stream].[timestamp].flv", dvr_path_template("./objs/dvr"));
    EXPECT_EQ("./objs/dvr/[stream].[timestamp].flv", dvr_path_template("./objs/dvr/"));
    EXPECT_EQ("/[stream].[timestamp].flv", dvr_path_template("/"));
    EXPECT_EQ("/r/[app]/[stream].[timestamp].flv", dvr_path_template("/r/[app]"));
    EXPECT_EQ("/r/a.flv", dvr_path_template("/r/a.flv"));
    EXPECT_EQ("/r/a.mp4", dvr_path_template("/r/a.mp4"));
    // Only the last extension counts: ".mp4.bak" is a folder.
    EXPECT_EQ("/r/a.mp4.bak/[stream].[timestamp].flv", dvr_path_template("/r/a.mp4.bak"));
    EXPECT_TRUE(dvr_path_is_mp4("/r/[stream].mp4"));
    EXPECT_FALSE(dvr_path_is_mp4("/r/[stream].flv"));
    EXPECT_FALSE(dvr_path_is_mp4("/r/mp4"));
}

TEST(DvrPathTest, SearchRoot) {
    int depth = -1;
    EXPECT_EQ("./objs/nginx/html", dvr_search_root("./objs/nginx/html/[app]/[stream].[timestamp].flv", &depth));
    EXPECT_EQ(1, depth);
    EXPECT_EQ("/var/rec", dvr_search_root("/var/rec/[app]/[2006]/[01]/[stream].mp4", &depth));
    EXPECT_EQ(3, depth);
    // A variable inside a folder name: the search starts above it.
    EXPECT_EQ("/var", dvr_search_root("/var/rec-[app]/[stream].flv", &depth));
    EXPECT_EQ(1, depth);
    EXPECT_EQ(".", dvr_search_root("[stream].flv", &depth));
    EXPECT_EQ(0, depth);
    EXPECT_EQ("/", dvr_search_root("/[stream].flv", &depth));
    EXPECT_EQ(0, depth);
    // No variable: the file's own folder.
    EXPECT_EQ("/var/rec", dvr_search_root("/var/rec/fixed.flv", &depth));
    EXPECT_EQ(0, depth);
}

TEST(DvrPathTest, MatchesWhatTheTemplateMakes) {
    UtcZone utc;
    std::string tmpl = "./objs/[app]/[stream]-[2006][01][02]-[15][04][05].[999]-[timestamp].mp4";
    std::string path = expand_dvr_path(tmpl, kName, kWhen);
    DvrStreamName name;
    ASSERT_TRUE(match_dvr_path(tmpl, path, &name));
    EXPECT_EQ("live", name.app);
    EXPECT_EQ("cam1", name.stream);
    EXPECT_TRUE(name.vhost.empty());
    // Dots are literal, digits only where the time is, whole name only.
    EXPECT_FALSE(match_dvr_path("/r/[stream].flv", "/r/aXflv", nullptr));
    EXPECT_FALSE(match_dvr_path("/r/[stream].[timestamp].flv", "/r/a.12x.flv", nullptr));
    EXPECT_FALSE(match_dvr_path("/r/[stream].flv", "/r/a.flv.tmp", nullptr));
    EXPECT_FALSE(match_dvr_path("/r/[stream].flv", "/r/x/a.flv", nullptr));
    EXPECT_FALSE(match_dvr_path("/r/[2006].flv", "/r/26.flv", nullptr));
    // A variable used twice must say the same both times.
    EXPECT_TRUE(match_dvr_path("/r/[stream]/[stream].flv", "/r/a/a.flv", &name));
    EXPECT_FALSE(match_dvr_path("/r/[stream]/[stream].flv", "/r/a/b.flv", &name));
    // Regex characters in the template are literal.
    EXPECT_TRUE(match_dvr_path("/r+(x)/[stream].flv", "/r+(x)/s.flv", nullptr));
    EXPECT_FALSE(match_dvr_path("/r+(x)/[stream].flv", "/rr(x)/s.flv", nullptr));
}

TEST(DvrPathTest, Apply) {
    EXPECT_TRUE(dvr_applies({"all"}, "live", "a"));
    EXPECT_TRUE(dvr_applies({}, "live", "a"));
    EXPECT_TRUE(dvr_applies({"live/b", "live/a"}, "live", "a"));
    EXPECT_FALSE(dvr_applies({"live/b"}, "live", "a"));
    EXPECT_FALSE(dvr_applies({"live"}, "live", "a"));
    EXPECT_FALSE(dvr_applies({"other/a"}, "live", "a"));
}

TEST(DvrPlanTest, SessionNeverCuts) {
    DvrPlan plan(DvrPlanOptions{});
    plan.on_new_file();
    plan.on_written(0);
    for (int64_t t = 40; t < 3600 * 1000; t += 40000) {
        EXPECT_FALSE(plan.cut_before(t, true, true, true));
        plan.on_written(t);
    }
}

TEST(DvrPlanTest, SegmentCutsAtTheFirstKeyframeAfterTheDuration) {
    DvrPlanOptions o;
    o.segment = true;
    o.duration_ms = 3000;
    DvrPlan plan(o);
    EXPECT_FALSE(plan.cut_before(5000, true, true, true));  // nothing written yet
    plan.on_written(1000);
    EXPECT_FALSE(plan.cut_before(3999, true, true, true));   // 2.999 s in
    EXPECT_FALSE(plan.cut_before(4000, false, false, true)); // audio
    EXPECT_FALSE(plan.cut_before(4000, true, false, true));  // not a keyframe
    EXPECT_TRUE(plan.cut_before(4000, true, true, true));
    plan.on_written(3500);
    EXPECT_EQ(2500, plan.file_duration_ms());
    plan.on_new_file();
    EXPECT_EQ(0, plan.file_duration_ms());
    EXPECT_FALSE(plan.cut_before(9000, true, true, true));
    plan.on_written(4000);
    EXPECT_TRUE(plan.cut_before(7000, true, true, true));
}

TEST(DvrPlanTest, SegmentWithoutWaitingOrWithoutVideo) {
    DvrPlanOptions o;
    o.segment = true;
    o.duration_ms = 2000;
    o.wait_keyframe = false;
    DvrPlan plan(o);
    plan.on_written(0);
    EXPECT_TRUE(plan.cut_before(2000, false, false, true));  // any frame
    o.wait_keyframe = true;
    DvrPlan audio_only(o);
    audio_only.on_written(0);
    EXPECT_FALSE(audio_only.cut_before(1999, false, false, false));
    EXPECT_TRUE(audio_only.cut_before(2000, false, false, false));  // no video: no keyframe to wait for
}
