// When to start a process again after it exited: 1 s, doubled after each
// quick exit up to 30 s; a run that lasted a minute counts as healthy and
// starts the series over, and so does a clean end (exit code 0) after 10 s
// (an ingested file that played to its end). Pure: the caller passes how
// long the run lasted and how it ended.
#pragma once

#include "core/clock.hpp"

namespace srs {

class RestartBackoff {
  public:
    static constexpr utime_t kFirstUs = 1 * kUsPerSecond;
    static constexpr utime_t kMaxUs = 30 * kUsPerSecond;
    static constexpr utime_t kStableUs = 60 * kUsPerSecond;
    static constexpr utime_t kCleanRunUs = 10 * kUsPerSecond;

    // A run of `ran_us` ended (0: it could not even start), `clean` when it
    // exited with code 0. Returns how long to wait before the next start.
    utime_t next_delay(utime_t ran_us, bool clean = false);
    void reset() { delay_us_ = 0; }

  private:
    utime_t delay_us_ = 0;  // the last delay given; 0: none yet
};

}  // namespace srs
