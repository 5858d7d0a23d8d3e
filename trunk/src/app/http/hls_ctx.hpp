// hls_ctx as the static file server uses it: the session table, the
// checks and hooks a new HLS player passes, and the coroutine that ends the
// sessions nobody asked for in 2 x hls_window.
//
//   GET /live/s.m3u8                -> security, session, on_play, master playlist with ?hls_ctx=<id>
//   GET /live/s.m3u8?hls_ctx=<id>   -> the file's playlist, every segment URI with the id
//   GET /live/s-1.ts?hls_ctx=<id>   -> the file; its bytes count as the session's
#pragma once

#include <string>

#include "app/conn/live_context.hpp"
#include "app/http/hls_sessions.hpp"
#include "app/http/http_conn.hpp"
#include "io/coroutine.hpp"

namespace srs {

class BlockingWorker;

// Playlists larger than this are served as they are (a live playlist is a few KB).
constexpr size_t kHlsCtxMaxPlaylist = 4 * 1024 * 1024;
// How often expired sessions are looked for.
constexpr utime_t kHlsCtxSweepUs = 1 * kUsPerSecond;

class HlsCtxService : public CoroutineHandler {
  public:
    // Neither is owned; both outlive the service. worker may be null.
    HlsCtxService(LiveContext* live, BlockingWorker* worker);
    ~HlsCtxService() override;

    Error start();
    // Ends the sweeper and unregisters every session (no on_stop: the server stops).
    void stop();

    // A GET/HEAD of a .m3u8; file: the resolved file, "" when there is none.
    // *served false: not a session's business (hls_ctx off for the vhost, or
    // hls_ts_ctx off for a known session), the file is served as it is.
    // memory: the playlist's text when it comes from the memory store (file
    // then only names it), null to read the file.
    Error serve_playlist(const HttpRequest& req, HttpResponse* res, const std::string& file, bool* served,
                         const std::string* memory = nullptr);
    // After `bytes` of any other file went out for a request: counted to its
    // session when it names one and hls_ts_ctx is on.
    void on_file_sent(const HttpRequest& req, uint64_t bytes);

    size_t sessions() const { return table_.size(); }
    // Sessions in the clients registry: they are not TCP connections, so
    // max_connections leaves them out (as SRS).
    size_t listed_sessions() const { return table_.listed(); }

  private:
    Error cycle() override;
    // The vhost of the request as HTTP-FLV resolves it.
    std::string vhost_of(const HttpRequest& req) const;
    Error serve_new_session(const HttpRequest& req, HttpResponse* res, const std::string& vhost,
                            const std::string& file);
    Error serve_known_session(const HttpRequest& req, HttpResponse* res, HlsSession* s, const std::string& file,
                              const std::string* memory);
    // 2 x hls_window of the vhost.
    utime_t idle_us(const std::string& vhost) const;
    // Whether some vhost has HLS with hls_ctx on in `config`, worked out once
    // per config: with none, a playlist request skips the vhost look-up.
    bool any_ctx(const std::shared_ptr<const Config>& config);

    LiveContext* live_;
    BlockingWorker* worker_;
    HlsSessionTable table_;
    Coroutine sweeper_;
    std::shared_ptr<const Config> ctx_config_;  // the config any_ctx_ was worked out for
    bool any_ctx_ = false;
};

// The whole of a small file (up to max bytes) through the page cache or the
// worker. An error when it cannot be read or is larger.
Error read_small_file(BlockingWorker* worker, const std::string& path, size_t max, std::string* out);

}  // namespace srs
