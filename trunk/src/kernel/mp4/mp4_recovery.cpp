#include "kernel/mp4/mp4_recovery.hpp"

#include "core/bytes.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

Error mp4_scan_recovery(uint64_t file_size, const Mp4ReadAt& read_at, Mp4Recovery* out) {
    *out = Mp4Recovery();
    uint64_t pos = 0;
    bool moof_open = false;  // a moof seen, its mdat not yet
    while (pos < file_size) {
        uint8_t h[16];
        size_t got = 0;
        const size_t want = file_size - pos < sizeof(h) ? static_cast<size_t>(file_size - pos) : sizeof(h);
        if (Error err = read_at(pos, want, h, &got); !err.ok()) return SRS_WRAP(err, "read box header at %llu",
                                                                            static_cast<unsigned long long>(pos));
        if (got < 8) break;
        uint64_t size = load_be32(h);
        size_t header = 8;
        if (size == 1) {
            if (got < 16) break;
            size = load_be64(h + 8);
            header = 16;
        }
        if (size < header || size > file_size - pos) break;  // size 0 too: a recorder never writes it
        const uint32_t type = load_be32(h + 4);
        pos += size;
        if (type == make_fourcc("moov")) {
            out->has_moov = true;
            out->length = pos;
        } else if (type == make_fourcc("moof")) {
            if (!out->has_moov) break;
            moof_open = true;
        } else if (type == make_fourcc("mdat")) {
            if (moof_open) {
                out->fragments++;
                out->length = pos;
            }
            moof_open = false;
        }
    }
    out->truncated = out->length < file_size;
    return Error();
}

}  // namespace srs
