#include "kernel/rtp/rtp.hpp"

#include <cstring>

namespace srs {

namespace {

// Records one element; false when the table is full.
bool add_element(RtpHeader* h, uint8_t id, size_t offset, size_t size) {
    if (h->extension_count >= kRtpMaxExtensions) return false;
    RtpExtensionElement& e = h->extensions[h->extension_count++];
    e.id = id;
    e.size = static_cast<uint8_t>(size);
    e.offset = static_cast<uint16_t>(offset);
    return true;
}

// Elements of the one-byte form in data[begin, end).
Error parse_one_byte(const uint8_t* data, size_t begin, size_t end, RtpHeader* h) {
    size_t i = begin;
    while (i < end) {
        uint8_t b = data[i];
        uint8_t id = b >> 4;
        if (id == 0) {  // padding byte
            ++i;
            continue;
        }
        if (id == 15) break;  // reserved: stop, keep what came before
        size_t len = static_cast<size_t>(b & 0x0f) + 1;
        if (len > end - i - 1) return SRS_ERR(kErrorRtpExtension, "one-byte element id=%u len=%zu past end", id, len);
        if (!add_element(h, id, i + 1, len)) return SRS_ERR(kErrorRtpTooManyExtensions, "over %d elements", kRtpMaxExtensions);
        i += 1 + len;
    }
    return Error();
}

// Elements of the two-byte form in data[begin, end).
Error parse_two_byte(const uint8_t* data, size_t begin, size_t end, RtpHeader* h) {
    size_t i = begin;
    while (i < end) {
        uint8_t id = data[i];
        if (id == 0) {
            ++i;
            continue;
        }
        if (end - i < 2) return SRS_ERR(kErrorRtpExtension, "two-byte element id=%u without length", id);
        size_t len = data[i + 1];
        if (len > end - i - 2) return SRS_ERR(kErrorRtpExtension, "two-byte element id=%u len=%zu past end", id, len);
        if (!add_element(h, id, i + 2, len)) return SRS_ERR(kErrorRtpTooManyExtensions, "over %d elements", kRtpMaxExtensions);
        i += 2 + len;
    }
    return Error();
}

}  // namespace

const RtpExtensionElement* RtpHeader::find_extension(uint8_t id) const {
    for (int i = 0; i < extension_count; ++i) {
        if (extensions[i].id == id) return &extensions[i];
    }
    return nullptr;
}

Error rtp_parse_header(const uint8_t* data, size_t size, RtpHeader* h) {
    *h = RtpHeader();
    if (size < kRtpFixedHeaderSize) return SRS_ERR(kErrorRtpTooShort, "rtp %zu bytes, need 12", size);
    // RTP packets are at most a UDP datagram; offsets are 16-bit.
    if (size > 0xffff) return SRS_ERR(kErrorRtpTooShort, "rtp %zu bytes, over 65535", size);
    uint8_t b0 = data[0];
    if ((b0 >> 6) != 2) return SRS_ERR(kErrorRtpVersion, "rtp version %u", b0 >> 6);
    h->padding = (b0 & 0x20) != 0;
    h->extension = (b0 & 0x10) != 0;
    h->csrc_count = b0 & 0x0f;
    h->marker = (data[1] & 0x80) != 0;
    h->payload_type = data[1] & 0x7f;
    h->sequence = load_be16(data + 2);
    h->timestamp = load_be32(data + 4);
    h->ssrc = load_be32(data + 8);

    size_t pos = kRtpFixedHeaderSize;
    if (size - pos < 4u * h->csrc_count)
        return SRS_ERR(kErrorRtpTooShort, "rtp %u csrcs in %zu bytes", h->csrc_count, size);
    for (int i = 0; i < h->csrc_count; ++i, pos += 4) h->csrcs[i] = load_be32(data + pos);

    if (h->extension) {
        if (size - pos < 4) return SRS_ERR(kErrorRtpTooShort, "rtp extension header past end");
        h->extension_profile = load_be16(data + pos);
        size_t ext_size = 4u * load_be16(data + pos + 2);
        pos += 4;
        if (size - pos < ext_size)
            return SRS_ERR(kErrorRtpExtension, "rtp extension %zu bytes, %zu left", ext_size, size - pos);
        h->extension_offset = static_cast<uint16_t>(pos);
        h->extension_size = static_cast<uint32_t>(ext_size);
        if (h->extension_profile == kRtpOneByteProfile) {
            h->form = RtpExtensionForm::kOneByte;
            if (Error err = parse_one_byte(data, pos, pos + ext_size, h); !err.ok()) return err;
        } else if ((h->extension_profile & 0xfff0) == kRtpTwoByteProfile) {
            h->form = RtpExtensionForm::kTwoByte;
            if (Error err = parse_two_byte(data, pos, pos + ext_size, h); !err.ok()) return err;
        } else {
            h->form = RtpExtensionForm::kOther;
        }
        pos += ext_size;
    }

    h->header_size = pos;
    size_t rest = size - pos;
    if (h->padding) {
        uint8_t count = data[size - 1];
        if (count == 0 || count > rest)
            return SRS_ERR(kErrorRtpPadding, "rtp padding %u with %zu bytes after the header", count, rest);
        h->padding_size = count;
        rest -= count;
    }
    h->payload_size = rest;
    return Error();
}

Error rtp_extension_form_for(const RtpExtensionData* ext, size_t n, RtpExtensionForm* form) {
    if (n == 0) {
        *form = RtpExtensionForm::kNone;
        return Error();
    }
    bool one_byte = true;
    for (size_t i = 0; i < n; ++i) {
        if (ext[i].id == 0) return SRS_ERR(kErrorRtpWriteInvalid, "extension id 0");
        if (ext[i].id > 14 || ext[i].size < 1 || ext[i].size > kRtpOneByteMaxSize) one_byte = false;
    }
    *form = one_byte ? RtpExtensionForm::kOneByte : RtpExtensionForm::kTwoByte;
    return Error();
}

namespace {
// Element bytes (without the 4-byte extension header and padding).
size_t elements_size(const RtpExtensionData* ext, size_t n, RtpExtensionForm form) {
    size_t s = 0;
    for (size_t i = 0; i < n; ++i) s += (form == RtpExtensionForm::kOneByte ? 1 : 2) + ext[i].size;
    return s;
}
size_t round4(size_t v) { return (v + 3) & ~static_cast<size_t>(3); }
}  // namespace

size_t rtp_header_size(const RtpHeader& h, const RtpExtensionData* ext, size_t n) {
    size_t s = kRtpFixedHeaderSize + 4u * h.csrc_count;
    RtpExtensionForm form = RtpExtensionForm::kNone;
    if (Error err = rtp_extension_form_for(ext, n, &form); !err.ok()) {
        err.ignore();
        form = RtpExtensionForm::kTwoByte;
    }
    if (form != RtpExtensionForm::kNone) s += 4 + round4(elements_size(ext, n, form));
    return s;
}

Error rtp_write_header(const RtpHeader& h, const RtpExtensionData* ext, size_t n, uint8_t* out, size_t capacity,
                       size_t* written) {
    *written = 0;
    if (h.csrc_count > kRtpMaxCsrc) return SRS_ERR(kErrorRtpWriteInvalid, "%u csrcs", h.csrc_count);
    if (h.payload_type > 127) return SRS_ERR(kErrorRtpWriteInvalid, "payload type %u", h.payload_type);
    RtpExtensionForm form;
    if (Error err = rtp_extension_form_for(ext, n, &form); !err.ok()) return err;
    size_t ext_bytes = form == RtpExtensionForm::kNone ? 0 : round4(elements_size(ext, n, form));
    if (ext_bytes / 4 > 0xffff) return SRS_ERR(kErrorRtpWriteInvalid, "extension of %zu bytes", ext_bytes);
    size_t total = kRtpFixedHeaderSize + 4u * h.csrc_count + (form == RtpExtensionForm::kNone ? 0 : 4 + ext_bytes);
    if (total > capacity) return SRS_ERR(kErrorRtpBufferTooSmall, "rtp header %zu bytes, buffer %zu", total, capacity);

    out[0] = static_cast<uint8_t>(0x80 | (form != RtpExtensionForm::kNone ? 0x10 : 0) | h.csrc_count);
    out[1] = static_cast<uint8_t>((h.marker ? 0x80 : 0) | h.payload_type);
    store_be16(out + 2, h.sequence);
    store_be32(out + 4, h.timestamp);
    store_be32(out + 8, h.ssrc);
    size_t pos = kRtpFixedHeaderSize;
    for (int i = 0; i < h.csrc_count; ++i, pos += 4) store_be32(out + pos, h.csrcs[i]);
    if (form != RtpExtensionForm::kNone) {
        store_be16(out + pos, form == RtpExtensionForm::kOneByte ? kRtpOneByteProfile : kRtpTwoByteProfile);
        store_be16(out + pos + 2, static_cast<uint16_t>(ext_bytes / 4));
        pos += 4;
        size_t end = pos + ext_bytes;
        for (size_t i = 0; i < n; ++i) {
            if (form == RtpExtensionForm::kOneByte) {
                out[pos++] = static_cast<uint8_t>(ext[i].id << 4 | (ext[i].size - 1));
            } else {
                out[pos++] = ext[i].id;
                out[pos++] = ext[i].size;
            }
            if (ext[i].size) memcpy(out + pos, ext[i].data, ext[i].size);
            pos += ext[i].size;
        }
        while (pos < end) out[pos++] = 0;
    }
    *written = pos;
    return Error();
}

}  // namespace srs
