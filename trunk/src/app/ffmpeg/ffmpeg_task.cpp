#include "app/ffmpeg/ffmpeg_task.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

namespace {

bool path_exists(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool path_executable(const std::string& p) { return access(p.c_str(), X_OK) == 0; }

std::string join_argv(const std::vector<std::string>& argv) {
    std::string s;
    for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
    return s;
}

}  // namespace

FfmpegTask::FfmpegTask(PlannedProcess plan, std::string where, std::string cid)
    : plan_(std::move(plan)), where_(std::move(where)), cid_(cid.empty() ? new_context_id() : std::move(cid)) {}

// The task's log context for the lines of one tick (the manager's coroutine
// serves every task).
class ScopedContext {
  public:
    explicit ScopedContext(const std::string& cid) : saved_(context_id()) { set_context_id(cid); }
    ~ScopedContext() { set_context_id(saved_); }

  private:
    std::string saved_;
};

void FfmpegTask::tick(utime_t now_us) {
    if (retired_) return;
    ScopedContext context(cid_);
    if (child_) {
        int status = 0;
        if (!child_->poll_exit(&status)) return;
        utime_t ran = now_us - started_at_us_;
        std::string why = "pid " + std::to_string(child_->pid()) + " ended with " +
                          ChildProcess::describe_status(status) + " after " + std::to_string(ran / kUsPerMs) + " ms";
        child_.reset();
        bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        schedule_restart(now_us, ran, why, clean);
        return;
    }
    if (now_us >= next_start_us_) start(now_us);
}

void FfmpegTask::start(utime_t now_us) {
    ChildSpec spec = plan_.spec;
    if (plan_.ffmpeg) {
        const char* path_env = getenv("PATH");
        std::string program, warning;
        Error err = resolve_ffmpeg_path(spec.argv[0], path_env ? path_env : "", {path_exists, path_executable},
                                        &program, &warning);
        if (!err.ok()) {
            std::string why = err.summary();
            err.ignore();
            schedule_restart(now_us, 0, why);
            return;
        }
        if (!warning.empty() && !fallback_warned_) {
            srs_warn("%s %s: %s", plan_.label.c_str(), where_.c_str(), warning.c_str());
            fallback_warned_ = true;
        }
        spec.argv[0] = program;
    }
    std::string label = plan_.label;
    std::unique_ptr<ChildProcess> child(new ChildProcess(
        [label](const std::string& line) { srs_trace("%s: %s", label.c_str(), line.c_str()); }, cid_));
    starts_++;
    started_at_us_ = now_us;
    if (Error err = child->start(spec); !err.ok()) {
        std::string why = err.summary();
        err.ignore();
        schedule_restart(now_us, 0, why);
        return;
    }
    if (retired_) {
        // Retired while the exec was awaited: nobody will stop it later.
        child->kill_and_reap();
        return;
    }
    srs_trace("%s %s: started pid %d (start %d): %s", plan_.label.c_str(), where_.c_str(), (int)child->pid(), starts_,
              join_argv(spec.argv).c_str());
    child_ = std::move(child);
}

void FfmpegTask::schedule_restart(utime_t now_us, utime_t ran_us, const std::string& why, bool clean) {
    utime_t delay = backoff_.next_delay(ran_us, clean);
    next_start_us_ = now_us + delay;
    // An error when it could not even start (a bad path): the operator must act.
    if (ran_us == 0) {
        srs_error("%s %s: %s; retry in %d ms", plan_.label.c_str(), where_.c_str(), why.c_str(),
                  (int)(delay / kUsPerMs));
    } else {
        srs_warn("%s %s: %s; restart in %d ms", plan_.label.c_str(), where_.c_str(), why.c_str(),
                 (int)(delay / kUsPerMs));
    }
}

std::unique_ptr<ChildProcess> FfmpegTask::retire() {
    retired_ = true;
    return std::move(child_);
}

}  // namespace srs
