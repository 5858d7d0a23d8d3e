// libFuzzer target for protocol/rtc/srtp_gcm: the input, taken as an SRTP and
// as an SRTCP packet, must be refused by a receiver (no tag can match) without
// reading outside it; then, if it parses as RTP (or is >= 8 bytes, as RTCP),
// our sender protects it, the receiver must give back exactly the input, a
// second delivery must be a replay, and a copy with one bit flipped (the bit
// chosen by the input) must be refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "protocol/rtc/srtp_gcm.hpp"

using namespace srs;

namespace {

const uint8_t kKey[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
const uint8_t kSalt[12] = {21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

void check(bool ok) {
    if (!ok) abort();
}

void round_trip(const uint8_t* data, size_t size, bool rtcp) {
    SrtpGcmSender tx;
    SrtpGcmReceiver rx(1024);
    check(tx.initialize(kKey, 16, kSalt, 12).ok());
    check(rx.initialize(kKey, 16, kSalt, 12).ok());
    std::vector<uint8_t> buf(size + 20);
    memcpy(buf.data(), data, size);
    size_t n = 0;
    Error err = rtcp ? tx.protect_rtcp(buf.data(), size, buf.size(), &n) : tx.protect_rtp(buf.data(), size, buf.size(), &n);
    if (err.failed()) return;  // not a parsable RTP header
    buf.resize(n);
    std::vector<uint8_t> wire = buf, flipped = buf;
    size_t out = 0;
    check((rtcp ? rx.unprotect_rtcp(buf.data(), n, &out) : rx.unprotect_rtp(buf.data(), n, &out)).ok());
    check(out == size && memcmp(buf.data(), data, size) == 0);
    buf = wire;
    err = rtcp ? rx.unprotect_rtcp(buf.data(), n, &out) : rx.unprotect_rtp(buf.data(), n, &out);
    check(err.failed() && err.describe().find("replay") != std::string::npos);
    size_t bit = (size ? data[0] * 131u + data[size - 1] : 0) % (n * 8);
    flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    SrtpGcmReceiver fresh(1024);
    check(fresh.initialize(kKey, 16, kSalt, 12).ok());
    check((rtcp ? fresh.unprotect_rtcp(flipped.data(), n, &out) : fresh.unprotect_rtp(flipped.data(), n, &out)).failed());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    SrtpGcmReceiver rx(1024);
    check(rx.initialize(kKey, 16, kSalt, 12).ok());
    std::vector<uint8_t> a(data, data + size), b = a;
    size_t out = 0;
    check(rx.unprotect_rtp(a.data(), a.size(), &out).failed());
    check(rx.unprotect_rtcp(b.data(), b.size(), &out).failed());
    round_trip(data, size, false);
    round_trip(data, size, true);
    return 0;
}
