// The file of one HLS segment while it is written. A segment arrives a
// frame at a time (a TS write per frame: about 70 a second for a 25 fps
// stream with AAC); writing each as its own write(2) made the kernel's
// per-call cost the larger part of our HLS time on ext4. Appends are
// gathered in a bounded buffer instead and go out as one write(2) per
// `flush_bytes`, plus one for the rest at close: the file is complete
// before the sink renames it.
//
// A file that exists (a recycled one, see HlsDiskSink) is written over
// from its start and cut to the new length at close, never truncated to
// zero first: ext4 (auto_da_alloc) flushes a file truncated to zero when it
// is closed, which put block I/O on our thread for every segment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace srs {

class HlsSegmentFile {
  public:
    // 64 KiB: a 2 s segment of a 600 kbps stream is 3 writes, and a
    // publishing stream holds at most this much unwritten.
    static constexpr size_t kDefaultFlushBytes = 64 * 1024;

    explicit HlsSegmentFile(size_t flush_bytes = kDefaultFlushBytes);
    ~HlsSegmentFile();  // closes a file still open, unflushed bytes dropped
    HlsSegmentFile(const HlsSegmentFile&) = delete;
    HlsSegmentFile& operator=(const HlsSegmentFile&) = delete;

    // Opens path for writing from its start, created if missing.
    Error open(const std::string& path);
    Error append(const char* data, size_t n);
    // Writes what is buffered, cuts what an older content left past it, closes.
    Error close();
    // Closes, dropping what is buffered (the caller deletes the file).
    void abandon();

    bool is_open() const { return fd_ >= 0; }
    const std::string& path() const { return path_; }
    // write(2) calls made since construction (tests, measurements).
    uint64_t writes() const { return writes_; }

  private:
    Error write_out(const char* data, size_t n);

    const size_t flush_bytes_;
    int fd_ = -1;
    std::string path_;
    std::string buffer_;
    uint64_t size_before_ = 0;  // the length the file had when opened
    uint64_t written_ = 0;      // bytes written since open
    uint64_t writes_ = 0;
};

}  // namespace srs
