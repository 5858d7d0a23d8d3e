// libFuzzer target for protocol/rtmp_chunk and protocol/rtmp_protocol.
//
// The input is what a peer sends after the handshake. It is fed to one
// RtmpProtocol whole and to another in random pieces (the splits come from a
// hash of the input, so a crash reproduces); both must agree on every message,
// on the error and on the control answers (acks aside: they depend on where
// reads end). Every message that comes out is encoded again, through bytes and
// through iovecs, and must decode to itself.
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "protocol/rtmp/rtmp_chunk.hpp"
#include "protocol/rtmp/rtmp_protocol.hpp"

using namespace srs;

namespace {

struct Outcome {
    std::vector<RtmpMessage> msgs;
    std::string output;
    int error = 0;
};

// Feeds `data` in pieces from next_piece() through a receive buffer.
template <class NextPiece>
Outcome run(const uint8_t* data, size_t size, NextPiece next_piece) {
    // Lower limits than the defaults: the code paths are the same, and a
    // 16 MiB allocation per header (page faults, ASAN shadow) would slow the
    // fuzzer a hundredfold.
    RtmpProtocolOptions options;
    options.max_message_size = 256 * 1024;
    options.max_pending_bytes = 1024 * 1024;
    RtmpProtocol proto(options);
    Outcome o;
    std::string buf;
    size_t fed = 0;
    while (fed < size) {
        size_t n = next_piece();
        if (n > size - fed) n = size - fed;
        buf.append(reinterpret_cast<const char*>(data + fed), n);
        fed += n;
        size_t consumed = 0;
        Error err = proto.feed(reinterpret_cast<const uint8_t*>(buf.data()), buf.size(), &consumed);
        if (consumed > buf.size()) abort();
        buf.erase(0, consumed);
        for (RtmpMessage m; proto.pop_message(&m);) o.msgs.push_back(m);
        if (proto.has_output()) o.output += proto.take_output();
        if (!err.ok()) {
            o.error = err.code();
            break;
        }
    }
    if (proto.bytes_in() + buf.size() != fed) abort();
    return o;
}

bool same(const RtmpMessage& a, const RtmpMessage& b) {
    return a.type == b.type && a.timestamp == b.timestamp && a.stream_id == b.stream_id && a.cs_id == b.cs_id &&
           a.payload.size() == b.payload.size() &&
           (a.payload.size() == 0 || memcmp(a.payload.data(), b.payload.data(), a.payload.size()) == 0);
}

// Decodes our own output (it must be valid) and drops acknowledgements.
std::vector<RtmpMessage> control_answers(const std::string& out) {
    RtmpChunkDecoder dec;
    std::vector<RtmpMessage> msgs;
    size_t pos = 0;
    for (;;) {
        size_t consumed = 0;
        Error err = dec.decode(reinterpret_cast<const uint8_t*>(out.data()) + pos, out.size() - pos, &consumed, &msgs);
        if (!err.ok()) abort();
        pos += consumed;
        if (consumed == 0) break;
    }
    if (pos != out.size()) abort();
    std::vector<RtmpMessage> kept;
    for (RtmpMessage& m : msgs) {
        if (m.type != kRtmpAcknowledgement) kept.push_back(m);
    }
    return kept;
}

void round_trip(const RtmpMessage& m, uint32_t chunk_size) {
    std::string wire;
    RtmpChunkEncoder::encode_message(m, chunk_size, &wire);

    std::string first, cont;
    RtmpChunkEncoder::encode_headers(m, chunk_size, &first, &cont);
    std::vector<iovec> iov(2 * RtmpChunkEncoder::chunk_count(m.payload.size(), chunk_size));
    size_t n = RtmpChunkEncoder::fill_iovecs(first, cont, m.payload.data(), m.payload.size(), chunk_size, iov.data(),
                                             iov.size());
    if (n == 0) abort();
    std::string via_iov;
    for (size_t i = 0; i < n; i++) via_iov.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
    if (via_iov != wire) abort();

    RtmpChunkDecoder dec;
    dec.set_chunk_size(chunk_size);
    std::vector<RtmpMessage> out;
    size_t consumed = 0;
    Error err = dec.decode(reinterpret_cast<const uint8_t*>(wire.data()), wire.size(), &consumed, &out);
    if (!err.ok() || consumed != wire.size() || out.size() != 1 || !same(out[0], m)) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // FNV-1a of the input seeds the splits.
    uint64_t state = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++) state = (state ^ data[i]) * 1099511628211ull;
    state |= 1;

    Outcome whole = run(data, size, [&] { return size ? size : 1; });
    Outcome split = run(data, size, [&] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        switch (state % 4) {
            case 0: return size_t{1};
            case 1: return static_cast<size_t>(1 + (state >> 8) % 16);
            case 2: return static_cast<size_t>(1 + (state >> 8) % 300);
            default: return static_cast<size_t>(1 + (state >> 8) % 5000);
        }
    });

    if (whole.error != split.error || whole.msgs.size() != split.msgs.size()) abort();
    for (size_t i = 0; i < whole.msgs.size(); i++) {
        if (!same(whole.msgs[i], split.msgs[i])) abort();
    }
    std::vector<RtmpMessage> a = control_answers(whole.output), b = control_answers(split.output);
    if (a.size() != b.size()) abort();
    for (size_t i = 0; i < a.size(); i++) {
        if (!same(a[i], b[i])) abort();
    }

    for (const RtmpMessage& m : whole.msgs) {
        // Control messages and aggregates never reach the caller.
        if ((m.type >= kRtmpSetChunkSize && m.type <= kRtmpSetPeerBandwidth) || m.type == kRtmpAggregate) abort();
        if (m.cs_id < 2 || m.cs_id > 65599) abort();
        round_trip(m, 128);
        if (m.payload.size() > 128) round_trip(m, 4096);
    }
    return 0;
}
