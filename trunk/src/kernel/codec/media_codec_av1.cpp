// AV1: AV1CodecConfigurationRecord (av1C, AV1 ISOBMFF binding 2.3) and the
// sequence header OBU (AV1 bitstream 5.5) up to max_frame_width/height.
//
// Guarantees: OBU sizes (leb128, at most 8 bytes) are checked against the
// record; the sequence header is read with the bounds-checked BitReader and
// every loop (operating points) is bounded by its 5-bit count.
#include <cstdio>

#include "kernel/codec/bit_reader.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

namespace {

constexpr uint32_t kObuSequenceHeader = 1;

const char* av1_profile_name(int seq_profile) {
    switch (seq_profile) {
        case 0: return "Main";
        case 1: return "High";
        case 2: return "Professional";
        default: return "Other";
    }
}

// seq_level_idx -> "X.Y" (Annex A.3: X = 2 + (idx >> 2), Y = idx & 3); 31 is "no level".
std::string av1_level_name(int idx) {
    if (idx >= 24) return "";
    char buf[16];
    snprintf(buf, sizeof(buf), "%d.%d", 2 + (idx >> 2), idx & 3);
    return buf;
}

// leb128() (4.10.5): at most 8 bytes, value must fit in 32 bits.
bool read_leb128(const uint8_t* p, size_t n, size_t* pos, uint64_t* value) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        if (*pos >= n) return false;
        uint8_t b = p[(*pos)++];
        v |= static_cast<uint64_t>(b & 0x7f) << (i * 7);
        if (!(b & 0x80)) {
            *value = v;
            return v <= 0xffffffffu;
        }
    }
    return false;
}

// uvlc() (4.10.3): zeros up to a 1 (each costs a bit of input, so the loop
// ends with the input), then that many value bits unless there were 32 or
// more (the value saturates and no value bits follow).
bool skip_uvlc(BitReader* br) {
    uint64_t zeros = 0;
    for (;;) {
        uint32_t bit = 0;
        if (!br->read_bits(1, &bit)) return false;
        if (bit) break;
        zeros++;
    }
    return zeros >= 32 || br->skip_bits(zeros);
}

// sequence_header_obu() up to max_frame_height_minus_1.
bool read_sequence_header(const uint8_t* p, size_t n, int* width, int* height) {
    BitReader br(p, n);
    br.u(3);  // seq_profile
    br.u(1);  // still_picture
    bool reduced_still_picture_header = br.flag();
    if (reduced_still_picture_header) {
        br.u(5);  // seq_level_idx[0]
    } else {
        bool decoder_model_info_present = false;
        uint32_t buffer_delay_length_minus_1 = 0;
        if (br.flag()) {  // timing_info_present_flag
            br.u(32);     // num_units_in_display_tick
            br.u(32);     // time_scale
            if (br.flag() && !skip_uvlc(&br)) return false;  // equal_picture_interval, num_ticks_per_picture_minus_1
            decoder_model_info_present = br.flag();
            if (decoder_model_info_present) {
                buffer_delay_length_minus_1 = br.u(5);
                br.u(32);  // num_units_in_decoding_tick
                br.u(5);   // buffer_removal_time_length_minus_1
                br.u(5);   // frame_presentation_time_length_minus_1
            }
        }
        bool initial_display_delay_present = br.flag();
        uint32_t operating_points = br.u(5) + 1;
        for (uint32_t i = 0; i < operating_points && br.ok(); i++) {
            br.u(12);  // operating_point_idc[i]
            uint32_t seq_level_idx = br.u(5);
            if (seq_level_idx > 7) br.u(1);  // seq_tier[i]
            if (decoder_model_info_present && br.flag()) {  // decoder_model_present_for_this_op[i]
                int bits = static_cast<int>(buffer_delay_length_minus_1) + 1;
                br.u(bits);  // decoder_buffer_delay
                br.u(bits);  // encoder_buffer_delay
                br.u(1);     // low_delay_mode_flag
            }
            if (initial_display_delay_present && br.flag()) br.u(4);  // initial_display_delay_minus_1
        }
    }
    int width_bits = static_cast<int>(br.u(4)) + 1;
    int height_bits = static_cast<int>(br.u(4)) + 1;
    uint32_t max_width_minus_1 = br.u(width_bits);
    uint32_t max_height_minus_1 = br.u(height_bits);
    if (!br.ok()) return false;
    *width = static_cast<int>(max_width_minus_1 + 1);   // at most 2^16
    *height = static_cast<int>(max_height_minus_1 + 1);
    return true;
}

}  // namespace

// av1C:
//   marker(1)=1 version(7)=1
//   seq_profile(3) seq_level_idx_0(5)
//   seq_tier_0(1) high_bitdepth(1) twelve_bit(1) monochrome(1)
//     chroma_subsampling_x(1) chroma_subsampling_y(1) chroma_sample_position(2)
//   reserved(3) initial_presentation_delay_present(1) initial_presentation_delay_minus_one/reserved(4)
//   configOBUs: zero or more OBUs (sequence header, metadata)
Error parse_av1_sequence_header(const uint8_t* record, size_t n, VideoCodecConfig* config) {
    *config = VideoCodecConfig();
    if (n < 4) return SRS_ERR(kErrorAv1Config, "av1C truncated, size=%zu", n);
    if (record[0] != 0x81) return SRS_ERR(kErrorAv1Config, "av1C marker/version=0x%02x", record[0]);
    int seq_profile = record[1] >> 5;
    int level_idx = record[1] & 0x1f;
    bool high_bitdepth = (record[2] & 0x40) != 0;
    bool twelve_bit = (record[2] & 0x20) != 0;
    bool monochrome = (record[2] & 0x10) != 0;
    int subsampling_x = (record[2] >> 3) & 1, subsampling_y = (record[2] >> 2) & 1;
    config->codec = "AV1";
    config->profile = av1_profile_name(seq_profile);
    config->level = av1_level_name(level_idx);
    config->profile_idc = seq_profile;
    config->level_idc = level_idx;
    config->bit_depth = high_bitdepth ? (twelve_bit ? 12 : 10) : 8;
    config->chroma_format_idc = monochrome ? 0 : (subsampling_x && subsampling_y) ? 1 : subsampling_x ? 2 : 3;

    // configOBUs: look for a sequence header.
    size_t pos = 4;
    while (pos < n) {
        uint8_t header = record[pos++];
        if (header & 0x80) return SRS_ERR(kErrorAv1Config, "OBU forbidden bit set");
        uint32_t type = (header >> 3) & 0x0f;
        bool extension = (header & 0x04) != 0;
        bool has_size = (header & 0x02) != 0;
        if (extension) {
            if (pos >= n) return SRS_ERR(kErrorAv1Config, "OBU extension header truncated");
            pos++;
        }
        uint64_t size = n - pos;
        if (has_size && !read_leb128(record, n, &pos, &size)) {
            return SRS_ERR(kErrorAv1Config, "OBU size truncated or too large");
        }
        if (size > n - pos) return SRS_ERR(kErrorAv1Config, "OBU size %llu past the end", (unsigned long long)size);
        if (type == kObuSequenceHeader) {
            int width = 0, height = 0;
            if (!read_sequence_header(record + pos, static_cast<size_t>(size), &width, &height)) {
                return SRS_ERR(kErrorAv1Config, "sequence header OBU truncated, size=%llu", (unsigned long long)size);
            }
            config->width = width;
            config->height = height;
            break;
        }
        pos += static_cast<size_t>(size);
    }
    return Error();
}

}  // namespace srs
