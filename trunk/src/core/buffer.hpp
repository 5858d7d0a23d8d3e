// Byte buffers for sans-IO codecs.
//
// ByteReader walks a borrowed, bounded span; every read is checked against the
// end, and a read past it fails (returns false) without touching memory beyond
// the span. Decoders call require(n) once and then read freely, or use the
// checked read_* forms one at a time. ByteWriter appends to a std::string.
// IoBuffer is a receive buffer for sockets: data is appended at the tail and
// consumed from the head; compact() moves the unread bytes to the front.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/bytes.hpp"

namespace srs {

class ByteReader {
  public:
    ByteReader(const void* data, size_t size) : p_(static_cast<const uint8_t*>(data)), end_(p_ + size), begin_(p_) {}

    size_t remaining() const { return static_cast<size_t>(end_ - p_); }
    size_t position() const { return static_cast<size_t>(p_ - begin_); }
    bool empty() const { return p_ == end_; }
    bool require(size_t n) const { return remaining() >= n; }
    const uint8_t* current() const { return p_; }

    bool skip(size_t n) {
        if (!require(n)) return false;
        p_ += n;
        return true;
    }
    bool read_u8(uint8_t* v) {
        if (!require(1)) return false;
        *v = *p_++;
        return true;
    }
    bool read_u16be(uint16_t* v) {
        if (!require(2)) return false;
        *v = load_be16(p_);
        p_ += 2;
        return true;
    }
    bool read_u24be(uint32_t* v) {
        if (!require(3)) return false;
        *v = load_be24(p_);
        p_ += 3;
        return true;
    }
    bool read_u32be(uint32_t* v) {
        if (!require(4)) return false;
        *v = load_be32(p_);
        p_ += 4;
        return true;
    }
    bool read_u32le(uint32_t* v) {
        if (!require(4)) return false;
        *v = load_le32(p_);
        p_ += 4;
        return true;
    }
    bool read_u64be(uint64_t* v) {
        if (!require(8)) return false;
        *v = load_be64(p_);
        p_ += 8;
        return true;
    }
    bool read_bytes(void* out, size_t n) {
        if (!require(n)) return false;
        memcpy(out, p_, n);
        p_ += n;
        return true;
    }
    bool read_string(std::string* out, size_t n) {
        if (!require(n)) return false;
        out->assign(reinterpret_cast<const char*>(p_), n);
        p_ += n;
        return true;
    }

  private:
    const uint8_t* p_;
    const uint8_t* end_;
    const uint8_t* begin_;
};

class ByteWriter {
  public:
    explicit ByteWriter(std::string* out) : out_(out) {}
    void write_u8(uint8_t v) { out_->push_back(static_cast<char>(v)); }
    void write_u16be(uint16_t v) {
        uint8_t b[2];
        store_be16(b, v);
        write_bytes(b, 2);
    }
    void write_u24be(uint32_t v) {
        uint8_t b[3];
        store_be24(b, v);
        write_bytes(b, 3);
    }
    void write_u32be(uint32_t v) {
        uint8_t b[4];
        store_be32(b, v);
        write_bytes(b, 4);
    }
    void write_u32le(uint32_t v) {
        uint8_t b[4];
        store_le32(b, v);
        write_bytes(b, 4);
    }
    void write_u64be(uint64_t v) {
        uint8_t b[8];
        store_be64(b, v);
        write_bytes(b, 8);
    }
    void write_bytes(const void* data, size_t n) { out_->append(static_cast<const char*>(data), n); }
    size_t size() const { return out_->size(); }

  private:
    std::string* out_;
};

class IoBuffer {
  public:
    explicit IoBuffer(size_t capacity = 4096);
    ~IoBuffer();
    IoBuffer(const IoBuffer&) = delete;
    IoBuffer& operator=(const IoBuffer&) = delete;

    const uint8_t* data() const { return data_ + head_; }
    size_t size() const { return tail_ - head_; }
    // Room to receive into: at least `min_free` bytes after ensure_free().
    uint8_t* free_space() { return data_ + tail_; }
    size_t free_size() const { return capacity_ - tail_; }
    // Makes at least n bytes writable at the tail (compacts, then grows).
    // Returns false when that would pass max_capacity.
    bool ensure_free(size_t n);
    void commit(size_t n) { tail_ += n; }
    void consume(size_t n);
    void clear() { head_ = tail_ = 0; }
    size_t capacity() const { return capacity_; }
    void set_max_capacity(size_t max) { max_capacity_ = max; }
    // Gives memory back: the capacity becomes max(capacity, size()) (the
    // data moves to the front). For a long-lived buffer that needed more at
    // first than it will from now on.
    void shrink_to(size_t capacity);

  private:
    void compact();
    uint8_t* data_;
    size_t capacity_;
    size_t max_capacity_ = 64 * 1024 * 1024;
    size_t head_ = 0;
    size_t tail_ = 0;
};

}  // namespace srs
