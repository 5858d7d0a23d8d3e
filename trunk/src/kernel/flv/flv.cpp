// FLV container writer helpers and a resumable, non-buffering tag reader.
// Bit layouts are drawn in flv.hpp. Every read checks the remaining length
// first; a reader that failed once keeps failing.
#include "kernel/flv/flv.hpp"

#include <cstring>

#include "core/bytes.hpp"

namespace srs {

namespace {

constexpr size_t kMaxDataOffset = 64 * 1024;  // a header longer than this is not FLV we can use

}  // namespace

void FlvWriter::write_header(std::string* out, bool has_audio, bool has_video) {
    uint8_t h[kFlvHeaderSize + kFlvPreviousTagSize] = {'F', 'L', 'V', 1, 0, 0, 0, 0, 9, 0, 0, 0, 0};
    h[4] = static_cast<uint8_t>((has_audio ? 0x04 : 0) | (has_video ? 0x01 : 0));
    out->append(reinterpret_cast<const char*>(h), sizeof(h));
}

void FlvWriter::write_tag_header(uint8_t out[11], uint8_t tag_type, uint32_t timestamp, uint32_t data_size) {
    out[0] = tag_type & 0x1f;
    store_be24(out + 1, data_size);
    store_be24(out + 4, timestamp);                   // the low 24 bits
    out[7] = static_cast<uint8_t>(timestamp >> 24);  // TimestampExtended
    store_be24(out + 8, 0);                           // StreamID
}

void FlvWriter::write_previous_tag_size(uint8_t out[4], uint32_t size) {
    store_be32(out, size);
}

// Sets *used to 0 while the header (and PreviousTagSize0) is incomplete. A
// wrong signature is reported as soon as the first differing byte arrives.
Error FlvReader::parse_header(const uint8_t* data, size_t size, size_t* used) {
    *used = 0;
    static const uint8_t kSignature[4] = {'F', 'L', 'V', 1};
    size_t check = size < sizeof(kSignature) ? size : sizeof(kSignature);
    if (memcmp(data, kSignature, check) != 0) {
        return SRS_ERR(kErrorFlvHeader, "not an FLV version 1 header");
    }
    if (size < kFlvHeaderSize) return Error();
    uint32_t offset = load_be32(data + 5);
    if (offset < kFlvHeaderSize || offset > kMaxDataOffset) {
        return SRS_ERR(kErrorFlvHeader, "FLV DataOffset %u", offset);
    }
    if (size < static_cast<size_t>(offset) + kFlvPreviousTagSize) return Error();
    if (load_be32(data + offset) != 0) pts_mismatches_++;
    has_audio_ = (data[4] & 0x04) != 0;
    has_video_ = (data[4] & 0x01) != 0;
    header_parsed_ = true;
    *used = offset + kFlvPreviousTagSize;
    return Error();
}

Error FlvReader::feed(const uint8_t* data, size_t size, size_t* consumed, std::vector<FlvTag>* out) {
    *consumed = 0;
    if (failed_) return SRS_ERR(kErrorFlvHeader, "FLV reader failed before");
    if (size == 0) return Error();
    size_t pos = 0;
    if (!header_parsed_) {
        if (Error err = parse_header(data, size, &pos); !err.ok()) {
            failed_ = true;
            return err;
        }
        if (!header_parsed_) return Error();
    }
    Error err;
    while (size - pos >= kFlvTagHeaderSize) {
        const uint8_t* h = data + pos;
        uint8_t type = h[0] & 0x1f;
        if (h[0] & 0xc0) {
            err = SRS_ERR(kErrorFlvTagType, "FLV tag reserved bits set, byte=0x%02x", h[0]);
            break;
        }
        if (h[0] & 0x20) {
            err = SRS_ERR(kErrorFlvTagType, "FLV tag is filtered (encrypted), type=%u", type);
            break;
        }
        if (type != kFlvTagAudio && type != kFlvTagVideo && type != kFlvTagScript) {
            err = SRS_ERR(kErrorFlvTagType, "FLV tag type %u", type);
            break;
        }
        uint32_t data_size = load_be24(h + 1);
        if (data_size > max_tag_size_) {
            err = SRS_ERR(kErrorFlvTagSize, "FLV tag size %u above %u", data_size, max_tag_size_);
            break;
        }
        if (load_be24(h + 8) != 0) {
            err = SRS_ERR(kErrorFlvTagType, "FLV tag stream id %u", load_be24(h + 8));
            break;
        }
        size_t total = kFlvTagHeaderSize + static_cast<size_t>(data_size) + kFlvPreviousTagSize;
        if (size - pos < total) break;
        if (load_be32(h + kFlvTagHeaderSize + data_size) != kFlvTagHeaderSize + data_size) pts_mismatches_++;
        FlvTag tag;
        tag.type = type;
        tag.timestamp = load_be24(h + 4) | (static_cast<uint32_t>(h[7]) << 24);
        tag.data = SharedBytes::copy_of(h + kFlvTagHeaderSize, data_size);
        out->push_back(std::move(tag));
        tags_read_++;
        pos += total;
    }
    *consumed = pos;
    if (!err.ok()) failed_ = true;
    return err;
}

}  // namespace srs
