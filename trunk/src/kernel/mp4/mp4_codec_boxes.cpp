#include "kernel/mp4/mp4_codec_boxes.hpp"

#include <cstring>

#include "core/bytes.hpp"

namespace srs {

void mp4_write_avcc(Mp4BoxWriter* w, const std::string& record) {
    size_t at = w->begin("avcC");
    w->bytes(record);
    w->end(at);
}

void mp4_write_hvcc(Mp4BoxWriter* w, const std::string& record) {
    size_t at = w->begin("hvcC");
    w->bytes(record);
    w->end(at);
}

namespace {

// An MPEG-4 descriptor header: tag, then the length in 7-bit groups.
void descriptor(Mp4BoxWriter* w, uint8_t tag, size_t length) {
    w->u8(tag);
    if (length < 0x80) {
        w->u8(static_cast<uint8_t>(length));
        return;
    }
    for (int shift = 21; shift > 0; shift -= 7) w->u8(static_cast<uint8_t>(((length >> shift) & 0x7f) | 0x80));
    w->u8(static_cast<uint8_t>(length & 0x7f));
}

size_t descriptor_size(size_t length) {
    return 1 + (length < 0x80 ? 1 : 4) + length;
}

}  // namespace

void mp4_write_esds(Mp4BoxWriter* w, const std::string& asc, uint32_t avg_bitrate) {
    const size_t dsi = descriptor_size(asc.size());
    const size_t dcd_body = 13 + dsi;
    const size_t sl_body = 1;
    const size_t es_body = 3 + descriptor_size(dcd_body) + descriptor_size(sl_body);

    size_t at = w->begin_full("esds", 0, 0);
    descriptor(w, 0x03, es_body);  // ES_Descriptor
    w->u16(0);                     // ES_ID
    w->u8(0);                      // no stream dependence, URL or OCR stream
    descriptor(w, 0x04, dcd_body);  // DecoderConfigDescriptor
    w->u8(0x40);                    // objectTypeIndication: MPEG-4 audio (14496-3)
    w->u8(0x05 << 2 | 1);           // streamType audio, upStream 0, reserved 1
    w->u24(0);                      // bufferSizeDB
    w->u32(avg_bitrate);            // maxBitrate
    w->u32(avg_bitrate);            // avgBitrate
    descriptor(w, 0x05, asc.size());  // DecoderSpecificInfo: the AudioSpecificConfig
    w->bytes(asc);
    descriptor(w, 0x06, sl_body);  // SLConfigDescriptor
    w->u8(0x02);                   // predefined: reserved for MP4 files
    w->end(at);
}

Error mp4_parse_opus_head(const uint8_t* p, size_t n, OpusConfig* config) {
    if (n < 19 || memcmp(p, "OpusHead", 8) != 0) {
        return SRS_ERR(kErrorMp4Track, "not an OpusHead (%zu bytes)", n);
    }
    if ((p[8] >> 4) != 0) return SRS_ERR(kErrorMp4Track, "OpusHead version %u not taken", p[8]);
    OpusConfig c;
    c.channels = p[9];
    c.pre_skip = load_le16(p + 10);
    c.input_sample_rate = load_le32(p + 12);
    c.output_gain = static_cast<int16_t>(load_le16(p + 16));
    c.mapping_family = p[18];
    if (c.channels == 0) return SRS_ERR(kErrorMp4Track, "OpusHead with 0 channels");
    if (c.mapping_family != 0) {
        if (n < 21u + c.channels) return SRS_ERR(kErrorMp4Track, "OpusHead channel mapping table truncated");
        c.stream_count = p[19];
        c.coupled_count = p[20];
        c.channel_mapping.assign(reinterpret_cast<const char*>(p + 21), c.channels);
    } else if (c.channels > 2) {
        return SRS_ERR(kErrorMp4Track, "OpusHead mapping family 0 with %u channels", c.channels);
    }
    *config = c;
    return Error();
}

void mp4_write_dops(Mp4BoxWriter* w, const OpusConfig& c) {
    size_t at = w->begin("dOps");
    w->u8(0);  // Version
    w->u8(c.channels);
    w->u16(c.pre_skip);
    w->u32(c.input_sample_rate);
    w->u16(static_cast<uint16_t>(c.output_gain));
    w->u8(c.mapping_family);
    if (c.mapping_family != 0) {
        w->u8(c.stream_count);
        w->u8(c.coupled_count);
        std::string mapping = c.channel_mapping;
        mapping.resize(c.channels, '\0');
        w->bytes(mapping);
    }
    w->end(at);
}

void mp4_write_visual_entry(Mp4BoxWriter* w, bool hevc, uint16_t width, uint16_t height, const std::string& record) {
    size_t at = hevc ? w->begin("hvc1") : w->begin("avc1");
    w->zeros(6);       // reserved
    w->u16(1);         // data_reference_index
    w->zeros(16);      // pre_defined, reserved, pre_defined[3]
    w->u16(width);
    w->u16(height);
    w->u32(0x00480000);  // 72 dpi
    w->u32(0x00480000);
    w->u32(0);           // reserved
    w->u16(1);           // frame_count
    w->zeros(32);        // compressorname (empty Pascal string)
    w->u16(0x0018);      // depth
    w->u16(0xffff);      // pre_defined = -1
    if (hevc) {
        mp4_write_hvcc(w, record);
    } else {
        mp4_write_avcc(w, record);
    }
    w->end(at);
}

namespace {

void audio_entry_fields(Mp4BoxWriter* w, uint16_t channels, uint32_t sample_rate) {
    w->zeros(6);   // reserved
    w->u16(1);     // data_reference_index
    w->zeros(8);   // reserved
    w->u16(channels);
    w->u16(16);    // samplesize
    w->u16(0);     // pre_defined
    w->u16(0);     // reserved
    w->u32(sample_rate <= 0xffff ? sample_rate << 16 : 0);
}

}  // namespace

void mp4_write_mp4a_entry(Mp4BoxWriter* w, uint16_t channels, uint32_t sample_rate, const std::string& asc) {
    size_t at = w->begin("mp4a");
    audio_entry_fields(w, channels, sample_rate);
    mp4_write_esds(w, asc);
    w->end(at);
}

void mp4_write_opus_entry(Mp4BoxWriter* w, const OpusConfig& config) {
    size_t at = w->begin("Opus");
    audio_entry_fields(w, config.channels, 48000);
    mp4_write_dops(w, config);
    w->end(at);
}

}  // namespace srs
