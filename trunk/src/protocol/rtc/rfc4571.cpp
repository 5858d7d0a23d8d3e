#include "protocol/rtc/rfc4571.hpp"

#include <algorithm>
#include <cstring>

namespace srs {

namespace {
size_t read_length(const uint8_t* p) { return (static_cast<size_t>(p[0]) << 8) | p[1]; }
}  // namespace

Rfc4571Decoder::Rfc4571Decoder(size_t max_frame) : max_frame_(std::min(max_frame, kRfc4571MaxFrame)) {}

Error Rfc4571Decoder::feed(const uint8_t* data, size_t size) {
    if (failed_) return SRS_ERR(kErrorRfc4571Frame, "stream already broken by a frame of %zu bytes", bad_length_);
    // Drop what was handed out, so the buffer holds only what is pending.
    if (head_ > 0) {
        size_t pending = buf_.size() - head_;
        if (pending > 0) memmove(buf_.data(), buf_.data() + head_, pending);
        buf_.resize(pending);
        checked_ -= head_;
        head_ = 0;
    }
    if (size > 0) buf_.insert(buf_.end(), data, data + size);

    // Check each header once its two bytes are in; advance over whole frames.
    while (buf_.size() - checked_ >= kRfc4571HeaderSize) {
        size_t length = read_length(buf_.data() + checked_);
        if (length == 0 || length > max_frame_) {
            failed_ = true;
            bad_length_ = length;
            return SRS_ERR(kErrorRfc4571Frame, "frame of %zu bytes (allowed 1..%zu)", length, max_frame_);
        }
        if (buf_.size() - checked_ - kRfc4571HeaderSize < length) break;
        checked_ += kRfc4571HeaderSize + length;
    }
    return Error();
}

bool Rfc4571Decoder::next(uint8_t** frame, size_t* size) {
    if (head_ >= checked_) return false;
    size_t length = read_length(buf_.data() + head_);
    *frame = buf_.data() + head_ + kRfc4571HeaderSize;
    *size = length;
    head_ += kRfc4571HeaderSize + length;
    return true;
}

size_t Rfc4571Decoder::buffered() const { return buf_.size() - head_; }

Error rfc4571_header(size_t size, uint8_t out[2]) {
    if (size == 0 || size > kRfc4571MaxFrame) {
        return SRS_ERR(kErrorRfc4571Frame, "cannot frame %zu bytes (allowed 1..%zu)", size, kRfc4571MaxFrame);
    }
    out[0] = static_cast<uint8_t>(size >> 8);
    out[1] = static_cast<uint8_t>(size);
    return Error();
}

}  // namespace srs
