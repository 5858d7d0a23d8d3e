// Where HLS output goes. The stream writer (HlsStream) decides what and
// when; a sink only stores bytes under names. The disk sink writes files
// under hls_path as SRS does; an in-memory store (served by our HTTP server,
// no disk) implements the same interface. append_segment() is called once
// per frame, so a sink that serves parts (LL-HLS) sees each flush point.
#pragma once

#include <cstddef>
#include <deque>
#include <set>
#include <string>

#include "app/hls/hls_segment_file.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocol/hls/ll_hls_request.hpp"

namespace srs {

// A new version of a playlist. A disk sink writes `full`; the memory store
// also keeps the delta update and where an LL-HLS playlist is, for
// blocking reloads.
struct HlsPlaylistUpdate {
    std::string full;
    std::string delta;          // "" : no delta update
    bool ll = false;
    LlHlsPosition position;
    int64_t target_duration_s = 1;
    std::string hint_path;      // the next part (EXT-X-PRELOAD-HINT), "" none
};

class HlsSink {
  public:
    virtual ~HlsSink() = default;
    // Opens a segment being written under a temporary name.
    virtual Error begin_segment(const std::string& temp_path) = 0;
    virtual Error append_segment(const char* data, size_t n) = 0;
    // keep: renames the temporary file to final_path; else deletes it.
    virtual Error finish_segment(const std::string& final_path, bool keep) = 0;
    // A whole file (playlist, init segment, key): written to path + temp_suffix
    // and renamed, so a reader sees the old file or the new one, never half.
    virtual Error write_file(const std::string& path, const std::string& bytes, const char* temp_suffix) = 0;
    // Deletes a file; a missing one is not an error.
    virtual void remove(const std::string& path) = 0;
    // A segment that left the window (hls_cleanup): deleted. The disk sink
    // keeps its file instead, to become the next begin_segment's file.
    virtual void retire_segment(const std::string& path) { remove(path); }
    // Deletes the files kept for reuse (a retired segment, a playlist's
    // previous version): the publish ended.
    virtual void release_kept() {}
    // A playlist: by default the whole text as a file.
    virtual Error write_playlist(const std::string& path, const HlsPlaylistUpdate& update) {
        return write_file(path, update.full, ".temp");
    }
};

// Files on disk; folders are made as needed. Writes are plain write(2)s on
// the publisher's coroutine into the page cache (docs/hls.md says why that
// is acceptable and what tmpfs gives), a segment in 64 KiB pieces
// (HlsSegmentFile).
//
// Files are recycled rather than deleted and made again: a steady stream
// allocates and frees no inode per segment. A retired segment's file leaves
// its name at once (a GET for it is a 404, as after SRS's delete) but is
// kept aside as "<name>.retired" for a grace period (30 s by default), so a
// player still reading it through an open descriptor reads its own bytes;
// then it becomes a new segment's file (renamed to its temporary name,
// written over);
// a playlist is written over its previous version kept under "<name>.temp"
// and swapped with the playlist in one step (renameat2 RENAME_EXCHANGE),
// where a rename over the playlist would free its inode. Making and
// freeing inodes was what our HLS cost on ext4 besides the writes: without
// a journal, creating a file skips every inode freed in the last seconds
// (minutes while its inode table block is dirty) one at a time, and a
// rename over a file frees one (docs/benchmark.md, "HLS", has the numbers).
class HlsDiskSink : public HlsSink {
  public:
    static constexpr utime_t kDefaultReuseGrace = 30 * kUsPerSecond;
    // Spares beyond this are deleted (fragments shorter than grace / 64).
    static constexpr size_t kMaxSpares = 64;

    explicit HlsDiskSink(utime_t reuse_grace_us = kDefaultReuseGrace) : reuse_grace_us_(reuse_grace_us) {}
    ~HlsDiskSink() override;
    Error begin_segment(const std::string& temp_path) override;
    Error append_segment(const char* data, size_t n) override;
    Error finish_segment(const std::string& final_path, bool keep) override;
    Error write_file(const std::string& path, const std::string& bytes, const char* temp_suffix) override;
    void remove(const std::string& path) override;
    Error write_playlist(const std::string& path, const HlsPlaylistUpdate& update) override;
    void retire_segment(const std::string& path) override;
    void release_kept() override;
    // write(2) calls made for segments (tests, measurements).
    uint64_t segment_writes() const { return file_.writes(); }

  private:
    struct Spare {
        std::string path;   // "<segment>.retired"
        utime_t retired_at;  // monotonic
    };
    HlsSegmentFile file_;
    utime_t reuse_grace_us_;
    std::deque<Spare> spares_;          // retired segments, oldest first
    std::set<std::string> kept_temps_;  // "<playlist>.temp" files holding a previous version
};

// mkdir -p of the folder part of path.
Error hls_make_parent_folders(const std::string& path);

}  // namespace srs
