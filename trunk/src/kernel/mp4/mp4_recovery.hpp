// Recovery of a fragmented MP4 recording that was not closed (the recorder
// was killed, the machine lost power): how much of the file is whole.
//
// ffmpeg's mov demuxer reads every top-level box of a seekable file when it
// opens it; a file cut inside an mdat still opens (the frames before the cut
// play), but one cut inside a moof or a box header fails to open at all
// ("error reading header"). Truncating the file to the end of its last
// complete fragment makes every such file playable, up to that fragment.
//
// Sans-IO: the caller gives its positioned read (pread on the file); only
// the 16 bytes of each top-level box header are read, so a recording of
// gigabytes costs one read per fragment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/error.hpp"

namespace srs {

// Reads up to n bytes at offset into out and sets *got (fewer only at the end of the file).
using Mp4ReadAt = std::function<Error(uint64_t offset, size_t n, uint8_t* out, size_t* got)>;

struct Mp4Recovery {
    uint64_t length = 0;     // keep [0, length): ends after moov or after a moof's whole mdat; 0 = nothing usable
    uint32_t fragments = 0;  // complete fragments within length
    bool has_moov = false;
    bool truncated = false;  // length < file_size: something after it is cut short or not a fragment
};

// Walks the top-level boxes of a file of file_size bytes. Errors are only the
// read_at's; a box header that makes no sense ends the walk (what follows is
// not kept), as a cut does.
Error mp4_scan_recovery(uint64_t file_size, const Mp4ReadAt& read_at, Mp4Recovery* out);

}  // namespace srs
