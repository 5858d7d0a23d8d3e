#include "kernel/rtp/rtp_nalu.hpp"

#include <algorithm>
#include <cstring>

#include "core/bytes.hpp"

namespace srs::rtp_nalu {

namespace {

constexpr uint8_t kH264StapA = 24;
constexpr uint8_t kH264FuA = 28;
constexpr uint8_t kH265Ap = 48;
constexpr uint8_t kH265Fu = 49;
constexpr size_t kAggregateLengthSize = 2;  // the 16-bit size before each aggregated NALU

size_t read_length(const uint8_t* p, int length_size) {
    size_t v = 0;
    for (int i = 0; i < length_size; ++i) v = v << 8 | p[i];
    return v;
}

}  // namespace

Error split_length_prefixed(const uint8_t* data, size_t n, int length_size, size_t min_size, std::vector<Nalu>* out) {
    out->clear();
    if (length_size < 1 || length_size > 4) return SRS_ERR(kErrorRtpPayloadNalu, "NALU length size %d", length_size);
    size_t pos = 0;
    while (pos < n) {
        if (n - pos < static_cast<size_t>(length_size))
            return SRS_ERR(kErrorRtpPayloadNalu, "NALU %zu: %zu bytes left for a %d-byte length", out->size(), n - pos,
                           length_size);
        size_t len = read_length(data + pos, length_size);
        pos += length_size;
        if (len > n - pos)
            return SRS_ERR(kErrorRtpPayloadNalu, "NALU %zu: length %zu past the end (%zu left)", out->size(), len, n - pos);
        if (len < min_size) return SRS_ERR(kErrorRtpPayloadNalu, "NALU %zu: length %zu under %zu", out->size(), len, min_size);
        out->push_back(Nalu{data + pos, len});
        pos += len;
    }
    return Error();
}

PayloadWriter::PayloadWriter(Format format, size_t max_payload)
    : format_(format), header_size_(format == Format::kH264 ? 1 : 2) {
    // A fragment carries the payload header, the FU header and at least one byte.
    max_payload_ = std::max(max_payload, header_size_ + 2);
}

void PayloadWriter::write(const Nalu* nalus, size_t count, size_t leading, bool merge, RtpPayloadSink* sink) {
    leading = std::min(leading, count);
    size_t i = 0;
    while (i < count) {
        bool in_leading = i < leading;
        size_t limit = in_leading ? leading : count;
        size_t n = (in_leading || merge) ? aggregate_count(nalus + i, limit - i) : 0;
        if (n >= 2) {
            write_aggregate(nalus + i, n, i + n == count, sink);
            i += n;
            continue;
        }
        const Nalu& one = nalus[i];
        bool marker = i + 1 == count;
        if (one.size <= max_payload_) {
            sink->on_rtp_payload(one.data, one.size, marker);
        } else {
            write_fragments(one, marker, sink);
        }
        ++i;
    }
}

size_t PayloadWriter::aggregate_count(const Nalu* nalus, size_t limit) const {
    size_t bytes = header_size_;
    size_t n = 0;
    while (n < limit) {
        size_t add = kAggregateLengthSize + nalus[n].size;
        if (nalus[n].size > 0xffff || bytes + add > max_payload_) break;
        bytes += add;
        ++n;
    }
    return n;
}

// H.264 STAP-A (RFC 6184 5.7.1): F is the OR of the NALUs' F bits, NRI their
// highest NRI. H.265 AP (RFC 7798 4.4.2): F the OR, LayerId and TID the
// lowest of the NALUs'. Each NALU follows its 16-bit size.
void PayloadWriter::write_aggregate(const Nalu* nalus, size_t count, bool marker, RtpPayloadSink* sink) {
    buf_.clear();
    if (format_ == Format::kH264) {
        uint8_t f = 0, nri = 0;
        for (size_t i = 0; i < count; ++i) {
            f |= nalus[i].data[0] & 0x80;
            nri = std::max<uint8_t>(nri, nalus[i].data[0] & 0x60);
        }
        buf_.push_back(static_cast<uint8_t>(f | nri | kH264StapA));
    } else {
        uint8_t f = 0;
        int layer = 63, tid = 7;
        for (size_t i = 0; i < count; ++i) {
            const uint8_t* h = nalus[i].data;
            f |= h[0] & 0x80;
            layer = std::min(layer, (h[0] & 1) << 5 | h[1] >> 3);
            tid = std::min(tid, h[1] & 7);
        }
        buf_.push_back(static_cast<uint8_t>(f | kH265Ap << 1 | layer >> 5));
        buf_.push_back(static_cast<uint8_t>((layer & 31) << 3 | tid));
    }
    for (size_t i = 0; i < count; ++i) {
        size_t at = buf_.size();
        buf_.resize(at + kAggregateLengthSize + nalus[i].size);
        store_be16(buf_.data() + at, static_cast<uint16_t>(nalus[i].size));
        memcpy(buf_.data() + at + kAggregateLengthSize, nalus[i].data, nalus[i].size);
    }
    sink->on_rtp_payload(buf_.data(), buf_.size(), marker);
}

// H.264 FU-A (RFC 6184 5.8): FU indicator F|NRI|28, FU header S|E|R|type.
// H.265 FU (RFC 7798 4.4.3): payload header = the NAL header with type 49, FU
// header S|E|type. The NAL header itself is not sent: the receiver rebuilds it.
// The body is cut in near-equal parts so no runt packet trails the frame.
void PayloadWriter::write_fragments(const Nalu& nalu, bool marker, RtpPayloadSink* sink) {
    const uint8_t* h = nalu.data;
    const uint8_t* body = nalu.data + header_size_;
    size_t body_size = nalu.size - header_size_;
    size_t prefix = header_size_ + 1;  // payload header + FU header
    size_t room = max_payload_ - prefix;
    size_t parts = (body_size + room - 1) / room;
    size_t base = body_size / parts, extra = body_size % parts;  // the first `extra` parts get one byte more

    uint8_t head[3];
    uint8_t type;
    if (format_ == Format::kH264) {
        head[0] = static_cast<uint8_t>((h[0] & 0xe0) | kH264FuA);
        type = h[0] & 0x1f;
    } else {
        head[0] = static_cast<uint8_t>((h[0] & 0x81) | kH265Fu << 1);
        head[1] = h[1];
        type = (h[0] >> 1) & 0x3f;
    }
    size_t pos = 0;
    for (size_t i = 0; i < parts; ++i) {
        size_t len = base + (i < extra ? 1 : 0);
        uint8_t fu = type;
        if (i == 0) fu |= 0x80;
        if (i + 1 == parts) fu |= 0x40;
        head[header_size_] = fu;
        buf_.resize(prefix + len);
        memcpy(buf_.data(), head, prefix);
        memcpy(buf_.data() + prefix, body + pos, len);
        pos += len;
        sink->on_rtp_payload(buf_.data(), buf_.size(), marker && i + 1 == parts);
    }
}

}  // namespace srs::rtp_nalu
