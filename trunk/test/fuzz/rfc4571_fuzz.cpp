// libFuzzer target for protocol/rtc/rfc4571: the first byte picks a piece
// size, the rest is a TCP stream fed in those pieces (and taken frame by frame
// after each feed). Every frame given must be one a plain one-shot walk of the
// stream finds, in order, with 1 <= size <= max_frame; the decoder must fail
// exactly where the walk meets a bad length, and must never hold more than one
// partial frame plus one piece. Each frame framed again must equal its bytes
// in the stream.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "protocol/rtc/rfc4571.hpp"

using namespace srs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    size_t piece = 1 + data[0] * 37;                // 1 .. 9436 bytes per read
    size_t max_frame = data[1] & 1 ? 65535 : 1500;  // the default and an MTU-sized limit
    const uint8_t* stream = data + 2;
    size_t len = size - 2;

    // The reference: walk the whole stream at once.
    struct Ref { size_t offset, size; };
    std::vector<Ref> frames;
    bool broken = false;
    size_t at = 0;
    while (len - at >= 2) {
        size_t n = (static_cast<size_t>(stream[at]) << 8) | stream[at + 1];
        if (n == 0 || n > max_frame) {
            broken = true;
            break;
        }
        if (len - at - 2 < n) break;
        frames.push_back({at + 2, n});
        at += 2 + n;
    }

    Rfc4571Decoder dec(max_frame);
    size_t taken = 0;
    bool failed = false;
    for (size_t off = 0; off < len && !failed; off += piece) {
        size_t n = len - off < piece ? len - off : piece;
        Error err = dec.feed(stream + off, n);
        if (!err.ok()) {
            err.ignore();
            failed = true;
        }
        if (dec.buffered() > max_frame + 2 + piece) abort();
        uint8_t* frame = nullptr;
        size_t fsize = 0;
        while (dec.next(&frame, &fsize)) {
            if (taken >= frames.size()) abort();
            const Ref& r = frames[taken++];
            if (fsize != r.size || fsize == 0 || fsize > max_frame) abort();
            if (memcmp(frame, stream + r.offset, fsize) != 0) abort();
            uint8_t h[2];
            if (!rfc4571_header(fsize, h).ok()) abort();
            if (memcmp(h, stream + r.offset - 2, 2) != 0) abort();
        }
    }
    if (taken != frames.size()) abort();
    if (failed != broken) abort();
    return 0;
}
