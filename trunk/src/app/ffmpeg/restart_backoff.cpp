#include "app/ffmpeg/restart_backoff.hpp"

namespace srs {

utime_t RestartBackoff::next_delay(utime_t ran_us, bool clean) {
    if (ran_us >= kStableUs || (clean && ran_us >= kCleanRunUs) || delay_us_ == 0) {
        delay_us_ = kFirstUs;
    } else {
        delay_us_ = delay_us_ * 2 > kMaxUs ? kMaxUs : delay_us_ * 2;
    }
    return delay_us_;
}

}  // namespace srs
