// H.265: HEVCDecoderConfigurationRecord (ISO 14496-15 8.3.3.1) and the
// sequence parameter set (H.265 7.3.2.2.1) up to the conformance window.
//
// Guarantees: every array and NAL length in the record is checked against the
// span; the SPS is read from a private RBSP copy with the bounds-checked
// BitReader; sub-layer counts, chroma format, picture size and conformance
// window are range checked before use.
#include <cstdio>
#include <vector>

#include "core/bytes.hpp"
#include "kernel/codec/bit_reader.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

namespace {

constexpr uint8_t kNalSps = 33;
constexpr uint32_t kMaxLumaSamples = 65536;  // per dimension; far beyond level 6.2

const char* hevc_profile_name(int profile_idc) {
    switch (profile_idc) {
        case 1: return "Main";
        case 2: return "Main 10";
        case 3: return "Main Still Picture";
        case 4: return "Rext";
        case 5: return "High Throughput";
        case 6: return "Multiview Main";
        case 7: return "Scalable Main";
        case 8: return "3D Main";
        case 9: return "Screen Extended";
        case 10: return "Scalable Rext";
        case 11: return "High Throughput Screen Extended";
        default: return "Other";
    }
}

// general_level_idc is 30 times the level number (A.4): 93 -> "3.1", 120 -> "4".
std::string hevc_level_name(int level_idc) {
    char buf[16];
    int major = level_idc / 30, minor = (level_idc % 30) / 3;
    if (minor == 0) {
        snprintf(buf, sizeof(buf), "%d", major);
    } else {
        snprintf(buf, sizeof(buf), "%d.%d", major, minor);
    }
    return buf;
}

// profile_tier_level(1, max_sub_layers_minus1) (7.3.3).
bool read_profile_tier_level(BitReader* br, uint32_t max_sub_layers_minus1, int* profile_idc, int* level_idc) {
    br->u(2);  // general_profile_space
    br->u(1);  // general_tier_flag
    *profile_idc = static_cast<int>(br->u(5));
    uint32_t compatibility = br->u(32);
    br->skip_bits(48);  // progressive/interlaced/non_packed/frame_only + 43 constraint bits + 1
    *level_idc = static_cast<int>(br->u(8));
    if (*profile_idc == 0) {
        // Not set: the first compatible profile (flag j is bit 31 - j).
        for (int j = 1; j < 32; j++) {
            if (compatibility & (1u << (31 - j))) {
                *profile_idc = j;
                break;
            }
        }
    }
    bool profile_present[8] = {}, level_present[8] = {};
    for (uint32_t i = 0; i < max_sub_layers_minus1; i++) {
        profile_present[i] = br->flag();
        level_present[i] = br->flag();
    }
    if (max_sub_layers_minus1 > 0) {
        for (uint32_t i = max_sub_layers_minus1; i < 8; i++) br->u(2);  // reserved_zero_2bits
    }
    for (uint32_t i = 0; i < max_sub_layers_minus1; i++) {
        if (profile_present[i]) br->skip_bits(88);
        if (level_present[i]) br->skip_bits(8);
    }
    return br->ok();
}

}  // namespace

Error parse_hevc_sps(const uint8_t* nal, size_t n, VideoCodecConfig* config) {
    if (n < 3) return SRS_ERR(kErrorHevcSps, "SPS truncated, size=%zu", n);
    if ((nal[0] & 0x80) || ((nal[0] >> 1) & 0x3f) != kNalSps) {
        return SRS_ERR(kErrorHevcSps, "not an SPS NAL unit, header=0x%02x%02x", nal[0], nal[1]);
    }
    std::vector<uint8_t> rbsp;
    nal_to_rbsp(nal + 2, n - 2, &rbsp);
    BitReader br(rbsp.data(), rbsp.size());

    br.u(4);  // sps_video_parameter_set_id
    uint32_t max_sub_layers_minus1 = br.u(3);
    br.u(1);  // sps_temporal_id_nesting_flag
    if (!br.ok() || max_sub_layers_minus1 > 6) {
        return SRS_ERR(kErrorHevcSps, "sps_max_sub_layers_minus1=%u", max_sub_layers_minus1);
    }
    int profile_idc = 0, level_idc = 0;
    if (!read_profile_tier_level(&br, max_sub_layers_minus1, &profile_idc, &level_idc)) {
        return SRS_ERR(kErrorHevcSps, "profile_tier_level truncated");
    }
    uint32_t sps_id = br.ue();
    uint32_t chroma_format_idc = br.ue();
    if (!br.ok() || sps_id > 15 || chroma_format_idc > 3) {
        return SRS_ERR(kErrorHevcSps, "SPS invalid, sps_id=%u chroma_format_idc=%u", sps_id, chroma_format_idc);
    }
    bool separate_colour_plane = chroma_format_idc == 3 && br.flag();
    uint32_t width = br.ue();
    uint32_t height = br.ue();
    uint32_t left = 0, right = 0, top = 0, bottom = 0;
    if (br.flag()) {  // conformance_window_flag
        left = br.ue();
        right = br.ue();
        top = br.ue();
        bottom = br.ue();
    }
    uint32_t bit_depth_luma_minus8 = br.ue();
    if (!br.ok()) return SRS_ERR(kErrorHevcSps, "SPS truncated, rbsp size=%zu", rbsp.size());
    if (width == 0 || height == 0 || width > kMaxLumaSamples || height > kMaxLumaSamples) {
        return SRS_ERR(kErrorHevcSps, "picture size %ux%u", width, height);
    }
    if (bit_depth_luma_minus8 > 8) return SRS_ERR(kErrorHevcSps, "bit_depth_luma_minus8=%u", bit_depth_luma_minus8);

    // Table 6-1: SubWidthC/SubHeightC (1 for 4:0:0, 4:4:4 and separate planes).
    uint32_t chroma_array_type = separate_colour_plane ? 0 : chroma_format_idc;
    uint64_t sub_width_c = (chroma_array_type == 1 || chroma_array_type == 2) ? 2 : 1;
    uint64_t sub_height_c = (chroma_array_type == 1) ? 2 : 1;
    uint64_t crop_x = sub_width_c * (static_cast<uint64_t>(left) + right);
    uint64_t crop_y = sub_height_c * (static_cast<uint64_t>(top) + bottom);
    if (crop_x >= width || crop_y >= height) {
        return SRS_ERR(kErrorHevcSps, "conformance window leaves no picture of %ux%u", width, height);
    }

    config->codec = "H265";
    config->profile = hevc_profile_name(profile_idc);
    config->level = hevc_level_name(level_idc);
    config->profile_idc = profile_idc;
    config->level_idc = level_idc;
    config->chroma_format_idc = static_cast<int>(chroma_format_idc);
    config->bit_depth = static_cast<int>(8 + bit_depth_luma_minus8);
    config->width = static_cast<int>(width - crop_x);
    config->height = static_cast<int>(height - crop_y);
    return Error();
}

// HEVCDecoderConfigurationRecord, 23 fixed bytes then the NAL arrays:
//   configurationVersion(8)  general_profile_space(2) tier(1) profile_idc(5)
//   general_profile_compatibility_flags(32)  general_constraint_indicator_flags(48)
//   general_level_idc(8)  reserved(4) min_spatial_segmentation_idc(12)
//   reserved(6) parallelismType(2)  reserved(6) chromaFormat(2)
//   reserved(5) bitDepthLumaMinus8(3)  reserved(5) bitDepthChromaMinus8(3)
//   avgFrameRate(16)  constantFrameRate(2) numTemporalLayers(3) temporalIdNested(1) lengthSizeMinusOne(2)
//   numOfArrays(8) { array_completeness(1) reserved(1) NAL_unit_type(6) numNalus(16)
//                    { nalUnitLength(16) nalUnit } x numNalus } x numOfArrays
Error parse_hevc_sequence_header(const uint8_t* record, size_t n, VideoCodecConfig* config) {
    *config = VideoCodecConfig();
    constexpr size_t kFixed = 23;
    if (n < kFixed) return SRS_ERR(kErrorHevcConfig, "HEVC config record truncated, size=%zu", n);
    if (record[0] > 1) return SRS_ERR(kErrorHevcConfig, "HEVC configurationVersion=%u", record[0]);
    int length_size = (record[21] & 0x03) + 1;
    if (length_size == 3) return SRS_ERR(kErrorHevcConfig, "HEVC lengthSizeMinusOne=2 is not allowed");
    size_t pos = kFixed;
    int arrays = record[22];
    for (int a = 0; a < arrays; a++) {
        if (n - pos < 3) return SRS_ERR(kErrorHevcConfig, "HEVC NAL array %d truncated", a);
        uint8_t type = record[pos] & 0x3f;
        size_t count = load_be16(record + pos + 1);
        pos += 3;
        for (size_t i = 0; i < count; i++) {
            if (n - pos < 2) return SRS_ERR(kErrorHevcConfig, "HEVC NAL length truncated, array %d", a);
            size_t len = load_be16(record + pos);
            pos += 2;
            if (len > n - pos) return SRS_ERR(kErrorHevcConfig, "HEVC NAL length %zu past the end", len);
            if (type == kNalSps && len > 0) {
                if (Error err = parse_hevc_sps(record + pos, len, config); !err.ok()) {
                    return SRS_WRAP(err, "HEVC config record");
                }
                config->nalu_length_size = length_size;
                return Error();
            }
            pos += len;
        }
    }
    return SRS_ERR(kErrorHevcConfig, "HEVC config record has no SPS");
}

}  // namespace srs
