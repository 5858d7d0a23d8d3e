// The FLV container (FLV 10.1, Annex E), sans-IO.
//
// FlvWriter: pure functions that fill caller-provided bytes (the server caches
// one tag header per message and shares it among every HTTP-FLV player).
//
// FlvReader: takes bytes, gives tags. It keeps no partial data: feed() parses
// the 9-byte header (+ PreviousTagSize0) once, then whole tags, and reports
// how much it consumed; the caller keeps the unconsumed tail and feeds it
// again with more bytes appended. Feeding a stream whole or one byte at a time
// yields the same tags. Nothing outside [data, data + size) is ever read.
//
//  FLV header (9 bytes) + PreviousTagSize0 (UI32, 0):
//  +---+---+---+-------+---------+-----------------------+
//  |'F'|'L'|'V'|Version|TypeFlags|  DataOffset (UI32, 9)  |
//  +---+---+---+-------+---------+-----------------------+
//  TypeFlags: reserved(5) audio(1) reserved(1) video(1)
//
//  FLV tag: 11-byte header, Data, PreviousTagSize (UI32 = 11 + DataSize):
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +---+-+---------+-----------------------------------------------+
//  |Rsv|F| TagType |            DataSize (UI24)                    |
//  +---+-+---------+-----------------------------------------------+
//  |           Timestamp (UI24, low bits, ms)      | TimestampExt  |
//  +-----------------------------------------------+---------------+
//  |           StreamID (UI24, 0)                  |  Data ...
//  +-----------------------------------------------+
//  TagType: 8 audio, 9 video, 18 script data. F: filter (encrypted).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shared_buffer.hpp"

namespace srs {

constexpr uint8_t kFlvTagAudio = 8;
constexpr uint8_t kFlvTagVideo = 9;
constexpr uint8_t kFlvTagScript = 18;
constexpr size_t kFlvHeaderSize = 9;
constexpr size_t kFlvTagHeaderSize = 11;
constexpr size_t kFlvPreviousTagSize = 4;
constexpr uint32_t kFlvMaxDataSize = 0xffffff;  // 16 MiB - 1: the UI24 DataSize

struct FlvTag {
    uint8_t type = 0;        // 8, 9 or 18
    uint32_t timestamp = 0;  // ms, with the extended byte as bits 24..31
    SharedBytes data;        // the tag body (its own copy, shareable)
};

class FlvWriter {
  public:
    // Appends the 9-byte header and PreviousTagSize0 (13 bytes) to *out.
    static void write_header(std::string* out, bool has_audio, bool has_video);
    // Fills 11 bytes. data_size must be <= kFlvMaxDataSize (higher bits are dropped).
    static void write_tag_header(uint8_t out[11], uint8_t tag_type, uint32_t timestamp, uint32_t data_size);
    // Fills 4 bytes, big endian (11 + data_size after a tag).
    static void write_previous_tag_size(uint8_t out[4], uint32_t size);
};

class FlvReader {
  public:
    FlvReader() = default;

    // Parses as many whole units (the header, then tags with their trailing
    // PreviousTagSize) as `data` holds, appends the tags to *out and sets
    // *consumed to the bytes used (always a unit boundary). Returns an error on
    // a bad signature/version/offset, a tag type other than 8/9/18, a filtered
    // (encrypted) tag, a non-zero stream id or a DataSize above
    // max_tag_size(); after an error the reader stays failed. A
    // PreviousTagSize that does not match is tolerated and counted.
    Error feed(const uint8_t* data, size_t size, size_t* consumed, std::vector<FlvTag>* out);

    // Limit on DataSize (default and maximum kFlvMaxDataSize).
    void set_max_tag_size(uint32_t max) { max_tag_size_ = max < kFlvMaxDataSize ? max : kFlvMaxDataSize; }
    uint32_t max_tag_size() const { return max_tag_size_; }

    bool header_parsed() const { return header_parsed_; }
    bool has_audio() const { return has_audio_; }
    bool has_video() const { return has_video_; }
    uint64_t tags_read() const { return tags_read_; }
    uint64_t previous_tag_size_mismatches() const { return pts_mismatches_; }

  private:
    Error parse_header(const uint8_t* data, size_t size, size_t* used);
    bool header_parsed_ = false;
    bool failed_ = false;
    bool has_audio_ = false;
    bool has_video_ = false;
    uint32_t max_tag_size_ = kFlvMaxDataSize;
    uint64_t tags_read_ = 0;
    uint64_t pts_mismatches_ = 0;
};

}  // namespace srs
