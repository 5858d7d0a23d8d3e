#include "app/dvr/dvr_manager.hpp"

#include <unistd.h>

#include <cstdio>

#include "app/dvr/dvr_recorder.hpp"
#include "app/dvr/dvr_recovery.hpp"
#include "app/hooks/http_hooks.hpp"
#include "app/live/live_source.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"

namespace srs {

namespace {

std::string current_dir() {
    char buf[4096];
    return getcwd(buf, sizeof(buf)) ? std::string(buf) : std::string();
}

TimeJitter jitter_of(const std::string& name) {
    if (name == "zero") return TimeJitter::kZero;
    if (name == "off") return TimeJitter::kOff;
    return TimeJitter::kFull;
}

}  // namespace

std::unique_ptr<LiveSourceBridge> DvrManager::create_bridge(LiveSource* source) {
    std::shared_ptr<const Config> conf = config_();
    const std::string& vhost = source->vhost();
    if (!conf->get(vhost, keys::vhost_dvr_enabled)) return nullptr;
    if (!dvr_applies(conf->get(vhost, keys::vhost_dvr_dvr_apply), source->app(), source->stream())) return nullptr;
    DvrSettings s;
    s.path_template = dvr_path_template(conf->get(vhost, keys::vhost_dvr_dvr_path));
    s.plan.segment = conf->get(vhost, keys::vhost_dvr_dvr_plan) == "segment";
    s.plan.duration_ms = conf->get(vhost, keys::vhost_dvr_dvr_duration) * 1000;
    s.plan.wait_keyframe = conf->get(vhost, keys::vhost_dvr_dvr_wait_keyframe);
    s.jitter = jitter_of(conf->get(vhost, keys::vhost_dvr_time_jitter));
    DvrStreamName name{vhost, source->app(), source->stream()};
    const SourceOptions& o = source->publish_options();
    HookRequest hook;
    hook.client_id = source->publisher_cid();
    hook.ip = o.client_ip;
    hook.vhost = vhost;
    hook.app = source->app();
    hook.stream = source->stream();
    hook.param = o.param;
    hook.tc_url = o.tc_url;
    hook.cwd = current_dir();
    hook.stream_id = source->id();
    return std::unique_ptr<LiveSourceBridge>(
        new DvrRecorder(std::move(s), std::move(name), std::move(hook), hooks_, [] { return wall_us() / 1000; }));
}

void DvrManager::recover() {
    std::shared_ptr<const Config> conf = config_();
    std::string cwd = current_dir();
    for (const std::string& vhost : conf->vhosts()) {
        if (!conf->get(vhost, keys::vhost_enabled) || !conf->get(vhost, keys::vhost_dvr_enabled)) continue;
        std::string tmpl = dvr_path_template(conf->get(vhost, keys::vhost_dvr_dvr_path));
        for (const std::string& tmp : dvr_find_leftovers(tmpl)) {
            DvrRecovered r;
            if (Error err = dvr_recover_file(tmp, &r); err.failed()) {
                srs_warn("dvr: a recording left by a crash: %s", err.summary().c_str());
                err.ignore();
                continue;
            }
            char seconds[32];
            snprintf(seconds, sizeof(seconds), "%.3f s", r.duration_ms < 0 ? 0.0 : r.duration_ms / 1000.0);
            std::string what = r.fragments ? std::to_string(r.fragments) + " fragments, " + seconds : seconds;
            srs_trace("dvr: recovered %s left by a crash: %llu bytes kept, %llu cut, %s", r.path.c_str(),
                      (unsigned long long)r.bytes, (unsigned long long)r.cut_bytes, what.c_str());
            DvrStreamName name{vhost, "", ""};
            if (!match_dvr_path(tmpl, r.path, &name) && r.path.compare(0, 2, "./") == 0) {
                match_dvr_path(tmpl, r.path.substr(2), &name);
            }
            HookRequest hook;
            hook.vhost = vhost;
            hook.app = name.app;
            hook.stream = name.stream;
            hook.cwd = cwd;
            hook.file = r.path;
            recovered_.push_back(std::move(hook));
        }
    }
}

void DvrManager::post_recovered() {
    for (HookRequest& h : recovered_) {
        if (hooks_) hooks_->post_async(HookAction::kDvr, std::move(h));
    }
    recovered_.clear();
}

}  // namespace srs
