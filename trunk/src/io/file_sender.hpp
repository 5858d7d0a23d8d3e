// A file range to a connection with sendfile(2): the bytes go from the page
// cache to the socket without a copy through user space. The socket is
// non-blocking (the runtime's), so the loop sends until EAGAIN and then
// waits for it to be writable through the runtime, with the connection's
// send timeout; other coroutines run meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"

namespace srs {

class BlockingWorker;
class TcpConn;

// Sends `length` bytes of file `fd` from `offset` to `conn`; *sent counts the
// file bytes that went out (also on failure). A range not in the page cache
// is read into it first on the worker's thread (worker null: by sendfile
// itself, which then blocks this thread), so a cold disk does not stall the
// other coroutines. A file that ends before the range does (it shrank while
// being sent) is kErrorFileRead: the promised length cannot be kept, so the
// caller must close the connection.
Error send_file_range(TcpConn* conn, int fd, uint64_t offset, uint64_t length, BlockingWorker* worker,
                      uint64_t* sent);

// Opens `path` (relative) for reading under the folder `dir_fd` with
// openat2(RESOLVE_BENEATH): the kernel refuses ("..", absolute paths or
// symlinks) anything that would leave the folder, in one system call where
// realpath needs one readlink per path component. -1 with errno (EXDEV: it
// would leave; ENOSYS: a kernel before 5.6, use realpath).
int open_beneath(int dir_fd, const char* path);

// A sealed in-memory file (memfd) holding `size` bytes, so bytes the
// server keeps in memory can go out with send_file_range like a file: the
// kernel hands the socket references to its pages instead of copying them
// for every client. Returns the fd (the caller closes it) or -1 with errno.
int sealed_memory_file(const char* name, const void* data, size_t size);

// TCP_CORK around a head written apart from its body: the head waits for the
// file's bytes and goes out with them instead of alone (where Nagle and the
// peer's delayed ACK would hold the body's tail back ~40 ms). Uncorked when
// this goes out of scope, which pushes what is queued.
class TcpCork {
  public:
    explicit TcpCork(TcpConn* conn);
    ~TcpCork();
    TcpCork(const TcpCork&) = delete;
    TcpCork& operator=(const TcpCork&) = delete;

  private:
    int fd_;
};

}  // namespace srs
