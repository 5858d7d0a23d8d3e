// SRS's FFmpeg argument rules (transcode, ingest), variables, scopes, the
// loop check's URL reading and the ffmpeg path fallback.
#include <gtest/gtest.h>

#include "app/ffmpeg/ffmpeg_args.hpp"

using namespace srs;

namespace {

std::string joined(const std::vector<std::string>& argv) {
    std::string s;
    for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
    return s;
}

// The engine of SRS's transcode.conf example (ff, libx264 + aac).
FfmpegJob srs_like_job() {
    FfmpegJob job;
    job.ffmpeg = "ffmpeg";
    job.input = "rtmp://127.0.0.1:1935/live/livestream";
    FfmpegEngine& e = job.engine;
    e.name = "ff";
    e.vfilter = ffmpeg_options({{"i", "./doc/ffmpeg-logo.png"}, {"filter_complex", "overlay=10:10"}});
    e.vcodec = "libx264";
    e.vbitrate = 300;
    e.vfps = 20;
    e.vwidth = 768;
    e.vheight = 320;
    e.vthreads = 2;
    e.vprofile = "baseline";
    e.vpreset = "superfast";
    e.vparams = ffmpeg_options({{"t", "100"}, {"coder", "1"}});
    e.acodec = "aac";
    e.abitrate = 45;
    e.asample_rate = 44100;
    e.achannels = 2;
    e.aparams = ffmpeg_options({{"profile:a", "aac_low"}});
    e.output = "rtmp://127.0.0.1:1935/live/livestream_ff";
    return job;
}

bool fake_exists(const std::string& p) { return p == "/usr/bin/ffmpeg" || p == "./noexec/ffmpeg" || p == "./ok/ffmpeg"; }
bool fake_executable(const std::string& p) { return p != "./noexec/ffmpeg"; }

}  // namespace

TEST(FfmpegArgs, TranscodeEngineInSrsOrder) {
    FfmpegJob job = srs_like_job();
    ASSERT_TRUE(check_ffmpeg_job(&job).ok());
    EXPECT_EQ("ffmpeg -f flv -i rtmp://127.0.0.1:1935/live/livestream -i ./doc/ffmpeg-logo.png "
              "-filter_complex overlay=10:10 -vcodec libx264 -b:v 300000 -r 20 -s 768x320 -aspect 768:320 "
              "-threads 2 -profile:v baseline -preset superfast -t 100 -coder 1 -acodec aac -b:a 45000 -ar 44100 "
              "-ac 2 -profile:a aac_low -f flv -y rtmp://127.0.0.1:1935/live/livestream_ff",
              joined(build_ffmpeg_argv(job)));
}

TEST(FfmpegArgs, CopyTakesNoCodecOptions) {
    FfmpegJob job = srs_like_job();
    job.engine.vcodec = "copy";
    job.engine.acodec = "copy";
    job.engine.aparams = ffmpeg_options({{"bsf:a", "aac_adtstoasc"}, {"profile:a", "aac_low"}});
    ASSERT_TRUE(check_ffmpeg_job(&job).ok());
    EXPECT_EQ("ffmpeg -f flv -i rtmp://127.0.0.1:1935/live/livestream -i ./doc/ffmpeg-logo.png "
              "-filter_complex overlay=10:10 -vcodec copy -acodec copy -bsf:a aac_adtstoasc -f flv "
              "-y rtmp://127.0.0.1:1935/live/livestream_ff",
              joined(build_ffmpeg_argv(job)));
}

TEST(FfmpegArgs, NoVideoOrNoAudio) {
    FfmpegJob job = srs_like_job();
    job.engine.vfilter.clear();
    job.engine.vcodec = "vn";
    ASSERT_TRUE(check_ffmpeg_job(&job).ok());
    std::string a = joined(build_ffmpeg_argv(job));
    EXPECT_NE(std::string::npos, a.find(" -vn -acodec aac -b:a 45000")) << a;
    EXPECT_EQ(std::string::npos, a.find("-b:v")) << a;

    job = srs_like_job();
    job.engine.acodec = "an";
    ASSERT_TRUE(check_ffmpeg_job(&job).ok());
    a = joined(build_ffmpeg_argv(job));
    EXPECT_NE(std::string::npos, a.find(" -an -f flv -y ")) << a;
    EXPECT_EQ(std::string::npos, a.find("-b:a")) << a;

    job = srs_like_job();
    job.engine.vcodec = "vn";
    job.engine.acodec = "an";
    Error err = check_ffmpeg_job(&job);
    EXPECT_TRUE(err.failed());
    err.ignore();
}

TEST(FfmpegArgs, SrsChecksRefuseBrokenEngines) {
    struct Case {
        const char* what;
        void (*edit)(FfmpegEngine*);
    } cases[] = {
        {"vcodec h265", [](FfmpegEngine* e) { e->vcodec = "libx265"; }},
        {"no profile", [](FfmpegEngine* e) { e->vprofile = ""; }},
        {"no preset", [](FfmpegEngine* e) { e->vpreset = ""; }},
        {"acodec flac", [](FfmpegEngine* e) { e->acodec = "flac"; }},
        {"3 channels", [](FfmpegEngine* e) { e->achannels = 3; }},
        {"aacplus 100k", [](FfmpegEngine* e) {
             e->acodec = "libaacplus";
             e->abitrate = 100;
         }},
        {"no output", [](FfmpegEngine* e) { e->output = ""; }},
        {"no vcodec", [](FfmpegEngine* e) { e->vcodec = ""; }},
    };
    for (const Case& c : cases) {
        FfmpegJob job = srs_like_job();
        c.edit(&job.engine);
        Error err = check_ffmpeg_job(&job);
        EXPECT_TRUE(err.failed()) << c.what;
        err.ignore();
    }
}

TEST(FfmpegArgs, OddSizeRoundedDownAndIformatOnlyForRtmp) {
    FfmpegJob job = srs_like_job();
    job.engine.vwidth = 321;
    job.engine.vheight = 241;
    job.input = "udp://239.0.0.1:2222";
    ASSERT_TRUE(check_ffmpeg_job(&job).ok());
    std::string a = joined(build_ffmpeg_argv(job));
    EXPECT_NE(std::string::npos, a.find("-s 320x240 -aspect 320:240")) << a;
    EXPECT_EQ(0u, a.find("ffmpeg -i udp://")) << a;
}

TEST(FfmpegArgs, IngestFileCopyAndStreamPerfile) {
    // ingest { input { type file; } engine { enabled off; output ...; } }: -re and copy.
    FfmpegJob job;
    job.ffmpeg = "./objs/ffmpeg/bin/ffmpeg";
    job.iparams = "-re";
    job.input = "./doc/source.flv";
    job.engine = make_copy_engine(expand_ingest_output("rtmp://127.0.0.1:[port]/live?vhost=[vhost]/livestream",
                                                       "__defaultVhost__", 1935));
    ASSERT_TRUE(check_ffmpeg_job(&job).ok());
    EXPECT_EQ("./objs/ffmpeg/bin/ffmpeg -re -i ./doc/source.flv -vcodec copy -acodec copy -f flv "
              "-y rtmp://127.0.0.1:1935/live/livestream",
              joined(build_ffmpeg_argv(job)));

    // type stream with perfile { rtsp_transport tcp; }: no -re, options before -i.
    FfmpegJob rtsp = srs_like_job();
    rtsp.input = "rtsp://10.0.0.2/cam";
    rtsp.engine.perfile = ffmpeg_options({{"rtsp_transport", "tcp"}, {"re"}});
    rtsp.engine.vfilter.clear();
    ASSERT_TRUE(check_ffmpeg_job(&rtsp).ok());
    EXPECT_EQ(0u, joined(build_ffmpeg_argv(rtsp)).find("ffmpeg -rtsp_transport tcp -re -i rtsp://10.0.0.2/cam "));
}

TEST(FfmpegVars, TranscodeOutput) {
    StreamVars s;
    s.vhost = "v.example";
    s.app = "live";
    s.stream = "cam";
    s.param = "?token=1";
    s.port = 19350;
    EXPECT_EQ("rtmp://127.0.0.1:19350/live?vhost=v.example/cam_ff?token=1",
              expand_transcode_output("rtmp://127.0.0.1:[port]/[app]?vhost=[vhost]/[stream]_[engine][param]", s, "ff"));
    // Unknown names and stray brackets stay as written.
    EXPECT_EQ("[nope] [app", expand_transcode_output("[nope] [app", s, "ff"));
    EXPECT_EQ("rtmp://127.0.0.1:19350/live/cam?vhost=v.example", transcode_input_url(s));
    s.vhost = "__defaultVhost__";
    EXPECT_EQ("rtmp://127.0.0.1:19350/live/cam", transcode_input_url(s));
}

TEST(FfmpegVars, IngestOutputDropsTheDefaultVhost) {
    EXPECT_EQ("rtmp://127.0.0.1:1935/live/s", expand_ingest_output("rtmp://127.0.0.1:[port]/live?vhost=[vhost]/s",
                                                                   "__defaultVhost__", 1935));
    EXPECT_EQ("rtmp://127.0.0.1:1936/live?vhost=a.com/s",
              expand_ingest_output("rtmp://127.0.0.1:[port]/live?vhost=[vhost]/s", "a.com", 1936));
    // An ingest has no [app] or [stream] (SRS leaves them).
    EXPECT_EQ("rtmp://h/[app]/[stream]", expand_ingest_output("rtmp://h/[app]/[stream]", "a.com", 1));
}

TEST(FfmpegVars, ExecWords) {
    StreamVars s;
    s.vhost = "v.example";
    s.app = "live";
    s.stream = "cam";
    s.param = "?k=1";
    s.tc_url = "rtmp://v.example/live";
    s.port = 1935;
    EXPECT_EQ("v.example/live/cam:1935", expand_exec_word("[vhost]/[app]/[stream]:[port]", s));
    EXPECT_EQ("rtmp://v.example/live|?k=1||", expand_exec_word("[tcUrl]|[param]|[swfUrl]|[pageUrl]", s));
    EXPECT_EQ("rtmp://127.0.0.1:1935/live/cam?k=1&vhost=v.example", expand_exec_word("[url]", s));
    s.vhost = "__defaultVhost__";
    s.param = "";
    EXPECT_EQ("rtmp://127.0.0.1:1935/live/cam", expand_exec_word("[url]", s));
}

TEST(FfmpegLoop, StreamKeyOfOutputs) {
    OutputStreamKey k;
    ASSERT_TRUE(parse_rtmp_stream_key("rtmp://127.0.0.1:1935/live?vhost=v.com/cam_ff", "dflt", &k));
    EXPECT_EQ((OutputStreamKey{"v.com", "live", "cam_ff"}), k);
    ASSERT_TRUE(parse_rtmp_stream_key("rtmp://127.0.0.1/live/cam_ff?vhost=w.com&x=1", "dflt", &k));
    EXPECT_EQ((OutputStreamKey{"w.com", "live", "cam_ff"}), k);
    ASSERT_TRUE(parse_rtmp_stream_key("rtmp://127.0.0.1/live/cam", "dflt", &k));
    EXPECT_EQ((OutputStreamKey{"dflt", "live", "cam"}), k);
    EXPECT_FALSE(parse_rtmp_stream_key("http://127.0.0.1/live/cam", "d", &k));
    EXPECT_FALSE(parse_rtmp_stream_key("rtmp://127.0.0.1/live", "d", &k));
    EXPECT_FALSE(parse_rtmp_stream_key("rtmp://127.0.0.1", "d", &k));
    EXPECT_FALSE(parse_rtmp_stream_key("rtmp://127.0.0.1//cam", "d", &k));
    EXPECT_FALSE(parse_rtmp_stream_key("", "d", &k));
}

TEST(FfmpegScope, VhostAppOrStream) {
    EXPECT_TRUE(transcode_scope_matches("", "live", "cam"));
    EXPECT_TRUE(transcode_scope_matches("live", "live", "cam"));
    EXPECT_TRUE(transcode_scope_matches("live/cam", "live", "cam"));
    EXPECT_FALSE(transcode_scope_matches("live/other", "live", "cam"));
    EXPECT_FALSE(transcode_scope_matches("vod", "live", "cam"));
    EXPECT_FALSE(transcode_scope_matches("li", "live", "cam"));
}

TEST(FfmpegPath, ExistingMissingAndNotExecutable) {
    FfmpegPathProbe probe{fake_exists, fake_executable};
    std::string program, warning;
    ASSERT_TRUE(resolve_ffmpeg_path("./ok/ffmpeg", "/usr/bin", probe, &program, &warning).ok());
    EXPECT_EQ("./ok/ffmpeg", program);
    EXPECT_EQ("", warning);
    // SRS confs' ./objs/ffmpeg/bin/ffmpeg: the system's, with a warning.
    ASSERT_TRUE(resolve_ffmpeg_path("./objs/ffmpeg/bin/ffmpeg", "/bin:/usr/bin", probe, &program, &warning).ok());
    EXPECT_EQ("/usr/bin/ffmpeg", program);
    EXPECT_NE(std::string::npos, warning.find("does not exist"));
    // A bare name is looked up, without a warning.
    ASSERT_TRUE(resolve_ffmpeg_path("ffmpeg", "/usr/bin", probe, &program, &warning).ok());
    EXPECT_EQ("/usr/bin/ffmpeg", program);
    EXPECT_EQ("", warning);

    Error err = resolve_ffmpeg_path("./noexec/ffmpeg", "/usr/bin", probe, &program, &warning);
    ASSERT_TRUE(err.failed());
    EXPECT_NE(std::string::npos, err.summary().find("not executable"));
    err.ignore();
    err = resolve_ffmpeg_path("./objs/ffmpeg/bin/ffmpeg", "/nowhere", probe, &program, &warning);
    ASSERT_TRUE(err.failed());
    err.ignore();
    err = resolve_ffmpeg_path("", "/usr/bin", probe, &program, &warning);
    ASSERT_TRUE(err.failed());
    err.ignore();
}
