#include "kernel/latency_stamp.hpp"

#include <cstring>

#include "core/bytes.hpp"

namespace srs {

const uint8_t kLatencyStampUuid[16] = {'s', 'b', '-', 'l', 'a', 't', 'e', 'n',
                                       'c', 'y', '-', 's', 't', 'a', 'm', 'p'};

namespace {

constexpr uint8_t kSeiUserDataUnregistered = 5;
constexpr size_t kStampPayloadSize = 16 + 8;  // UUID + time
constexpr uint8_t kAvcNalSei = 6;
constexpr uint8_t kHevcNalPrefixSei = 39;

// Reads RBSP bytes from a NAL unit's payload, dropping each emulation
// prevention byte (the 0x03 of a 0x000003 sequence).
class RbspReader {
  public:
    RbspReader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}

    bool next(uint8_t* b) {
        if (p_ == end_) return false;
        if (zeros_ >= 2 && *p_ == 0x03) {
            zeros_ = 0;
            if (++p_ == end_) return false;
        }
        *b = *p_++;
        zeros_ = *b == 0 ? zeros_ + 1 : 0;
        return true;
    }
    // True when what is left is only rbsp_trailing_bits (one byte 0x80, then
    // cabac_zero_words/zero padding at most), or nothing.
    bool at_trailing_bits() const {
        if (p_ == end_) return true;
        if (*p_ != 0x80) return false;
        for (const uint8_t* q = p_ + 1; q < end_; q++) {
            if (*q != 0 && *q != 0x03) return false;
        }
        return true;
    }

  private:
    const uint8_t* p_;
    const uint8_t* end_;
    int zeros_ = 0;
};

// payloadType / payloadSize: a run of 0xFF bytes, each adding 255, then the last byte.
bool read_sei_number(RbspReader* r, uint32_t* v) {
    *v = 0;
    uint8_t b = 0;
    do {
        if (!r->next(&b)) return false;
        if (*v > 0xFFFFFF) return false;  // absurd: no NAL unit is that large
        *v += b;
    } while (b == 0xFF);
    return true;
}

// The NAL header size and the SEI type of a codec; false for others.
bool sei_layout(VideoCodec codec, size_t* header_size) {
    if (codec == VideoCodec::kH264) {
        *header_size = 1;
        return true;
    }
    if (codec == VideoCodec::kH265) {
        *header_size = 2;
        return true;
    }
    return false;
}

bool is_sei_nal(VideoCodec codec, const uint8_t* nal, size_t n) {
    if (codec == VideoCodec::kH264) return n >= 1 && (nal[0] & 0x1f) == kAvcNalSei;
    return n >= 2 && ((nal[0] >> 1) & 0x3f) == kHevcNalPrefixSei;
}

// A NAL unit length field of `size` bytes (1, 2 or 4: valid_length_size).
uint32_t read_length(const uint8_t* p, int size) {
    if (size == 1) return p[0];
    return size == 2 ? load_be16(p) : load_be32(p);
}

// Writes a NAL unit length field of `size` bytes (1, 2 or 4).
void write_length(uint8_t* p, int size, uint32_t v) {
    if (size == 1) {
        p[0] = static_cast<uint8_t>(v);
    } else if (size == 2) {
        store_be16(p, static_cast<uint16_t>(v));
    } else {
        store_be32(p, v);
    }
}

bool valid_length_size(int size) { return size == 1 || size == 2 || size == 4; }

// Where the NAL units of a coded-frames packet start, and its codec.
Error locate_nalus(const uint8_t* body, size_t n, size_t* offset, VideoCodec* codec) {
    VideoPacketInfo info;
    if (Error err = parse_video_packet(body, n, &info); !err.ok()) return SRS_WRAP(err, "latency stamp");
    if (info.codec != VideoCodec::kH264 && info.codec != VideoCodec::kH265) {
        return SRS_ERR(kErrorVideoPacket, "latency stamp: codec %s, not H.264/H.265", video_codec_name(info.codec));
    }
    if (info.command || info.multitrack ||
        (info.packet_type != kVideoCodedFrames && info.packet_type != kVideoCodedFramesX)) {
        return SRS_ERR(kErrorVideoPacket, "latency stamp: packet type %u is not coded frames", info.packet_type);
    }
    *offset = static_cast<size_t>(info.data - body);
    *codec = info.codec;
    return Error();
}

}  // namespace

size_t build_latency_sei(VideoCodec codec, uint64_t stamp_us, uint8_t* out) {
    size_t header = 0;
    if (!sei_layout(codec, &header)) return 0;
    size_t n = 0;
    if (codec == VideoCodec::kH264) {
        out[n++] = kAvcNalSei;  // forbidden_zero_bit 0, nal_ref_idc 0
    } else {
        out[n++] = kHevcNalPrefixSei << 1;  // nuh_layer_id 0
        out[n++] = 1;                       // nuh_temporal_id_plus1
    }
    uint8_t rbsp[2 + kStampPayloadSize];
    rbsp[0] = kSeiUserDataUnregistered;
    rbsp[1] = kStampPayloadSize;
    memcpy(rbsp + 2, kLatencyStampUuid, 16);
    store_be64(rbsp + 18, stamp_us);
    int zeros = 0;
    for (uint8_t b : rbsp) {
        if (zeros >= 2 && b <= 0x03) {
            out[n++] = 0x03;
            zeros = 0;
        }
        out[n++] = b;
        zeros = b == 0 ? zeros + 1 : 0;
    }
    // rbsp_trailing_bits; 0x80 after two zeros needs no escape.
    out[n++] = 0x80;
    return n;
}

Error parse_latency_sei(VideoCodec codec, const uint8_t* nal, size_t n, uint64_t* stamp_us, bool* found) {
    *found = false;
    *stamp_us = 0;
    size_t header = 0;
    if (!sei_layout(codec, &header) || !is_sei_nal(codec, nal, n)) return Error();
    RbspReader r(nal + header, n - header);
    // sei_rbsp: sei_message()s until rbsp_trailing_bits.
    while (!r.at_trailing_bits()) {
        uint32_t type = 0, size = 0;
        if (!read_sei_number(&r, &type)) return SRS_ERR(kErrorVideoPacket, "SEI payloadType truncated");
        if (!read_sei_number(&r, &size)) return SRS_ERR(kErrorVideoPacket, "SEI payloadSize truncated");
        uint8_t uuid[16];
        uint32_t used = 0;
        bool ours = false;
        if (type == kSeiUserDataUnregistered && size >= 16) {
            for (uint8_t& b : uuid) {
                if (!r.next(&b)) return SRS_ERR(kErrorVideoPacket, "SEI user_data_unregistered UUID truncated");
            }
            used = 16;
            ours = memcmp(uuid, kLatencyStampUuid, 16) == 0;
        }
        if (ours) {
            if (size < kStampPayloadSize) {
                return SRS_ERR(kErrorVideoPacket, "latency stamp SEI of %u bytes, expected %zu", size,
                               kStampPayloadSize);
            }
            uint8_t be[8];
            for (uint8_t& b : be) {
                if (!r.next(&b)) return SRS_ERR(kErrorVideoPacket, "latency stamp SEI truncated");
            }
            *stamp_us = load_be64(be);
            *found = true;
            return Error();
        }
        for (uint8_t b = 0; used < size; used++) {
            if (!r.next(&b)) return SRS_ERR(kErrorVideoPacket, "SEI payload of type %u truncated", type);
        }
    }
    return Error();
}

Error stamp_video_tag(const uint8_t* body, size_t n, int nalu_length_size, uint64_t stamp_us, uint8_t* out,
                      size_t* size) {
    *size = 0;
    if (!valid_length_size(nalu_length_size)) {
        return SRS_ERR(kErrorVideoPacket, "latency stamp: NAL unit length size %d", nalu_length_size);
    }
    size_t offset = 0;
    VideoCodec codec = VideoCodec::kUnknown;
    if (Error err = locate_nalus(body, n, &offset, &codec); !err.ok()) return err;
    uint8_t sei[kLatencySeiMaxSize];
    const size_t sei_size = build_latency_sei(codec, stamp_us, sei);
    if (nalu_length_size == 1 && sei_size > 0xFF) return SRS_ERR(kErrorVideoPacket, "latency stamp: SEI too long");
    size_t k = 0;
    memcpy(out, body, offset);
    k += offset;
    write_length(out + k, nalu_length_size, static_cast<uint32_t>(sei_size));
    k += static_cast<size_t>(nalu_length_size);
    memcpy(out + k, sei, sei_size);
    k += sei_size;
    memcpy(out + k, body + offset, n - offset);
    k += n - offset;
    *size = k;
    return Error();
}

Error find_latency_stamp(const uint8_t* body, size_t n, int nalu_length_size, uint64_t* stamp_us, bool* found) {
    *found = false;
    *stamp_us = 0;
    if (!valid_length_size(nalu_length_size)) {
        return SRS_ERR(kErrorVideoPacket, "latency stamp: NAL unit length size %d", nalu_length_size);
    }
    if (n == 0 || is_video_sequence_header(body, n)) return Error();
    VideoPacketInfo info;
    if (Error err = parse_video_packet(body, n, &info); !err.ok()) return SRS_WRAP(err, "latency stamp");
    if ((info.codec != VideoCodec::kH264 && info.codec != VideoCodec::kH265) || info.command || info.multitrack ||
        (info.packet_type != kVideoCodedFrames && info.packet_type != kVideoCodedFramesX)) {
        return Error();
    }
    const uint8_t* p = info.data;
    const uint8_t* const end = body + n;
    while (static_cast<size_t>(end - p) >= static_cast<size_t>(nalu_length_size)) {
        const uint32_t len = read_length(p, nalu_length_size);
        p += nalu_length_size;
        if (len > static_cast<size_t>(end - p)) break;  // past what we have: a prefix
        if (is_sei_nal(info.codec, p, len)) {
            if (Error err = parse_latency_sei(info.codec, p, len, stamp_us, found); !err.ok()) return err;
            if (*found) return Error();
        }
        p += len;
    }
    return Error();
}

int video_nalu_length_size(const uint8_t* body, size_t n) {
    if (!is_video_sequence_header(body, n)) return 0;
    VideoPacketInfo info;
    if (Error err = parse_video_packet(body, n, &info); !err.ok()) {
        err.ignore();
        return 0;
    }
    size_t at = 0;
    if (info.codec == VideoCodec::kH264) {
        at = 4;  // configurationVersion, profile, compatibility, level, then lengthSizeMinusOne
    } else if (info.codec == VideoCodec::kH265) {
        at = 21;  // after the 21 bytes of profile, tier, level and format fields
    } else {
        return 0;
    }
    if (info.size <= at) return 0;
    const int size = (info.data[at] & 0x03) + 1;
    return valid_length_size(size) ? size : 0;
}

}  // namespace srs
