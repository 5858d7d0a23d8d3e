// Helpers shared by the unit tests of the decoders: input placed right before
// a PROT_NONE page (so reading one byte too far crashes the test, with or
// without ASAN), bytes from the hex the tests keep their captures in, and
// checks that consume an Error.
//
// Header-only; include it as "utest/test_util.hpp".
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace srs::utest {

// The bytes that hex digits (either case) spell, two digits a byte; anything
// else between them (spaces, line breaks) is skipped, an odd last digit dropped.
inline std::string unhex_string(const std::string& hex) {
    std::string out;
    int nibble = -1;
    for (char c : hex) {
        int v;
        if (c >= '0' && c <= '9') v = c - '0';
        else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
        else continue;
        if (nibble < 0) {
            nibble = v;
        } else {
            out.push_back(static_cast<char>(nibble << 4 | v));
            nibble = -1;
        }
    }
    return out;
}

// The same as a byte vector.
// Lower-case hex of the bytes, two digits a byte: unhex_string's inverse,
// for comparing built bytes with a capture.
inline std::string hex_string(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

inline std::vector<uint8_t> unhex(const std::string& hex) {
    std::string s = unhex_string(hex);
    return std::vector<uint8_t>(s.begin(), s.end());
}

// A mapping whose last page is PROT_NONE. place() copies input so that its
// last byte is the last readable byte before that page: any read past the end
// faults. One GuardPage serves many place() calls (every prefix of an input,
// say); each call overwrites what the previous one placed.
class GuardPage {
  public:
    // Room for inputs of up to `capacity` bytes.
    explicit GuardPage(size_t capacity) {
        page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        size_ = ((capacity + page_ - 1) / page_ + 1) * page_;
        void* m = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) abort();
        base_ = static_cast<uint8_t*>(m);
        if (mprotect(base_ + size_ - page_, page_, PROT_NONE) != 0) abort();
    }
    ~GuardPage() { munmap(base_, size_); }
    GuardPage(const GuardPage&) = delete;
    GuardPage& operator=(const GuardPage&) = delete;

    // Copies n bytes to end right at the guard page; returns where they start.
    const uint8_t* place(const uint8_t* p, size_t n) {
        if (n > size_ - page_) abort();  // larger than the capacity
        uint8_t* dst = base_ + size_ - page_ - n;
        if (n) memcpy(dst, p, n);
        return dst;
    }
    const uint8_t* place(const std::vector<uint8_t>& v) { return place(v.data(), v.size()); }

  private:
    size_t page_ = 0;
    size_t size_ = 0;
    uint8_t* base_ = nullptr;
};

// A copy of `bytes` that ends right at a PROT_NONE page.
class GuardedBytes {
  public:
    explicit GuardedBytes(const std::string& bytes)
        : guard_(bytes.size()),
          data_(guard_.place(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())),
          size_(bytes.size()) {}
    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }

  private:
    GuardPage guard_;
    const uint8_t* data_;
    size_t size_;
};

// Test-side checks that consume the error (an unconsumed Error reports itself
// when destroyed): whether it is a success, and its code (0 for a success).
inline bool ok(Error err) {
    bool good = err.ok();
    err.ignore();
    return good;
}

inline int code(Error err) {
    int c = err.ok() ? 0 : err.code();
    err.ignore();
    return c;
}

}  // namespace srs::utest
