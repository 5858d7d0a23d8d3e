#include "kernel/mp4/mp4_flv_input.hpp"

#include "kernel/codec/media_codec.hpp"

namespace srs {

namespace {

constexpr uint8_t kTagAudio = 8;  // FLV TagType (kernel/flv holds the same numbers)
constexpr uint8_t kTagVideo = 9;

Error video_frame(uint32_t timestamp, const uint8_t* body, size_t n, Mp4FlvFrame* out) {
    VideoPacketInfo info;
    if (Error err = parse_video_packet(body, n, &info); !err.ok()) return SRS_WRAP(err, "video tag");
    if (info.command || info.end_of_sequence) return Error();
    if (info.codec != VideoCodec::kH264 && info.codec != VideoCodec::kH265) {
        out->unsupported = true;
        return Error();
    }
    if (info.sequence_header) {
        if (Error err = mp4_video_track(info.codec, info.data, info.size, &out->config); !err.ok()) {
            return SRS_WRAP(err, "video sequence header");
        }
        out->kind = Mp4FlvFrame::kVideoConfig;
        return Error();
    }
    if (info.packet_type != kVideoCodedFrames && info.packet_type != kVideoCodedFramesX) return Error();
    if (info.size == 0) return Error();
    out->kind = Mp4FlvFrame::kVideoSample;
    out->sample.dts_ms = timestamp;
    out->sample.cts_ms = info.composition_time;
    out->sample.keyframe = info.frame_type == kVideoFrameKey;
    out->sample.data = info.data;
    out->sample.size = info.size;
    return Error();
}

Error audio_frame(uint32_t timestamp, const uint8_t* body, size_t n, Mp4FlvFrame* out) {
    AudioPacketInfo info;
    if (Error err = parse_audio_packet(body, n, &info); !err.ok()) return SRS_WRAP(err, "audio tag");
    if (info.end_of_sequence) return Error();
    if (info.codec != AudioCodec::kAAC && info.codec != AudioCodec::kOpus) {
        out->unsupported = true;
        return Error();
    }
    if (info.sequence_header) {
        Error err = info.codec == AudioCodec::kAAC ? mp4_aac_track(info.data, info.size, &out->config)
                                                   : mp4_opus_track(info.data, info.size, &out->config);
        if (!err.ok()) return SRS_WRAP(err, "audio sequence header");
        out->kind = Mp4FlvFrame::kAudioConfig;
        return Error();
    }
    if (info.enhanced && info.packet_type != kAudioCodedFrames) return Error();
    if (info.size == 0) return Error();
    out->kind = Mp4FlvFrame::kAudioSample;
    out->sample.dts_ms = timestamp;
    out->sample.keyframe = true;
    out->sample.data = info.data;
    out->sample.size = info.size;
    return Error();
}

}  // namespace

Error mp4_frame_from_flv(uint8_t tag_type, uint32_t timestamp, const uint8_t* body, size_t n, Mp4FlvFrame* out) {
    *out = Mp4FlvFrame();
    if (tag_type == kTagVideo) return video_frame(timestamp, body, n, out);
    if (tag_type == kTagAudio) return audio_frame(timestamp, body, n, out);
    return Error();
}

}  // namespace srs
