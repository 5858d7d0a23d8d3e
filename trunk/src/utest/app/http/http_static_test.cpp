// Static file reads: the page cache inline, reads that would block on the
// worker thread.
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "app/http/http_static.hpp"
#include "io/blocking_worker.hpp"
#include "io/runtime.hpp"

using namespace srs;

namespace {

// Drops the file's pages from the page cache; true once mincore() says the
// page at offset is gone (a busy machine may need a few tries). mincore, not
// a probing read: even a RWF_NOWAIT read may start readahead.
bool evict(int fd, off_t offset, size_t file_size) {
    void* map = mmap(nullptr, file_size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) return false;
    long page = sysconf(_SC_PAGESIZE);
    std::vector<unsigned char> resident((file_size + page - 1) / page);
    bool gone = false;
    for (int i = 0; i < 20 && !gone; i++) {
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        gone = mincore(map, file_size, resident.data()) == 0 && !(resident[offset / page] & 1);
        if (!gone) usleep(10 * 1000);
    }
    munmap(map, file_size);
    return gone;
}

}  // namespace

TEST(AppHttpStatic, CachedPiecesInlineColdOnesOnTheWorker) {
    ASSERT_TRUE(init_runtime().ok());
    BlockingWorker worker;
    ASSERT_TRUE(worker.start().ok());
    // On disk (not tmpfs, whose pages are always "cached"): the build dir.
    char path[] = "./blocking_read_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    std::vector<char> data(1 << 20);
    for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<char>(i * 7 + 3);
    ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
    ASSERT_EQ(fsync(fd), 0);

    std::vector<char> buf(64 * 1024);
    bool blocked = true;
    ssize_t n = 0;
    ASSERT_EQ(read_file_piece(&worker, fd, buf.data(), buf.size(), 4096, &blocked), (ssize_t)buf.size());
    EXPECT_FALSE(blocked);  // just written: in the page cache
    EXPECT_EQ(0, memcmp(buf.data(), data.data() + 4096, buf.size()));

    // A file system without RWF_NOWAIT (procfs answers EOPNOTSUPP): always
    // the worker, deterministically.
    int proc = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(proc, 0);
    n = read_file_piece(&worker, proc, buf.data(), buf.size(), 0, &blocked);
    ASSERT_GT(n, 5);
    EXPECT_TRUE(blocked);
    EXPECT_EQ(std::string(buf.data(), 5), "Name:");
    EXPECT_EQ(worker.jobs_done(), 1u);
    // Without a worker the same read happens inline.
    n = read_file_piece(nullptr, proc, buf.data(), buf.size(), 0, &blocked);
    ASSERT_GT(n, 5);
    EXPECT_FALSE(blocked);
    close(proc);
    // Pages dropped from the cache: the data is right whichever way it came
    // (RWF_NOWAIT starts readahead, which a fast disk may finish before the
    // read looks, so the path itself is not asserted here).
    if (evict(fd, 512 * 1024, data.size())) {
        n = read_file_piece(&worker, fd, buf.data(), buf.size(), 512 * 1024, &blocked);
        ASSERT_GT(n, 0);
        EXPECT_EQ(0, memcmp(buf.data(), data.data() + 512 * 1024, static_cast<size_t>(n)));
    }
    // Past the end: 0, as pread.
    EXPECT_EQ(read_file_piece(&worker, fd, buf.data(), buf.size(), 2 << 20, &blocked), 0);
    close(fd);
    unlink(path);
}
