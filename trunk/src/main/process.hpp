// Process life: daemonizing, the pid file and the fd limit.
#pragma once

#include <string>

#include "core/error.hpp"

namespace srs {

// Detaches from the terminal with a double fork. The original process waits
// until the daemon reports that it started (notify_daemon_started) and exits
// 0, or exits 1 with the daemon's reason, so `./objs/srs -c srs.conf` fails
// visibly when, say, the port is taken.
Error daemonize();
// In the daemon: report the start result to the waiting parent (once).
void notify_daemon_started(const Error* failure);

// A pid file held with an exclusive lock while the server runs: a second
// server with the same pid file fails to lock it and refuses to start.
class PidFile {
  public:
    PidFile() = default;
    ~PidFile();
    PidFile(const PidFile&) = delete;
    PidFile& operator=(const PidFile&) = delete;
    Error acquire(const std::string& path);
    void release();

  private:
    int fd_ = -1;
    std::string path_;
};

// Raises the soft RLIMIT_NOFILE towards the hard limit when it is below what
// max_connections needs; returns the resulting soft limit.
long ensure_fd_limit(long max_connections);

}  // namespace srs
