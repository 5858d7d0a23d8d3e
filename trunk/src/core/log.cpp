#include "core/log.hpp"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <string>

namespace srs {

bool parse_log_level(const std::string& text, LogLevel* out) {
    static const struct {
        const char* name;
        LogLevel level;
    } kNames[] = {
        {"verbose", LogLevel::kVerbose}, {"info", LogLevel::kInfo},   {"trace", LogLevel::kTrace},
        {"warn", LogLevel::kWarn},       {"error", LogLevel::kError}, {"TRACE", LogLevel::kVerbose},
        {"DEBUG", LogLevel::kInfo},      {"INFO", LogLevel::kTrace},  {"WARN", LogLevel::kWarn},
        {"ERROR", LogLevel::kError},
    };
    for (const auto& n : kNames) {
        if (text == n.name) {
            *out = n.level;
            return true;
        }
    }
    return false;
}

const char* log_level_tag(LogLevel level) {
    switch (level) {
        case LogLevel::kVerbose: return "TRACE";
        case LogLevel::kInfo: return "DEBUG";
        case LogLevel::kTrace: return "INFO";
        case LogLevel::kWarn: return "WARN";
        case LogLevel::kError: return "ERROR";
        default: return "NONE";
    }
}

Logger& Logger::instance() {
    // Leaked on purpose: logging must work during static destruction and in
    // signal-triggered exits.
    static Logger* logger = new Logger();
    return *logger;
}

void Logger::use_console() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    path_.clear();
}

Error Logger::use_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return SRS_ERR(kErrorFileOpen, "open log file %s: %s", path.c_str(), strerror(errno));
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
    path_ = path;
    return Error();
}

Error Logger::reopen() {
    if (fd_ < 0) return Error();
    std::string path = path_;
    if (Error err = use_file(path); !err.ok()) return SRS_WRAP(err, "reopen log");
    return Error();
}

int Logger::output_fd() const { return fd_ >= 0 ? fd_ : STDOUT_FILENO; }

void Logger::write_raw(const char* text, size_t size) {
    int fd = output_fd();
    while (size > 0) {
        ssize_t n = ::write(fd, text, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        text += n;
        size -= n;
    }
}

// A line is formatted on the caller's stack, and a coroutine keeps every
// stack page it ever touched: an 8 KiB line buffer made each connection's
// stack two pages deeper for good (measured: 16 KiB of touched stack per RTMP
// player, 8 KiB with logging off). Most lines fit kShortLine; a longer one is
// formatted again into the heap, up to kMaxLine.
static const size_t kShortLine = 1024;
static const size_t kMaxLine = 8192;

void Logger::write(LogLevel level, const char* fmt, ...) {
    int saved_errno = errno;
    char line[kShortLine];

    struct timeval tv;
    gettimeofday(&tv, nullptr);
    struct tm tm;
    if (utc_) {
        gmtime_r(&tv.tv_sec, &tm);
    } else {
        localtime_r(&tv.tv_sec, &tm);
    }
    char stamp[64];
    snprintf(stamp, sizeof(stamp), "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000));
    int n;
    if (level >= LogLevel::kWarn && saved_errno != 0) {
        n = snprintf(line, sizeof(line), "[%s][%s][%d][%s][%d] ", stamp, log_level_tag(level), (int)getpid(),
                     current_context_id(), saved_errno);
    } else {
        n = snprintf(line, sizeof(line), "[%s][%s][%d][%s] ", stamp, log_level_tag(level), (int)getpid(),
                     current_context_id());
    }

    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
    va_end(ap);
    size_t size = n + (m < 0 ? 0 : m);
    if (size > sizeof(line) - 2) {
        std::string longer(line, n);
        longer.resize(kMaxLine);
        va_start(ap, fmt);
        m = vsnprintf(&longer[n], kMaxLine - n - 1, fmt, ap);
        va_end(ap);
        size = n + (m < 0 ? 0 : m);
        if (size > kMaxLine - 2) size = kMaxLine - 2;  // truncated
        longer[size++] = '\n';
        write_raw(longer.data(), size);
        errno = saved_errno;
        return;
    }
    line[size++] = '\n';
    write_raw(line, size);
    errno = saved_errno;
}

}  // namespace srs
