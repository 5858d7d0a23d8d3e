#include "app/http/http_static.hpp"

#include <fcntl.h>

#include <algorithm>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "app/http/hls_ctx.hpp"
#include "app/http/http_hls_memory.hpp"
#include "core/log.hpp"
#include "io/blocking_worker.hpp"
#include "io/file_sender.hpp"

namespace srs {

namespace {
// Closes the file when the answer is done, whichever way it ends.
struct FileCloser {
    explicit FileCloser(int fd) : fd(fd) {}
    ~FileCloser() { close(fd); }
    int fd;
};
}  // namespace

HttpStaticHandler::HttpStaticHandler(std::string root, BlockingWorker* worker, LiveContext* live,
                                     HlsMemoryStore* store)
    : root_(std::move(root)), worker_(worker), hls_(live ? new HlsCtxService(live, worker) : nullptr),
      memory_(store ? new HlsMemoryServer(store, root_) : nullptr) {}

HttpStaticHandler::~HttpStaticHandler() {
    if (root_fd_ >= 0) close(root_fd_);
}

Error HttpStaticHandler::start() { return hls_ ? hls_->start() : Error(); }

void HttpStaticHandler::stop() {
    if (hls_) hls_->stop();
}

size_t HttpStaticHandler::hls_sessions() const { return hls_ ? hls_->listed_sessions() : 0; }

static bool ends_with(const std::string& s, const char* suffix) {
    size_t n = strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

ssize_t read_file_piece(BlockingWorker* worker, int fd, char* buf, size_t size, off_t offset, bool* blocked) {
    *blocked = false;
    struct iovec iov = {buf, size};
    ssize_t n = preadv2(fd, &iov, 1, offset, RWF_NOWAIT);
    // EAGAIN: not (all) cached; EOPNOTSUPP: a file system without RWF_NOWAIT.
    bool would_block = n < 0 && (errno == EAGAIN || errno == EOPNOTSUPP);
    if (!would_block) return n;
    if (!worker) return pread(fd, buf, size, offset);
    *blocked = true;
    int saved = 0;
    Error err = worker->run([&] {
        n = pread(fd, buf, size, offset);
        saved = errno;
    });
    if (!err.ok()) {
        err.ignore();
        errno = EIO;
        return -1;
    }
    errno = saved;
    return n;
}

bool HttpStaticHandler::match(const HttpRequest& req) const { return req.method == "GET" || req.method == "HEAD"; }

// One realpath per request: the root's own is resolved once and kept (a
// root that does not exist yet is looked up again on the next request).
bool HttpStaticHandler::resolve(const std::string& path, std::string* out) {
    if (real_root_.empty()) {
        char real_root[PATH_MAX];
        if (!realpath(root_.c_str(), real_root)) return false;
        real_root_ = real_root;
    }
    char real_file[PATH_MAX];
    std::string joined = real_root_ + path;
    if (!realpath(joined.c_str(), real_file)) return false;
    const std::string& r = real_root_;
    size_t n = strlen(real_file);
    // The resolved file (symlinks followed) must still be inside the root.
    bool inside = (n == r.size() && r.compare(0, n, real_file) == 0) ||
                  (n > r.size() && real_file[r.size()] == '/' && r.compare(0, r.size(), real_file, r.size()) == 0);
    if (!inside) return false;
    out->assign(real_file, n);
    return true;
}

// Checks what `fd` opened: a regular file is returned; a folder is closed
// and its index.html opened with `open_index` (a 301 to the slashed URL
// first when the URL has no trailing slash); anything else is closed. -1
// with *status the answer when there is no file to send.
template <typename OpenIndex>
static int settle_opened(int fd, const std::string& url_path, struct stat* st, int* status, std::string* location,
                         OpenIndex open_index) {
    if (fstat(fd, st) < 0) {
        close(fd);
        *status = 403;
        return -1;
    }
    if (S_ISDIR(st->st_mode)) {
        close(fd);
        if (url_path.empty() || url_path.back() != '/') {
            *location = url_path + "/";
            *status = 301;
            return -1;
        }
        fd = open_index();
        if (fd < 0 || fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
            if (fd >= 0) close(fd);
            *status = 404;
            return -1;
        }
        return fd;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        *status = 403;
        return -1;
    }
    return fd;
}

// Opens a regular file by its resolved path (a folder: its index.html).
static int open_regular(std::string* file, const std::string& url_path, struct stat* st, int* status,
                        std::string* location) {
    int fd = open(file->c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *status = errno == ENOENT || errno == ENOTDIR ? 404 : 403;
        return -1;
    }
    return settle_opened(fd, url_path, st, status, location, [file] {
        *file += "/index.html";
        return open(file->c_str(), O_RDONLY | O_CLOEXEC);
    });
}

int HttpStaticHandler::open_file(const std::string& url_path, std::string* file, struct stat* st, int* status,
                                 std::string* location) {
    if (beneath_ok_ && root_fd_ < 0) root_fd_ = open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (!beneath_ok_ || root_fd_ < 0) {
        // No openat2, or no root yet: realpath, then the file.
        *status = 404;
        if (!resolve(url_path, file)) return -1;
        return open_regular(file, url_path, st, status, location);
    }
    std::string rel = url_path.size() > 1 ? url_path.substr(1) : std::string(".");
    *file = root_ + url_path;
    int fd = open_beneath(root_fd_, rel.c_str());
    if (fd < 0 && errno == ENOSYS) {
        beneath_ok_ = false;
        return open_file(url_path, file, st, status, location);
    }
    if (fd < 0) {
        // EXDEV/ELOOP: a symlink or path that would leave the root, as missing.
        *status = errno == EACCES || errno == EPERM ? 403 : 404;
        return -1;
    }
    return settle_opened(fd, url_path, st, status, location, [this, &rel, file] {
        rel += "/index.html";
        *file += "index.html";
        return open_beneath(root_fd_, rel.c_str());
    });
}

Error HttpStaticHandler::serve(const HttpRequest& req, HttpResponse* res) {
    if (memory_) {
        bool served = false;
        Error err = memory_->serve(req, res, hls_.get(), &served);
        if (served) return err;
    }
    std::string file;
    bool playlist = ends_with(req.path, ".m3u8");
    if (playlist) {
        res->head().set("Cache-Control", "no-cache");
        if (hls_) {
            // hls_ctx sessions need the playlist's real path.
            bool served = false;
            struct stat pst;
            bool regular = resolve(req.path, &file) && stat(file.c_str(), &pst) == 0 && S_ISREG(pst.st_mode);
            Error err = hls_->serve_playlist(req, res, regular ? file : std::string(), &served);
            if (served) return err;
        }
    }
    struct stat st;
    int status = 0;
    std::string location;
    int fd = open_file(req.path, &file, &st, &status, &location);
    if (fd < 0) {
        if (status == 301) {
            res->head().set("Location", location);
            return res->send(301, "text/plain", "");
        }
        return res->send_error(status);
    }
    FileCloser closer(fd);

    uint64_t size = static_cast<uint64_t>(st.st_size);
    uint64_t start = 0, end = size ? size - 1 : 0;
    status = 200;
    if (const std::string* range = req.header("Range")) {
        if (!parse_http_range(*range, size, &start, &end)) {
            res->head().set("Content-Range", "bytes */" + std::to_string(size));
            return res->send_error(416);
        }
        status = 206;
        res->head().set("Content-Range",
                        "bytes " + std::to_string(start) + "-" + std::to_string(end) + "/" + std::to_string(size));
    }
    uint64_t length = size ? end - start + 1 : 0;
    res->head().set("Accept-Ranges", "bytes");
    if (req.method == "HEAD" || length == 0 || !res->socket()) {
        return res->send_head(status, http_mime_type(file), static_cast<int64_t>(length));
    }
    // The head is corked until the body's bytes join it: alone, it meets
    // Nagle and the peer's delayed ACK, which holds the body back ~40 ms on
    // a keep-alive connection (every playlist and segment a player fetches
    // again). The body goes from the page cache with sendfile.
    uint64_t sent = 0;
    Error err;
    {
        TcpCork cork(res->socket());
        err = res->send_head(status, http_mime_type(file), static_cast<int64_t>(length));
        if (err.ok()) err = send_file_range(res->socket(), fd, start, length, worker_, &sent);
    }
    if (!err.ok() && err.code() == kErrorFileRead) {
        // The head promised a length the file no longer has: the connection
        // closes (the caller drops it on the error), the log says why.
        srs_warn("HTTP %s: %s", req.path.c_str(), err.summary().c_str());
    }
    // A segment of an HLS session: its bytes are the session's.
    if (hls_ && !playlist && sent > 0) hls_->on_file_sent(req, sent);
    return err;
}

}  // namespace srs
