// Static files under http_server.dir: MIME types, index.html for
// directories, single Range requests. No path leaves the root: the parser
// already refuses ".." that would climb out, and symlinks are resolved and
// checked against the root here (one realpath per request). File data goes
// from the page cache to the socket with sendfile (io/file_sender.hpp); a
// piece not cached is read ahead by the blocking worker's thread first, so a
// cold disk does not stall the other clients.
#pragma once

#include <memory>
#include <string>

#include <sys/stat.h>

#include "app/http/http_conn.hpp"

namespace srs {

class BlockingWorker;
class HlsCtxService;
class HlsMemoryServer;
class HlsMemoryStore;
class LiveContext;

// HLS files: playlists are never cached (Cache-Control: no-cache) since a
// live playlist changes every segment; with a LiveContext, playlists of a
// vhost with hls_ctx on go through the HLS player sessions (hls_ctx.hpp).
class HttpStaticHandler : public HttpHandler {
  public:
    // worker: where reads that would block go (nullptr: read inline).
    // live: for hls_ctx (nullptr: plain files only); outlives the handler.
    // store: HLS files held in memory, answered first (null: disk only).
    HttpStaticHandler(std::string root, BlockingWorker* worker, LiveContext* live = nullptr,
                      HlsMemoryStore* store = nullptr);
    ~HttpStaticHandler() override;
    // The hls_ctx sweeper; stop() ends it and unregisters the sessions
    // (before the clients registry goes).
    Error start();
    void stop();
    // HLS sessions listed as clients (max_connections leaves them out).
    size_t hls_sessions() const;
    bool match(const HttpRequest& req) const override;
    Error serve(const HttpRequest& req, HttpResponse* res) override;

  private:
    // path under the root, symlinks resolved; false when missing or outside.
    bool resolve(const std::string& path, std::string* out);
    // The file to send for a URL path, opened beneath the root (a folder:
    // its index.html); -1 with *status the answer (404, 403, 301 with
    // *location) when there is none. *file: its path, for the MIME type and logs.
    int open_file(const std::string& url_path, std::string* file, struct stat* st, int* status,
                  std::string* location);
    std::string root_;
    std::string real_root_;  // root_ resolved once (empty until it exists)
    int root_fd_ = -1;       // the root folder (O_PATH), for open_beneath; -1 until it exists
    bool beneath_ok_ = true;  // false: the kernel has no openat2, realpath it is
    BlockingWorker* worker_;
    std::unique_ptr<HlsCtxService> hls_;
    std::unique_ptr<HlsMemoryServer> memory_;
};

// One read of a file piece at offset: from the page cache inline when it is
// there, otherwise on the worker's thread. Returns what pread would (-1 with
// errno on error); *blocked says whether the worker was needed.
ssize_t read_file_piece(BlockingWorker* worker, int fd, char* buf, size_t size, off_t offset, bool* blocked);

}  // namespace srs
