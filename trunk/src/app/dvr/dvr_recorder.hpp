// The recording of one publish: the bridge the DVR hangs on a source
// while it is published (SRS's SrsDvr of a source).
//
// A file opens at the first audio or video frame (metadata and sequence
// headers are kept until then, and every new file of the segment plan
// starts with them again); the plan says when to cut; the writer gets
// timestamps corrected per file by dvr's time_jitter. Each closed file is
// renamed from its temporary name and reported by on_dvr (queued).
//
// An I/O failure (no permission, disk full) logs one line and ends the
// recording of this publish; the publish itself goes on.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "app/dvr/dvr_path.hpp"
#include "app/dvr/dvr_plan.hpp"
#include "app/dvr/dvr_writer.hpp"
#include "app/hooks/hook_contract.hpp"
#include "app/live/live_bridge.hpp"
#include "app/live/live_source.hpp"

namespace srs {

class HttpHooks;

struct DvrSettings {
    std::string path_template;  // dvr_path, folder form resolved
    DvrPlanOptions plan;
    TimeJitter jitter = TimeJitter::kFull;
};

class DvrRecorder : public LiveSourceBridge {
  public:
    // hook: the on_dvr request with everything but file (and cwd) filled;
    // hooks may be nullptr (unit tests). wall_ms: the clock of file names.
    DvrRecorder(DvrSettings settings, DvrStreamName name, HookRequest hook, HttpHooks* hooks,
                std::function<int64_t()> wall_ms);
    ~DvrRecorder() override;  // closes the open file

    void on_live_message(const LiveMessagePtr& msg) override;

    bool failed() const { return failed_; }
    int files_closed() const { return files_closed_; }

  private:
    Error handle(const LiveMessagePtr& msg);
    Error open_file(const LiveMessagePtr& first);
    Error write_frame(const LiveMessagePtr& msg, uint32_t timestamp);
    void close_file();

    DvrSettings settings_;
    DvrStreamName name_;
    HookRequest hook_;
    HttpHooks* hooks_;
    std::function<int64_t()> wall_ms_;
    DvrPlan plan_;
    std::unique_ptr<DvrWriter> writer_;  // the open file, or nullptr
    std::string path_;                   // its final name, as configured (cwd-relative when dvr_path is)
    TimestampJitter jitter_;             // of the open file
    std::unique_ptr<Amf0Value> metadata_;
    LiveMessagePtr video_header_;
    LiveMessagePtr audio_header_;
    bool has_video_ = false;
    bool failed_ = false;
    int files_closed_ = 0;
};

}  // namespace srs
