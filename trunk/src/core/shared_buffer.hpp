// A reference-counted block of bytes, shared without copying: one media
// message's payload is read from the publisher's socket once and then held
// by the GOP cache and every player's queue at the same time.
//
// The count is not atomic: everything runs on one OS thread (the coroutine
// runtime), so an atomic would only cost time on the fan-out path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace srs {

class SharedBuffer {
  public:
    // A block of `size` uninitialised bytes with one reference.
    static SharedBuffer* create(size_t size) {
        void* mem = malloc(sizeof(SharedBuffer) + (size ? size : 1));
        if (!mem) abort();
        return new (mem) SharedBuffer(size);
    }
    static SharedBuffer* copy_of(const void* data, size_t size) {
        SharedBuffer* b = create(size);
        if (size) memcpy(b->data(), data, size);
        return b;
    }
    uint8_t* data() { return reinterpret_cast<uint8_t*>(this + 1); }
    const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this + 1); }
    size_t size() const { return size_; }
    void ref() { refs_++; }
    void unref() {
        if (--refs_ == 0) {
            this->~SharedBuffer();
            free(this);
        }
    }
    int refs() const { return refs_; }

  private:
    explicit SharedBuffer(size_t size) : size_(size) {}
    size_t size_;
    int refs_ = 1;
};

// Owning handle to a SharedBuffer (like a shared_ptr, with no control block).
class SharedBytes {
  public:
    SharedBytes() = default;
    // Adopts the reference of a freshly created buffer.
    explicit SharedBytes(SharedBuffer* adopt) : buf_(adopt) {}
    static SharedBytes allocate(size_t size) { return SharedBytes(SharedBuffer::create(size)); }
    static SharedBytes copy_of(const void* data, size_t size) { return SharedBytes(SharedBuffer::copy_of(data, size)); }

    SharedBytes(const SharedBytes& o) : buf_(o.buf_) {
        if (buf_) buf_->ref();
    }
    SharedBytes(SharedBytes&& o) noexcept : buf_(o.buf_) { o.buf_ = nullptr; }
    SharedBytes& operator=(SharedBytes o) noexcept {
        std::swap(buf_, o.buf_);
        return *this;
    }
    ~SharedBytes() {
        if (buf_) buf_->unref();
    }

    uint8_t* data() { return buf_ ? buf_->data() : nullptr; }
    const uint8_t* data() const { return buf_ ? buf_->data() : nullptr; }
    size_t size() const { return buf_ ? buf_->size() : 0; }
    bool empty() const { return size() == 0; }
    explicit operator bool() const { return buf_ != nullptr; }
    int use_count() const { return buf_ ? buf_->refs() : 0; }

  private:
    SharedBuffer* buf_ = nullptr;
};

}  // namespace srs
