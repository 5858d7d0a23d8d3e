// AAC: AudioSpecificConfig (ISO 14496-3 1.6.2.1) -> object type, output
// sample rate and channel count, with SBR/PS signaled explicitly (object type
// 5/29, hierarchical) or through the backward-compatible sync extension
// (0x2b7 / 0x548) after a GASpecificConfig.
//
// Guarantees: every field is read with the bounds-checked BitReader; reserved
// sampling indexes and channel configurations are errors; a
// program_config_element is walked only to count channels, with its 4-bit
// counts bounding every loop.
#include "kernel/codec/bit_reader.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

namespace {

constexpr int kSampleRates[13] = {96000, 88200, 64000, 48000, 44100, 32000, 24000,
                                  22050, 16000, 12000, 11025, 8000,  7350};

constexpr uint32_t kAotSbr = 5;
constexpr uint32_t kAotPs = 29;

const char* aac_profile_name(uint32_t object_type) {
    switch (object_type) {
        case 1: return "Main";
        case 2: return "LC";
        case 3: return "SSR";
        case 4: return "LTP";
        case 5: return "HE";
        case 29: return "HEv2";
        case 23: return "LD";
        case 39: return "ELD";
        default: return "";
    }
}

// GetAudioObjectType(): 5 bits, 31 escapes to 32 + 6 bits.
uint32_t read_object_type(BitReader* br) {
    uint32_t aot = br->u(5);
    if (aot == 31) aot = 32 + br->u(6);
    return aot;
}

// samplingFrequencyIndex, or 0xf and a 24-bit explicit rate. 0 on error.
int read_sample_rate(BitReader* br) {
    uint32_t index = br->u(4);
    if (index == 0x0f) return static_cast<int>(br->u(24));
    if (index >= 13) return 0;
    return kSampleRates[index];
}

// channelConfiguration -> channels (Table 1.19 and its amendments); -1 if reserved.
int channels_of(uint32_t config) {
    static const int kChannels[16] = {0, 1, 2, 3, 4, 5, 6, 8, -1, -1, -1, 7, 8, 24, 8, -1};
    return kChannels[config & 0x0f];
}

// program_config_element() (4.4.1.1): counts the output channels.
int read_pce_channels(BitReader* br) {
    br->u(4);  // element_instance_tag
    br->u(2);  // object_type
    br->u(4);  // sampling_frequency_index
    uint32_t front = br->u(4), side = br->u(4), back = br->u(4);
    uint32_t lfe = br->u(2);
    br->u(3);  // num_assoc_data_elements
    br->u(4);  // num_valid_cc_elements
    if (br->flag()) br->u(4);  // mono_mixdown_element_number
    if (br->flag()) br->u(4);  // stereo_mixdown_element_number
    if (br->flag()) br->u(3);  // matrix_mixdown_idx, pseudo_surround_enable
    int channels = static_cast<int>(lfe);
    for (uint32_t i = 0; i < front + side + back; i++) {
        channels += br->flag() ? 2 : 1;  // is_cpe
        br->u(4);                        // element tag select
    }
    return br->ok() ? channels : -1;
}

bool is_ga_object_type(uint32_t aot) {
    switch (aot) {
        case 1: case 2: case 3: case 4: case 6: case 7: case 17: case 19: case 20: case 21: case 22: case 23:
            return true;
        default:
            return false;
    }
}

}  // namespace

Error parse_aac_sequence_header(const uint8_t* asc, size_t n, AudioCodecConfig* config) {
    *config = AudioCodecConfig();
    if (n < 2) return SRS_ERR(kErrorAacConfig, "AudioSpecificConfig truncated, size=%zu", n);
    BitReader br(asc, n);
    uint32_t signaled = read_object_type(&br);
    int sample_rate = read_sample_rate(&br);
    uint32_t channel_config = br.u(4);
    if (!br.ok()) return SRS_ERR(kErrorAacConfig, "AudioSpecificConfig truncated, size=%zu", n);
    if (signaled == 0) return SRS_ERR(kErrorAacConfig, "audioObjectType 0 is null");
    if (sample_rate <= 0) return SRS_ERR(kErrorAacConfig, "invalid sampling frequency");
    int channels = channels_of(channel_config);
    if (channels < 0) return SRS_ERR(kErrorAacConfig, "reserved channelConfiguration %u", channel_config);

    bool sbr = false, ps = false;
    uint32_t core = signaled;
    int output_rate = sample_rate;
    if (signaled == kAotSbr || signaled == kAotPs) {
        // Explicit, hierarchical signaling: the extension rate, then the core object type.
        sbr = true;
        ps = signaled == kAotPs;
        output_rate = read_sample_rate(&br);
        core = read_object_type(&br);
        if (core == 22) br.u(4);  // extensionChannelConfiguration (ER BSAC)
        if (!br.ok()) return SRS_ERR(kErrorAacConfig, "SBR extension truncated");
        if (output_rate <= 0) return SRS_ERR(kErrorAacConfig, "invalid extension sampling frequency");
    }
    if (is_ga_object_type(core)) {
        // GASpecificConfig (4.4.1).
        br.u(1);                      // frameLengthFlag
        if (br.flag()) br.u(14);      // dependsOnCoreCoder, coreCoderDelay
        bool extension = br.flag();   // extensionFlag
        if (channel_config == 0) channels = read_pce_channels(&br);
        if (core == 6 || core == 20) br.u(3);  // layerNr
        if (extension) {
            if (core == 22) br.u(16);  // numOfSubFrame, layer_length
            if (core == 17 || core == 19 || core == 20 || core == 23) br.u(3);  // resilience flags
            br.u(1);                   // extensionFlag3
        }
        if (!br.ok() || channels < 0) return SRS_ERR(kErrorAacConfig, "GASpecificConfig truncated");
        // Backward-compatible signaling: a sync extension after the core config.
        if (!sbr && channel_config != 0 && br.bits_left() >= 16 && br.u(11) == 0x2b7) {
            uint32_t ext_type = read_object_type(&br);
            if (ext_type == kAotSbr && br.flag()) {  // sbrPresentFlag
                int rate = read_sample_rate(&br);
                if (br.ok() && rate > 0) {
                    sbr = true;
                    output_rate = rate;
                    if (br.bits_left() >= 12 && br.u(11) == 0x548 && br.flag()) ps = true;  // psPresentFlag
                }
            }
        }
    }
    config->codec = "AAC";
    config->object_type = static_cast<int>(ps ? kAotPs : sbr ? kAotSbr : core);
    config->profile = aac_profile_name(static_cast<uint32_t>(config->object_type));
    config->sample_rate = output_rate;
    config->channels = (ps && channels == 1) ? 2 : channels;
    return Error();
}

}  // namespace srs
