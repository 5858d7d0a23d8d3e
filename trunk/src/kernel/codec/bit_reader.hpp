// A bounds-checked MSB-first bit reader for codec headers (H.264/H.265 SPS,
// AV1 sequence header, AAC AudioSpecificConfig), plus the NAL unit to RBSP
// conversion those parsers need.
//
// Guarantees: no read ever touches a byte outside [data, data + size). A read
// that would pass the end fails: it returns false, yields 0 and makes the
// reader "failed" for good (sticky), so a parser may read a whole section and
// check ok() once, or test each read. Exp-Golomb codes with more than 31
// leading zeros fail too (their value would not fit in 32 bits), which also
// bounds the work done on a run of zero bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace srs {

class BitReader {
  public:
    BitReader(const uint8_t* data, size_t size) : data_(data), size_bits_(static_cast<uint64_t>(size) * 8) {}

    bool ok() const { return !failed_; }
    uint64_t bits_left() const { return failed_ ? 0 : size_bits_ - pos_; }
    uint64_t position() const { return pos_; }
    bool byte_aligned() const { return (pos_ & 7) == 0; }

    // Reads n bits (0 <= n <= 32) into *v.
    bool read_bits(int n, uint32_t* v) {
        *v = 0;
        if (failed_ || n < 0 || n > 32 || static_cast<uint64_t>(n) > size_bits_ - pos_) return fail();
        uint32_t out = 0;
        for (int i = 0; i < n; i++) {
            uint8_t byte = data_[pos_ >> 3];
            out = (out << 1) | ((byte >> (7 - (pos_ & 7))) & 1u);
            pos_++;
        }
        *v = out;
        return true;
    }
    bool skip_bits(uint64_t n) {
        if (failed_ || n > size_bits_ - pos_) return fail();
        pos_ += n;
        return true;
    }
    // ue(v): unsigned Exp-Golomb (H.264 9.1). At most 31 leading zeros.
    bool read_ue(uint32_t* v) {
        *v = 0;
        int zeros = 0;
        uint32_t bit = 0;
        for (;;) {
            if (!read_bits(1, &bit)) return false;
            if (bit) break;
            if (++zeros > 31) return fail();
        }
        uint32_t suffix = 0;
        if (!read_bits(zeros, &suffix)) return false;
        *v = static_cast<uint32_t>(((uint64_t{1} << zeros) - 1) + suffix);
        return true;
    }
    // se(v): signed Exp-Golomb (H.264 9.1.1).
    bool read_se(int32_t* v) {
        *v = 0;
        uint32_t k = 0;
        if (!read_ue(&k)) return false;
        int64_t mag = (static_cast<int64_t>(k) + 1) / 2;
        *v = static_cast<int32_t>((k & 1) ? mag : -mag);
        return true;
    }

    // Sticky convenience forms: 0 after a failure; check ok() afterwards.
    uint32_t u(int n) {
        uint32_t v = 0;
        read_bits(n, &v);
        return v;
    }
    bool flag() { return u(1) != 0; }
    uint32_t ue() {
        uint32_t v = 0;
        read_ue(&v);
        return v;
    }
    int32_t se() {
        int32_t v = 0;
        read_se(&v);
        return v;
    }

  private:
    bool fail() {
        failed_ = true;
        return false;
    }
    const uint8_t* data_;
    uint64_t size_bits_;
    uint64_t pos_ = 0;
    bool failed_ = false;
};

// NAL unit payload -> RBSP: drops every emulation_prevention_three_byte
// (0x03 after two zero bytes, H.264 7.3.1 / H.265 7.3.1.1). Replaces *out.
inline void nal_to_rbsp(const uint8_t* p, size_t n, std::vector<uint8_t>* out) {
    out->clear();
    out->reserve(n);
    int zeros = 0;
    for (size_t i = 0; i < n; i++) {
        if (zeros >= 2 && p[i] == 0x03) {
            zeros = 0;
            continue;
        }
        zeros = (p[i] == 0) ? zeros + 1 : 0;
        out->push_back(p[i]);
    }
}

}  // namespace srs
