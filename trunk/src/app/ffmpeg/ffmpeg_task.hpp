// One supervised process (an ingest's FFmpeg, a transcode engine, an exec
// command): started, watched, started again with a backoff when it exits
// (or cannot start), until it is retired. It has no coroutine of its own:
// the FfmpegManager's tick drives every task.
#pragma once

#include <memory>
#include <string>

#include "app/ffmpeg/ffmpeg_plan.hpp"
#include "app/ffmpeg/restart_backoff.hpp"
#include "io/child_process.hpp"

namespace srs {

class FfmpegTask {
  public:
    // where: the stream or ingest it serves, for logs ("__defaultVhost__/live/livestream").
    // cid: the log context of its lines (the publisher's, or a new one).
    FfmpegTask(PlannedProcess plan, std::string where, std::string cid);

    // Starts the process when it is due; notices an exit and schedules the
    // next start.
    void tick(utime_t now_us);
    // Takes the process away (to be terminated and reaped by the caller);
    // the task starts nothing any more. nullptr when none runs.
    std::unique_ptr<ChildProcess> retire();

    const PlannedProcess& plan() const { return plan_; }

  private:
    void start(utime_t now_us);
    // Schedules the next start after a run of ran_us (clean: exit code 0).
    void schedule_restart(utime_t now_us, utime_t ran_us, const std::string& why, bool clean = false);

    PlannedProcess plan_;
    std::string where_;
    std::string cid_;
    std::unique_ptr<ChildProcess> child_;
    RestartBackoff backoff_;
    utime_t started_at_us_ = 0;
    utime_t next_start_us_ = 0;  // 0: now
    int starts_ = 0;
    bool retired_ = false;
    bool fallback_warned_ = false;
};

}  // namespace srs
