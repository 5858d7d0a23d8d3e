#include "main/libav_log.hpp"

#include <time.h>

extern "C" {
#include <libavutil/log.h>
}

#include <cstdarg>
#include <cstdio>

#include "core/log.hpp"

namespace srs {

namespace {

constexpr int kLinesPerWindow = 20;
constexpr time_t kWindowSeconds = 10;

// Process-wide by libav's design; touched only from the server's one thread.
struct Budget {
    time_t window_start = 0;
    int lines = 0;
    int suppressed = 0;
};
Budget budget;

void on_libav_log(void* avcl, int level, const char* fmt, va_list vl) {
    if (level > AV_LOG_WARNING) return;
    time_t now = time(nullptr);
    if (now - budget.window_start >= kWindowSeconds) {
        if (budget.suppressed > 0) srs_warn("libav: %d more lines suppressed", budget.suppressed);
        budget = Budget{now, 0, 0};
    }
    if (budget.lines++ >= kLinesPerWindow) {
        budget.suppressed++;
        return;
    }
    char line[512];
    int prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof(line), &prefix);
    for (char* p = line; *p; p++) {
        if (*p == '\n') *p = ' ';
    }
    srs_warn("libav: %s", line);
}

}  // namespace

void install_libav_log() { av_log_set_callback(on_libav_log); }

}  // namespace srs
