#include "kernel/mp4/mp4_box.hpp"

#include "core/bytes.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

size_t Mp4BoxWriter::begin(const char (&type)[5]) {
    size_t at = out_->size();
    u32(0);  // patched by end()
    fourcc(type);
    return at;
}

size_t Mp4BoxWriter::begin_full(const char (&type)[5], uint8_t version, uint32_t flags) {
    size_t at = begin(type);
    u8(version);
    u24(flags);
    return at;
}

void Mp4BoxWriter::end(size_t offset) {
    store_be32(&(*out_)[offset], static_cast<uint32_t>(out_->size() - offset));
}

void Mp4BoxWriter::u16(uint16_t v) {
    char b[2];
    store_be16(b, v);
    out_->append(b, 2);
}

void Mp4BoxWriter::u24(uint32_t v) {
    char b[3];
    store_be24(b, v);
    out_->append(b, 3);
}

void Mp4BoxWriter::u32(uint32_t v) {
    char b[4];
    store_be32(b, v);
    out_->append(b, 4);
}

void Mp4BoxWriter::u64(uint64_t v) {
    char b[8];
    store_be64(b, v);
    out_->append(b, 8);
}

std::string Mp4Box::type_name() const {
    std::string s(4, '?');
    for (int i = 0; i < 4; i++) {
        char c = static_cast<char>(type >> (24 - 8 * i));
        if (c >= 0x20 && c <= 0x7e) s[i] = c;
    }
    return s;
}

Error Mp4BoxReader::next(Mp4Box* box, bool* done) {
    *done = false;
    if (pos_ == n_ || partial_) {
        *done = true;
        return Error();
    }
    const size_t left = n_ - pos_;
    const uint8_t* p = p_ + pos_;
    if (left < 8) {
        if (allow_partial_tail_) {
            partial_ = *done = true;
            return Error();
        }
        return SRS_ERR(kErrorMp4Box, "box header truncated at %zu (%zu bytes left)", pos_, left);
    }
    uint64_t size = load_be32(p);
    size_t header = 8;
    if (size == 1) {
        if (left < 16) {
            if (allow_partial_tail_) {
                partial_ = *done = true;
                return Error();
            }
            return SRS_ERR(kErrorMp4Box, "largesize truncated at %zu", pos_);
        }
        size = load_be64(p + 8);
        header = 16;
    } else if (size == 0) {
        return SRS_ERR(kErrorMp4Box, "box of size 0 (to end of file) at %zu is not taken", pos_);
    }
    if (size < header) return SRS_ERR(kErrorMp4Box, "box size %llu below its header at %zu",
                                      static_cast<unsigned long long>(size), pos_);
    if (size > left) {
        if (allow_partial_tail_) {
            partial_ = *done = true;
            return Error();
        }
        return SRS_ERR(kErrorMp4Box, "box '%c%c%c%c' of %llu bytes at %zu runs past the %zu bytes left", p[4], p[5],
                       p[6], p[7], static_cast<unsigned long long>(size), pos_, left);
    }
    box->type = load_be32(p + 4);
    box->offset = pos_;
    box->box_size = size;
    box->header_size = header;
    box->data = p + header;
    box->size = static_cast<size_t>(size) - header;
    pos_ += static_cast<size_t>(size);
    return Error();
}

Error mp4_read_full_box(Mp4Box* box, uint8_t* version, uint32_t* flags) {
    if (box->size < 4) return SRS_ERR(kErrorMp4Box, "full box '%s' without version and flags", box->type_name().c_str());
    *version = box->data[0];
    *flags = load_be24(box->data + 1);
    box->data += 4;
    box->size -= 4;
    return Error();
}

namespace {

// Bytes to skip in a box's payload before its child boxes, or -1 when it has none we walk.
long children_at(uint32_t type) {
    switch (type) {
        case make_fourcc("moov"): case make_fourcc("trak"): case make_fourcc("mdia"): case make_fourcc("minf"):
        case make_fourcc("dinf"): case make_fourcc("stbl"): case make_fourcc("mvex"): case make_fourcc("moof"):
        case make_fourcc("traf"): case make_fourcc("edts"): case make_fourcc("mfra"):
            return 0;
        case make_fourcc("stsd"): case make_fourcc("dref"):
            return 8;  // version, flags, entry_count
        case make_fourcc("avc1"): case make_fourcc("avc3"): case make_fourcc("hvc1"): case make_fourcc("hev1"):
            return 78;  // VisualSampleEntry fields
        case make_fourcc("mp4a"): case make_fourcc("Opus"):
            return 28;  // AudioSampleEntry fields
        default:
            return -1;
    }
}

Error walk(const uint8_t* data, size_t size, int depth, std::vector<Mp4BoxNode>* out, size_t max_boxes,
           uint64_t base) {
    if (depth > 16) return SRS_ERR(kErrorMp4Box, "boxes nested deeper than 16");
    Mp4BoxReader reader(data, size);
    for (;;) {
        Mp4Box box;
        bool done = false;
        if (Error err = reader.next(&box, &done); !err.ok()) return SRS_WRAP(err, "at depth %d", depth);
        if (done) return Error();
        if (out->size() >= max_boxes) return SRS_ERR(kErrorMp4Box, "more than %zu boxes", max_boxes);
        box.offset += base;
        out->push_back(Mp4BoxNode{box, depth});
        long skip = children_at(box.type);
        if (skip < 0) continue;
        if (box.size < static_cast<size_t>(skip)) {
            return SRS_ERR(kErrorMp4Box, "'%s' of %zu bytes is shorter than its %ld fixed bytes",
                           box.type_name().c_str(), box.size, skip);
        }
        const uint64_t child_base = box.offset + box.header_size + static_cast<uint64_t>(skip);
        if (Error err = walk(box.data + skip, box.size - skip, depth + 1, out, max_boxes, child_base); !err.ok()) {
            return SRS_WRAP(err, "in '%s'", box.type_name().c_str());
        }
    }
}

}  // namespace

Error mp4_walk_tree(const uint8_t* data, size_t size, std::vector<Mp4BoxNode>* out, size_t max_boxes) {
    return walk(data, size, 0, out, max_boxes, 0);
}

}  // namespace srs
