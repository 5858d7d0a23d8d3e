#include "app/dvr/dvr_plan.hpp"

#include <algorithm>

namespace srs {

bool DvrPlan::cut_before(int64_t timestamp_ms, bool is_video, bool is_keyframe, bool has_video) const {
    if (!options_.segment || !started_) return false;
    if (timestamp_ms - first_ms_ < options_.duration_ms) return false;
    if (options_.wait_keyframe && has_video) return is_video && is_keyframe;
    return true;
}

void DvrPlan::on_written(int64_t timestamp_ms) {
    if (!started_) {
        started_ = true;
        first_ms_ = last_ms_ = timestamp_ms;
        return;
    }
    last_ms_ = std::max(last_ms_, timestamp_ms);
}

}  // namespace srs
