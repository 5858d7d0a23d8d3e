#include "io/file_sender.hpp"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/openat2.h>
#include <sys/syscall.h>

#include <algorithm>

#include "io/blocking_worker.hpp"
#include "io/socket.hpp"
#include "st/st.h"

namespace srs {

namespace {

// One sendfile call at most this much, so a huge file checks the page cache
// piece by piece instead of once for all of it.
constexpr uint64_t kSendPiece = 1024 * 1024;

// Whether the byte at offset is in the page cache: a one-byte read that does
// not go to the disk (RWF_NOWAIT). File systems without RWF_NOWAIT are taken
// as cached (sendfile reads them inline, as a plain read would).
bool cached(int fd, uint64_t offset) {
    char c;
    struct iovec iov = {&c, 1};
    ssize_t n = preadv2(fd, &iov, 1, static_cast<off_t>(offset), RWF_NOWAIT);
    return n >= 0 || errno != EAGAIN;
}

// Brings a piece into the page cache on the worker's thread.
Error warm(BlockingWorker* worker, int fd, uint64_t offset, uint64_t size) {
    return worker->run([=] {
        // Only the cache is wanted: a failure shows in the sendfile that follows.
        ssize_t r = readahead(fd, static_cast<off64_t>(offset), static_cast<size_t>(size));
        (void)r;
    });
}

// Waits until the socket takes more bytes.
Error wait_writable(TcpConn* conn) {
    struct pollfd pd = {conn->fd(), POLLOUT, 0};
    utime_t timeout = conn->send_timeout();
    int n = st_poll(&pd, 1, timeout < 0 ? ST_UTIME_NO_TIMEOUT : static_cast<st_utime_t>(timeout));
    if (n == 0) return SRS_ERR(kErrorSocketTimeout, "sendfile: timed out");
    if (n < 0) {
        if (errno == EINTR) return SRS_ERR(kErrorThreadInterrupted, "sendfile: interrupted");
        return SRS_ERR(kErrorSocketWrite, "sendfile: poll: %s", strerror(errno));
    }
    // An error or hang-up shows in the next sendfile's errno.
    return Error();
}

}  // namespace

Error send_file_range(TcpConn* conn, int fd, uint64_t offset, uint64_t length, BlockingWorker* worker,
                      uint64_t* sent) {
    *sent = 0;
    uint64_t checked_until = offset;  // the piece below this was looked at in the page cache
    while (*sent < length) {
        uint64_t at = offset + *sent;
        uint64_t piece = std::min(length - *sent, kSendPiece);
        if (worker && at >= checked_until) {
            // The piece's last byte: pages leave the cache oldest first, and
            // a freshly written segment is cached whole.
            if (!cached(fd, at + piece - 1) || !cached(fd, at)) {
                if (Error err = warm(worker, fd, at, piece); !err.ok()) return SRS_WRAP(err, "sendfile: read ahead");
            }
            checked_until = at + piece;
        }
        off_t pos = static_cast<off_t>(at);
        ssize_t n = sendfile(conn->fd(), fd, &pos, static_cast<size_t>(piece));
        if (n > 0) {
            *sent += static_cast<uint64_t>(n);
            conn->count_sent(static_cast<uint64_t>(n));
            continue;
        }
        if (n == 0) {
            return SRS_ERR(kErrorFileRead, "sendfile: the file ended at %llu, %llu bytes before the range",
                           (unsigned long long)at, (unsigned long long)(length - *sent));
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (Error err = wait_writable(conn); !err.ok()) return err;
            continue;
        }
        if (errno == EPIPE || errno == ECONNRESET) {
            return SRS_ERR(kErrorSocketClosed, "sendfile: %s", strerror(errno));
        }
        return SRS_ERR(kErrorSocketWrite, "sendfile: %s", strerror(errno));
    }
    return Error();
}

int open_beneath(int dir_fd, const char* path) {
    struct open_how how;
    memset(&how, 0, sizeof(how));
    how.flags = O_RDONLY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    return static_cast<int>(syscall(SYS_openat2, dir_fd, path, &how, sizeof(how)));
}

int sealed_memory_file(const char* name, const void* data, size_t size) {
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    const char* p = static_cast<const char*>(data);
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, p + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int saved = errno;
            close(fd);
            errno = n == 0 ? EIO : saved;
            return -1;
        }
        done += static_cast<size_t>(n);
    }
    // Sealed: nothing may change the bytes while sockets hold their pages.
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

TcpCork::TcpCork(TcpConn* conn) : fd_(conn ? conn->fd() : -1) {
    int on = 1;
    if (fd_ >= 0) setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
}

TcpCork::~TcpCork() {
    int off = 0;
    if (fd_ >= 0) setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &off, sizeof(off));
}

}  // namespace srs
