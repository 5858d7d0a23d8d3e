#include "kernel/rtp/rtp_av1.hpp"

#include <algorithm>
#include <cstring>

namespace srs {

namespace {

constexpr size_t kAv1C = 4;  // av1C fixed part before configOBUs

// Reads a LEB128 value (at most 8 bytes, value under 2^32, AV1 spec 4.10.5).
bool read_leb128(const uint8_t* p, size_t n, uint64_t* value, size_t* used) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8 && i < n; ++i) {
        v |= static_cast<uint64_t>(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            if (v > 0xffffffffu) return false;
            *value = v;
            *used = i + 1;
            return true;
        }
    }
    return false;
}

size_t leb128_size(size_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

void append_leb128(std::vector<uint8_t>* out, size_t v) {
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v) b |= 0x80;
        out->push_back(b);
    } while (v);
}

}  // namespace

//  obu_header: forbidden(1) type(4) extension_flag(1) has_size_field(1) reserved(1)
//  [extension: temporal_id(3) spatial_id(2) reserved(3)] [obu_size leb128] payload
Error av1_parse_obu(const uint8_t* data, size_t n, uint8_t* type, size_t* header_size, const uint8_t** payload,
                    size_t* payload_size, size_t* consumed) {
    if (n < 1) return SRS_ERR(kErrorRtpPayloadNalu, "OBU: no header");
    if (data[0] & 0x80) return SRS_ERR(kErrorRtpPayloadNalu, "OBU: forbidden bit set");
    *type = (data[0] >> 3) & 0x0f;
    size_t hs = (data[0] & 0x04) ? 2 : 1;
    if (n < hs) return SRS_ERR(kErrorRtpPayloadNalu, "OBU type %u: extension header past the end", *type);
    size_t pos = hs;
    size_t size = n - hs;
    if (data[0] & 0x02) {
        uint64_t v = 0;
        size_t used = 0;
        if (!read_leb128(data + pos, n - pos, &v, &used))
            return SRS_ERR(kErrorRtpPayloadNalu, "OBU type %u: bad obu_size", *type);
        pos += used;
        if (v > n - pos)
            return SRS_ERR(kErrorRtpPayloadNalu, "OBU type %u: obu_size %llu past the end (%zu left)", *type,
                           static_cast<unsigned long long>(v), n - pos);
        size = static_cast<size_t>(v);
    }
    *header_size = hs;
    *payload = data + pos;
    *payload_size = size;
    *consumed = pos + size;
    return Error();
}

Av1Packetizer::Av1Packetizer(size_t max_payload) : max_payload_(std::max<size_t>(max_payload, 3)) {}

// AV1CodecConfigurationRecord: marker(1)=1 version(7)=1, profile/level/tier/
// bit depth/chroma fields (3 bytes), then configOBUs.
Error Av1Packetizer::set_sequence_header(const uint8_t* record, size_t n) {
    if (n < kAv1C) return SRS_ERR(kErrorRtpPayloadConfig, "av1C: %zu bytes", n);
    if (record[0] != 0x81) return SRS_ERR(kErrorRtpPayloadConfig, "av1C: marker/version byte 0x%02x", record[0]);
    size_t pos = kAv1C;
    while (pos < n) {
        uint8_t type = 0;
        size_t hs = 0, size = 0, consumed = 0;
        const uint8_t* payload = nullptr;
        if (Error err = av1_parse_obu(record + pos, n - pos, &type, &hs, &payload, &size, &consumed); !err.ok()) {
            std::string why = err.message();
            err.ignore();
            return SRS_ERR(kErrorRtpPayloadConfig, "av1C configOBUs at %zu: %s", pos, why.c_str());
        }
        if (type == kAv1ObuSequenceHeader) {
            sequence_header_.assign(reinterpret_cast<const char*>(record + pos), consumed);
            return Error();
        }
        pos += consumed;
    }
    return SRS_ERR(kErrorRtpPayloadConfig, "av1C: no sequence header OBU");
}

Error Av1Packetizer::packetize(const uint8_t* data, size_t n, bool keyframe, RtpPayloadSink* sink) {
    elements_.clear();
    bool has_sequence_header = false;
    size_t pos = 0;
    while (pos < n) {
        uint8_t type = 0;
        Element e;
        size_t consumed = 0;
        if (Error err = av1_parse_obu(data + pos, n - pos, &type, &e.header_size, &e.payload, &e.payload_size, &consumed);
            !err.ok())
            return SRS_WRAP(err, "av1 temporal unit of %zu bytes, at %zu", n, pos);
        if (type != kAv1ObuTemporalDelimiter && type != kAv1ObuTileList && type != kAv1ObuPadding) {
            e.header[0] = data[pos] & ~0x02;  // the element has no obu_size
            if (e.header_size == 2) e.header[1] = data[pos + 1];
            elements_.push_back(e);
            has_sequence_header |= type == kAv1ObuSequenceHeader;
        }
        pos += consumed;
    }
    if (keyframe && !has_sequence_header && !sequence_header_.empty()) {
        Element e;
        size_t consumed = 0;
        uint8_t type = 0;
        const uint8_t* p = reinterpret_cast<const uint8_t*>(sequence_header_.data());
        Error err = av1_parse_obu(p, sequence_header_.size(), &type, &e.header_size, &e.payload, &e.payload_size,
                                  &consumed);
        if (err.ok()) {  // parsed once already in set_sequence_header
            e.header[0] = p[0] & ~0x02;
            if (e.header_size == 2) e.header[1] = p[1];
            elements_.insert(elements_.begin(), e);
        } else {
            err.ignore();
        }
    }
    if (elements_.empty()) return Error();

    // Fill packets: each element (or fragment) after its LEB128 length; an
    // element that does not fit is cut, the rest continuing in the next packet.
    first_ = true;
    continues_ = false;
    new_sequence_ = keyframe;
    buf_.clear();
    buf_.push_back(0);  // aggregation header, set by flush()
    for (size_t k = 0; k < elements_.size(); ++k) {
        const Element& e = elements_[k];
        size_t total = e.size(), off = 0;
        while (off < total) {
            size_t space = max_payload_ - buf_.size();
            size_t len = std::min(total - off, space > 0 ? space - 1 : 0);
            while (len > 0 && leb128_size(len) + len > space) --len;
            if (len == 0) {
                flush(false, false, sink);  // full at an element boundary
                continue;
            }
            append_leb128(&buf_, len);
            append_element(e, off, len);
            off += len;
            if (off < total) flush(true, false, sink);
        }
    }
    flush(false, true, sink);
    return Error();
}

void Av1Packetizer::append_element(const Element& e, size_t offset, size_t len) {
    while (len > 0 && offset < e.header_size) {
        buf_.push_back(e.header[offset++]);
        --len;
    }
    if (len == 0) return;
    size_t from = offset - e.header_size;
    buf_.insert(buf_.end(), e.payload + from, e.payload + from + len);
}

void Av1Packetizer::flush(bool last_continues, bool marker, RtpPayloadSink* sink) {
    uint8_t h = 0;
    if (continues_) h |= 0x80;       // Z
    if (last_continues) h |= 0x40;   // Y
    if (first_ && new_sequence_) h |= 0x08;  // N; W stays 0
    buf_[0] = h;
    sink->on_rtp_payload(buf_.data(), buf_.size(), marker);
    first_ = false;
    continues_ = last_continues;
    buf_.resize(1);
}

}  // namespace srs
