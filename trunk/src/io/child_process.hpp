// A child process (FFmpeg, an exec command) run beside the server without
// ever blocking it.
//
// start() forks and execs argv. The child, before exec: asks the kernel for
// SIGKILL when the server dies (PR_SET_PDEATHSIG) and quits at once if the
// server is already gone, resets the signal mask and every handler, takes
// /dev/null as stdin and a pipe (or the files the command redirects to) as
// stdout and stderr, and marks every other descriptor close-on-exec. An exec
// that fails (ENOENT, EACCES...) writes its errno into a close-on-exec status
// pipe, so start() returns that error instead of a process that exits at once.
//
// A coroutine reads the output pipe and hands each line (at most
// kChildLineMax bytes, longer ones are cut; \r ends a line too, for FFmpeg's
// progress) to the line handler, with the owner's log context.
//
// Exit detection is polled: poll_exit() is waitpid(WNOHANG) on this pid only.
// terminate() sends SIGTERM; poll_exit() after the grace sends SIGKILL (both
// to the child's own process group, so a script's children go with it);
// the destructor kills and reaps whatever still runs, so no zombie is left.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "io/coroutine.hpp"

namespace srs {

constexpr size_t kChildLineMax = 512;

struct ChildSpec {
    std::vector<std::string> argv;  // argv[0] is the program: a path, or a name looked up in PATH
    std::string stdout_file;        // "": the pipe; else truncated and written
    std::string stderr_file;
};

// What a command line written in a conf means: `prog a b > out.log 2>err.log`
// -> argv {prog, a, b}, stdout_file, stderr_file. Redirections are `>F`,
// `1>F`, `2>F` and the same with the file as the next word. Pure.
ChildSpec parse_command_redirections(const std::vector<std::string>& words);

// Looks `name` up in `path_env` (":"-separated) for an executable regular
// file; a name with a "/" is returned as it is. "" when none is found.
std::string find_in_path(const std::string& name, const std::string& path_env);

class ChildProcess : public CoroutineHandler {
  public:
    using LineHandler = std::function<void(const std::string& line)>;

    // cid: the log context of the output reader ("" makes a new one).
    ChildProcess(LineHandler on_line, std::string cid);
    ~ChildProcess() override;  // SIGKILL and reap if still running
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // Forks and execs. Fails with the exec's errno when the program cannot
    // be run. Call once per object.
    Error start(const ChildSpec& spec);
    pid_t pid() const { return pid_; }
    bool running() const { return pid_ > 0 && !exited_; }

    // Whether it exited (reaped now or before); *status as waitpid gives it.
    // After terminate(), sends SIGKILL once the grace is over.
    bool poll_exit(int* status = nullptr);
    // Asks it to quit: SIGTERM now, SIGKILL at the first poll_exit() after
    // grace_us.
    void terminate(utime_t grace_us);
    bool terminating() const { return kill_at_us_ > 0; }
    // SIGKILL and a blocking reap (a killed process goes at once).
    void kill_and_reap();
    // "exit code 1", "killed by signal 9".
    static std::string describe_status(int status);

  private:
    Error cycle() override;  // reads the output pipe
    void emit(const char* p, size_t n);

    LineHandler on_line_;
    pid_t pid_ = -1;
    bool exited_ = false;
    int status_ = 0;
    utime_t kill_at_us_ = 0;
    bool killed_ = false;
    void* out_netfd_ = nullptr;  // st_netfd_t of the pipe's read end
    std::string partial_;
    Coroutine reader_;
};

}  // namespace srs
