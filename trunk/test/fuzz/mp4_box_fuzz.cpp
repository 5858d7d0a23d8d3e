// libFuzzer target for kernel/mp4's parsers: the box walker (every box inside
// the input and inside its parent, the same top-level boxes with and without
// partial tails allowed, a rewrite with Mp4BoxWriter walking back the same),
// the recovery scan (a prefix that ends on a box boundary of the input, and
// the moov duration patches inside it, the same on a rescan), and
// the OpusHead parser (whose result, written as dOps, must walk back).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/mp4/mp4_box.hpp"
#include "kernel/mp4/mp4_codec_boxes.hpp"
#include "kernel/mp4/mp4_recovery.hpp"

using namespace srs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<Mp4BoxNode> nodes;
    Error err = mp4_walk_tree(data, size, &nodes, 10000);
    const bool tree_ok = err.ok();
    err.ignore();
    for (const Mp4BoxNode& n : nodes) {
        if (n.box.offset + n.box.box_size > size) abort();
        if (n.box.data < data || n.box.data + n.box.size > data + size) abort();
        if (n.box.header_size + n.box.size != n.box.box_size) abort();
        Mp4Box copy = n.box;
        uint8_t version = 0;
        uint32_t flags = 0;
        mp4_read_full_box(&copy, &version, &flags).ignore();
    }

    // Top level, strict and tolerant: the tolerant walk reads the same boxes
    // and stops no later than the strict one failed.
    Mp4BoxReader strict(data, size), tolerant(data, size);
    tolerant.allow_partial_tail(true);
    std::string rewritten;
    Mp4BoxWriter w(&rewritten);
    size_t top = 0;
    for (;;) {
        Mp4Box a, b;
        bool da = false, db = false;
        Error ea = strict.next(&a, &da);
        Error eb = tolerant.next(&b, &db);
        const bool a_ok = ea.ok();
        ea.ignore();
        if (!eb.ok()) {
            // Only size 0 or a size below the header fail a tolerant walk.
            if (a_ok) abort();
            eb.ignore();
            break;
        }
        if (!a_ok) break;
        if (da != db) abort();
        if (da) break;
        if (a.type != b.type || a.box_size != b.box_size || a.offset != b.offset) abort();
        if (a.header_size == 8) {
            char type[5];
            memcpy(type, data + a.offset + 4, 4);
            type[4] = 0;
            size_t at = w.begin(reinterpret_cast<const char(&)[5]>(type));
            w.bytes(a.data, a.size);
            w.end(at);
            top++;
        }
    }
    if (tree_ok && !rewritten.empty()) {
        std::vector<Mp4BoxNode> again;
        Error e2 = mp4_walk_tree(reinterpret_cast<const uint8_t*>(rewritten.data()), rewritten.size(), &again, 10000);
        if (!e2.ok()) abort();
        size_t top_again = 0;
        for (const Mp4BoxNode& n : again) top_again += n.depth == 0;
        if (top_again != top) abort();
    }

    Mp4Recovery rec;
    Error er = mp4_scan_recovery(size,
                                 [data, size](uint64_t offset, size_t n, uint8_t* out, size_t* got) {
                                     if (offset > size) abort();
                                     *got = n < size - offset ? n : static_cast<size_t>(size - offset);
                                     memcpy(out, data + offset, *got);
                                     return Error();
                                 },
                                 &rec);
    if (!er.ok() || rec.length > size || (rec.fragments && !rec.has_moov)) abort();
    if (rec.length) {
        // The kept prefix rescans to itself.
        Mp4Recovery again;
        Error ea = mp4_scan_recovery(rec.length,
                                     [data](uint64_t offset, size_t n, uint8_t* out, size_t* got) {
                                         memcpy(out, data + offset, n);
                                         *got = n;
                                         return Error();
                                     },
                                     &again);
        if (!ea.ok() || again.length != rec.length || again.fragments != rec.fragments || again.truncated) abort();
        // The moov durations it would patch lie in the kept prefix, and the rescan patches the same.
        if (again.duration_ms != rec.duration_ms || again.patches.size() != rec.patches.size()) abort();
        for (size_t i = 0; i < rec.patches.size(); i++) {
            const Mp4Patch& p = rec.patches[i];
            if (p.offset + p.bytes.size() > rec.length || (p.bytes.size() != 4 && p.bytes.size() != 8)) abort();
            if (p.offset != again.patches[i].offset || p.bytes != again.patches[i].bytes) abort();
        }
        if (!rec.patches.empty() && rec.duration_ms < 0) abort();
    }

    OpusConfig opus;
    Error eo = mp4_parse_opus_head(data, size, &opus);
    if (eo.ok()) {
        std::string dops;
        Mp4BoxWriter dw(&dops);
        mp4_write_dops(&dw, opus);
        std::vector<Mp4BoxNode> d;
        Error ed = mp4_walk_tree(reinterpret_cast<const uint8_t*>(dops.data()), dops.size(), &d);
        if (!ed.ok() || d.size() != 1 || d[0].box.box_size != dops.size()) abort();
        if (dops.size() != 19u + (opus.mapping_family ? 2u + opus.channels : 0u)) abort();
    }
    eo.ignore();
    return 0;
}
