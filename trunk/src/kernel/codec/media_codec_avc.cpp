// H.264: AVCDecoderConfigurationRecord (ISO 14496-15 5.3.3.1) and the sequence
// parameter set (ISO 14496-10 7.3.2.1.1) down to the cropped picture size.
//
// Guarantees: the record's lengths and counts are checked against the span,
// the SPS is read from a private RBSP copy through the bounds-checked
// BitReader, every Exp-Golomb value that sizes a loop or a picture is range
// checked, and the cropping window must leave a non-empty picture.
#include <cstdio>
#include <vector>

#include "core/bytes.hpp"
#include "kernel/codec/bit_reader.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

namespace {

constexpr uint8_t kNalSps = 7;
constexpr uint32_t kMaxMbs = 8192;  // 131072 pixels: far beyond any level's MaxFS

const char* avc_profile_name(int profile_idc) {
    switch (profile_idc) {
        case 66: return "Baseline";
        case 77: return "Main";
        case 88: return "Extended";
        case 100: return "High";
        case 110: return "High 10";
        case 122: return "High 4:2:2";
        case 244: return "High 4:4:4 Predictive";
        case 44: return "CAVLC 4:4:4 Intra";
        case 83: return "Scalable Baseline";
        case 86: return "Scalable High";
        case 118: return "Multiview High";
        case 128: return "Stereo High";
        case 134: return "MFC High";
        case 135: return "MFC Depth High";
        case 138: return "Multiview Depth High";
        case 139: return "Enhanced Multiview Depth High";
        default: return "Other";
    }
}

// Profiles whose SPS carries chroma_format_idc, bit depths and scaling matrices.
bool has_chroma_info(int profile_idc) {
    switch (profile_idc) {
        case 100: case 110: case 122: case 244: case 44: case 83: case 86:
        case 118: case 128: case 138: case 139: case 134: case 135:
            return true;
        default:
            return false;
    }
}

// Level 1b is level_idc 9, or 11 with constraint_set3_flag in Baseline/Main/Extended (A.3.1).
std::string avc_level_name(int profile_idc, uint8_t constraints, int level_idc) {
    bool set3 = (constraints & 0x10) != 0;
    if (level_idc == 9 || (level_idc == 11 && set3 && (profile_idc == 66 || profile_idc == 77 || profile_idc == 88))) {
        return "1b";
    }
    char buf[16];
    if (level_idc % 10 == 0) {
        snprintf(buf, sizeof(buf), "%d", level_idc / 10);
    } else {
        snprintf(buf, sizeof(buf), "%d.%d", level_idc / 10, level_idc % 10);
    }
    return buf;
}

// scaling_list() (7.3.2.1.1.1): only the syntax is consumed.
bool skip_scaling_list(BitReader* br, int size) {
    int last_scale = 8, next_scale = 8;
    for (int j = 0; j < size; j++) {
        if (next_scale != 0) {
            int32_t delta = 0;
            if (!br->read_se(&delta)) return false;
            if (delta < -128 || delta > 127) return false;
            next_scale = (last_scale + delta + 256) % 256;
        }
        last_scale = (next_scale == 0) ? last_scale : next_scale;
    }
    return true;
}

}  // namespace

Error parse_avc_sps(const uint8_t* nal, size_t n, VideoCodecConfig* config) {
    if (n < 4) return SRS_ERR(kErrorAvcSps, "SPS truncated, size=%zu", n);
    if ((nal[0] & 0x80) || (nal[0] & 0x1f) != kNalSps) {
        return SRS_ERR(kErrorAvcSps, "not an SPS NAL unit, header=0x%02x", nal[0]);
    }
    std::vector<uint8_t> rbsp;
    nal_to_rbsp(nal + 1, n - 1, &rbsp);
    BitReader br(rbsp.data(), rbsp.size());

    int profile_idc = static_cast<int>(br.u(8));
    uint8_t constraints = static_cast<uint8_t>(br.u(8));
    int level_idc = static_cast<int>(br.u(8));
    uint32_t sps_id = br.ue();
    if (!br.ok() || sps_id > 31) return SRS_ERR(kErrorAvcSps, "SPS header invalid, sps_id=%u", sps_id);

    uint32_t chroma_format_idc = 1;  // 4:2:0 when absent
    bool separate_colour_plane = false;
    uint32_t bit_depth_luma = 8;
    if (has_chroma_info(profile_idc)) {
        chroma_format_idc = br.ue();
        if (chroma_format_idc > 3) return SRS_ERR(kErrorAvcSps, "chroma_format_idc=%u", chroma_format_idc);
        if (chroma_format_idc == 3) separate_colour_plane = br.flag();
        uint32_t luma_minus8 = br.ue();
        uint32_t chroma_minus8 = br.ue();
        if (luma_minus8 > 6 || chroma_minus8 > 6) {
            return SRS_ERR(kErrorAvcSps, "bit depth minus8 luma=%u chroma=%u", luma_minus8, chroma_minus8);
        }
        bit_depth_luma = 8 + luma_minus8;
        br.u(1);  // qpprime_y_zero_transform_bypass_flag
        if (br.flag()) {  // seq_scaling_matrix_present_flag
            int lists = (chroma_format_idc != 3) ? 8 : 12;
            for (int i = 0; i < lists; i++) {
                if (br.flag() && !skip_scaling_list(&br, i < 6 ? 16 : 64)) {
                    return SRS_ERR(kErrorAvcSps, "scaling list %d invalid", i);
                }
            }
        }
    }
    uint32_t log2_max_frame_num_minus4 = br.ue();
    if (log2_max_frame_num_minus4 > 12) return SRS_ERR(kErrorAvcSps, "log2_max_frame_num_minus4=%u", log2_max_frame_num_minus4);
    uint32_t poc_type = br.ue();
    if (poc_type == 0) {
        uint32_t log2_max_poc_lsb_minus4 = br.ue();
        if (log2_max_poc_lsb_minus4 > 12) return SRS_ERR(kErrorAvcSps, "log2_max_poc_lsb_minus4=%u", log2_max_poc_lsb_minus4);
    } else if (poc_type == 1) {
        br.u(1);  // delta_pic_order_always_zero_flag
        br.se();  // offset_for_non_ref_pic
        br.se();  // offset_for_top_to_bottom_field
        uint32_t cycle = br.ue();
        if (cycle > 255) return SRS_ERR(kErrorAvcSps, "num_ref_frames_in_pic_order_cnt_cycle=%u", cycle);
        for (uint32_t i = 0; i < cycle && br.ok(); i++) br.se();  // offset_for_ref_frame
    } else if (poc_type != 2) {
        return SRS_ERR(kErrorAvcSps, "pic_order_cnt_type=%u", poc_type);
    }
    br.ue();  // max_num_ref_frames
    br.u(1);  // gaps_in_frame_num_value_allowed_flag
    uint32_t width_mbs = br.ue() + 1;   // pic_width_in_mbs_minus1 + 1 (ue() <= 2^32-2: no wrap)
    uint32_t height_units = br.ue() + 1;  // pic_height_in_map_units_minus1 + 1
    bool frame_mbs_only = br.flag();
    if (!frame_mbs_only) br.u(1);  // mb_adaptive_frame_field_flag
    br.u(1);                       // direct_8x8_inference_flag
    uint32_t crop_left = 0, crop_right = 0, crop_top = 0, crop_bottom = 0;
    if (br.flag()) {  // frame_cropping_flag
        crop_left = br.ue();
        crop_right = br.ue();
        crop_top = br.ue();
        crop_bottom = br.ue();
    }
    if (!br.ok()) return SRS_ERR(kErrorAvcSps, "SPS truncated, rbsp size=%zu", rbsp.size());
    if (width_mbs > kMaxMbs || height_units > kMaxMbs) {
        return SRS_ERR(kErrorAvcSps, "picture too large, mbs=%ux%u", width_mbs, height_units);
    }

    // 7.4.2.1.1: frame size and the cropping rectangle in chroma sample units.
    uint64_t height_mbs = static_cast<uint64_t>(2 - frame_mbs_only) * height_units;
    uint32_t chroma_array_type = separate_colour_plane ? 0 : chroma_format_idc;
    uint64_t crop_unit_x = 1, crop_unit_y = 2 - frame_mbs_only;
    if (chroma_array_type != 0) {
        uint64_t sub_width_c = (chroma_format_idc == 3) ? 1 : 2;
        uint64_t sub_height_c = (chroma_format_idc == 1) ? 2 : 1;
        crop_unit_x = sub_width_c;
        crop_unit_y = sub_height_c * (2 - frame_mbs_only);
    }
    uint64_t width = static_cast<uint64_t>(width_mbs) * 16;
    uint64_t height = height_mbs * 16;
    uint64_t crop_x = crop_unit_x * (static_cast<uint64_t>(crop_left) + crop_right);
    uint64_t crop_y = crop_unit_y * (static_cast<uint64_t>(crop_top) + crop_bottom);
    if (crop_x >= width || crop_y >= height) {
        return SRS_ERR(kErrorAvcSps, "cropping %llux%llu leaves no picture of %llux%llu", (unsigned long long)crop_x,
                       (unsigned long long)crop_y, (unsigned long long)width, (unsigned long long)height);
    }

    config->codec = "H264";
    config->profile = avc_profile_name(profile_idc);
    config->level = avc_level_name(profile_idc, constraints, level_idc);
    config->profile_idc = profile_idc;
    config->level_idc = level_idc;
    config->chroma_format_idc = static_cast<int>(chroma_format_idc);
    config->bit_depth = static_cast<int>(bit_depth_luma);
    config->width = static_cast<int>(width - crop_x);
    config->height = static_cast<int>(height - crop_y);
    return Error();
}

// AVCDecoderConfigurationRecord:
//   configurationVersion(8)=1  AVCProfileIndication(8)  profile_compatibility(8)  AVCLevelIndication(8)
//   reserved(6)=111111 lengthSizeMinusOne(2)
//   reserved(3)=111 numOfSequenceParameterSets(5)
//   { sequenceParameterSetLength(16) sequenceParameterSetNALUnit } x numOfSequenceParameterSets
//   numOfPictureParameterSets(8) { pictureParameterSetLength(16) NALUnit } x n   [+ high profile fields]
Error parse_avc_sequence_header(const uint8_t* record, size_t n, VideoCodecConfig* config) {
    *config = VideoCodecConfig();
    if (n < 6) return SRS_ERR(kErrorAvcConfig, "AVC config record truncated, size=%zu", n);
    if (record[0] != 1) return SRS_ERR(kErrorAvcConfig, "AVC configurationVersion=%u", record[0]);
    int length_size = (record[4] & 0x03) + 1;
    if (length_size == 3) return SRS_ERR(kErrorAvcConfig, "AVC lengthSizeMinusOne=2 is not allowed");
    int num_sps = record[5] & 0x1f;
    if (num_sps == 0) return SRS_ERR(kErrorAvcConfig, "AVC config record has no SPS");
    if (n < 8) return SRS_ERR(kErrorAvcConfig, "AVC config record truncated, size=%zu", n);
    size_t len = load_be16(record + 6);
    if (len == 0) return SRS_ERR(kErrorAvcConfig, "AVC config record has an empty SPS");
    if (len > n - 8) return SRS_ERR(kErrorAvcConfig, "AVC SPS length %zu past the end, size=%zu", len, n);
    if (Error err = parse_avc_sps(record + 8, len, config); !err.ok()) {
        return SRS_WRAP(err, "AVC config record");
    }
    config->nalu_length_size = length_size;
    return Error();
}

}  // namespace srs
