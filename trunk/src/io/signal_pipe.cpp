#include "io/signal_pipe.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "st/st.h"

namespace srs {

namespace {
// The write end, for the async-signal-safe handler. One pipe per process.
volatile sig_atomic_t g_signal_write_fd = -1;

void on_signal(int signo) {
    int saved = errno;
    if (g_signal_write_fd >= 0) {
        unsigned char b = static_cast<unsigned char>(signo);
        ssize_t r = ::write(g_signal_write_fd, &b, 1);
        (void)r;
    }
    errno = saved;
}
}  // namespace

SignalPipe::~SignalPipe() {
    if (g_signal_write_fd == fds_[1]) g_signal_write_fd = -1;
    if (read_netfd_) st_netfd_close(static_cast<st_netfd_t>(read_netfd_));
    if (fds_[1] >= 0) ::close(fds_[1]);
}

Error SignalPipe::open(std::initializer_list<int> signals) {
    if (pipe2(fds_, O_CLOEXEC | O_NONBLOCK) < 0) return SRS_ERR(kErrorSignal, "pipe: %s", strerror(errno));
    st_netfd_t nfd = st_netfd_open(fds_[0]);
    if (!nfd) return SRS_ERR(kErrorSignal, "open signal netfd: %s", strerror(errno));
    read_netfd_ = nfd;
    g_signal_write_fd = fds_[1];
    for (int signo : signals) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(signo, &sa, nullptr) < 0) return SRS_ERR(kErrorSignal, "sigaction %d: %s", signo, strerror(errno));
    }
    // A closed peer must not kill the server.
    signal(SIGPIPE, SIG_IGN);
    return Error();
}

Error SignalPipe::wait(int* signo, int64_t timeout_us) {
    *signo = 0;
    unsigned char b = 0;
    st_utime_t t = timeout_us < 0 ? ST_UTIME_NO_TIMEOUT : static_cast<st_utime_t>(timeout_us);
    ssize_t n = st_read(static_cast<st_netfd_t>(read_netfd_), &b, 1, t);
    if (n == 1) {
        *signo = b;
        return Error();
    }
    if (n < 0 && errno == ETIME) return Error();
    if (n < 0 && errno == EINTR) return SRS_ERR(kErrorThreadInterrupted, "signal wait interrupted");
    return SRS_ERR(kErrorSignal, "read signal pipe: %s", n == 0 ? "closed" : strerror(errno));
}

}  // namespace srs
