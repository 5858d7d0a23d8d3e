// Elementary-stream conversions for MPEG-TS (see ts_es.hpp).
#include "kernel/ts/ts_es.hpp"

#include "core/bytes.hpp"

namespace srs {

namespace {

constexpr uint8_t kStartCode[4] = {0, 0, 0, 1};

// A bounds-checked cursor over a record.
struct Cursor {
    const uint8_t* p;
    size_t n;
    size_t at = 0;
    bool has(size_t k) const { return k <= n - at; }
};

// One 16-bit-length-prefixed NAL unit.
bool read_nalu(Cursor* c, std::string* out) {
    if (!c->has(2)) return false;
    size_t len = load_be16(c->p + c->at);
    c->at += 2;
    if (len == 0 || !c->has(len)) return false;
    out->assign(reinterpret_cast<const char*>(c->p + c->at), len);
    c->at += len;
    return true;
}

int nalu_type(VideoCodec codec, uint8_t first) {
    return codec == VideoCodec::kH265 ? (first >> 1) & 0x3f : first & 0x1f;
}

}  // namespace

//  AVCDecoderConfigurationRecord (ISO 14496-15 5.3.3.1):
//  version(8)=1 profile(8) compat(8) level(8) '111111' lengthSizeMinusOne(2)
//  '111' numSPS(5) { length(16) SPS } numPPS(8) { length(16) PPS } [ext...]
Error ts_parse_avc_record(const uint8_t* record, size_t n, TsVideoParameterSets* out) {
    Cursor c{record, n};
    if (!c.has(6) || record[0] != 1) return SRS_ERR(kErrorTsMux, "avcC: %zu bytes, version %d", n, n ? record[0] : -1);
    TsVideoParameterSets sets;
    sets.nalu_length_size = (record[4] & 0x03) + 1;
    if (sets.nalu_length_size == 3) return SRS_ERR(kErrorTsMux, "avcC: NALU length size 3");
    int num_sps = record[5] & 0x1f;
    c.at = 6;
    for (int i = 0; i < num_sps; i++) {
        std::string nalu;
        if (!read_nalu(&c, &nalu)) return SRS_ERR(kErrorTsMux, "avcC: SPS %d truncated", i);
        sets.nalus.push_back(std::move(nalu));
    }
    if (!c.has(1)) return SRS_ERR(kErrorTsMux, "avcC: no PPS count");
    int num_pps = record[c.at++];
    for (int i = 0; i < num_pps; i++) {
        std::string nalu;
        if (!read_nalu(&c, &nalu)) return SRS_ERR(kErrorTsMux, "avcC: PPS %d truncated", i);
        sets.nalus.push_back(std::move(nalu));
    }
    *out = std::move(sets);
    return Error();
}

//  HEVCDecoderConfigurationRecord (ISO 14496-15 8.3.3.1): 22 bytes of profile,
//  tier, level and format fields, the last of which ends in
//  lengthSizeMinusOne(2); numOfArrays(8); per array: completeness(1)
//  reserved(1) NAL_unit_type(6), numNalus(16), { length(16) NALU }.
Error ts_parse_hevc_record(const uint8_t* record, size_t n, TsVideoParameterSets* out) {
    Cursor c{record, n};
    if (!c.has(23) || record[0] != 1) return SRS_ERR(kErrorTsMux, "hvcC: %zu bytes, version %d", n, n ? record[0] : -1);
    TsVideoParameterSets sets;
    sets.nalu_length_size = (record[21] & 0x03) + 1;
    if (sets.nalu_length_size == 3) return SRS_ERR(kErrorTsMux, "hvcC: NALU length size 3");
    int arrays = record[22];
    c.at = 23;
    for (int a = 0; a < arrays; a++) {
        if (!c.has(3)) return SRS_ERR(kErrorTsMux, "hvcC: array %d truncated", a);
        int count = load_be16(record + c.at + 1);
        c.at += 3;
        for (int i = 0; i < count; i++) {
            std::string nalu;
            if (!read_nalu(&c, &nalu)) return SRS_ERR(kErrorTsMux, "hvcC: array %d NALU %d truncated", a, i);
            if (nalu.size() < 2) return SRS_ERR(kErrorTsMux, "hvcC: array %d NALU %d too short", a, i);
            sets.nalus.push_back(std::move(nalu));
        }
    }
    *out = std::move(sets);
    return Error();
}

Error ts_annexb_from_avcc(VideoCodec codec, const TsVideoParameterSets& params, const uint8_t* nalus, size_t n,
                          std::string* out, bool* keyframe, bool flagged_keyframe) {
    if (codec != VideoCodec::kH264 && codec != VideoCodec::kH265) {
        return SRS_ERR(kErrorTsMux, "video codec %s is not carried in TS", video_codec_name(codec));
    }
    const bool hevc = codec == VideoCodec::kH265;
    const size_t header_size = hevc ? 2 : 1;
    const size_t ls = static_cast<size_t>(params.nalu_length_size);
    // First pass: check every length and learn what the frame holds.
    bool irap = false, has_params = false;
    size_t count = 0;
    for (size_t at = 0; at < n;) {
        if (n - at < ls) return SRS_ERR(kErrorTsMux, "NALU length truncated at %zu of %zu", at, n);
        size_t len = 0;
        for (size_t i = 0; i < ls; i++) len = len << 8 | nalus[at + i];
        at += ls;
        if (len < header_size || len > n - at) {
            return SRS_ERR(kErrorTsMux, "NALU of %zu bytes at %zu of %zu", len, at, n);
        }
        int type = nalu_type(codec, nalus[at]);
        if (hevc) {
            irap |= type >= 16 && type <= 21;
            has_params |= type == 33;  // SPS (the VPS and PPS travel with it)
        } else {
            irap |= type == 5;
            has_params |= type == 7;
        }
        at += len;
        count++;
    }
    if (count == 0) return SRS_ERR(kErrorTsMux, "an access unit with no NALU");
    irap |= flagged_keyframe;
    *keyframe = irap;

    // Access unit delimiter: H.264 type 9 with primary_pic_type 7 (any); H.265
    // type 35, layer 0, tid 1, pic_type 2 (any).
    static const uint8_t kAudH264[] = {0, 0, 0, 1, 0x09, 0xf0};
    static const uint8_t kAudH265[] = {0, 0, 0, 1, 0x46, 0x01, 0x50};
    if (hevc) {
        out->append(reinterpret_cast<const char*>(kAudH265), sizeof(kAudH265));
    } else {
        out->append(reinterpret_cast<const char*>(kAudH264), sizeof(kAudH264));
    }
    if (irap && !has_params) {
        for (const std::string& ps : params.nalus) {
            out->append(reinterpret_cast<const char*>(kStartCode), 4);
            out->append(ps);
        }
    }
    for (size_t at = 0; at < n;) {
        size_t len = 0;
        for (size_t i = 0; i < ls; i++) len = len << 8 | nalus[at + i];
        at += ls;
        int type = nalu_type(codec, nalus[at]);
        if (type != (hevc ? 35 : 9)) {
            out->append(reinterpret_cast<const char*>(kStartCode), 4);
            out->append(reinterpret_cast<const char*>(nalus + at), len);
        }
        at += len;
    }
    return Error();
}

//  AudioSpecificConfig (ISO 14496-3 1.6.2.1): audioObjectType(5, 31 escapes to
//  32 + 6 bits) samplingFrequencyIndex(4, 15 escapes to 24 bits)
//  channelConfiguration(4); for SBR/PS (5, 29) extensionSamplingFrequencyIndex
//  and the core's audioObjectType follow.
Error ts_parse_adts_config(const uint8_t* asc, size_t n, TsAdtsConfig* out) {
    if (n < 2) return SRS_ERR(kErrorTsMux, "AudioSpecificConfig of %zu bytes", n);
    uint32_t bits = load_be16(asc);
    uint32_t aot = bits >> 11;
    uint32_t index = (bits >> 7) & 0x0f;
    uint32_t channels = (bits >> 3) & 0x0f;
    if (aot == 31) return SRS_ERR(kErrorTsMux, "AAC object type %u escapes, ADTS cannot carry it", aot);
    if (index >= 13) return SRS_ERR(kErrorTsMux, "AAC sampling index %u, ADTS cannot carry it", index);
    if (channels > 7) return SRS_ERR(kErrorTsMux, "AAC channel configuration %u", channels);
    if (aot == 5 || aot == 29) {
        // extensionSamplingFrequencyIndex(4) then the core audioObjectType(5).
        if (n < 3) return SRS_ERR(kErrorTsMux, "SBR AudioSpecificConfig of %zu bytes", n);
        uint32_t more = load_be24(asc);  // aot(5) index(4) channels(4) ext_index(4) core_aot(5) ..(2)
        uint32_t ext_index = (more >> 7) & 0x0f;
        if (ext_index == 15) return SRS_ERR(kErrorTsMux, "SBR explicit rate, ADTS cannot carry it");
        aot = (more >> 2) & 0x1f;
    }
    if (aot < 1 || aot > 4) return SRS_ERR(kErrorTsMux, "AAC object type %u has no ADTS profile", aot);
    out->profile = static_cast<uint8_t>(aot - 1);
    out->sampling_index = static_cast<uint8_t>(index);
    out->channel_config = static_cast<uint8_t>(channels);
    return Error();
}

void ts_write_adts_header(uint8_t h[7], const TsAdtsConfig& config, size_t payload_size) {
    size_t frame_length = payload_size + kTsAdtsHeaderSize;
    h[0] = 0xff;
    h[1] = 0xf1;  // sync low bits, ID 0, layer 00, protection_absent 1
    h[2] = static_cast<uint8_t>(((config.profile & 0x03) << 6) | ((config.sampling_index & 0x0f) << 2) |
                                ((config.channel_config >> 2) & 0x01));
    h[3] = static_cast<uint8_t>(((config.channel_config & 0x03) << 6) | ((frame_length >> 11) & 0x03));
    h[4] = static_cast<uint8_t>(frame_length >> 3);
    h[5] = static_cast<uint8_t>(((frame_length & 0x07) << 5) | 0x1f);
    h[6] = 0xfc;
}

}  // namespace srs
