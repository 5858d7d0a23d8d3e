#include "main/process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace srs {

namespace {
int g_daemon_status_fd = -1;  // write end, held by the daemon until it reports
}

Error daemonize() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) return SRS_ERR(kErrorDaemon, "pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return SRS_ERR(kErrorDaemon, "fork: %s", strerror(errno));
    if (pid > 0) {
        // Original process: wait for the daemon's word, then leave.
        close(fds[1]);
        waitpid(pid, nullptr, 0);  // the intermediate child exits at once
        char buf[1024];
        ssize_t n, total = 0;
        while ((n = read(fds[0], buf + total, sizeof(buf) - 1 - total)) > 0) total += n;
        buf[total > 0 ? total : 0] = '\0';
        if (total > 0 && buf[0] == '0') _exit(0);
        fprintf(stderr, "srs: the daemon failed to start: %s\n", total > 1 ? buf + 1 : "it exited");
        _exit(1);
    }
    close(fds[0]);
    if (setsid() < 0) _exit(1);
    pid = fork();
    if (pid < 0) _exit(1);
    if (pid > 0) _exit(0);  // the intermediate child; the grandchild is not a session leader

    // The daemon: no terminal.
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO) close(null);
    }
    umask(022);
    g_daemon_status_fd = fds[1];
    return Error();
}

void notify_daemon_started(const Error* failure) {
    if (g_daemon_status_fd < 0) return;
    std::string msg = failure && failure->failed() ? "1" + failure->summary() : "0";
    ssize_t r = write(g_daemon_status_fd, msg.data(), msg.size());
    (void)r;
    close(g_daemon_status_fd);
    g_daemon_status_fd = -1;
}

PidFile::~PidFile() { release(); }

Error PidFile::acquire(const std::string& path) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return SRS_ERR(kErrorPidFile, "open pid file %s: %s", path.c_str(), strerror(errno));
    struct flock lock;
    memset(&lock, 0, sizeof(lock));
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &lock) < 0) {
        int e = errno;
        close(fd);
        if (e == EACCES || e == EAGAIN) {
            return SRS_ERR(kErrorPidFile, "srs is already running: pid file %s is locked by another process",
                           path.c_str());
        }
        return SRS_ERR(kErrorPidFile, "lock pid file %s: %s", path.c_str(), strerror(e));
    }
    if (ftruncate(fd, 0) < 0) {
        int e = errno;
        close(fd);
        return SRS_ERR(kErrorPidFile, "truncate pid file %s: %s", path.c_str(), strerror(e));
    }
    std::string pid = std::to_string(getpid()) + "\n";
    if (write(fd, pid.data(), pid.size()) != static_cast<ssize_t>(pid.size())) {
        int e = errno;
        close(fd);
        return SRS_ERR(kErrorPidFile, "write pid file %s: %s", path.c_str(), strerror(e));
    }
    fd_ = fd;
    path_ = path;
    return Error();
}

void PidFile::release() {
    if (fd_ < 0) return;
    // Remove it only while we hold the lock, so we never delete another
    // server's file.
    unlink(path_.c_str());
    close(fd_);
    fd_ = -1;
}

long ensure_fd_limit(long max_connections) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) return -1;
    // Each connection is one fd; leave room for listeners, logs and pipes.
    rlim_t want = static_cast<rlim_t>(max_connections) + 128;
    if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return static_cast<long>(rl.rlim_cur);
}

}  // namespace srs
