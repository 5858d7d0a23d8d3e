// libFuzzer target for kernel/media_codec*: every parser runs on the input as
// is (tag body, AVC/HEVC/AV1 record, SPS, AudioSpecificConfig), the packet
// parsers' payloads go on to the record parsers, and the invariants are
// checked: payload spans stay inside the input, the fast helpers agree with
// the full parsers, and decoded sizes are sane.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "kernel/codec/media_codec.hpp"

using namespace srs;

namespace {

void check_config(Error err, const VideoCodecConfig& c) {
    if (err.ok()) {
        if (c.width < 0 || c.height < 0 || c.width > 131072 || c.height > 262144) abort();
        if (c.codec.empty()) abort();
    }
    err.ignore();
}

void video_records(const uint8_t* p, size_t n) {
    VideoCodecConfig c;
    check_config(parse_avc_sequence_header(p, n, &c), c);
    check_config(parse_hevc_sequence_header(p, n, &c), c);
    check_config(parse_av1_sequence_header(p, n, &c), c);
    check_config(parse_avc_sps(p, n, &c), c);
    check_config(parse_hevc_sps(p, n, &c), c);
}

void audio_record(const uint8_t* p, size_t n) {
    AudioCodecConfig c;
    Error err = parse_aac_sequence_header(p, n, &c);
    // A program_config_element can describe 3 x 15 channel pairs + 3 LFE = 93 channels.
    if (err.ok() && (c.sample_rate <= 0 || c.sample_rate >= (1 << 24) || c.channels < 0 || c.channels > 93)) abort();
    err.ignore();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const uint8_t* end = data + size;

    VideoPacketInfo v;
    Error verr = parse_video_packet(data, size, &v);
    if (verr.ok()) {
        if (v.data < data || v.data + v.size > end) abort();
        if (is_video_keyframe(data, size) != v.keyframe) abort();
        if (is_video_sequence_header(data, size) != v.sequence_header) abort();
        if (v.sequence_header) video_records(v.data, v.size);
    }
    verr.ignore();

    AudioPacketInfo a;
    Error aerr = parse_audio_packet(data, size, &a);
    if (aerr.ok()) {
        if (a.data < data || a.data + a.size > end) abort();
        if (is_audio_sequence_header(data, size) != a.sequence_header) abort();
        if (a.sequence_header) audio_record(a.data, a.size);
    }
    aerr.ignore();

    video_records(data, size);
    audio_record(data, size);
    return 0;
}
