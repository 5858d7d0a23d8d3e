#include "app/rtc/rtc_random.hpp"

#include <openssl/rand.h>

#include <random>

namespace srs {

namespace {

void random_bytes(uint8_t* out, size_t n) {
    if (RAND_bytes(out, static_cast<int>(n)) == 1) return;
    // OpenSSL's generator failing is not a reason to refuse a session; the
    // values are then unpredictable only as far as random_device is.
    std::random_device rd;
    for (size_t i = 0; i < n; i++) out[i] = static_cast<uint8_t>(rd());
}

}  // namespace

std::string rtc_random_string(size_t n) {
    static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string s(n, 'a');
    uint8_t buf[64];
    for (size_t i = 0; i < n; i++) {
        if (i % sizeof(buf) == 0) random_bytes(buf, sizeof(buf));
        s[i] = kChars[buf[i % sizeof(buf)] % 36];
    }
    return s;
}

uint32_t rtc_random_u32() {
    uint32_t v = 0;
    while (v == 0) random_bytes(reinterpret_cast<uint8_t*>(&v), sizeof(v));
    return v;
}

}  // namespace srs
