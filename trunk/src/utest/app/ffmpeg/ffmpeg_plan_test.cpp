// SRS-like confs -> what would run: ingest, transcode and exec argvs, and the
// conf's repeated blocks (several ingests, engines, publish lines).
#include <gtest/gtest.h>

#include "app/config/config.hpp"
#include "app/ffmpeg/ffmpeg_plan.hpp"

using namespace srs;

namespace {

std::shared_ptr<const Config> load(const std::string& text) {
    std::shared_ptr<const Config> conf;
    Error err = Config::load_text(text, "test.conf", &conf);
    EXPECT_TRUE(err.ok()) << err.describe();
    err.ignore();
    return conf;
}

std::string joined(const std::vector<std::string>& argv) {
    std::string s;
    for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
    return s;
}

const char* kIngestConf = R"(
listen 19350;
vhost __defaultVhost__ {
    ingest livestream {
        enabled on;
        input { type file; url ./doc/source.flv; }
        ffmpeg ./objs/ffmpeg/bin/ffmpeg;
        engine {
            enabled off;
            output rtmp://127.0.0.1:[port]/live?vhost=[vhost]/livestream;
        }
    }
    ingest cam {
        enabled on;
        input { type stream; url rtsp://10.0.0.2/cam; }
        ffmpeg ffmpeg;
        engine sd {
            enabled on;
            perfile { rtsp_transport tcp; }
            vcodec libx264; vbitrate 300; vwidth 320; vheight 240; vprofile main; vpreset fast;
            acodec aac; abitrate 64;
            output rtmp://127.0.0.1:[port]/live/cam_sd;
        }
        engine copy {
            enabled on; vcodec copy; acodec copy;
            output rtmp://127.0.0.1:[port]/live/cam;
        }
    }
    ingest off_one { enabled off; input { url x; } engine { output y; } }
}
)";

}  // namespace

TEST(FfmpegPlan, IngestsFromAnSrsConf) {
    auto conf = load(kIngestConf);
    auto ingests = conf->sections("__defaultVhost__", "vhost.ingest");
    ASSERT_EQ(3u, ingests.size());
    EXPECT_EQ("livestream", ingests[0]->name());
    EXPECT_FALSE(ingests[2]->get(keys::vhost_ingest_enabled));

    std::vector<PlannedProcess> p;
    ASSERT_TRUE(plan_ingest(*conf, "__defaultVhost__", *ingests[0], &p).ok());
    ASSERT_EQ(1u, p.size());
    EXPECT_TRUE(p[0].ffmpeg);
    EXPECT_EQ("./objs/ffmpeg/bin/ffmpeg -re -i ./doc/source.flv -vcodec copy -acodec copy -f flv "
              "-y rtmp://127.0.0.1:19350/live/livestream",
              joined(p[0].spec.argv));

    p.clear();
    ASSERT_TRUE(plan_ingest(*conf, "__defaultVhost__", *ingests[1], &p).ok());
    ASSERT_EQ(2u, p.size());
    EXPECT_EQ("ffmpeg -rtsp_transport tcp -i rtsp://10.0.0.2/cam -vcodec libx264 -b:v 300000 -s 320x240 "
              "-aspect 320:240 -profile:v main -preset fast -acodec aac -b:a 64000 -f flv "
              "-y rtmp://127.0.0.1:19350/live/cam_sd",
              joined(p[0].spec.argv));
    EXPECT_EQ("ffmpeg -i rtsp://10.0.0.2/cam -vcodec copy -acodec copy -f flv -y rtmp://127.0.0.1:19350/live/cam",
              joined(p[1].spec.argv));
}

TEST(FfmpegPlan, BrokenIngestsAreErrors) {
    auto conf = load(R"(
vhost __defaultVhost__ {
    ingest nourl { enabled on; engine { output rtmp://127.0.0.1/live/a; } }
    ingest noengine { enabled on; input { url ./a.flv; } }
    ingest badcodec { enabled on; input { url ./a.flv; }
        engine { enabled on; vcodec libx265; acodec aac; output rtmp://127.0.0.1/live/a; } }
}
)");
    for (const ConfigSection* s : conf->sections("__defaultVhost__", "vhost.ingest")) {
        std::vector<PlannedProcess> p;
        Error err = plan_ingest(*conf, "__defaultVhost__", *s, &p);
        EXPECT_TRUE(err.failed()) << s->name();
        EXPECT_NE(std::string::npos, err.summary().find(s->name())) << err.summary();
        err.ignore();
    }
}

TEST(FfmpegPlan, TranscodeAndExecOfAPublish) {
    auto conf = load(R"(
listen 1935;
vhost __defaultVhost__ {
    transcode live {
        enabled on;
        ffmpeg ./objs/ffmpeg/bin/ffmpeg;
        engine ff {
            enabled on;
            vcodec libx264; vwidth 160; vheight 120; vprofile baseline; vpreset superfast;
            acodec copy;
            output rtmp://127.0.0.1:[port]/[app]?vhost=[vhost]/[stream]_[engine];
        }
        engine disabled { enabled off; vcodec copy; acodec copy; output rtmp://x/y/z; }
        engine broken { enabled on; vcodec h264; acodec aac; output rtmp://x/y/z; }
    }
    transcode other { enabled on; engine e { enabled on; vcodec copy; acodec copy; output rtmp://x/y/z; } }
    exec {
        enabled on;
        publish ./on_publish.sh [vhost] [app] [stream] [url] > ./objs/exec.log;
        publish /bin/echo [tcUrl];
    }
}
)");
    StreamVars s;
    s.vhost = "__defaultVhost__";
    s.app = "live";
    s.stream = "cam";
    s.tc_url = "rtmp://127.0.0.1/live";
    s.port = 1935;
    std::vector<PlannedProcess> p;
    plan_publish(*conf, s, &p);
    ASSERT_EQ(3u, p.size());
    EXPECT_EQ("transcode engine ff", p[0].label);
    EXPECT_TRUE(p[0].transcode);
    EXPECT_TRUE(p[0].ffmpeg);
    EXPECT_EQ("./objs/ffmpeg/bin/ffmpeg -f flv -i rtmp://127.0.0.1:1935/live/cam -vcodec libx264 -s 160x120 "
              "-aspect 160:120 -profile:v baseline -preset superfast -acodec copy -f flv "
              "-y rtmp://127.0.0.1:1935/live?vhost=__defaultVhost__/cam_ff",
              joined(p[0].spec.argv));
    EXPECT_EQ((OutputStreamKey{"__defaultVhost__", "live", "cam_ff"}), p[0].output);
    EXPECT_FALSE(p[1].transcode);
    EXPECT_FALSE(p[1].ffmpeg);
    EXPECT_EQ("./on_publish.sh __defaultVhost__ live cam rtmp://127.0.0.1:1935/live/cam", joined(p[1].spec.argv));
    EXPECT_EQ("./objs/exec.log", p[1].spec.stdout_file);
    EXPECT_EQ("/bin/echo rtmp://127.0.0.1/live", joined(p[2].spec.argv));

    // Another app: no transcode scope matches, exec still runs.
    s.app = "vod";
    p.clear();
    plan_publish(*conf, s, &p);
    ASSERT_EQ(2u, p.size());
    EXPECT_FALSE(p[0].transcode);
}

TEST(FfmpegPlan, ConfSectionsAreValidatedAndCompared) {
    std::shared_ptr<const Config> conf;
    // An engine row out of range is a load error with its line.
    Error err = Config::load_text("vhost v { transcode { engine { achannels 9; } } }", "t.conf", &conf);
    ASSERT_TRUE(err.failed());
    err.ignore();
    err = Config::load_text("vhost v { ingest a { nosuch 1; } }", "t.conf", &conf);
    ASSERT_TRUE(err.failed());
    err.ignore();
    err = Config::load_text("vhost v { exec { publish { } } }", "t.conf", &conf);
    ASSERT_TRUE(err.failed());
    err.ignore();

    auto a = load("vhost v { ingest a { enabled on; input { url x; } } ingest b { enabled on; } }");
    auto b = load("vhost v { ingest a { enabled on; input { url y; } } ingest b { enabled on; } }");
    auto changed = Config::diff(*a, *b);
    ASSERT_EQ(1u, changed.size());
    EXPECT_EQ("vhost.v.ingest", changed[0]);
    EXPECT_TRUE(Config::reloadable(changed[0]));
    EXPECT_TRUE(Config::diff(*a, *a).empty());
    auto ia = a->sections("v", "vhost.ingest");
    auto ib = b->sections("v", "vhost.ingest");
    EXPECT_NE(ia[0]->text(), ib[0]->text());
    EXPECT_EQ(ia[1]->text(), ib[1]->text());
}
