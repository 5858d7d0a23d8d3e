// HLS from memory (hls_storage memory, and always with LL-HLS): the files a
// disk sink would write (playlists, init segments, segments, parts, keys),
// held as shared immutable buffers under the path the disk file would have.
// Owned by the server, so it outlives a publish (hls_dispose still empties
// it) and both the HLS writers and the HTTP server see one store.
//
// A playlist lives in a slot that parked LL-HLS requests share: each update
// wakes them, and a removed playlist wakes them for good.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "protocol/hls/ll_hls_request.hpp"

namespace srs {

class CoCond;

using HlsBlob = std::shared_ptr<const std::string>;

// One version of a playlist.
struct HlsMemoryPlaylist {
    HlsBlob full;               // the whole playlist
    HlsBlob delta;              // the _HLS_skip answer; null: none (classic HLS, or nothing to skip)
    bool ll = false;            // answers _HLS_msn/_HLS_part
    LlHlsPosition position;     // where the LL playlist is
    int64_t target_duration_s = 1;
    std::string hint_key;       // the EXT-X-PRELOAD-HINT part's path ("" none; stored as its key)
};

class HlsPlaylistSlot {
  public:
    HlsPlaylistSlot();
    ~HlsPlaylistSlot();
    const HlsMemoryPlaylist& current() const { return current_; }
    bool removed() const { return removed_; }
    uint64_t version() const { return version_; }
    // Parks the calling coroutine until the playlist changes (or goes), at
    // most timeout_us. False on timeout or interrupt (or an early wake-up
    // with no change, which callers treat as a timeout).
    bool wait_change(int64_t timeout_us);
    size_t waiters() const { return waiters_; }

  private:
    friend class HlsMemoryStore;
    void changed();
    HlsMemoryPlaylist current_;
    bool removed_ = false;
    uint64_t version_ = 0;
    size_t waiters_ = 0;
    // The waiter that keeps time for the others (see wait_change) and when
    // its wait ends at the latest.
    bool has_keeper_ = false;
    int64_t keeper_due_us_ = 0;
    std::unique_ptr<CoCond> cond_;  // made by the first waiter (unit tests need no runtime)
};

class HlsMemoryStore {
  public:
    // cwd: what relative paths are relative to (the server's working folder).
    explicit HlsMemoryStore(std::string cwd);
    ~HlsMemoryStore();

    // The store key of a path: absolute, with "." "" and ".." steps folded,
    // so "./objs/nginx/html/live/s.m3u8" (hls_path + file) and the HTTP
    // root + "/live/s.m3u8" meet.
    std::string key_of(const std::string& path) const;

    void put(const std::string& path, std::string bytes);
    // null when absent (a playlist is found too: its full text).
    HlsBlob get(const std::string& path) const;
    // A file or a playlist; a playlist's parked requests are woken.
    void remove(const std::string& path);

    void put_playlist(const std::string& path, HlsMemoryPlaylist playlist);
    std::shared_ptr<HlsPlaylistSlot> playlist(const std::string& path) const;
    // The playlist whose next part (EXT-X-PRELOAD-HINT) is this path, if any.
    std::shared_ptr<HlsPlaylistSlot> hinted_by(const std::string& path) const;

    size_t files() const { return files_.size() + playlists_.size(); }
    size_t bytes() const { return bytes_; }

  private:
    std::string cwd_;
    std::map<std::string, HlsBlob> files_;
    std::map<std::string, std::shared_ptr<HlsPlaylistSlot>> playlists_;
    std::map<std::string, std::shared_ptr<HlsPlaylistSlot>> hints_;  // hint key -> its playlist
    size_t bytes_ = 0;
};

// Folds a path lexically: "/a/./b//c/../d" -> "/a/b/d"; ".." never climbs
// above "/".
std::string hls_fold_path(const std::string& absolute);

}  // namespace srs
