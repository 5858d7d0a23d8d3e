// Static file reads: the page cache inline, cold data on the worker thread.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "app/http_static.hpp"
#include "io/blocking_worker.hpp"
#include "io/runtime.hpp"

using namespace srs;

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
    ASSERT_EQ(read_file_piece(&worker, fd, buf.data(), buf.size(), 4096, &blocked), (ssize_t)buf.size());
    EXPECT_FALSE(blocked);  // just written: in the page cache
    EXPECT_EQ(0, memcmp(buf.data(), data.data() + 4096, buf.size()));

    ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    ssize_t n = read_file_piece(&worker, fd, buf.data(), buf.size(), 512 * 1024, &blocked);
    ASSERT_GT(n, 0);
    EXPECT_EQ(0, memcmp(buf.data(), data.data() + 512 * 1024, static_cast<size_t>(n)));
    if (!blocked) {
        close(fd);
        unlink(path);
        GTEST_SKIP() << "this file system kept the pages cached after POSIX_FADV_DONTNEED";
    }
    EXPECT_EQ(worker.jobs_done(), 1u);
    // Without a worker the same cold read happens inline.
    ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    ASSERT_GT(read_file_piece(nullptr, fd, buf.data(), buf.size(), 0, &blocked), 0);
    EXPECT_FALSE(blocked);
    // Past the end: 0, as pread.
    EXPECT_EQ(read_file_piece(&worker, fd, buf.data(), buf.size(), 2 << 20, &blocked), 0);
    close(fd);
    unlink(path);
}
