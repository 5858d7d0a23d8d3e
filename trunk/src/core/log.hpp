// Logging: one line per event, in SRS's format
//   [2026-11-21 10:00:00.123][INFO][pid][cid] message
// Warnings and errors add the errno in effect: [2026-...][WARN][pid][cid][errno] message.
//
// The logger is the one process-wide object outside the server (every layer
// logs); everything else hangs off the server. The context id comes from the
// same hook errors use (set_context_id_provider), so each coroutine's lines
// carry its connection id and a session can be grepped.
#pragma once

#include <string>

#include "core/error.hpp"

namespace srs {

// SRS levels, lowest first. srs_log_level uses the first names
// (verbose|info|trace|warn|error); srs_log_level_v2 and the log lines use
// the second (TRACE|DEBUG|INFO|WARN|ERROR).
enum class LogLevel : int { kVerbose = 0, kInfo = 1, kTrace = 2, kWarn = 3, kError = 4, kDisabled = 5 };

// Parses "verbose|info|trace|warn|error" or "TRACE|DEBUG|INFO|WARN|ERROR".
bool parse_log_level(const std::string& text, LogLevel* out);
const char* log_level_tag(LogLevel level);

class Logger {
  public:
    static Logger& instance();

    void set_level(LogLevel level) { level_ = level; }
    LogLevel level() const { return level_; }
    bool enabled(LogLevel level) const { return level >= level_; }
    void set_utc(bool utc) { utc_ = utc; }

    // Tank: the console (stdout) or a file opened for append.
    void use_console();
    Error use_file(const std::string& path);
    // SIGUSR1: close and reopen the file (after logrotate moved it).
    Error reopen();
    bool is_file() const { return fd_ >= 0; }
    const std::string& file_path() const { return path_; }
    // The fd lines go to (for ASAN's report callback).
    int output_fd() const;

    void write(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
    // Writes text as it is (no prefix), for reports that have their own format.
    void write_raw(const char* text, size_t size);

  private:
    Logger() = default;
    LogLevel level_ = LogLevel::kTrace;
    bool utc_ = false;
    int fd_ = -1;  // -1: console
    std::string path_;
};

}  // namespace srs

#define SRS_LOG_AT(lvl, ...)                                                       \
    do {                                                                           \
        ::srs::Logger& srs_logger_ = ::srs::Logger::instance();                    \
        if (srs_logger_.enabled(lvl)) srs_logger_.write(lvl, __VA_ARGS__);         \
    } while (0)

#define srs_verbose(...) SRS_LOG_AT(::srs::LogLevel::kVerbose, __VA_ARGS__)
#define srs_info(...) SRS_LOG_AT(::srs::LogLevel::kInfo, __VA_ARGS__)
#define srs_trace(...) SRS_LOG_AT(::srs::LogLevel::kTrace, __VA_ARGS__)
#define srs_warn(...) SRS_LOG_AT(::srs::LogLevel::kWarn, __VA_ARGS__)
#define srs_error(...) SRS_LOG_AT(::srs::LogLevel::kError, __VA_ARGS__)
