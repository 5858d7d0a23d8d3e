// When a recording opens and closes its files (SRS's dvr_plan), sans-IO:
// the recorder tells each message's timestamp and kind, the plan answers.
//
//   session  one file per publish: opened at the first message, closed at
//            the unpublish.
//   segment  a new file once the open one holds dvr_duration of media
//            (message timestamps, not the wall clock, as SRS measures it);
//            with dvr_wait_keyframe the cut waits for a video keyframe, so
//            every file starts with one. A stream without video is cut at
//            the duration (SRS would never cut it: it waits for a keyframe
//            that cannot come).
#pragma once

#include <cstdint>

namespace srs {

struct DvrPlanOptions {
    bool segment = false;
    int64_t duration_ms = 30000;
    bool wait_keyframe = true;
};

class DvrPlan {
  public:
    explicit DvrPlan(const DvrPlanOptions& options) : options_(options) {}

    // Whether the open file is closed and a new one opened before this
    // message goes in (never for the first message of a file, nor for
    // sequence headers and metadata, which each new file repeats).
    // has_video: the stream has shown a video sequence header or frame.
    bool cut_before(int64_t timestamp_ms, bool is_video, bool is_keyframe, bool has_video) const;

    // The message went into the file (its first sets the file's start).
    void on_written(int64_t timestamp_ms);
    // A new file was opened: the next message starts it.
    void on_new_file() { started_ = false; }

    // Media held by the open file, from its first to its latest message.
    int64_t file_duration_ms() const { return started_ ? last_ms_ - first_ms_ : 0; }

  private:
    DvrPlanOptions options_;
    bool started_ = false;
    int64_t first_ms_ = 0;
    int64_t last_ms_ = 0;
};

}  // namespace srs
