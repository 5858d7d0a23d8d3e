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

namespace srs {

// Files are read in pieces of this size; larger files stream piece by piece.
static const size_t kReadPiece = 64 * 1024;

HttpStaticHandler::HttpStaticHandler(std::string root, BlockingWorker* worker, LiveContext* live,
                                     HlsMemoryStore* store)
    : root_(std::move(root)), worker_(worker), hls_(live ? new HlsCtxService(live, worker) : nullptr),
      memory_(store ? new HlsMemoryServer(store, root_) : nullptr) {}

HttpStaticHandler::~HttpStaticHandler() = default;

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

static bool resolve_under(const std::string& root, const std::string& path, std::string* out) {
    char real_root[PATH_MAX], real_file[PATH_MAX];
    if (!realpath(root.c_str(), real_root)) return false;
    std::string joined = std::string(real_root) + path;
    if (!realpath(joined.c_str(), real_file)) return false;
    std::string r(real_root), f(real_file);
    // The resolved file (symlinks followed) must still be inside the root.
    if (f != r && f.compare(0, r.size() + 1, r + "/") != 0) return false;
    *out = f;
    return true;
}

Error HttpStaticHandler::serve(const HttpRequest& req, HttpResponse* res) {
    if (memory_) {
        bool served = false;
        Error err = memory_->serve(req, res, hls_.get(), &served);
        if (served) return err;
    }
    std::string file;
    bool found = resolve_under(root_, req.path, &file);
    struct stat st;
    if (found && stat(file.c_str(), &st) < 0) found = false;
    bool playlist = ends_with(req.path, ".m3u8");
    if (playlist) {
        res->head().set("Cache-Control", "no-cache");
        if (hls_) {
            bool served = false;
            bool regular = found && S_ISREG(st.st_mode);
            Error err = hls_->serve_playlist(req, res, regular ? file : std::string(), &served);
            if (served) return err;
        }
    }
    if (!found) return res->send_error(404);
    if (S_ISDIR(st.st_mode)) {
        if (req.path.empty() || req.path.back() != '/') {
            res->head().set("Location", req.path + "/");
            return res->send(301, "text/plain", "");
        }
        file += "/index.html";
        if (stat(file.c_str(), &st) < 0 || !S_ISREG(st.st_mode)) return res->send_error(404);
    }
    if (!S_ISREG(st.st_mode)) return res->send_error(403);
    int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return res->send_error(403);

    uint64_t size = static_cast<uint64_t>(st.st_size);
    uint64_t start = 0, end = size ? size - 1 : 0;
    int status = 200;
    if (const std::string* range = req.header("Range")) {
        if (!parse_http_range(*range, size, &start, &end)) {
            close(fd);
            res->head().set("Content-Range", "bytes */" + std::to_string(size));
            return res->send_error(416);
        }
        status = 206;
        res->head().set("Content-Range",
                        "bytes " + std::to_string(start) + "-" + std::to_string(end) + "/" + std::to_string(size));
    }
    uint64_t length = size ? end - start + 1 : 0;
    uint64_t sent = 0;
    res->head().set("Accept-Ranges", "bytes");
    // The head goes out with the body's first piece in one write: alone, it
    // meets Nagle and the peer's delayed ACK, which holds the body back
    // ~40 ms on a keep-alive connection (every playlist and segment a
    // player fetches again).
    Error err;
    std::string piece(std::min<uint64_t>(kReadPiece, std::max<uint64_t>(length, 1)), '\0');
    uint64_t left = req.method == "HEAD" ? 0 : length, offset = start;
    bool head_out = false;
    while (err.ok() && (left > 0 || !head_out)) {
        size_t n = 0;
        if (left > 0) {
            size_t want = left < piece.size() ? static_cast<size_t>(left) : piece.size();
            bool blocked = false;
            ssize_t got = read_file_piece(worker_, fd, &piece[0], want, static_cast<off_t>(offset), &blocked);
            if (got <= 0) {
                err = SRS_ERR(kErrorFileRead, "read %s at %llu", file.c_str(), (unsigned long long)offset);
                if (!head_out) {
                    // Nothing went out yet: the client gets a 500, the log the reason.
                    srs_warn("HTTP %s: %s", req.path.c_str(), err.summary().c_str());
                    err.ignore();
                    close(fd);
                    return res->send_error(500);
                }
                break;
            }
            n = static_cast<size_t>(got);
        }
        if (!head_out) {
            err = res->send_head(status, http_mime_type(file), static_cast<int64_t>(length), piece.data(), n);
            head_out = true;
        } else {
            err = res->socket()->write(piece.data(), n);
        }
        if (err.ok()) sent += n;
        left -= n;
        offset += n;
    }
    close(fd);
    // A segment of an HLS session: its bytes are the session's.
    if (hls_ && !playlist && sent > 0) hls_->on_file_sent(req, sent);
    return err;
}

}  // namespace srs
