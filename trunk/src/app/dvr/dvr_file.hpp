// One recording on disk: written under "<path>.tmp", renamed to <path>
// when it is closed whole, so a reader never takes a file being written
// for a finished one (and a restart knows what a crash left).
//
// Writes go to the page cache with plain write(2) and are batched by the
// writers (FLV: about 64 KiB or a keyframe; MP4: one fragment), a few
// calls a second per stream, as SRS's DVR writes. Every failure (no
// permission, disk full) is an Error with the path and errno's text.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace srs {

// mkdir -p of the folder holding path.
Error dvr_make_parent_dirs(const std::string& path);

class DvrFile {
  public:
    DvrFile() = default;
    ~DvrFile();  // closes (without rename) a file still open
    DvrFile(const DvrFile&) = delete;
    DvrFile& operator=(const DvrFile&) = delete;

    // Creates the folders and "<path>.tmp" (truncated), locked (flock) until closed.
    Error open(const std::string& path);
    Error append(const std::string& bytes);
    // Overwrites bytes already written (metadata and duration patches).
    Error write_at(uint64_t offset, const std::string& bytes);
    // Closes and renames the temporary file to its final name.
    Error close_and_rename();
    // Closes, leaving the temporary file as it is (after a failure).
    void abandon();
    // Closes and deletes the temporary file.
    void discard();

    bool is_open() const { return fd_ >= 0; }
    const std::string& path() const { return path_; }
    std::string temp_path() const { return path_ + ".tmp"; }
    uint64_t size() const { return size_; }

  private:
    int fd_ = -1;
    std::string path_;
    uint64_t size_ = 0;
};

}  // namespace srs
