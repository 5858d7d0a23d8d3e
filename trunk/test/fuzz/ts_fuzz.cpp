// libFuzzer target for kernel/ts. Two uses of one input:
// - as TS bytes for the demuxer: fed whole and in pieces whose sizes come from
//   the input, it must give the same PES packets, counters and error;
// - as a sequence of FLV tag bodies for the muxer (each a 1-byte type
//   selector, a 2-byte length and the body): whatever it accepts, its output
//   is whole 188-byte packets that our demuxer reads back with no error, no
//   continuity gap, and one PES per frame it reported written.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernel/flv/flv.hpp"
#include "kernel/ts/ts_demuxer.hpp"
#include "kernel/ts/ts_muxer.hpp"

using namespace srs;

namespace {

struct Demuxed {
    std::vector<TsPes> pes;
    int error = 0;
    uint64_t cc_errors = 0, packets = 0, pcrs = 0;
};

Demuxed demux(const uint8_t* data, size_t size, const uint8_t* sizes, size_t nsizes) {
    Demuxed r;
    TsDemuxer d;
    d.set_max_pes_size(1 << 20);
    std::string pending;
    size_t offset = 0, k = 0;
    Error err;
    while (offset < size && err.ok()) {
        size_t piece = nsizes ? static_cast<size_t>(sizes[k++ % nsizes]) * 3 + 1 : size;
        if (piece > size - offset) piece = size - offset;
        pending.append(reinterpret_cast<const char*>(data + offset), piece);
        offset += piece;
        size_t used = 0;
        err = d.feed(reinterpret_cast<const uint8_t*>(pending.data()), pending.size(), &used, &r.pes);
        if (used > pending.size() || used % kTsPacketSize) abort();
        pending.erase(0, used);
    }
    if (err.ok()) err = d.flush(&r.pes);
    r.error = err.ok() ? 0 : err.code();
    err.ignore();
    r.cc_errors = d.stats().cc_errors;
    r.packets = d.stats().packets;
    r.pcrs = d.stats().pcr_count;
    return r;
}

void same_or_abort(const Demuxed& a, const Demuxed& b) {
    if (a.error != b.error || a.cc_errors != b.cc_errors || a.packets != b.packets || a.pcrs != b.pcrs) abort();
    if (a.pes.size() != b.pes.size()) abort();
    for (size_t i = 0; i < a.pes.size(); i++) {
        const TsPes& x = a.pes[i];
        const TsPes& y = b.pes[i];
        if (x.pid != y.pid || x.pts != y.pts || x.dts != y.dts || x.payload != y.payload) abort();
    }
}

void mux_and_check(const uint8_t* data, size_t size) {
    TsMuxerOptions options;
    options.psi_interval_ms = data[0] & 1 ? 100 : 0;
    TsMuxer mux(options);
    std::string out;
    size_t at = 1;
    uint64_t written_frames = 0;
    uint32_t ts = 0;
    while (size - at >= 3) {
        uint8_t type = data[at] & 1 ? kFlvTagVideo : kFlvTagAudio;
        ts += data[at] >> 1;
        size_t len = (static_cast<size_t>(data[at + 1]) << 8 | data[at + 2]) % 4096;
        at += 3;
        if (len > size - at) len = size - at;
        if ((data[at - 3] & 0x7e) == 0x7e) mux.start_segment(&out);
        size_t before = out.size();
        bool written = false;
        Error err = mux.write_flv_tag(type, ts, data + at, len, &out, &written);
        if (!err.ok() && out.size() != before) abort();  // a refused frame appends nothing
        err.ignore();
        written_frames += written;
        at += len;
    }
    if (out.size() % kTsPacketSize) abort();
    Demuxed r = demux(reinterpret_cast<const uint8_t*>(out.data()), out.size(), nullptr, 0);
    if (r.error != 0 || r.cc_errors != 0 || r.pes.size() != written_frames) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    Demuxed whole = demux(data, size, nullptr, 0);
    size_t nsizes = size < 8 ? size : 8;
    Demuxed pieces = demux(data, size, data + size - nsizes, nsizes);
    same_or_abort(whole, pieces);
    mux_and_check(data, size);
    return 0;
}
