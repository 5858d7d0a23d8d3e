// The child-process supervisor: command redirections and PATH lookup (pure),
// then real children: output lines, exit status, exec failures reported by
// the status pipe, SIGTERM then SIGKILL, no zombie.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/child_process.hpp"
#include "io/runtime.hpp"

using namespace srs;

namespace {

class ChildProcessTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(init_runtime().ok()); }
};

// Whether pid runs (a zombie waiting for its reaper does not count).
bool pid_alive(pid_t pid) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE* f = fopen(path, "r");
    if (!f) return false;
    char buf[512] = {0};
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    const char* close_paren = strrchr(buf, ')');
    return n > 0 && close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z';
}

// Polls until the child exits or ~5 s pass.
bool wait_exit(ChildProcess* c, int* status) {
    for (int i = 0; i < 500; i++) {
        if (c->poll_exit(status)) return true;
        EXPECT_TRUE(sleep_us(10 * kUsPerMs).ok());
    }
    return false;
}

}  // namespace

TEST(ChildCommand, Redirections) {
    ChildSpec s = parse_command_redirections({"./a.sh", "x", ">out.log", "2>err.log"});
    EXPECT_EQ((std::vector<std::string>{"./a.sh", "x"}), s.argv);
    EXPECT_EQ("out.log", s.stdout_file);
    EXPECT_EQ("err.log", s.stderr_file);
    s = parse_command_redirections({"p", "1", ">", "o", "2", ">e", "y"});
    EXPECT_EQ((std::vector<std::string>{"p", "y"}), s.argv);
    EXPECT_EQ("o", s.stdout_file);
    EXPECT_EQ("e", s.stderr_file);
    s = parse_command_redirections({"p", "1>o", ">"});  // a dangling ">" names nothing
    EXPECT_EQ((std::vector<std::string>{"p"}), s.argv);
    EXPECT_EQ("", s.stdout_file);
    EXPECT_TRUE(parse_command_redirections({}).argv.empty());
}

TEST(ChildCommand, FindInPath) {
    EXPECT_EQ("/bin/sh", find_in_path("/bin/sh", ""));
    EXPECT_EQ("./x", find_in_path("./x", "/bin"));
    std::string sh = find_in_path("sh", "/nonexistent:/bin:/usr/bin");
    EXPECT_FALSE(sh.empty());
    EXPECT_EQ("", find_in_path("no-such-program-here", "/bin:/usr/bin"));
    EXPECT_EQ("", find_in_path("", "/bin"));
}

TEST_F(ChildProcessTest, LinesAndExitStatus) {
    std::vector<std::string> lines;
    ChildProcess c([&](const std::string& l) { lines.push_back(l); }, "");
    ChildSpec spec;
    spec.argv = {"sh", "-c", "echo one; echo two 1>&2; printf 'three\\rfour'; exit 3"};
    ASSERT_TRUE(c.start(spec).ok());
    EXPECT_GT(c.pid(), 0);
    int status = 0;
    ASSERT_TRUE(wait_exit(&c, &status));
    EXPECT_EQ("exit code 3", ChildProcess::describe_status(status));
    // The reader ends at EOF; give it a turn.
    for (int i = 0; i < 100 && lines.size() < 4; i++) ASSERT_TRUE(sleep_us(5 * kUsPerMs).ok());
    EXPECT_EQ((std::vector<std::string>{"one", "two", "three", "four"}), lines);
}

TEST_F(ChildProcessTest, LongLinesAreCut) {
    std::vector<std::string> lines;
    ChildProcess c([&](const std::string& l) { lines.push_back(l); }, "");
    ChildSpec spec;
    spec.argv = {"sh", "-c", "head -c 5000 /dev/zero | tr '\\0' a; echo; echo end"};
    ASSERT_TRUE(c.start(spec).ok());
    ASSERT_TRUE(wait_exit(&c, nullptr));
    for (int i = 0; i < 100 && lines.size() < 2; i++) ASSERT_TRUE(sleep_us(5 * kUsPerMs).ok());
    ASSERT_EQ(2u, lines.size());
    EXPECT_EQ(kChildLineMax, lines[0].size());
    EXPECT_EQ("end", lines[1]);
}

TEST_F(ChildProcessTest, ExecFailuresAreErrors) {
    ChildProcess missing([](const std::string&) {}, "");
    ChildSpec spec;
    spec.argv = {"/nonexistent/ffmpeg", "-i", "x"};
    Error err = missing.start(spec);
    ASSERT_TRUE(err.failed());
    EXPECT_NE(std::string::npos, err.summary().find("No such file")) << err.summary();
    err.ignore();
    EXPECT_FALSE(missing.running());

    // A file that exists but is not executable: EACCES from exec.
    char path[] = "/tmp/srs-utest-noexec-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    ChildProcess noexec([](const std::string&) {}, "");
    spec.argv = {path};
    err = noexec.start(spec);
    unlink(path);
    ASSERT_TRUE(err.failed());
    EXPECT_NE(std::string::npos, err.summary().find("Permission denied")) << err.summary();
    err.ignore();

    ChildProcess empty([](const std::string&) {}, "");
    spec.argv = {};
    err = empty.start(spec);
    EXPECT_TRUE(err.failed());
    err.ignore();
}

TEST_F(ChildProcessTest, TerminateThenKillAfterGrace) {
    // Ignores SIGTERM: only the SIGKILL after the grace ends it.
    ChildProcess c([](const std::string&) {}, "");
    ChildSpec spec;
    spec.argv = {"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"};
    ASSERT_TRUE(c.start(spec).ok());
    ASSERT_TRUE(sleep_us(100 * kUsPerMs).ok());
    pid_t pid = c.pid();
    utime_t t0 = monotonic_us();
    c.terminate(200 * kUsPerMs);
    EXPECT_TRUE(c.terminating());
    int status = 0;
    ASSERT_TRUE(wait_exit(&c, &status));
    EXPECT_GE(monotonic_us() - t0, 200 * kUsPerMs);
    EXPECT_EQ("killed by signal 9", ChildProcess::describe_status(status));
    // Reaped: the pid is no child of ours any more.
    EXPECT_EQ(-1, waitpid(pid, nullptr, WNOHANG));
}

TEST_F(ChildProcessTest, DestructorKillsAndReaps) {
    pid_t pid = -1;
    {
        ChildProcess c([](const std::string&) {}, "");
        ChildSpec spec;
        spec.argv = {"sleep", "30"};
        ASSERT_TRUE(c.start(spec).ok());
        pid = c.pid();
        EXPECT_EQ(0, kill(pid, 0));
    }
    EXPECT_EQ(-1, waitpid(pid, nullptr, WNOHANG));
    EXPECT_NE(0, kill(pid, 0));
}

TEST_F(ChildProcessTest, RedirectsToFilesAndClosesOurDescriptors) {
    char dir[] = "/tmp/srs-utest-child-XXXXXX";
    ASSERT_NE(nullptr, mkdtemp(dir));
    std::string out = std::string(dir) + "/out";
    ChildProcess c([](const std::string&) {}, "");
    ChildSpec spec;
    // Lists the child's descriptors: only 0, 1, 2 (and ls's own) survive the exec.
    spec.argv = {"sh", "-c", "ls /proc/self/fd | wc -l"};
    spec.stdout_file = out;
    ASSERT_TRUE(c.start(spec).ok());
    ASSERT_TRUE(wait_exit(&c, nullptr));
    FILE* f = fopen(out.c_str(), "r");
    ASSERT_NE(nullptr, f);
    int n = 0;
    EXPECT_EQ(1, fscanf(f, "%d", &n));
    fclose(f);
    unlink(out.c_str());
    rmdir(dir);
    EXPECT_LE(n, 4);  // 0, 1, 2 and the directory ls reads
}

TEST_F(ChildProcessTest, StopTakesTheChildsOwnChildren) {
    // A script that starts a child of its own: stopping the script stops it too.
    std::vector<std::string> lines;
    ChildProcess c([&](const std::string& l) { lines.push_back(l); }, "");
    ChildSpec spec;
    spec.argv = {"sh", "-c", "sleep 30 & echo $!; wait"};
    ASSERT_TRUE(c.start(spec).ok());
    for (int i = 0; i < 200 && lines.empty(); i++) ASSERT_TRUE(sleep_us(5 * kUsPerMs).ok());
    ASSERT_EQ(1u, lines.size());
    pid_t grandchild = atoi(lines[0].c_str());
    ASSERT_GT(grandchild, 0);
    EXPECT_TRUE(pid_alive(grandchild));
    c.terminate(2 * kUsPerSecond);
    ASSERT_TRUE(wait_exit(&c, nullptr));
    for (int i = 0; i < 200 && pid_alive(grandchild); i++) ASSERT_TRUE(sleep_us(10 * kUsPerMs).ok());
    EXPECT_FALSE(pid_alive(grandchild));
}
