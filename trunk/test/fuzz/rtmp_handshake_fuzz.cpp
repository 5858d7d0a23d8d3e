// libFuzzer target for protocol/rtmp_handshake.
//
// The input is what a client sends: it is fed to RtmpHandshakeServer in pieces
// whose sizes come from a hash of the input (so a seed is a plain C0C1 capture),
// and then to a complex RtmpHandshakeClient as if it were S0S1S2. Checked on
// every input, beyond ASAN's memory checks:
// - feed() never consumes more than it was given, nor more than the handshake;
//   done() means exactly C0C1 + C2 (or S0S1S2) were consumed;
// - S0S1S2 comes out once, 3073 bytes, and our own client completes against it
//   (in complex mode exactly when the server answered in complex mode);
// - a failure is sticky.
//
// Build (from trunk/, after make utest):
//   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address -Iobjs/inc/utest -Iobjs \
//       test/fuzz/rtmp_handshake_fuzz.cpp src/protocol/rtmp_handshake.cpp src/core/*.cpp \
//       -lssl -lcrypto -o /tmp/hs_fuzz
//   /tmp/hs_fuzz -max_total_time=60 test/fuzz/corpus/rtmp_handshake
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "protocol/rtmp/rtmp_handshake.hpp"

using namespace srs;

namespace {

void check(bool ok) {
    if (!ok) abort();
}

uint64_t hash_of(const uint8_t* data, size_t size) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

// Sizes 1..1600, with 1, the block sizes and their neighbours often.
size_t next_piece(uint64_t* state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    static const size_t kEdges[] = {1, 2, 1535, 1536, 1537, 3072, 3073};
    if ((*state & 3) == 0) return kEdges[(*state >> 2) % (sizeof(kEdges) / sizeof(kEdges[0]))];
    return 1 + (*state >> 8) % 1600;
}

// Feeds data to side in pieces; returns the bytes consumed, or SIZE_MAX after a failure.
template <typename Side>
size_t feed_all(Side* side, const uint8_t* data, size_t size, size_t handshake_size, uint64_t state,
                std::string* output) {
    size_t off = 0, total = 0;
    while (off < size) {
        size_t n = std::min(next_piece(&state), size - off);
        size_t used = 0;
        Error err = side->feed(data + off, n, &used);
        check(used <= n);
        if (err.failed()) {
            err.ignore();
            size_t again = 0;
            Error sticky = side->feed(data + off, n, &again);
            check(sticky.failed() && again == 0);
            sticky.ignore();
            return SIZE_MAX;
        }
        total += used;
        check(total <= handshake_size);
        if (side->has_output()) {
            check(output->empty());
            *output = side->take_output();
            check(!side->has_output());
        }
        // Unconsumed bytes are past the handshake: the side must be done.
        if (used < n) check(side->done());
        off += n;
    }
    check(side->done() == (total == handshake_size));
    return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    uint64_t state = hash_of(data, size) | 1;

    RtmpHandshakeServer server;
    std::string s0s1s2;
    size_t used = feed_all(&server, data, size, kRtmpC0C1Size + kRtmpHandshakeBlockSize, state, &s0s1s2);
    if (used != SIZE_MAX && used >= kRtmpC0C1Size) {
        check(s0s1s2.size() == kRtmpS0S1S2Size);
        check(s0s1s2[0] == 3);
        // Our client accepts whatever our server answered.
        RtmpHandshakeClient client;
        client.start(true);
        std::string c2;
        size_t n = feed_all(&client, reinterpret_cast<const uint8_t*>(s0s1s2.data()), s0s1s2.size(),
                            kRtmpS0S1S2Size, state, &c2);
        check(n == kRtmpS0S1S2Size && client.done() && c2.size() == kRtmpHandshakeBlockSize);
        check(client.used_complex() == server.used_complex());
        if (!server.used_complex()) check(s0s1s2.compare(1 + kRtmpHandshakeBlockSize, std::string::npos,
                                                         reinterpret_cast<const char*>(data) + 1,
                                                         kRtmpHandshakeBlockSize) == 0);
    } else {
        check(s0s1s2.empty());
    }

    // The same bytes as a server's answer to a complex client.
    RtmpHandshakeClient client;
    client.start(true);
    std::string c2;
    size_t n = feed_all(&client, data, size, kRtmpS0S1S2Size, state ^ 0x9E3779B97F4A7C15ull, &c2);
    if (n != SIZE_MAX && n >= kRtmpC0C1Size) check(c2.size() == kRtmpHandshakeBlockSize);
    return 0;
}
