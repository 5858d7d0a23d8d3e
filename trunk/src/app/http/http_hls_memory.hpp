// GETs of HLS files held in the memory store (hls_storage memory, LL-HLS),
// answered before the static files. A playlist request with _HLS_msn /
// _HLS_part (LL-HLS blocking reload) parks its connection's coroutine on
// the playlist's slot until the asked-for part or segment is listed; a GET
// of the part the playlist hints at (EXT-X-PRELOAD-HINT) waits for it too.
//
//   answer now         the part/segment is listed, or the request is not blocking
//                      (a plain request waits for the first complete segment)
//   400                _HLS_part without _HLS_msn, junk numbers, or too far ahead
//   wait               up to 3 x target duration, then the current playlist (200)
//   404                the playlist went (hls_dispose) while waiting
//   (connection closed) the player went away while parked
#pragma once

#include <map>
#include <memory>
#include <string>

#include "app/http/http_answer_cache.hpp"
#include "app/http/http_conn.hpp"
#include "app/live/hls_memory_store.hpp"

namespace srs {

class HlsCtxService;

class HlsMemoryServer {
  public:
    // store: not owned, outlives this; root: http_server.dir.
    HlsMemoryServer(HlsMemoryStore* store, std::string root) : store_(store), root_(std::move(root)) {}
    ~HlsMemoryServer();
    HlsMemoryServer(const HlsMemoryServer&) = delete;
    HlsMemoryServer& operator=(const HlsMemoryServer&) = delete;
    // *served false: not in memory, the caller goes on with the disk.
    // hls: the hls_ctx sessions (may be null).
    Error serve(const HttpRequest& req, HttpResponse* res, HlsCtxService* hls, bool* served);

  private:
    Error serve_playlist(const HttpRequest& req, HttpResponse* res, HlsCtxService* hls,
                         std::shared_ptr<HlsPlaylistSlot> slot, const std::string& path);
    Error serve_file(const HttpRequest& req, HttpResponse* res, HlsCtxService* hls, const HlsBlob& blob);
    // The blob's bytes as a sealed memory file, made at its first GET and
    // kept while the store keeps the blob: sendfile then hands every client
    // references to the same pages instead of copying the bytes per request.
    // -1: no file (small blobs, or the system refused; send the bytes).
    int file_of(const std::string& path, const HlsBlob& blob);
    void drop_expired_files();
    // A 200 of the body, its whole answer built once per body and variant
    // and shared by every client that asks for it (one write each).
    Error send_shared(HttpResponse* res, const HlsBlob& body, const char* content_type);
    struct BlobFile {
        std::weak_ptr<const std::string> blob;  // expired: the store dropped it, the file goes too
        int fd = -1;
    };
    HlsMemoryStore* store_;
    std::string root_;
    std::map<std::string, BlobFile> files_;  // by path under the root
    utime_t last_sweep_us_ = 0;
    SharedAnswerCache answers_;
};

}  // namespace srs
