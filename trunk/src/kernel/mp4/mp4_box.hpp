// ISO BMFF (ISO/IEC 14496-12) boxes, sans-IO: a writer that appends boxes to
// a caller's std::string, and a strict reader that walks the boxes of a span.
//
//  Box header:
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +---------------------------------------------------------------+
//  |                          size (UI32)                          |
//  +---------------------------------------------------------------+
//  |                     type (FourCC, 'moov')                     |
//  +---------------------------------------------------------------+
//  |        largesize (UI64, only when size == 1) ...              |
//  +---------------------------------------------------------------+
//  size covers the header; size 0 means "to the end of the file" (only
//  the last top-level box may say so). A FullBox adds version (UI8) and
//  flags (UI24) after the header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace srs {

// Appends big-endian fields and boxes to *out. Boxes nest: begin() writes a
// header with a placeholder size and returns its offset; end() patches the
// size once the content is written. Every box begun must be ended (the
// writer does not check; the unit tests walk every box it writes).
class Mp4BoxWriter {
  public:
    explicit Mp4BoxWriter(std::string* out) : out_(out) {}

    // Starts a box (32-bit size) of `type` ("moov"); returns its offset in *out.
    size_t begin(const char (&type)[5]);
    // Starts a FullBox: the header, then version and 24-bit flags.
    size_t begin_full(const char (&type)[5], uint8_t version, uint32_t flags);
    // Sets the size of the box begun at `offset` to reach the current end.
    void end(size_t offset);

    void u8(uint8_t v) { out_->push_back(static_cast<char>(v)); }
    void u16(uint16_t v);
    void u24(uint32_t v);
    void u32(uint32_t v);
    void u64(uint64_t v);
    void fourcc(const char (&type)[5]) { out_->append(type, 4); }
    void bytes(const void* p, size_t n) { out_->append(static_cast<const char*>(p), n); }
    void bytes(const std::string& s) { out_->append(s); }
    void zeros(size_t n) { out_->append(n, '\0'); }

    size_t offset() const { return out_->size(); }
    std::string* out() { return out_; }

  private:
    std::string* out_;
};

// One box found by Mp4BoxReader. `data`/`size` are the payload after the
// header (and after version/flags when read with full_box()).
struct Mp4Box {
    uint32_t type = 0;        // FourCC, big-endian (make_fourcc("moof"))
    uint64_t offset = 0;      // of the header, from the start of the span walked
    uint64_t box_size = 0;    // header + payload
    size_t header_size = 0;   // 8, or 16 with a largesize
    const uint8_t* data = nullptr;
    size_t size = 0;
    std::string type_name() const;  // "moof" (bytes outside 0x20..0x7e as '?')
};

// Walks the boxes laid end to end in [data, data + size). Strict: a size
// below its header, a size past the span, a truncated header, or a size 0
// box are errors (kErrorMp4Box), except that allow_partial_tail makes a last
// box that runs past the span end the walk quietly (a file cut short, where
// a caller wants the complete boxes before the cut). Nothing outside the span
// is read.
class Mp4BoxReader {
  public:
    Mp4BoxReader(const uint8_t* data, size_t size) : p_(data), n_(size) {}

    // The next box, or *done = true at the end of the span.
    Error next(Mp4Box* box, bool* done);
    void allow_partial_tail(bool allow) { allow_partial_tail_ = allow; }
    // True when the walk stopped at a box cut short (allow_partial_tail only).
    bool stopped_at_partial() const { return partial_; }
    size_t position() const { return pos_; }

  private:
    const uint8_t* p_;
    size_t n_;
    size_t pos_ = 0;
    bool allow_partial_tail_ = false;
    bool partial_ = false;
};

// Reads version and flags at the start of a FullBox payload and advances the
// box's data past them. Error when fewer than 4 bytes.
Error mp4_read_full_box(Mp4Box* box, uint8_t* version, uint32_t* flags);

// Every box of a span, depth first, descending into the container boxes this
// muxer writes (moov, trak, mdia, minf, dinf, stbl, mvex, moof, traf, edts,
// mfra) and into stsd/dref (after their entry counts) and sample entries.
// Each box is checked to fit its parent. Returns the boxes in file order with
// their depth. Bounded: at most max_boxes (error past it) and depth 16.
struct Mp4BoxNode {
    Mp4Box box;
    int depth = 0;
};
Error mp4_walk_tree(const uint8_t* data, size_t size, std::vector<Mp4BoxNode>* out, size_t max_boxes = 100000);

}  // namespace srs
