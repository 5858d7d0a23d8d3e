#include "app/dvr/dvr_flv_metadata.hpp"

#include <cstring>
#include <vector>

#include "core/buffer.hpp"

namespace srs {

Error dvr_parse_metadata(const uint8_t* body, size_t n, Amf0Value* out) {
    ByteReader r(body, n);
    std::vector<Amf0Value> values;
    if (Error err = amf0_decode_all(&r, &values); err.failed()) return SRS_WRAP(err, "onMetaData");
    for (size_t i = 0; i + 1 < values.size(); i++) {
        if (values[i].is_string() && values[i].as_string() == "onMetaData" && values[i + 1].has_properties()) {
            *out = values[i + 1];
            return Error();
        }
    }
    return SRS_ERR(kErrorFlvHeader, "no onMetaData object in a data message of %zu bytes", n);
}

std::string amf0_number_bytes(double v) {
    uint64_t bits = 0;
    memcpy(&bits, &v, 8);
    std::string out;
    ByteWriter(&out).write_u64be(bits);
    return out;
}

DvrFlvMetadata dvr_flv_metadata(const Amf0Value* publisher) {
    Amf0Value meta = Amf0Value::ecma_array();
    meta.set("duration", Amf0Value::number(0));
    meta.set("filesize", Amf0Value::number(0));
    if (publisher) {
        for (const Amf0Property& p : publisher->properties()) {
            if (p.key == "duration" || p.key == "filesize") continue;
            meta.set(p.key, p.value);
        }
    }
    DvrFlvMetadata out;
    ByteWriter w(&out.body);
    amf0_encode(&w, Amf0Value::string("onMetaData"));
    amf0_encode(&w, meta);
    dvr_find_metadata_fields(out.body, &out.duration_at, &out.filesize_at);
    return out;
}

bool dvr_find_metadata_fields(const std::string& body, size_t* duration_at, size_t* filesize_at) {
    // Each key: its 16-bit length, its name and the number marker; the
    // value's 8 bytes follow. Ours are the first two properties.
    static const std::string kDuration("\x00\x08" "duration" "\x00", 11);
    static const std::string kFilesize("\x00\x08" "filesize" "\x00", 11);
    static const std::string kHead("\x02\x00\x0a" "onMetaData" "\x08", 14);
    if (body.compare(0, kHead.size(), kHead) != 0) return false;
    size_t d = kHead.size() + 4;  // the ECMA array's count
    size_t f = d + kDuration.size() + 8;
    if (body.size() < f + kFilesize.size() + 8) return false;
    if (body.compare(d, kDuration.size(), kDuration) != 0 || body.compare(f, kFilesize.size(), kFilesize) != 0) {
        return false;
    }
    *duration_at = d + kDuration.size();
    *filesize_at = f + kFilesize.size();
    return true;
}

}  // namespace srs
