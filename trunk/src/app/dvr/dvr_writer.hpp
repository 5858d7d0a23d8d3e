// A recording's file format: the recorder hands each file's messages to one
// of these (FLV or MP4, by dvr_path's extension), with timestamps already
// corrected for the file (dvr's time_jitter).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/shared_buffer.hpp"
#include "kernel/flv/amf0.hpp"

namespace srs {

struct DvrFrame {
    bool video = false;
    uint32_t timestamp = 0;  // ms, in the file's time
    bool keyframe = false;
    bool sequence_header = false;
    const SharedBytes* body = nullptr;  // the FLV tag body
};

class DvrWriter {
  public:
    virtual ~DvrWriter() = default;
    // Creates "<path>.tmp".
    virtual Error open(const std::string& path) = 0;
    // The file's metadata (nullptr: the publisher sent none); written first.
    virtual Error write_metadata(const Amf0Value* publisher, uint32_t timestamp) = 0;
    virtual Error write(const DvrFrame& frame) = 0;
    // Whether a new sequence header can go into the open file (MP4 cannot
    // change a track's config: the recorder starts a new file).
    virtual bool takes_new_config() const = 0;
    // Writes what is buffered, patches the durations, closes and renames.
    // *duration_ms: the media the file holds.
    virtual Error close(int64_t* duration_ms) = 0;
    // Stops after a failure, leaving the temporary file.
    virtual void abandon() = 0;
    // Whether nothing playable was written (an MP4 whose frames were all of
    // codecs it does not take): the recorder then discards the file.
    virtual bool empty() const { return false; }
    // Closes and deletes the temporary file.
    virtual void discard() = 0;
    virtual uint64_t bytes() const = 0;
};

std::unique_ptr<DvrWriter> make_dvr_flv_writer();
std::unique_ptr<DvrWriter> make_dvr_mp4_writer();

}  // namespace srs
