#include "app/ffmpeg/ffmpeg_manager.hpp"

#include "app/live/live_source.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

namespace {

// The transcodes and exec commands of one publish: they live as long as the
// source stays published (the source drops its bridge at unpublish).
class PublishTasks : public LiveSourceBridge {
  public:
    PublishTasks(FfmpegManager* manager, std::vector<std::shared_ptr<FfmpegTask>> tasks)
        : manager_(manager), tasks_(std::move(tasks)) {
        for (auto& t : tasks_) manager_->add_task(t);
    }
    ~PublishTasks() override {
        for (auto& t : tasks_) {
            manager_->retire_task(t.get());
            if (t->plan().transcode && !t->plan().output.stream.empty()) manager_->release_output(t->plan().output);
        }
    }
    void on_live_message(const LiveMessagePtr&) override {}

  private:
    FfmpegManager* manager_;
    std::vector<std::shared_ptr<FfmpegTask>> tasks_;
};

}  // namespace

FfmpegManager::FfmpegManager(ConfigSnapshot config) : config_(std::move(config)), co_("ffmpeg", this) {}

FfmpegManager::~FfmpegManager() { stop(); }

Error FfmpegManager::start() {
    std::shared_ptr<const Config> conf = config_();
    for (const auto& w : wanted_ingests(*conf)) start_ingest(*conf, w.first, *w.second);
    return co_.start();
}

std::map<std::string, const ConfigSection*> FfmpegManager::wanted_ingests(const Config& conf) const {
    std::map<std::string, const ConfigSection*> out;
    for (const std::string& vhost : conf.vhosts()) {
        if (!conf.get(vhost, keys::vhost_enabled)) continue;
        int index = 0;
        for (const ConfigSection* ingest : conf.sections(vhost, "vhost.ingest")) {
            index++;
            if (!ingest->get(keys::vhost_ingest_enabled)) continue;
            std::string name = ingest->name().empty() ? "#" + std::to_string(index) : ingest->name();
            out[vhost + "/" + name] = ingest;
        }
    }
    return out;
}

void FfmpegManager::start_ingest(const Config& conf, const std::string& key, const ConfigSection& block) {
    Ingest& ingest = ingests_[key];
    ingest.text = block.text();
    std::string vhost = key.substr(0, key.find('/'));
    std::vector<PlannedProcess> plans;
    if (Error err = plan_ingest(conf, vhost, block, &plans); !err.ok()) {
        // Kept (with no task) so a reload that fixes it is seen as a change.
        srs_error("ingest %s (%s): %s, not started", key.c_str(), block.where().c_str(), err.summary().c_str());
        err.ignore();
        return;
    }
    std::string cid = new_context_id();
    for (PlannedProcess& p : plans) {
        std::shared_ptr<FfmpegTask> task(new FfmpegTask(std::move(p), key, cid));
        add_task(task);
        ingest.tasks.push_back(std::move(task));
    }
    srs_trace("ingest %s: %zu process(es), log context [%s]", key.c_str(), ingest.tasks.size(), cid.c_str());
}

void FfmpegManager::stop_ingest(const std::string& key) {
    auto it = ingests_.find(key);
    if (it == ingests_.end()) return;
    for (auto& t : it->second.tasks) retire_task(t.get());
    ingests_.erase(it);
}

void FfmpegManager::on_reload() {
    if (stopped_) return;
    std::shared_ptr<const Config> conf = config_();
    std::map<std::string, const ConfigSection*> wanted = wanted_ingests(*conf);
    std::vector<std::string> gone;
    for (const auto& i : ingests_) {
        auto w = wanted.find(i.first);
        if (w == wanted.end() || w->second->text() != i.second.text) gone.push_back(i.first);
    }
    for (const std::string& key : gone) {
        srs_trace("reload: ingest %s %s, stopped", key.c_str(), wanted.count(key) ? "changed" : "removed");
        stop_ingest(key);
    }
    for (const auto& w : wanted) {
        if (ingests_.count(w.first)) continue;
        srs_trace("reload: ingest %s started", w.first.c_str());
        start_ingest(*conf, w.first, *w.second);
    }
}

std::unique_ptr<LiveSourceBridge> FfmpegManager::create_bridge(LiveSource* source) {
    if (stopped_) return nullptr;
    std::shared_ptr<const Config> conf = config_();
    StreamVars vars;
    vars.vhost = source->vhost();
    vars.app = source->app();
    vars.stream = source->stream();
    vars.param = source->publish_options().param;
    vars.tc_url = source->publish_options().tc_url;
    vars.port = server_rtmp_port(*conf);
    std::vector<PlannedProcess> plans;
    plan_publish(*conf, vars, &plans);
    if (plans.empty()) return nullptr;
    std::string where = vars.vhost + source->url();
    bool is_output = outputs_.count(OutputStreamKey{vars.vhost, vars.app, vars.stream}) > 0;
    std::vector<std::shared_ptr<FfmpegTask>> tasks;
    for (PlannedProcess& p : plans) {
        if (p.transcode && is_output) {
            srs_trace("transcode %s: it is a transcode's output, not transcoded again (%s)", where.c_str(),
                      p.label.c_str());
            continue;
        }
        if (p.transcode && !p.output.stream.empty()) outputs_.insert(p.output);
        tasks.emplace_back(new FfmpegTask(std::move(p), where, source->publisher_cid()));
    }
    if (tasks.empty()) return nullptr;
    return std::unique_ptr<LiveSourceBridge>(new PublishTasks(this, std::move(tasks)));
}

void FfmpegManager::add_task(const std::shared_ptr<FfmpegTask>& task) {
    // Started by the next tick (within kTickUs), not here: a start forks and
    // waits for the exec, which must not happen inside the publish.
    tasks_[task.get()] = task;
}

void FfmpegManager::retire_task(FfmpegTask* task) {
    tasks_.erase(task);
    std::unique_ptr<ChildProcess> child = task->retire();
    if (!child || !child->running()) return;
    srs_trace("%s: stop pid %d", task->plan().label.c_str(), (int)child->pid());
    if (stopped_) {
        child->kill_and_reap();  // after quit nothing reaps later
        return;
    }
    child->terminate(kStopGraceUs);
    dying_.push_back(std::move(child));
}

void FfmpegManager::release_output(const OutputStreamKey& key) {
    auto it = outputs_.find(key);
    if (it != outputs_.end()) outputs_.erase(it);
}

Error FfmpegManager::cycle() {
    for (;;) {
        Error stop = co_.pull();
        if (stop.failed()) {
            stop.ignore();  // stop(): not a failure
            break;
        }
        utime_t now = monotonic_us();
        // A copy that holds them: a start switches coroutines, and meanwhile a
        // publish may add tasks and an unpublish retire and drop some.
        std::vector<std::shared_ptr<FfmpegTask>> tasks;
        for (const auto& t : tasks_) tasks.push_back(t.second);
        for (const auto& t : tasks) t->tick(now);
        reap_dying(now);
        if (Error err = sleep_us(kTickUs); !err.ok()) {
            err.ignore();
            break;
        }
    }
    return Error();
}

void FfmpegManager::reap_dying(utime_t now_us) {
    (void)now_us;
    for (size_t i = 0; i < dying_.size();) {
        int status = 0;
        if (dying_[i]->poll_exit(&status)) {
            srs_trace("pid %d stopped, %s", (int)dying_[i]->pid(), ChildProcess::describe_status(status).c_str());
            dying_.erase(dying_.begin() + i);
            continue;
        }
        i++;
    }
}

void FfmpegManager::stop() {
    if (stopped_) return;
    co_.stop();
    stopped_ = true;
    std::vector<std::string> keys;
    for (const auto& i : ingests_) keys.push_back(i.first);
    // Everything still running gets SIGTERM now, then is reaped together.
    std::map<FfmpegTask*, std::shared_ptr<FfmpegTask>> tasks;
    tasks.swap(tasks_);
    for (const auto& t : tasks) {
        std::unique_ptr<ChildProcess> child = t.second->retire();
        if (!child || !child->running()) continue;
        child->terminate(kStopGraceUs);
        dying_.push_back(std::move(child));
    }
    ingests_.clear();
    if (!dying_.empty()) srs_trace("ffmpeg: stopping %zu process(es)", dying_.size());
    utime_t deadline = monotonic_us() + kStopGraceUs + kUsPerSecond;
    while (!dying_.empty() && monotonic_us() < deadline) {
        reap_dying(monotonic_us());
        if (dying_.empty()) break;
        if (Error err = sleep_us(20 * kUsPerMs); !err.ok()) {
            err.ignore();
            break;  // interrupted: the rest is killed below
        }
    }
    for (auto& c : dying_) c->kill_and_reap();
    dying_.clear();
}

}  // namespace srs
