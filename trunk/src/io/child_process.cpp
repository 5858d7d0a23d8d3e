#include "io/child_process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.hpp"
#include "st/st.h"

extern char** environ;

namespace srs {

namespace {

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

// How long the parent waits for the exec to succeed or fail.
constexpr utime_t kExecStatusTimeoutUs = 5 * kUsPerSecond;

bool starts_with(const std::string& s, const char* p) { return s.compare(0, strlen(p), p) == 0; }

// In the child, between fork and exec: only async-signal-safe calls (the
// server has a helper thread, so the child may have inherited a held lock).
[[noreturn]] void run_child(char* const* argv, const char* out_file, const char* err_file, int out_pipe,
                            int status_fd, pid_t server_pid, int max_fd) {
    // Killed with the server, even by kill -9 of the server; and if the
    // server died before the line above took effect, go now.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != server_pid) _exit(127);
    // Its own process group: a Ctrl-C at the server's terminal reaches the
    // server, which stops the children in order.
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s = 1; s < NSIG; s++) {
        if (s == SIGKILL || s == SIGSTOP) continue;
        signal(s, SIG_DFL);  // SIGPIPE was ignored by the server
    }
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0 && in != 0) {
        dup2(in, 0);
        close(in);
    }
    int out = out_pipe;
    if (*out_file) out = open(out_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = out_pipe;
    if (*err_file) err = open(err_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) {
        int e = errno;
        ssize_t r = write(status_fd, &e, sizeof(e));
        (void)r;
        _exit(127);
    }
    dup2(out, 1);
    dup2(err, 2);
    // Every other descriptor (sockets, epoll, the status pipe) closes at exec.
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        for (int fd = 3; fd < max_fd; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    execve(argv[0], argv, environ);
    int e = errno;
    ssize_t r = write(status_fd, &e, sizeof(e));
    (void)r;
    _exit(127);
}

// To the child's process group (it made its own), so what a script started
// goes too; to the child alone if the group is gone.
void signal_child(pid_t pid, int signo) {
    if (kill(-pid, signo) < 0) kill(pid, signo);
}

}  // namespace

ChildSpec parse_command_redirections(const std::vector<std::string>& words) {
    ChildSpec spec;
    for (size_t i = 0; i < words.size(); i++) {
        const std::string& w = words[i];
        std::string next = i + 1 < words.size() ? words[i + 1] : "";
        std::string* target = nullptr;
        std::string rest;
        if (starts_with(w, "1>")) {
            target = &spec.stdout_file;
            rest = w.substr(2);
        } else if (starts_with(w, "2>")) {
            target = &spec.stderr_file;
            rest = w.substr(2);
        } else if (starts_with(w, ">")) {
            target = &spec.stdout_file;
            rest = w.substr(1);
        } else if ((w == "1" || w == "2") && starts_with(next, ">")) {
            // `1 > F` or `2 >F`.
            target = w == "1" ? &spec.stdout_file : &spec.stderr_file;
            rest = next.substr(1);
            i++;
        }
        if (!target) {
            spec.argv.push_back(w);
            continue;
        }
        if (rest.empty() && i + 1 < words.size()) rest = words[++i];  // `> F`
        *target = rest;
    }
    return spec;
}

std::string find_in_path(const std::string& name, const std::string& path_env) {
    if (name.empty()) return "";
    if (name.find('/') != std::string::npos) return name;
    size_t at = 0;
    while (at <= path_env.size()) {
        size_t colon = path_env.find(':', at);
        if (colon == std::string::npos) colon = path_env.size();
        std::string dir = path_env.substr(at, colon - at);
        if (dir.empty()) dir = ".";
        std::string full = dir + "/" + name;
        struct stat st;
        if (stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(full.c_str(), X_OK) == 0) return full;
        at = colon + 1;
    }
    return "";
}

ChildProcess::ChildProcess(LineHandler on_line, std::string cid)
    : on_line_(std::move(on_line)), reader_("child-output", this, std::move(cid)) {}

ChildProcess::~ChildProcess() {
    if (running()) kill_and_reap();
    reader_.stop();
    if (out_netfd_) st_netfd_close(static_cast<st_netfd_t>(out_netfd_));
}

Error ChildProcess::start(const ChildSpec& spec) {
    if (pid_ > 0) return SRS_ERR(kErrorThreadStart, "child process started twice");
    if (spec.argv.empty() || spec.argv[0].empty()) return SRS_ERR(kErrorConfigInvalid, "empty command");
    const char* path_env = getenv("PATH");
    std::string program = find_in_path(spec.argv[0], path_env ? path_env : "/usr/local/bin:/usr/bin:/bin");
    if (program.empty()) {
        return SRS_ERR(kErrorFileOpen, "cannot run %s: not found in PATH", spec.argv[0].c_str());
    }
    // Everything the child needs is built before the fork.
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (size_t i = 1; i < spec.argv.size(); i++) argv.push_back(const_cast<char*>(spec.argv[i].c_str()));
    argv.push_back(nullptr);
    long open_max = sysconf(_SC_OPEN_MAX);
    int max_fd = open_max > 0 && open_max < 65536 ? static_cast<int>(open_max) : 65536;

    int out[2], status[2];
    if (pipe2(out, O_CLOEXEC) < 0) return SRS_ERR(kErrorSystemIo, "pipe: %s", strerror(errno));
    if (pipe2(status, O_CLOEXEC) < 0) {
        int e = errno;
        close(out[0]);
        close(out[1]);
        return SRS_ERR(kErrorSystemIo, "pipe: %s", strerror(e));
    }
    pid_t server = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        run_child(argv.data(), spec.stdout_file.c_str(), spec.stderr_file.c_str(), out[1], status[1], server,
                  max_fd);
    }
    int fork_errno = errno;
    close(out[1]);
    close(status[1]);
    if (pid < 0) {
        close(out[0]);
        close(status[0]);
        return SRS_ERR(kErrorSystemIo, "fork %s: %s", program.c_str(), strerror(fork_errno));
    }
    pid_ = pid;
    setpgid(pid, pid);  // as the child does: whichever runs first, signals find the group

    // The status pipe closes at a successful exec, or carries the errno.
    int child_errno = 0;
    fcntl(status[0], F_SETFL, O_NONBLOCK);
    st_netfd_t status_nfd = st_netfd_open(status[0]);
    ssize_t n = -1;
    if (status_nfd) {
        n = st_read_fully(status_nfd, &child_errno, sizeof(child_errno), kExecStatusTimeoutUs);
        st_netfd_close(status_nfd);
    } else {
        close(status[0]);
    }
    if (n == static_cast<ssize_t>(sizeof(child_errno))) {
        close(out[0]);
        kill_and_reap();
        return SRS_ERR(kErrorFileOpen, "cannot run %s: %s", program.c_str(), strerror(child_errno));
    }

    fcntl(out[0], F_SETFL, O_NONBLOCK);
    st_netfd_t out_nfd = st_netfd_open(out[0]);
    if (!out_nfd) {
        close(out[0]);
        return Error();  // it runs; only its output is lost
    }
    out_netfd_ = out_nfd;
    if (Error err = reader_.start(); !err.ok()) return SRS_WRAP(err, "output reader of pid %d", (int)pid_);
    return Error();
}

bool ChildProcess::poll_exit(int* status) {
    if (pid_ <= 0) return false;
    if (!exited_) {
        int st = 0;
        pid_t r = waitpid(pid_, &st, WNOHANG);
        if (r == pid_ || (r < 0 && errno == ECHILD)) {
            exited_ = true;
            status_ = st;
        } else if (kill_at_us_ > 0 && !killed_ && monotonic_us() >= kill_at_us_) {
            srs_warn("pid %d did not quit on SIGTERM, SIGKILL", (int)pid_);
            signal_child(pid_, SIGKILL);
            killed_ = true;
        }
    }
    if (exited_ && status) *status = status_;
    return exited_;
}

void ChildProcess::terminate(utime_t grace_us) {
    if (!running() || kill_at_us_ > 0) return;
    signal_child(pid_, SIGTERM);
    kill_at_us_ = monotonic_us() + grace_us;
}

void ChildProcess::kill_and_reap() {
    if (!running()) return;
    signal_child(pid_, SIGKILL);
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    exited_ = true;
    status_ = st;
}

std::string ChildProcess::describe_status(int status) {
    if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "status " + std::to_string(status);
}

Error ChildProcess::cycle() {
    char buf[4096];
    for (;;) {
        Error stop = reader_.pull();
        if (stop.failed()) {
            stop.ignore();  // asked to end: not a failure
            break;
        }
        ssize_t n = st_read(static_cast<st_netfd_t>(out_netfd_), buf, sizeof(buf), ST_UTIME_NO_TIMEOUT);
        if (n <= 0) break;  // EOF: every writer (the child, its children) is gone
        emit(buf, static_cast<size_t>(n));
    }
    if (!partial_.empty()) on_line_(partial_);
    partial_.clear();
    return Error();
}

void ChildProcess::emit(const char* p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\n' || c == '\r') {
            if (!partial_.empty()) on_line_(partial_);
            partial_.clear();
            continue;
        }
        if (partial_.size() < kChildLineMax) partial_ += c;  // the rest of a long line is dropped
    }
}

}  // namespace srs
