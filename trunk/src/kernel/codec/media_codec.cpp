// FLV/RTMP audio and video tag bodies: legacy FLV 10.1 headers and the
// Enhanced RTMP (v1/v2) extended headers. Every read is bounds-checked against
// the span given; see media_codec.hpp for the layouts and the contract.
#include "kernel/codec/media_codec.hpp"

#include "core/bytes.hpp"

namespace srs {

namespace {

constexpr uint32_t kFourccAvc = make_fourcc("avc1");
constexpr uint32_t kFourccHevc = make_fourcc("hvc1");
constexpr uint32_t kFourccAv1 = make_fourcc("av01");
constexpr uint32_t kFourccVp9 = make_fourcc("vp09");
constexpr uint32_t kFourccOpus = make_fourcc("Opus");
constexpr uint32_t kFourccAac = make_fourcc("mp4a");
constexpr uint32_t kFourccMp3 = make_fourcc(".mp3");

constexpr uint8_t kLegacyCodecAvc = 7;
constexpr uint8_t kLegacyCodecHevc = 12;  // de-facto extension (not in FLV 10.1)
constexpr uint8_t kSoundFormatMp3 = 2;
constexpr uint8_t kSoundFormatExHeader = 9;
constexpr uint8_t kSoundFormatAac = 10;
constexpr uint8_t kSoundFormatMp3_8k = 14;

// AvMultitrackType.
constexpr uint8_t kOneTrack = 0;
constexpr uint8_t kManyTracksManyCodecs = 2;

// A cursor over the tag body; every step checks the remaining length.
struct Cursor {
    const uint8_t* p;
    size_t n;
    size_t pos = 0;
    size_t left() const { return n - pos; }
    bool has(size_t k) const { return left() >= k; }
    uint8_t u8() { return p[pos++]; }
    uint32_t u16() {
        uint32_t v = load_be16(p + pos);
        pos += 2;
        return v;
    }
    uint32_t u24() {
        uint32_t v = load_be24(p + pos);
        pos += 3;
        return v;
    }
    uint32_t u32() {
        uint32_t v = load_be32(p + pos);
        pos += 4;
        return v;
    }
};

// For the boolean helpers: the reason is not wanted, only the verdict.
bool succeeded(Error err) {
    bool ok = err.ok();
    err.ignore();
    return ok;
}

int32_t si24(uint32_t v) {
    return (v & 0x800000u) ? static_cast<int32_t>(v | 0xff000000u) : static_cast<int32_t>(v);
}

// E-RTMP ModEx: modExDataSize UI8+1 (UI16+1 when that is 256), the modifier
// data, then UB[4] modExType and UB[4] the next packet type. Repeats while the
// next type is ModEx again; each round consumes at least 3 bytes.
bool skip_mod_ex(Cursor* c, uint8_t* packet_type, uint8_t mod_ex) {
    while (*packet_type == mod_ex) {
        if (!c->has(1)) return false;
        size_t size = static_cast<size_t>(c->u8()) + 1;
        if (size == 256) {
            if (!c->has(2)) return false;
            size = static_cast<size_t>(c->u16()) + 1;
        }
        if (!c->has(size + 1)) return false;
        c->pos += size;  // modifier data (e.g. TimestampOffsetNano): not needed to route the packet
        *packet_type = c->u8() & 0x0f;
    }
    return true;
}

// E-RTMP Multitrack header and the first track's header. On success *end is
// where the first track's body ends.
enum class TrackResult { kOk, kTruncated, kInvalid };
TrackResult read_multitrack(Cursor* c, uint8_t* packet_type, uint32_t* fourcc, uint8_t* track_id, size_t* end,
                            uint8_t max_packet_type) {
    if (!c->has(1)) return TrackResult::kTruncated;
    uint8_t b = c->u8();
    uint8_t multitrack_type = b >> 4;
    *packet_type = b & 0x0f;
    if (multitrack_type > kManyTracksManyCodecs || *packet_type > max_packet_type) return TrackResult::kInvalid;
    // One FourCC for all tracks right here, or (ManyTracksManyCodecs) one at
    // the start of each track: for the first track both sit at this position.
    if (!c->has(4)) return TrackResult::kTruncated;
    *fourcc = c->u32();
    if (!c->has(1)) return TrackResult::kTruncated;
    *track_id = c->u8();
    *end = c->n;
    if (multitrack_type != kOneTrack) {
        if (!c->has(3)) return TrackResult::kTruncated;
        size_t size = c->u24();
        if (!c->has(size)) return TrackResult::kTruncated;
        *end = c->pos + size;
    }
    return TrackResult::kOk;
}

VideoCodec video_codec_of(uint32_t fourcc) {
    switch (fourcc) {
        case kFourccAvc: return VideoCodec::kH264;
        case kFourccHevc: return VideoCodec::kH265;
        case kFourccAv1: return VideoCodec::kAV1;
        case kFourccVp9: return VideoCodec::kVP9;
        default: return VideoCodec::kOther;
    }
}

AudioCodec audio_codec_of(uint32_t fourcc) {
    switch (fourcc) {
        case kFourccOpus: return AudioCodec::kOpus;
        case kFourccAac: return AudioCodec::kAAC;
        case kFourccMp3: return AudioCodec::kMP3;
        default: return AudioCodec::kOther;
    }
}

bool valid_frame_type(uint8_t t) { return t >= kVideoFrameKey && t <= kVideoFrameCommand; }

Error parse_ex_video(const uint8_t* p, size_t n, VideoPacketInfo* info) {
    Cursor c{p, n};
    uint8_t b0 = c.u8();
    info->enhanced = true;
    info->frame_type = (b0 >> 4) & 0x07;
    uint8_t packet_type = b0 & 0x0f;
    if (!skip_mod_ex(&c, &packet_type, kVideoModEx)) {
        return SRS_ERR(kErrorVideoPacket, "E-RTMP video ModEx truncated, size=%zu", n);
    }
    if (packet_type != kVideoMetadata && !valid_frame_type(info->frame_type)) {
        return SRS_ERR(kErrorVideoPacket, "E-RTMP video reserved frame type %u", info->frame_type);
    }
    if (packet_type != kVideoMetadata && info->frame_type == kVideoFrameCommand) {
        // VideoCommand UI8 and no body (no FourCC either).
        if (!c.has(1)) return SRS_ERR(kErrorVideoPacket, "E-RTMP video command truncated");
        info->command = true;
        info->packet_type = packet_type;
        info->data = p + c.pos;
        info->size = 1;
        return Error();
    }
    size_t end = n;
    if (packet_type == kVideoMultitrack) {
        info->multitrack = true;
        TrackResult r = read_multitrack(&c, &packet_type, &info->fourcc, &info->track_id, &end,
                                        kVideoMpeg2TsSequenceStart);
        if (r == TrackResult::kTruncated) return SRS_ERR(kErrorVideoPacket, "E-RTMP video multitrack truncated");
        if (r == TrackResult::kInvalid) return SRS_ERR(kErrorVideoPacket, "E-RTMP video multitrack invalid");
    } else {
        if (packet_type > kVideoMpeg2TsSequenceStart) {
            return SRS_ERR(kErrorVideoPacket, "E-RTMP video reserved packet type %u", packet_type);
        }
        if (!c.has(4)) return SRS_ERR(kErrorVideoPacket, "E-RTMP video FourCC truncated, size=%zu", n);
        info->fourcc = c.u32();
    }
    info->packet_type = packet_type;
    info->codec = video_codec_of(info->fourcc);
    info->keyframe = info->frame_type == kVideoFrameKey && packet_type != kVideoMetadata;
    info->sequence_header = packet_type == kVideoSequenceStart || packet_type == kVideoMpeg2TsSequenceStart;
    info->end_of_sequence = packet_type == kVideoSequenceEnd;
    if (packet_type == kVideoCodedFrames && (info->fourcc == kFourccAvc || info->fourcc == kFourccHevc)) {
        if (end - c.pos < 3) return SRS_ERR(kErrorVideoPacket, "E-RTMP video composition time truncated");
        info->composition_time = si24(c.u24());
    }
    info->data = p + c.pos;
    info->size = end - c.pos;
    return Error();
}

Error parse_ex_audio(const uint8_t* p, size_t n, AudioPacketInfo* info) {
    Cursor c{p, n};
    uint8_t packet_type = c.u8() & 0x0f;
    info->enhanced = true;
    info->sound_rate_index = info->sound_size = info->channels_flag = -1;
    if (!skip_mod_ex(&c, &packet_type, kAudioModEx)) {
        return SRS_ERR(kErrorAudioPacket, "E-RTMP audio ModEx truncated, size=%zu", n);
    }
    size_t end = n;
    if (packet_type == kAudioMultitrack) {
        info->multitrack = true;
        uint8_t track_id = 0;
        TrackResult r = read_multitrack(&c, &packet_type, &info->fourcc, &track_id, &end, kAudioMultichannelConfig);
        if (r == TrackResult::kTruncated) return SRS_ERR(kErrorAudioPacket, "E-RTMP audio multitrack truncated");
        if (r == TrackResult::kInvalid) return SRS_ERR(kErrorAudioPacket, "E-RTMP audio multitrack invalid");
    } else {
        if (!c.has(4)) return SRS_ERR(kErrorAudioPacket, "E-RTMP audio FourCC truncated, size=%zu", n);
        info->fourcc = c.u32();
    }
    if (packet_type == 3 || packet_type > kAudioMultichannelConfig) {
        return SRS_ERR(kErrorAudioPacket, "E-RTMP audio reserved packet type %u", packet_type);
    }
    info->packet_type = packet_type;
    info->codec = audio_codec_of(info->fourcc);
    info->sequence_header = packet_type == kAudioSequenceStart;
    info->end_of_sequence = packet_type == kAudioSequenceEnd;
    info->data = p + c.pos;
    info->size = end - c.pos;
    return Error();
}

}  // namespace

Error parse_video_packet(const uint8_t* p, size_t n, VideoPacketInfo* info) {
    *info = VideoPacketInfo();
    if (n < 1) return SRS_ERR(kErrorVideoPacket, "empty video packet");
    if (p[0] & 0x80) return parse_ex_video(p, n, info);

    info->frame_type = p[0] >> 4;
    info->legacy_codec_id = p[0] & 0x0f;
    if (!valid_frame_type(info->frame_type)) {
        return SRS_ERR(kErrorVideoPacket, "reserved video frame type %u", info->frame_type);
    }
    info->keyframe = info->frame_type == kVideoFrameKey;
    bool avc = info->legacy_codec_id == kLegacyCodecAvc;
    bool hevc = info->legacy_codec_id == kLegacyCodecHevc;
    info->codec = avc ? VideoCodec::kH264 : hevc ? VideoCodec::kH265 : VideoCodec::kOther;
    if (info->frame_type == kVideoFrameCommand) {
        // VideoInfo/command UI8 instead of video data.
        if (n < 2) return SRS_ERR(kErrorVideoPacket, "video command frame truncated");
        info->command = true;
        info->packet_type = kVideoCodedFrames;
        info->data = p + 1;
        info->size = 1;
        return Error();
    }
    if (!avc && !hevc) {
        info->packet_type = kVideoCodedFrames;
        info->data = p + 1;
        info->size = n - 1;
        return Error();
    }
    if (n < 5) return SRS_ERR(kErrorVideoPacket, "AVC/HEVC video header truncated, size=%zu", n);
    info->packet_type = p[1];
    if (info->packet_type > kVideoSequenceEnd) {
        return SRS_ERR(kErrorVideoPacket, "invalid AVCPacketType %u", info->packet_type);
    }
    info->sequence_header = info->packet_type == kVideoSequenceStart;
    info->end_of_sequence = info->packet_type == kVideoSequenceEnd;
    if (info->packet_type == kVideoCodedFrames) {
        info->composition_time = si24(load_be24(p + 2));
    }
    info->data = p + 5;
    info->size = n - 5;
    return Error();
}

bool is_video_keyframe(const uint8_t* p, size_t n) {
    if (n < 1 || (p[0] & 0x70) != (kVideoFrameKey << 4)) return false;
    if (!(p[0] & 0x80)) return true;
    uint8_t packet_type = p[0] & 0x0f;
    if (packet_type == kVideoModEx || packet_type == kVideoMultitrack) {
        VideoPacketInfo info;
        return succeeded(parse_video_packet(p, n, &info)) && info.keyframe;
    }
    return packet_type != kVideoMetadata;
}

bool is_video_sequence_header(const uint8_t* p, size_t n) {
    if (n < 2) return false;
    uint8_t frame_type = (p[0] >> 4) & 0x07;
    if (p[0] & 0x80) {
        uint8_t packet_type = p[0] & 0x0f;
        if (packet_type == kVideoModEx || packet_type == kVideoMultitrack) {
            VideoPacketInfo info;
            return succeeded(parse_video_packet(p, n, &info)) && info.sequence_header;
        }
        return (packet_type == kVideoSequenceStart || packet_type == kVideoMpeg2TsSequenceStart) &&
               valid_frame_type(frame_type) && frame_type != kVideoFrameCommand && n >= 5;
    }
    uint8_t codec_id = p[0] & 0x0f;
    return (codec_id == kLegacyCodecAvc || codec_id == kLegacyCodecHevc) && valid_frame_type(frame_type) &&
           frame_type != kVideoFrameCommand && p[1] == kVideoSequenceStart && n >= 5;
}

Error parse_audio_packet(const uint8_t* p, size_t n, AudioPacketInfo* info) {
    *info = AudioPacketInfo();
    if (n < 1) return SRS_ERR(kErrorAudioPacket, "empty audio packet");
    info->sound_format = p[0] >> 4;
    if (info->sound_format == kSoundFormatExHeader) return parse_ex_audio(p, n, info);

    info->sound_rate_index = (p[0] >> 2) & 0x03;
    info->sound_size = (p[0] >> 1) & 0x01;
    info->channels_flag = p[0] & 0x01;
    if (info->sound_format == kSoundFormatAac) {
        if (n < 2) return SRS_ERR(kErrorAudioPacket, "AAC audio header truncated");
        info->codec = AudioCodec::kAAC;
        info->packet_type = p[1];
        if (info->packet_type > 1) return SRS_ERR(kErrorAudioPacket, "invalid AACPacketType %u", p[1]);
        info->sequence_header = info->packet_type == 0;
        info->data = p + 2;
        info->size = n - 2;
        return Error();
    }
    bool mp3 = info->sound_format == kSoundFormatMp3 || info->sound_format == kSoundFormatMp3_8k;
    info->codec = mp3 ? AudioCodec::kMP3 : AudioCodec::kOther;
    info->data = p + 1;
    info->size = n - 1;
    return Error();
}

bool is_audio_sequence_header(const uint8_t* p, size_t n) {
    if (n < 2) return false;
    uint8_t format = p[0] >> 4;
    if (format == kSoundFormatAac) return p[1] == 0;
    if (format != kSoundFormatExHeader) return false;
    uint8_t packet_type = p[0] & 0x0f;
    if (packet_type == kAudioModEx || packet_type == kAudioMultitrack) {
        AudioPacketInfo info;
        return succeeded(parse_audio_packet(p, n, &info)) && info.sequence_header;
    }
    return packet_type == kAudioSequenceStart && n >= 5;
}

const char* video_codec_name(VideoCodec codec) {
    switch (codec) {
        case VideoCodec::kH264: return "H264";
        case VideoCodec::kH265: return "H265";
        case VideoCodec::kAV1: return "AV1";
        case VideoCodec::kVP9: return "VP9";
        case VideoCodec::kOther: return "Other";
        default: return "Unknown";
    }
}

const char* audio_codec_name(AudioCodec codec) {
    switch (codec) {
        case AudioCodec::kAAC: return "AAC";
        case AudioCodec::kMP3: return "MP3";
        case AudioCodec::kOpus: return "Opus";
        case AudioCodec::kOther: return "Other";
        default: return "Unknown";
    }
}

}  // namespace srs
