#include "app/ffmpeg/ffmpeg_plan.hpp"

#include "core/log.hpp"

namespace srs {

namespace {

// The engine rows exist twice (under ingest and under transcode): one key
// set for each, picked by the section's path.
struct EngineKeys {
    VhostKey<bool> enabled;
    VhostKey<std::string> iformat;
    VhostKey<std::string> vcodec;
    VhostKey<int64_t> vbitrate;
    VhostKey<double> vfps;
    VhostKey<int64_t> vwidth;
    VhostKey<int64_t> vheight;
    VhostKey<int64_t> vthreads;
    VhostKey<std::string> vprofile;
    VhostKey<std::string> vpreset;
    VhostKey<std::string> acodec;
    VhostKey<int64_t> abitrate;
    VhostKey<int64_t> asample_rate;
    VhostKey<int64_t> achannels;
    VhostKey<std::string> oformat;
    VhostKey<std::string> output;
};

const EngineKeys kIngestEngine = {
    keys::vhost_ingest_engine_enabled,
    keys::vhost_ingest_engine_iformat,
    keys::vhost_ingest_engine_vcodec,
    keys::vhost_ingest_engine_vbitrate,
    keys::vhost_ingest_engine_vfps,
    keys::vhost_ingest_engine_vwidth,
    keys::vhost_ingest_engine_vheight,
    keys::vhost_ingest_engine_vthreads,
    keys::vhost_ingest_engine_vprofile,
    keys::vhost_ingest_engine_vpreset,
    keys::vhost_ingest_engine_acodec,
    keys::vhost_ingest_engine_abitrate,
    keys::vhost_ingest_engine_asample_rate,
    keys::vhost_ingest_engine_achannels,
    keys::vhost_ingest_engine_oformat,
    keys::vhost_ingest_engine_output,
};

const EngineKeys kTranscodeEngine = {
    keys::vhost_transcode_engine_enabled,
    keys::vhost_transcode_engine_iformat,
    keys::vhost_transcode_engine_vcodec,
    keys::vhost_transcode_engine_vbitrate,
    keys::vhost_transcode_engine_vfps,
    keys::vhost_transcode_engine_vwidth,
    keys::vhost_transcode_engine_vheight,
    keys::vhost_transcode_engine_vthreads,
    keys::vhost_transcode_engine_vprofile,
    keys::vhost_transcode_engine_vpreset,
    keys::vhost_transcode_engine_acodec,
    keys::vhost_transcode_engine_abitrate,
    keys::vhost_transcode_engine_asample_rate,
    keys::vhost_transcode_engine_achannels,
    keys::vhost_transcode_engine_oformat,
    keys::vhost_transcode_engine_output,
};

const EngineKeys& engine_keys(const ConfigSection& engine) {
    return engine.path() == "vhost.ingest.engine" ? kIngestEngine : kTranscodeEngine;
}

std::vector<std::string> options_of(const ConfigSection& engine, const char* leaf) {
    std::vector<std::string> out;
    for (const ConfigSection* s : engine.children(engine.path() + "." + leaf)) {
        std::vector<std::string> more = ffmpeg_options(s->lines());
        out.insert(out.end(), more.begin(), more.end());
    }
    return out;
}

bool engine_enabled(const ConfigSection& engine) { return engine.get(engine_keys(engine).enabled); }

}  // namespace

FfmpegEngine read_ffmpeg_engine(const ConfigSection& engine) {
    const EngineKeys& k = engine_keys(engine);
    FfmpegEngine e;
    e.name = engine.name();
    e.perfile = options_of(engine, "perfile");
    e.iformat = engine.get(k.iformat);
    e.vfilter = options_of(engine, "vfilter");
    e.vcodec = engine.get(k.vcodec);
    e.vbitrate = engine.get(k.vbitrate);
    e.vfps = engine.get(k.vfps);
    e.vwidth = engine.get(k.vwidth);
    e.vheight = engine.get(k.vheight);
    e.vthreads = engine.get(k.vthreads);
    e.vprofile = engine.get(k.vprofile);
    e.vpreset = engine.get(k.vpreset);
    e.vparams = options_of(engine, "vparams");
    e.acodec = engine.get(k.acodec);
    e.abitrate = engine.get(k.abitrate);
    e.asample_rate = engine.get(k.asample_rate);
    e.achannels = engine.get(k.achannels);
    e.aparams = options_of(engine, "aparams");
    e.oformat = engine.get(k.oformat);
    e.output = engine.get(k.output);
    return e;
}

int server_rtmp_port(const Config& conf) {
    std::vector<ListenEndpoint> eps = conf.get(keys::listen);
    return eps.empty() ? 1935 : eps[0].port;
}

Error plan_ingest(const Config& conf, const std::string& vhost, const ConfigSection& ingest,
                  std::vector<PlannedProcess>* out) {
    std::string name = ingest.name();
    std::string type = ingest.get(keys::vhost_ingest_input_type);
    std::string url = ingest.get(keys::vhost_ingest_input_url);
    std::string ffmpeg = ingest.get(keys::vhost_ingest_ffmpeg);
    if (url.empty()) return SRS_ERR(kErrorConfigInvalid, "ingest %s: no input url", name.c_str());
    if (ffmpeg.empty()) return SRS_ERR(kErrorConfigInvalid, "ingest %s: no ffmpeg", name.c_str());
    int port = server_rtmp_port(conf);
    std::vector<const ConfigSection*> engines = ingest.children("vhost.ingest.engine");
    if (engines.empty()) {
        return SRS_ERR(kErrorConfigInvalid, "ingest %s: no engine, so no output", name.c_str());
    }
    for (const ConfigSection* engine : engines) {
        FfmpegJob job;
        job.ffmpeg = ffmpeg;
        job.input = url;
        // A file is read at its own pace; a stream comes at its own.
        job.iparams = type == "file" ? "-re" : "";
        FfmpegEngine e = read_ffmpeg_engine(*engine);
        std::string output = expand_ingest_output(e.output, vhost, port);
        bool copy = !engine_enabled(*engine) || e.vcodec.empty() || e.acodec.empty();
        if (copy) {
            job.engine = make_copy_engine(output);
            job.engine.name = e.name;
        } else {
            job.engine = e;
            job.engine.output = output;
        }
        if (Error err = check_ffmpeg_job(&job); !err.ok()) return SRS_WRAP(err, "ingest %s", name.c_str());
        PlannedProcess p;
        p.label = "ingest " + (name.empty() ? std::string("(unnamed)") : name) +
                  (e.name.empty() ? "" : " engine " + e.name);
        p.spec.argv = build_ffmpeg_argv(job);
        p.ffmpeg = true;
        out->push_back(std::move(p));
    }
    return Error();
}

void plan_publish(const Config& conf, const StreamVars& stream, std::vector<PlannedProcess>* out) {
    const std::string& vhost = stream.vhost;
    for (const ConfigSection* t : conf.sections(vhost, "vhost.transcode")) {
        if (!transcode_scope_matches(t->name(), stream.app, stream.stream)) continue;
        if (!t->get(keys::vhost_transcode_enabled)) continue;
        std::string ffmpeg = t->get(keys::vhost_transcode_ffmpeg);
        for (const ConfigSection* engine : t->children("vhost.transcode.engine")) {
            if (!engine_enabled(*engine)) continue;
            FfmpegJob job;
            job.ffmpeg = ffmpeg;
            job.input = transcode_input_url(stream);
            job.engine = read_ffmpeg_engine(*engine);
            job.engine.output = expand_transcode_output(job.engine.output, stream, job.engine.name);
            if (Error err = check_ffmpeg_job(&job); !err.ok()) {
                srs_warn("transcode %s/%s/%s (%s): %s, engine skipped", vhost.c_str(), stream.app.c_str(),
                         stream.stream.c_str(), engine->where().c_str(), err.summary().c_str());
                err.ignore();
                continue;
            }
            PlannedProcess p;
            p.label = "transcode engine " + (job.engine.name.empty() ? std::string("(unnamed)") : job.engine.name);
            p.spec.argv = build_ffmpeg_argv(job);
            p.ffmpeg = true;
            p.transcode = true;
            if (!parse_rtmp_stream_key(job.engine.output, vhost, &p.output)) p.output = OutputStreamKey();
            out->push_back(std::move(p));
        }
    }
    if (!conf.get(vhost, keys::vhost_exec_enabled)) return;
    for (const ConfigSection* cmd : conf.sections(vhost, "vhost.exec.publish")) {
        std::vector<std::string> words;
        for (const std::string& a : cmd->get(keys::vhost_exec_publish)) words.push_back(expand_exec_word(a, stream));
        PlannedProcess p;
        p.spec = parse_command_redirections(words);
        if (p.spec.argv.empty()) continue;
        p.label = "exec " + p.spec.argv[0];
        // SRS's exec.conf runs ./objs/ffmpeg/bin/ffmpeg: the same fallback as ingest's.
        const std::string& prog = p.spec.argv[0];
        p.ffmpeg = prog.size() >= 7 && prog.compare(prog.size() - 7, 7, "/ffmpeg") == 0;
        out->push_back(std::move(p));
    }
}

}  // namespace srs
