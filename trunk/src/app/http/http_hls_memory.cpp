#include "app/http/http_hls_memory.hpp"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "app/http/hls_ctx.hpp"
#include "core/log.hpp"
#include "io/file_sender.hpp"
#include "protocol/hls/ll_hls_request.hpp"

namespace srs {

namespace {

// Blobs from this size on go out of a sealed memory file with sendfile (a
// playlist-sized answer is cheaper copied than set up as a file).
constexpr size_t kFileFromBytes = 16 * 1024;
// Memory files kept at most (a window of segments and parts of many
// streams); past this, ones whose blob the store dropped go first.
constexpr size_t kMaxFiles = 512;
constexpr utime_t kSweepEveryUs = kUsPerSecond;

// A parked request looks at its socket this often (a part usually wakes it sooner).
constexpr utime_t kParkedCheckUs = 250 * kUsPerMs;

// Whether the player hung up: EOF or an error on the socket, seen without
// reading (a pipelined next request stays queued).
bool peer_gone(HttpResponse* res) {
    if (!res->socket()) return false;
    char c;
    ssize_t n = ::recv(res->socket()->fd(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return true;
    return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace

Error HlsMemoryServer::serve(const HttpRequest& req, HttpResponse* res, HlsCtxService* hls, bool* served) {
    *served = false;
    const std::string path = root_ + req.path;
    if (std::shared_ptr<HlsPlaylistSlot> slot = store_->playlist(path)) {
        *served = true;
        return serve_playlist(req, res, hls, std::move(slot), path);
    }
    if (HlsBlob blob = store_->get(path)) {
        *served = true;
        return serve_file(req, res, hls, blob);
    }
    // The part the playlist hints at: held until it is written.
    std::shared_ptr<HlsPlaylistSlot> hinted = store_->hinted_by(path);
    if (!hinted) return Error();
    *served = true;
    const utime_t deadline = monotonic_us() + ll_hls_block_limit_us(hinted->current().target_duration_s);
    // The player just asked: it is looked at only after the first wait.
    for (bool first = true;; first = false) {
        if (HlsBlob blob = store_->get(path)) return serve_file(req, res, hls, blob);
        if (hinted->removed()) return res->send_error(404);
        utime_t now = monotonic_us();
        if (now >= deadline) return res->send_error(404);
        if (!first && peer_gone(res)) return SRS_ERR(kErrorSocketClosed, "HLS %s: the player left", req.path.c_str());
        if (Error err = res->pull(); !err.ok()) return err;
        hinted->wait_change(std::min(deadline - now, kParkedCheckUs));
    }
}

Error HlsMemoryServer::serve_playlist(const HttpRequest& req, HttpResponse* res, HlsCtxService* hls,
                                      std::shared_ptr<HlsPlaylistSlot> slot, const std::string& path) {
    // A flag, not a field: a shared answer has it built in and allocates no head.
    res->set_no_cache();
    LlHlsQuery q = parse_ll_hls_query(req.query_param("_HLS_msn"), req.query_param("_HLS_part"),
                                      req.query_param("_HLS_skip"));
    if (slot->current().ll) {
        if (q.malformed) {
            srs_warn("HLS %s?%s: bad LL-HLS directives (400)", req.path.c_str(), req.query.c_str());
            return res->send_error(400);
        }
        const utime_t since = monotonic_us();
        // The player just asked, so the first park skips the look at its
        // socket (one recv per answer less); later ones check it.
        for (bool first = true;; first = false) {
            if (slot->removed()) return res->send_error(404);
            const HlsMemoryPlaylist& now_pl = slot->current();
            const utime_t waited = monotonic_us() - since;
            LlHlsDecision d = decide_ll_hls_request(now_pl.position, q, waited, now_pl.target_duration_s);
            if (d == LlHlsDecision::kBadRequest) {
                srs_warn("HLS %s: _HLS_msn=%lld _HLS_part=%lld is too far ahead of %lld/%lld (400)",
                         req.path.c_str(), (long long)q.msn, (long long)q.part,
                         (long long)now_pl.position.last_msn, (long long)now_pl.position.open_parts);
                return res->send_error(400);
            }
            // Ready, or past the limit: then the player gets the playlist as it
            // is (a stalled publisher must not turn into errors it backs off from).
            if (d != LlHlsDecision::kWait) break;
            if (!first && peer_gone(res)) {
                return SRS_ERR(kErrorSocketClosed, "HLS %s: the player left", req.path.c_str());
            }
            if (Error err = res->pull(); !err.ok()) return err;
            utime_t left = ll_hls_block_limit_us(now_pl.target_duration_s) - waited;
            slot->wait_change(std::max<utime_t>(1, std::min(left, kParkedCheckUs)));
        }
    }
    const HlsMemoryPlaylist& cur = slot->current();
    HlsBlob text = q.skip && cur.delta ? cur.delta : cur.full;
    if (!text) return res->send_error(404);
    if (hls) {
        bool by_session = false;
        Error err = hls->serve_playlist(req, res, path, &by_session, text.get());
        if (by_session) return err;
        err.ignore();
    }
    return send_shared(res, text, "application/vnd.apple.mpegurl");
}

Error HlsMemoryServer::send_shared(HttpResponse* res, const HlsBlob& body, const char* content_type) {
    const unsigned variant = res->answer_variant();
    SharedAnswerCache::Answer answer = answers_.find(body, variant);
    if (!answer) answer = answers_.put(body, variant, res->answer_bytes(200, content_type, *body));
    // `answer` keeps the bytes alive while this coroutine waits on a full socket.
    return res->send_prepared(*answer);
}

HlsMemoryServer::~HlsMemoryServer() {
    for (auto& kv : files_) close(kv.second.fd);
}

void HlsMemoryServer::drop_expired_files() {
    for (auto i = files_.begin(); i != files_.end();) {
        if (!i->second.blob.expired()) {
            ++i;
            continue;
        }
        close(i->second.fd);
        i = files_.erase(i);
    }
}

int HlsMemoryServer::file_of(const std::string& path, const HlsBlob& blob) {
    if (blob->size() < kFileFromBytes) return -1;
    // Files of blobs the store dropped go at the first GET after a second,
    // so they live about as long as the window that listed them.
    utime_t now = monotonic_us();
    if (now - last_sweep_us_ >= kSweepEveryUs) {
        last_sweep_us_ = now;
        drop_expired_files();
    }
    auto it = files_.find(path);
    if (it != files_.end()) {
        if (it->second.blob.lock() == blob) return it->second.fd;
        close(it->second.fd);  // the path holds new bytes now
        files_.erase(it);
    }
    if (files_.size() >= kMaxFiles) drop_expired_files();
    if (files_.size() >= kMaxFiles) {
        close(files_.begin()->second.fd);
        files_.erase(files_.begin());
    }
    int fd = sealed_memory_file("hls", blob->data(), blob->size());
    if (fd < 0) {
        srs_warn("HLS %s: no memory file (%s), the bytes are copied", path.c_str(), strerror(errno));
        return -1;
    }
    files_[path] = BlobFile{blob, fd};
    return fd;
}

Error HlsMemoryServer::serve_file(const HttpRequest& req, HttpResponse* res, HlsCtxService* hls,
                                  const HlsBlob& blob) {
    const bool head_only = req.method == "HEAD";
    int fd = head_only || !res->socket() ? -1 : file_of(root_ + req.path, blob);
    Error err;
    if (fd < 0) {
        err = send_shared(res, blob, http_mime_type(req.path).c_str());
    } else {
        // The head is held back (MSG_MORE) for the body's pages and leaves with them.
        err = res->send_head_more(200, http_mime_type(req.path), static_cast<int64_t>(blob->size()));
        uint64_t sent = 0;
        if (err.ok()) err = send_file_range(res->socket(), fd, 0, blob->size(), nullptr, &sent);
    }
    if (err.ok() && hls && !head_only) hls->on_file_sent(req, blob->size());
    return err;
}

}  // namespace srs
