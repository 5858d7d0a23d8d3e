// The FLV byte stream as the HTTP-FLV tools (sb_http_load, sb_latency)
// receive it, decoded as it arrives. Sans-IO.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "kernel/flv/flv.hpp"

namespace srs::tool {

constexpr size_t kBodyPrefix = 64;  // bytes of a tag body shown to on_tag at least (when it has them)
constexpr uint32_t kMaxFlvDataOffset = 64 * 1024;

// Takes the FLV stream in pieces of any size and keeps no pointer into them:
// the headers being read (9, 11 or 4 bytes) are gathered in a small array, a
// tag body is skipped once its first bytes were shown to on_tag.
// on_tag(type, timestamp, body, n) is called once per tag and returns false
// to stop the stream (feed() then returns at once, now and later). When:
//  - kAtPrefix (sb_http_load's checks): as soon as min(DataSize, 64) bytes of
//    the body are in; `body` holds n of them, in place when they are
//    contiguous in the piece (then n is all of the body the piece has), else
//    gathered;
//  - kAtEnd (sb_latency, which times arrivals): once the whole body is in,
//    with its first min(DataSize, 64) bytes, gathered.
// The PreviousTagSize after the tag must be 11 + DataSize (0 after the file
// header); a mismatch, a bad signature, a tag type other than 8/9/18, a
// filtered tag or a non-zero stream id is an error, and the stream is then
// unusable.
class FlvStream {
  public:
    enum Show : uint8_t { kAtPrefix, kAtEnd };
    explicit FlvStream(Show show = kAtPrefix) : show_(show) {}

    template <typename OnTag>
    Error feed(const uint8_t* p, size_t n, OnTag&& on_tag);
    bool stopped() const { return stopped_; }
    // Between two tags (after the file header): where a stream may end.
    bool at_boundary() const { return state_ == kTagHeader && have_ == 0; }
    bool header_done() const { return state_ != kHeader && state_ != kHeaderSkip; }

  private:
    enum State : uint8_t { kHeader, kHeaderSkip, kTagHeader, kBody, kPreviousSize };
    // Gathers up to `need` bytes into small_; true once there are `need`.
    bool gather(const uint8_t** p, const uint8_t* end, size_t need) {
        size_t k = std::min(need - have_, static_cast<size_t>(end - *p));
        memcpy(small_ + have_, *p, k);
        *p += k;
        have_ += k;
        if (have_ < need) return false;
        have_ = 0;
        return true;
    }

    Show show_;
    bool stopped_ = false;
    State state_ = kHeader;
    bool shown_ = false;  // on_tag was called for the current tag
    uint8_t type_ = 0;
    uint8_t small_[kFlvTagHeaderSize] = {};
    size_t have_ = 0;  // bytes in small_
    uint32_t timestamp_ = 0;
    uint32_t data_size_ = 0;
    uint32_t left_ = 0;  // of the body (or of the header's padding)
    uint32_t expected_previous_ = 0;
    uint32_t prefix_size_ = 0;
    uint8_t prefix_[kBodyPrefix] = {};
};

template <typename OnTag>
Error FlvStream::feed(const uint8_t* p, size_t n, OnTag&& on_tag) {
    const uint8_t* const end = p + n;
    while (p < end && !stopped_) {
        switch (state_) {
            case kHeader: {
                if (!gather(&p, end, kFlvHeaderSize)) break;
                if (memcmp(small_, "FLV\x01", 4) != 0) return SRS_ERR(kErrorFlvHeader, "not an FLV version 1 header");
                uint32_t offset = load_be32(small_ + 5);
                if (offset < kFlvHeaderSize || offset > kMaxFlvDataOffset) {
                    return SRS_ERR(kErrorFlvHeader, "FLV DataOffset %u", offset);
                }
                left_ = offset - kFlvHeaderSize;
                expected_previous_ = 0;
                state_ = left_ ? kHeaderSkip : kPreviousSize;
                break;
            }
            case kHeaderSkip: {
                uint32_t k = static_cast<uint32_t>(std::min<size_t>(left_, end - p));
                p += k;
                left_ -= k;
                if (left_ == 0) state_ = kPreviousSize;
                break;
            }
            case kTagHeader: {
                if (!gather(&p, end, kFlvTagHeaderSize)) break;
                const uint8_t* h = small_;
                type_ = h[0] & 0x1f;
                if (h[0] & 0xe0) return SRS_ERR(kErrorFlvTagType, "FLV tag reserved/filter bits, byte=0x%02x", h[0]);
                if (type_ != kFlvTagAudio && type_ != kFlvTagVideo && type_ != kFlvTagScript) {
                    return SRS_ERR(kErrorFlvTagType, "FLV tag type %u", type_);
                }
                if (load_be24(h + 8) != 0) return SRS_ERR(kErrorFlvTagType, "FLV tag stream id %u", load_be24(h + 8));
                data_size_ = load_be24(h + 1);
                timestamp_ = load_be24(h + 4) | (static_cast<uint32_t>(h[7]) << 24);
                left_ = data_size_;
                expected_previous_ = static_cast<uint32_t>(kFlvTagHeaderSize) + data_size_;
                prefix_size_ = 0;
                shown_ = false;
                state_ = kBody;
                if (data_size_ == 0) {
                    stopped_ = !on_tag(type_, timestamp_, prefix_, 0);
                    shown_ = true;
                    state_ = kPreviousSize;
                }
                break;
            }
            case kBody: {
                const uint32_t avail = static_cast<uint32_t>(std::min<size_t>(left_, end - p));
                if (!shown_) {
                    const uint32_t want = std::min<uint32_t>(data_size_, kBodyPrefix);
                    if (show_ == kAtPrefix && prefix_size_ == 0 && avail >= want) {
                        stopped_ = !on_tag(type_, timestamp_, p, avail);  // in place: the common case
                        shown_ = true;
                    } else {
                        uint32_t k = std::min(want - prefix_size_, avail);
                        memcpy(prefix_ + prefix_size_, p, k);
                        prefix_size_ += k;
                        if (show_ == kAtPrefix && prefix_size_ == want) {
                            stopped_ = !on_tag(type_, timestamp_, prefix_, want);
                            shown_ = true;
                        }
                    }
                }
                p += avail;
                left_ -= avail;
                if (left_ == 0) {
                    state_ = kPreviousSize;
                    if (!shown_) {  // kAtEnd
                        stopped_ = !on_tag(type_, timestamp_, prefix_, prefix_size_);
                        shown_ = true;
                    }
                }
                break;
            }
            case kPreviousSize: {
                if (!gather(&p, end, kFlvPreviousTagSize)) break;
                uint32_t previous = load_be32(small_);
                if (previous != expected_previous_) {
                    return SRS_ERR(kErrorFlvTagSize, "PreviousTagSize %u, expected %u", previous, expected_previous_);
                }
                state_ = kTagHeader;
                break;
            }
        }
    }
    return Error();
}

}  // namespace srs::tool
