// Micro-benchmark of protocol/rtc/srtp: protect a 1200-byte RTP payload (plus
// a 12-byte header) in place, in a loop, with each DTLS-SRTP profile; then
// unprotect; with AEAD_AES_128_GCM both ours (OpenSSL) and libsrtp's. Then
// SRTCP of a 40-byte compound. Prints ns per packet and exits. Not a test: numbers depend on the host.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "protocol/rtc/srtp.hpp"

using namespace srs;

namespace {

const int kPackets = 100000;
const size_t kPayload = 1200;

double now_ns() {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void fill_header(uint8_t* p, uint16_t seq) {
    const uint8_t h[12] = {0x80, 0x60, uint8_t(seq >> 8), uint8_t(seq), 0, 0, 0x03, 0xe8, 0x11, 0x22, 0x33, 0x44};
    memcpy(p, h, sizeof(h));
}

int run(SrtpProfile profile, bool libsrtp) {
    std::vector<uint8_t> m(2 * (srtp_key_length(profile) + srtp_salt_length(profile)));
    for (size_t i = 0; i < m.size(); i++) m[i] = static_cast<uint8_t>(i * 7 + 3);
    SrtpKeys local, remote;
    SrtpSession sender, receiver;
    if (libsrtp) {
        sender.protect_rtp_with_libsrtp();
        receiver.protect_rtp_with_libsrtp();
    }
    if (srtp_split_keying_material(profile, m.data(), m.size(), false, &local, &remote).failed() ||
        sender.initialize(profile, local, remote).failed()) {
        return 1;
    }
    if (srtp_split_keying_material(profile, m.data(), m.size(), true, &local, &remote).failed() ||
        receiver.initialize(profile, local, remote).failed()) {
        return 1;
    }
    const size_t len = 12 + kPayload;
    uint8_t buf[12 + kPayload + kSrtpMaxTrailer];
    uint8_t copy[sizeof(buf)];
    memset(buf, 0x5a, sizeof(buf));
    // Protect and unprotect timed apart, each with two clock reads per packet.
    double protect_ns = 0, unprotect_ns = 0;
    for (int i = 0; i < kPackets; i++) {
        fill_header(buf, static_cast<uint16_t>(i));
        size_t n = 0;
        double t0 = now_ns();
        if (Error err = sender.protect_rtp(buf, len, sizeof(buf), &n); err.failed()) {
            fprintf(stderr, "%s\n", err.describe().c_str());
            return 1;
        }
        double t1 = now_ns();
        memcpy(copy, buf, n);
        size_t out = 0;
        double t2 = now_ns();
        if (Error err = receiver.unprotect_rtp(copy, n, &out); err.failed()) {
            fprintf(stderr, "%s\n", err.describe().c_str());
            return 1;
        }
        double t3 = now_ns();
        protect_ns += t1 - t0;
        unprotect_ns += t3 - t2;
    }
    // A tight protect-only loop (sequence numbers continue past the wrap).
    double t0 = now_ns();
    for (int i = 0; i < kPackets; i++) {
        fill_header(buf, static_cast<uint16_t>(kPackets + i));
        size_t n = 0;
        if (sender.protect_rtp(buf, len, sizeof(buf), &n).failed()) return 1;
    }
    double tight = (now_ns() - t0) / kPackets;
    const char* impl = profile == SrtpProfile::kAeadAes128Gcm && !libsrtp ? "openssl" : "libsrtp";
    printf("%-22s %-7s RTP  protect %6.0f ns/pkt (tight loop %6.0f ns/pkt, %5.0f MB/s)  unprotect %6.0f ns/pkt\n",
           srtp_profile_name(profile), impl, protect_ns / kPackets, tight, len / tight * 1e3, unprotect_ns / kPackets);
    // SRTCP: an SR-sized compound (40 bytes), protect then unprotect.
    double rtcp_p = 0, rtcp_u = 0;
    const int kRtcp = kPackets / 10;
    for (int i = 0; i < kRtcp; i++) {
        uint8_t r[40 + kSrtpMaxTrailer] = {0x80, 200, 0, 9, 0x55, 0x66, 0x77, 0x88};
        size_t n = 0, out = 0;
        double a = now_ns();
        if (sender.protect_rtcp(r, 40, sizeof(r), &n).failed()) return 1;
        double b = now_ns();
        if (receiver.unprotect_rtcp(r, n, &out).failed()) return 1;
        double c = now_ns();
        rtcp_p += b - a;
        rtcp_u += c - b;
    }
    printf("%-22s %-7s RTCP protect %6.0f ns/pkt  unprotect %6.0f ns/pkt\n", srtp_profile_name(profile), impl,
           rtcp_p / kRtcp, rtcp_u / kRtcp);
    return 0;
}

}  // namespace

int main() {
    if (Error err = srtp_library_init(); err.failed()) {
        fprintf(stderr, "%s\n", err.describe().c_str());
        return 1;
    }
    printf("srtp_bench: %d packets of %zu bytes (12 header + %zu payload)\n", kPackets, 12 + kPayload, kPayload);
    if (run(SrtpProfile::kAes128CmSha1_80, true) != 0) return 1;
    if (run(SrtpProfile::kAeadAes128Gcm, true) != 0) return 1;
    if (run(SrtpProfile::kAeadAes128Gcm, false) != 0) return 1;
    return 0;
}
