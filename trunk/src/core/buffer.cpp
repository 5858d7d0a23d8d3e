#include "core/buffer.hpp"

#include <cstdlib>

namespace srs {

IoBuffer::IoBuffer(size_t capacity) : data_(static_cast<uint8_t*>(malloc(capacity ? capacity : 1))), capacity_(capacity ? capacity : 1) {
    if (!data_) abort();
}

IoBuffer::~IoBuffer() { free(data_); }

void IoBuffer::compact() {
    if (head_ == 0) return;
    size_t n = size();
    if (n) memmove(data_, data_ + head_, n);
    head_ = 0;
    tail_ = n;
}

void IoBuffer::shrink_to(size_t capacity) {
    compact();
    size_t want = capacity > tail_ ? capacity : tail_;
    if (want == 0) want = 1;
    if (want >= capacity_) return;
    uint8_t* p = static_cast<uint8_t*>(realloc(data_, want));
    if (!p) return;  // keeps the bigger block
    data_ = p;
    capacity_ = want;
}

bool IoBuffer::ensure_free(size_t n) {
    if (free_size() >= n) return true;
    compact();
    if (free_size() >= n) return true;
    size_t need = tail_ + n;
    if (need > max_capacity_) return false;
    size_t grown = capacity_ * 2;
    if (grown < need) grown = need;
    if (grown > max_capacity_) grown = max_capacity_;
    uint8_t* p = static_cast<uint8_t*>(realloc(data_, grown));
    if (!p) return false;
    data_ = p;
    capacity_ = grown;
    return true;
}

void IoBuffer::consume(size_t n) {
    head_ += n < size() ? n : size();
    if (head_ == tail_) head_ = tail_ = 0;
}

}  // namespace srs
