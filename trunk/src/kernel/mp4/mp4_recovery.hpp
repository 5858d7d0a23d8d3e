// Recovery of a fragmented MP4 recording that was not closed (the recorder
// was killed, the machine lost power): how much of the file is whole.
//
// ffmpeg's mov demuxer reads every top-level box of a seekable file when it
// opens it; a file cut inside an mdat still opens (the frames before the cut
// play), but one cut inside a moof or a box header fails to open at all
// ("error reading header"). Truncating the file to the end of its last
// complete fragment makes every such file playable, up to that fragment.
//
// The moov of such a file says duration 0 (the durations are written at a
// clean close), so players show the length they guess. The scan also reads
// the moov and every kept moof whole (both are small: the index of the
// samples, not the samples) and works out each track's time from its
// fragments (tfdt + the trun sample durations, or tfhd/trex defaults); the
// result is a set of patches for mvhd, tkhd, mdhd and mehd, as the muxer's
// finish() would have written them.
//
// Sans-IO: the caller gives its positioned read (pread on the file); the
// 16 bytes of each top-level box header are read, and the moov and moof
// boxes, so a recording of gigabytes costs two reads per fragment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/error.hpp"
#include "kernel/mp4/mp4_muxer.hpp"

namespace srs {

// Reads up to n bytes at offset into out and sets *got (fewer only at the end of the file).
using Mp4ReadAt = std::function<Error(uint64_t offset, size_t n, uint8_t* out, size_t* got)>;

struct Mp4Recovery {
    uint64_t length = 0;     // keep [0, length): ends after moov or after a moof's whole mdat; 0 = nothing usable
    uint32_t fragments = 0;  // complete fragments within length
    bool has_moov = false;
    bool truncated = false;  // length < file_size: something after it is cut short or not a fragment
    // From the kept fragments: the movie's duration (ms; -1 when the moov or
    // the fragments could not be read), and the patches that write it (and
    // each track's) into the moov. Empty when there is nothing to patch.
    int64_t duration_ms = -1;
    std::vector<Mp4Patch> patches;
};

// moov and moof boxes larger than this are not read (a moov of ours is a few
// hundred bytes, a moof of one second ~ 1 KB): the durations stay unpatched.
constexpr uint64_t kMp4RecoveryMaxIndexBox = 16 * 1024 * 1024;

// Walks the top-level boxes of a file of file_size bytes. Errors are only the
// read_at's; a box header that makes no sense ends the walk (what follows is
// not kept), as a cut does.
Error mp4_scan_recovery(uint64_t file_size, const Mp4ReadAt& read_at, Mp4Recovery* out);

}  // namespace srs
