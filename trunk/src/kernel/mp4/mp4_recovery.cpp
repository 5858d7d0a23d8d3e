#include "kernel/mp4/mp4_recovery.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "core/bytes.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

namespace {

// One child box of a buffer: [start, end) with its body at body.
struct Box {
    uint32_t type = 0;
    size_t start = 0, body = 0, end = 0;
};

// The next box at *pos within [.., n); false at the end or on a box that does not fit.
bool next_box(const uint8_t* p, size_t n, size_t* pos, Box* out) {
    if (*pos + 8 > n) return false;
    uint64_t size = load_be32(p + *pos);
    size_t header = 8;
    if (size == 1) {
        if (*pos + 16 > n) return false;
        size = load_be64(p + *pos + 8);
        header = 16;
    }
    if (size < header || size > n - *pos) return false;
    out->type = load_be32(p + *pos + 4);
    out->start = *pos;
    out->body = *pos + header;
    out->end = *pos + static_cast<size_t>(size);
    *pos = out->end;
    return true;
}

// Where a duration field is in the file, and how wide it is.
struct Field {
    uint64_t at = 0;
    int bytes = 0;  // 0: not found
};

struct TrackIndex {
    uint32_t timescale = 0;
    uint32_t trex_duration = 0;  // trex default_sample_duration
    Field tkhd, mdhd;
    bool timed = false;
    uint64_t first = 0, end = 0;  // in timescale units, from the fragments
};

struct MovieIndex {
    uint32_t timescale = 0;
    Field mvhd, mehd;
    std::map<uint32_t, TrackIndex> tracks;  // by track_ID
};

// A full box's version and where the fields after it start.
bool full_box(const uint8_t* p, const Box& b, size_t need_v0, size_t need_v1, int* version) {
    if (b.body + 4 > b.end) return false;
    *version = p[b.body];
    return b.end - b.body - 4 >= (*version == 1 ? need_v1 : need_v0);
}

void read_trak(const uint8_t* p, const Box& trak, uint64_t base, MovieIndex* m) {
    uint32_t id = 0;
    TrackIndex t;
    bool have_id = false;
    size_t pos = trak.body;
    Box b;
    while (next_box(p, trak.end, &pos, &b)) {
        int v = 0;
        if (b.type == make_fourcc("tkhd") && full_box(p, b, 20, 32, &v)) {
            const size_t f = b.body + 4;
            id = load_be32(p + f + (v == 1 ? 16 : 8));
            have_id = true;
            t.tkhd = Field{base + f + (v == 1 ? 24 : 16), v == 1 ? 8 : 4};
        } else if (b.type == make_fourcc("mdia")) {
            size_t in = b.body;
            Box c;
            while (next_box(p, b.end, &in, &c)) {
                if (c.type != make_fourcc("mdhd") || !full_box(p, c, 16, 28, &v)) continue;
                const size_t f = c.body + 4;
                t.timescale = load_be32(p + f + (v == 1 ? 16 : 8));
                t.mdhd = Field{base + f + (v == 1 ? 20 : 12), v == 1 ? 8 : 4};
            }
        }
    }
    if (have_id) m->tracks[id] = t;
}

void read_moov(const uint8_t* p, size_t n, uint64_t base, MovieIndex* m) {
    Box moov;
    size_t pos = 0;
    if (!next_box(p, n, &pos, &moov)) return;
    pos = moov.body;
    Box b;
    std::vector<Box> trexes;
    while (next_box(p, moov.end, &pos, &b)) {
        int v = 0;
        if (b.type == make_fourcc("mvhd") && full_box(p, b, 16, 28, &v)) {
            const size_t f = b.body + 4;
            m->timescale = load_be32(p + f + (v == 1 ? 16 : 8));
            m->mvhd = Field{base + f + (v == 1 ? 20 : 12), v == 1 ? 8 : 4};
        } else if (b.type == make_fourcc("trak")) {
            read_trak(p, b, base, m);
        } else if (b.type == make_fourcc("mvex")) {
            size_t in = b.body;
            Box c;
            while (next_box(p, b.end, &in, &c)) {
                if (c.type == make_fourcc("mehd") && full_box(p, c, 4, 8, &v)) {
                    m->mehd = Field{base + c.body + 4, v == 1 ? 8 : 4};
                } else if (c.type == make_fourcc("trex") && c.end - c.body >= 4 + 16) {
                    trexes.push_back(c);
                }
            }
        }
    }
    for (const Box& c : trexes) {  // after the traks: trex names a track by its ID
        auto it = m->tracks.find(load_be32(p + c.body + 4));
        if (it != m->tracks.end()) it->second.trex_duration = load_be32(p + c.body + 12);
    }
}

// One traf: the track's decode time span it covers.
void read_traf(const uint8_t* p, const Box& traf, MovieIndex* m) {
    TrackIndex* t = nullptr;
    uint32_t default_duration = 0;
    bool have_tfdt = false;
    uint64_t base_time = 0, total = 0;
    size_t pos = traf.body;
    Box b;
    while (next_box(p, traf.end, &pos, &b)) {
        int v = 0;
        if (b.type == make_fourcc("tfhd") && full_box(p, b, 4, 4, &v)) {
            const uint32_t flags = load_be24(p + b.body + 1);
            auto it = m->tracks.find(load_be32(p + b.body + 4));
            if (it == m->tracks.end()) return;
            t = &it->second;
            default_duration = t->trex_duration;
            size_t f = b.body + 8;
            if (flags & 0x01) f += 8;  // base_data_offset
            if (flags & 0x02) f += 4;  // sample_description_index
            if (flags & 0x08) {
                if (f + 4 > b.end) return;
                default_duration = load_be32(p + f);
            }
        } else if (b.type == make_fourcc("tfdt") && full_box(p, b, 4, 8, &v)) {
            base_time = v == 1 ? load_be64(p + b.body + 4) : load_be32(p + b.body + 4);
            have_tfdt = true;
        } else if (b.type == make_fourcc("trun") && full_box(p, b, 4, 4, &v)) {
            const uint32_t flags = load_be24(p + b.body + 1);
            const uint32_t count = load_be32(p + b.body + 4);
            size_t f = b.body + 8;
            if (flags & 0x01) f += 4;  // data_offset
            if (flags & 0x04) f += 4;  // first_sample_flags
            size_t entry = 0;
            for (uint32_t bit : {0x100u, 0x200u, 0x400u, 0x800u}) entry += (flags & bit) ? 4 : 0;
            if (!(flags & 0x100)) {
                total += static_cast<uint64_t>(count) * default_duration;
                continue;
            }
            if (f > b.end || count > (b.end - f) / entry) return;  // entries past the box: a broken fragment
            for (uint32_t i = 0; i < count; i++) total += load_be32(p + f + i * entry);
        }
    }
    if (!t || !have_tfdt) return;
    if (total > UINT64_MAX - base_time) return;  // a decode time past 2^64: a broken fragment
    const uint64_t end = base_time + total;
    if (!t->timed) {
        t->first = base_time;
        t->end = end;
        t->timed = true;
    } else {
        t->first = std::min(t->first, base_time);
        t->end = std::max(t->end, end);
    }
}

void read_moof(const uint8_t* p, size_t n, MovieIndex* m) {
    Box moof;
    size_t pos = 0;
    if (!next_box(p, n, &pos, &moof)) return;
    pos = moof.body;
    Box b;
    while (next_box(p, moof.end, &pos, &b)) {
        if (b.type == make_fourcc("traf")) read_traf(p, b, m);
    }
}

uint64_t scale(uint64_t v, uint32_t from, uint32_t to) {
    if (from == 0) return 0;
    const long double r = static_cast<long double>(v) * to / from + 0.5L;
    // Past 2^64 the conversion is undefined: saturate (a broken file's times).
    if (r >= 18446744073709551615.0L) return UINT64_MAX;
    return static_cast<uint64_t>(r);
}

void patch(const Field& f, uint64_t v, std::vector<Mp4Patch>* out) {
    if (f.bytes == 0) return;
    Mp4Patch p;
    p.offset = f.at;
    p.bytes.resize(static_cast<size_t>(f.bytes));
    if (f.bytes == 8) {
        store_be64(&p.bytes[0], v);
    } else {
        store_be32(&p.bytes[0], static_cast<uint32_t>(std::min<uint64_t>(v, 0xffffffffu)));
    }
    out->push_back(std::move(p));
}

// The movie and track durations the fragments give, as patches (ms, like the muxer's finish()).
void durations(const MovieIndex& m, Mp4Recovery* out) {
    if (m.timescale == 0 || m.mvhd.bytes == 0) return;
    bool any = false;
    uint64_t first_ms = 0, end_ms = 0;
    for (const auto& [id, t] : m.tracks) {
        if (!t.timed || t.timescale == 0) continue;
        const uint64_t f = scale(t.first, t.timescale, 1000), e = scale(t.end, t.timescale, 1000);
        first_ms = any ? std::min(first_ms, f) : f;
        end_ms = any ? std::max(end_ms, e) : e;
        any = true;
    }
    if (!any) return;
    // end_ms >= first_ms (scale keeps the order); a span past int64 saturates.
    out->duration_ms = static_cast<int64_t>(std::min<uint64_t>(end_ms - first_ms, INT64_MAX));
    patch(m.mvhd, scale(end_ms - first_ms, 1000, m.timescale), &out->patches);
    patch(m.mehd, scale(end_ms - first_ms, 1000, m.timescale), &out->patches);
    for (const auto& [id, t] : m.tracks) {
        if (!t.timed || t.timescale == 0) continue;
        patch(t.tkhd, scale(t.end - t.first, t.timescale, m.timescale), &out->patches);
        patch(t.mdhd, t.end - t.first, &out->patches);
    }
}

// Reads [at, at + size) whole into buf; false when it is too large or short.
Error read_box(const Mp4ReadAt& read_at, uint64_t at, uint64_t size, std::string* buf, bool* got_all) {
    *got_all = false;
    if (size > kMp4RecoveryMaxIndexBox) return Error();
    buf->resize(static_cast<size_t>(size));
    size_t got = 0;
    if (Error err = read_at(at, buf->size(), reinterpret_cast<uint8_t*>(&(*buf)[0]), &got); !err.ok()) return err;
    *got_all = got == buf->size();
    return Error();
}

}  // namespace

Error mp4_scan_recovery(uint64_t file_size, const Mp4ReadAt& read_at, Mp4Recovery* out) {
    *out = Mp4Recovery();
    MovieIndex movie;
    bool index_ok = true;  // every moov/moof kept so far was read
    std::string box, moof;
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
        const uint64_t at = pos;
        pos += size;
        if (type == make_fourcc("moov")) {
            out->has_moov = true;
            out->length = pos;
            bool whole = false;
            if (Error err = read_box(read_at, at, size, &box, &whole); !err.ok()) return SRS_WRAP(err, "read moov");
            if (whole) {
                read_moov(reinterpret_cast<const uint8_t*>(box.data()), box.size(), at, &movie);
            } else {
                index_ok = false;
            }
        } else if (type == make_fourcc("moof")) {
            if (!out->has_moov) break;
            moof_open = true;
            bool whole = false;
            if (Error err = read_box(read_at, at, size, &moof, &whole); !err.ok()) return SRS_WRAP(err, "read moof");
            if (!whole) moof.clear();
        } else if (type == make_fourcc("mdat")) {
            if (moof_open) {
                out->fragments++;
                out->length = pos;
                // Only a fragment that is kept counts to the durations.
                if (moof.empty()) index_ok = false;
                read_moof(reinterpret_cast<const uint8_t*>(moof.data()), moof.size(), &movie);
                moof.clear();
            }
            moof_open = false;
        }
    }
    out->truncated = out->length < file_size;
    if (index_ok && out->fragments > 0) durations(movie, out);
    return Error();
}

}  // namespace srs
