// The MPEG-TS muxer (see ts_muxer.hpp).
#include "kernel/ts/ts_muxer.hpp"

#include <vector>

#include "kernel/flv/flv.hpp"

namespace srs {

namespace {

uint64_t to_90k(int64_t ms) {
    return static_cast<uint64_t>(ms * 90) & kTsPtsMask;
}

}  // namespace

TsMuxer::TsMuxer(TsMuxerOptions options) : options_(options) {}

Error TsMuxer::set_tracks(VideoCodec video, AudioCodec audio) {
    if (video != VideoCodec::kUnknown && video != VideoCodec::kH264 && video != VideoCodec::kH265) {
        return SRS_ERR(kErrorTsMux, "video codec %s is not carried in TS", video_codec_name(video));
    }
    if (audio != AudioCodec::kUnknown && audio != AudioCodec::kAAC && audio != AudioCodec::kMP3) {
        return SRS_ERR(kErrorTsMux, "audio codec %s is not carried in TS", audio_codec_name(audio));
    }
    if (video == video_ && audio == audio_) return Error();
    if (video != video_) video_params_ = TsVideoParameterSets();
    if (audio != audio_) {
        have_adts_ = false;
        mp3_type_known_ = false;
        mp3_stream_type_ = kTsStreamMp3;
    }
    video_ = video;
    audio_ = audio;
    if (psi_written_) pmt_version_ = (pmt_version_ + 1) & 0x1f;
    psi_pending_ = true;
    return Error();
}

Error TsMuxer::set_video_sequence_header(const uint8_t* record, size_t n) {
    TsVideoParameterSets params;
    Error err = video_ == VideoCodec::kH265 ? ts_parse_hevc_record(record, n, &params)
                : video_ == VideoCodec::kH264
                    ? ts_parse_avc_record(record, n, &params)
                    : SRS_ERR(kErrorTsMux, "a video sequence header without a video track");
    if (!err.ok()) return SRS_WRAP(err, "ts video sequence header");
    video_params_ = std::move(params);
    return Error();
}

Error TsMuxer::set_audio_sequence_header(const uint8_t* asc, size_t n) {
    if (audio_ != AudioCodec::kAAC) return SRS_ERR(kErrorTsMux, "an audio sequence header without an AAC track");
    TsAdtsConfig config;
    if (Error err = ts_parse_adts_config(asc, n, &config); !err.ok()) return SRS_WRAP(err, "ts aac sequence header");
    adts_ = config;
    have_adts_ = true;
    return Error();
}

// MPEG audio frame header: sync (11 bits), version (2: 00 MPEG-2.5, 10
// MPEG-2, 11 MPEG-1), layer (2), ... The first frame decides; a change of
// stream_type after PAT/PMT went out is a new PMT version.
void TsMuxer::note_mp3_version(const uint8_t* data, size_t n) {
    if (mp3_type_known_) return;
    mp3_type_known_ = true;
    if (n < 2 || data[0] != 0xff || (data[1] & 0xe0) != 0xe0) return;
    uint8_t type = ((data[1] >> 3) & 0x03) == 0x03 ? kTsStreamMp3 : kTsStreamMp3Mpeg2;
    if (type == mp3_stream_type_) return;
    mp3_stream_type_ = type;
    if (psi_written_) pmt_version_ = (pmt_version_ + 1) & 0x1f;
    psi_pending_ = true;
}

uint16_t TsMuxer::pcr_pid() const {
    return video_ != VideoCodec::kUnknown ? options_.video_pid : options_.audio_pid;
}

// Bytes are counted by the callers (a frame's count includes its PSI).
void TsMuxer::write_psi(std::string* out) {
    std::vector<TsPmtStream> streams;
    if (video_ != VideoCodec::kUnknown) {
        streams.push_back({video_ == VideoCodec::kH265 ? kTsStreamH265 : kTsStreamH264, options_.video_pid});
    }
    if (audio_ != AudioCodec::kUnknown) {
        uint8_t type = audio_ == AudioCodec::kAAC ? uint8_t(kTsStreamAac) : mp3_stream_type_;
        streams.push_back({type, options_.audio_pid});
    }
    ts_write_pat(options_.transport_stream_id, options_.pmt_pid, 0, &cc_pat_, out);
    ts_write_pmt(options_.pmt_pid, pcr_pid(), pmt_version_, streams, &cc_pmt_, out);
    psi_pending_ = false;
    psi_written_ = true;
    stats_.psi_writes++;
}

void TsMuxer::maybe_write_psi(int64_t dts_ms, std::string* out) {
    bool due = psi_pending_ ||
               (options_.psi_interval_ms > 0 && (dts_ms - last_psi_dts_ >= options_.psi_interval_ms ||
                                                 dts_ms < last_psi_dts_));  // a jump back restarts the period
    if (!due) return;
    write_psi(out);
    last_psi_dts_ = dts_ms;
}

void TsMuxer::start_segment(std::string* out) {
    size_t before = out->size();
    write_psi(out);
    stats_.bytes += out->size() - before;
}

Error TsMuxer::write_video(int64_t dts_ms, int64_t pts_ms, const uint8_t* nalus, size_t n, std::string* out,
                           bool* keyframe, bool flagged_keyframe) {
    if (video_ == VideoCodec::kUnknown) {
        stats_.errors++;
        return SRS_ERR(kErrorTsMux, "a video frame without a video track");
    }
    // Video PES are unbounded (PES_packet_length 0), so the header does not
    // depend on the size and the Annex B access unit is written right after it.
    pes_.clear();
    ts_write_pes_header(kTsStreamIdVideo, to_90k(pts_ms), to_90k(dts_ms), 0, true, &pes_);
    bool key = false;
    Error err = ts_annexb_from_avcc(video_, video_params_, nalus, n, &pes_, &key, flagged_keyframe);
    if (!err.ok()) {
        stats_.errors++;
        return SRS_WRAP(err, "ts video frame at dts %lld", static_cast<long long>(dts_ms));
    }

    size_t before = out->size();
    maybe_write_psi(dts_ms, out);
    TsPesPacketization how;
    how.pid = options_.video_pid;
    how.write_pcr = pcr_pid() == options_.video_pid;
    how.pcr27m = to_90k(dts_ms) * 300;
    how.random_access = key;
    ts_write_pes_packets(how, reinterpret_cast<const uint8_t*>(pes_.data()), pes_.size(), &cc_video_, out);
    stats_.bytes += out->size() - before;
    stats_.video_frames++;
    if (keyframe) *keyframe = key;
    return Error();
}

Error TsMuxer::write_audio(int64_t dts_ms, const uint8_t* data, size_t n, std::string* out) {
    if (audio_ == AudioCodec::kUnknown) {
        stats_.errors++;
        return SRS_ERR(kErrorTsMux, "an audio frame without an audio track");
    }
    if (n == 0) {
        stats_.errors++;
        return SRS_ERR(kErrorTsMux, "an empty audio frame at dts %lld", static_cast<long long>(dts_ms));
    }
    pes_.clear();
    if (audio_ == AudioCodec::kAAC) {
        if (!have_adts_) {
            stats_.errors++;
            return SRS_ERR(kErrorTsMux, "an AAC frame before its AudioSpecificConfig");
        }
        if (n > kTsAdtsMaxPayload) {
            stats_.errors++;
            return SRS_ERR(kErrorTsMux, "an AAC frame of %zu bytes (ADTS takes %zu)", n, kTsAdtsMaxPayload);
        }
        ts_write_pes_header(kTsStreamIdAudio, to_90k(dts_ms), to_90k(dts_ms), kTsAdtsHeaderSize + n, false, &pes_);
        uint8_t adts[kTsAdtsHeaderSize];
        ts_write_adts_header(adts, adts_, n);
        pes_.append(reinterpret_cast<const char*>(adts), sizeof(adts));
    } else {
        note_mp3_version(data, n);
        ts_write_pes_header(kTsStreamIdAudio, to_90k(dts_ms), to_90k(dts_ms), n, false, &pes_);
    }
    pes_.append(reinterpret_cast<const char*>(data), n);

    size_t before = out->size();
    maybe_write_psi(dts_ms, out);
    TsPesPacketization how;
    how.pid = options_.audio_pid;
    how.write_pcr = pcr_pid() == options_.audio_pid;
    how.pcr27m = to_90k(dts_ms) * 300;
    how.random_access = how.write_pcr;  // audio alone: every frame is a place to start
    ts_write_pes_packets(how, reinterpret_cast<const uint8_t*>(pes_.data()), pes_.size(), &cc_audio_, out);
    stats_.bytes += out->size() - before;
    stats_.audio_frames++;
    return Error();
}

Error TsMuxer::write_flv_tag(uint8_t tag_type, uint32_t timestamp_ms, const uint8_t* body, size_t n,
                             std::string* out, bool* written) {
    if (written) *written = false;
    if (tag_type == kFlvTagVideo) {
        VideoPacketInfo info;
        if (Error err = parse_video_packet(body, n, &info); !err.ok()) return SRS_WRAP(err, "ts video tag");
        if (info.codec != VideoCodec::kH264 && info.codec != VideoCodec::kH265) return Error();
        if (info.command || info.end_of_sequence || info.packet_type == kVideoMetadata) return Error();
        if (info.codec != video_) {
            if (Error err = set_tracks(info.codec, audio_); !err.ok()) return SRS_WRAP(err, "ts video tag");
        }
        if (info.sequence_header) return set_video_sequence_header(info.data, info.size);
        int64_t dts = timestamp_ms;
        Error err = write_video(dts, dts + info.composition_time, info.data, info.size, out, nullptr,
                                info.frame_type == kVideoFrameKey);
        if (err.ok() && written) *written = true;
        return err;
    }
    if (tag_type == kFlvTagAudio) {
        AudioPacketInfo info;
        if (Error err = parse_audio_packet(body, n, &info); !err.ok()) return SRS_WRAP(err, "ts audio tag");
        if (info.codec != AudioCodec::kAAC && info.codec != AudioCodec::kMP3) return Error();
        if (info.end_of_sequence) return Error();
        if (info.codec != audio_) {
            if (Error err = set_tracks(video_, info.codec); !err.ok()) return SRS_WRAP(err, "ts audio tag");
        }
        if (info.sequence_header) return set_audio_sequence_header(info.data, info.size);
        Error err = write_audio(timestamp_ms, info.data, info.size, out);
        if (err.ok() && written) *written = true;
        return err;
    }
    return Error();  // script data and anything else: not media
}

}  // namespace srs
