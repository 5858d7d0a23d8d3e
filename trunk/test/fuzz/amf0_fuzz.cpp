// libFuzzer target for kernel/amf0: decode everything, re-encode what decoded,
// decode that again and check it is a fixed point (encode is canonical, so the
// second encoding must equal the first byte for byte).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernel/flv/amf0.hpp"

using namespace srs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ByteReader r(data, size);
    std::vector<Amf0Value> values;
    Error err = amf0_decode_all(&r, &values);
    err.ignore();

    // Whatever decoded before an error is still a valid value list.
    std::string first;
    ByteWriter w1(&first);
    size_t expected_size = 0;
    for (const Amf0Value& v : values) {
        amf0_encode(&w1, v);
        expected_size += amf0_encoded_size(v);
        (void)v.to_debug_string();
    }
    if (expected_size != first.size()) abort();

    ByteReader r2(first.data(), first.size());
    std::vector<Amf0Value> again;
    Error err2 = amf0_decode_all(&r2, &again);
    // Re-encoded values use no references; one decode of them must succeed unless a
    // limit that counts replayed references was the reason the first pass succeeded
    // with expanded values (then the expansion may pass the value budget).
    if (!err2.ok()) {
        int code = err2.code();
        if (code != kErrorAmf0TooManyValues) abort();
        return 0;
    }
    if (again.size() != values.size()) abort();

    std::string second;
    ByteWriter w2(&second);
    for (const Amf0Value& v : again) amf0_encode(&w2, v);
    if (second != first) abort();

    // Single-value decode must agree with the first value of decode_all.
    if (size > 0) {
        ByteReader r3(data, size);
        Amf0Value one;
        Error err3 = amf0_decode(&r3, &one);
        if (err3.ok() && !values.empty()) {
            std::string a, b;
            ByteWriter wa(&a), wb(&b);
            amf0_encode(&wa, one);
            amf0_encode(&wb, values[0]);
            if (a != b) abort();
        }
        err3.ignore();
    }
    return 0;
}
