#include "app/rtc/rtc_bridge_from_live.hpp"

#include <cstdio>
#include <utility>

#include "app/live/live_source.hpp"
#include "app/rtc/rtc_random.hpp"
#include "app/rtc/rtc_server.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"
#include "kernel/rtp/rtp_av1.hpp"
#include "kernel/rtp/rtp_h264.hpp"
#include "kernel/rtp/rtp_h265.hpp"

namespace srs {

namespace {

// Payload types in the ring; each player rewrites them to its own.
constexpr uint8_t kVideoPt = 106;
constexpr uint8_t kAudioPt = 111;
constexpr uint32_t kVideoClock = 90000;
constexpr uint32_t kOpusClock = 48000;
// RTP payload size: room for SRTP's trailer and a TURN/IPv6 path under 1500.
constexpr size_t kMaxPayload = 1200;

RtcTrackCodec opus_codec() {
    RtcTrackCodec c;
    c.present = true;
    c.name = "opus";
    c.pt = kAudioPt;
    c.clock_rate = kOpusClock;
    c.channels = 2;
    c.fmtp = "minptime=10;useinbandfec=1";
    return c;
}

}  // namespace

LiveToRtcBridge::LiveToRtcBridge(LiveSource* live, RtcSource* rtc, RtcSourceManager* manager,
                                 const RtcVhostOptions& vhost, const RtcServerOptions& server, SendFlush flush)
    : live_(live), rtc_(rtc), manager_(manager), vhost_(vhost), server_(server), flush_(std::move(flush)) {
    video_seq_ = static_cast<uint16_t>(rtc_random_u32());
    audio_seq_ = static_cast<uint16_t>(rtc_random_u32());
    // H.264 until the sequence header says otherwise: what players are
    // offered when they come before it.
    video_codec_ = VideoCodec::kH264;
    video_fmtp_ = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f";
    publish_codecs();
}

LiveToRtcBridge::~LiveToRtcBridge() {
    rtc_->clear_publisher(this);
    manager_->release(rtc_);
}

void LiveToRtcBridge::publish_codecs() {
    RtcTrackCodec video;
    video.present = true;
    video.pt = kVideoPt;
    video.clock_rate = kVideoClock;
    switch (video_codec_) {
        case VideoCodec::kH265:
            video.name = "H265";
            break;
        case VideoCodec::kAV1:
            video.name = "AV1";
            break;
        default:
            video.name = "H264";
            video.fmtp = video_fmtp_;
            break;
    }
    rtc_->set_publisher(this, opus_codec(), video);
}

void LiveToRtcBridge::on_live_message(const LiveMessagePtr& msg) {
    now_ = monotonic_us();
    {
        // A frame's packets reach each player in a row (one GSO message).
        RtcFanOutBatch batch(manager_, now_);
        if (msg->is_video()) {
            on_video(*msg);
        } else if (msg->is_audio()) {
            on_audio(*msg);
        }
    }
    // The frame leaves now; inside an outer batch its owner sends it.
    if (flush_ && !manager_->batching()) flush_();
}

void LiveToRtcBridge::request_keyframe(utime_t now) {
    (void)now;
    counters_.keyframe_requests++;
}

void LiveToRtcBridge::on_video_sequence_header(const VideoPacketInfo& info) {
    VideoCodec before = video_codec_;
    std::string fmtp_before = video_fmtp_;
    video_codec_ = info.codec;
    Error err;
    if (info.codec == VideoCodec::kH264) {
        if (!h264_) {
            H264PacketizerOptions o;
            o.max_payload = kMaxPayload;
            o.merge_nalus = server_.merge_nalus;
            h264_.reset(new H264Packetizer(o));
        }
        err = h264_->set_sequence_header(info.data, info.size);
        VideoCodecConfig config;
        if (err.ok() && parse_avc_sequence_header(info.data, info.size, &config).ok()) {
            nalu_length_size_ = config.nalu_length_size > 0 ? config.nalu_length_size : 4;
        }
        if (err.ok() && info.size >= 4) {
            // profile_idc, constraint flags, level_idc: the profile-level-id players negotiate.
            char plid[7];
            snprintf(plid, sizeof(plid), "%02x%02x%02x", info.data[1], info.data[2], info.data[3]);
            video_fmtp_ = std::string("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=") + plid;
        }
    } else if (info.codec == VideoCodec::kH265) {
        if (!h265_) {
            H265PacketizerOptions o;
            o.max_payload = kMaxPayload;
            o.merge_nalus = server_.merge_nalus;
            h265_.reset(new H265Packetizer(o));
        }
        err = h265_->set_sequence_header(info.data, info.size);
    } else if (info.codec == VideoCodec::kAV1) {
        if (!av1_) av1_.reset(new Av1Packetizer(kMaxPayload));
        err = av1_->set_sequence_header(info.data, info.size);
    } else {
        srs_warn("RTC: bridge %s: video codec %s has no WebRTC packetizer here: video is not sent",
                 live_->url().c_str(), video_codec_name(info.codec));
    }
    if (err.failed()) {
        counters_.video_errors++;
        srs_warn("RTC: bridge %s: bad video sequence header: %s", live_->url().c_str(), err.summary().c_str());
        err.ignore();
        return;
    }
    if (before != video_codec_ || fmtp_before != video_fmtp_) {
        // Players negotiated before see the new codec (they re-check it per publish generation).
        publish_codecs();
    }
}

void LiveToRtcBridge::on_video(const LiveMessage& msg) {
    VideoPacketInfo info;
    if (Error err = parse_video_packet(msg.payload().data(), msg.size(), &info); err.failed()) {
        counters_.video_errors++;
        err.ignore();
        return;
    }
    if (info.sequence_header) {
        on_video_sequence_header(info);
        return;
    }
    if (info.command || info.end_of_sequence || info.size == 0 || info.codec != video_codec_) return;
    if (info.packet_type != kVideoCodedFrames && info.packet_type != kVideoCodedFramesX) return;
    // B-frames. Browsers decode a WebRTC frame as it arrives and want a
    // picture back for each: Chromium's H.264 decoder holds a B-frame's
    // reordering back, fails the frame and waits for a keyframe, so a stream
    // with B-frames plays as keyframes only. They are dropped (and the log
    // says so once) unless keep_bframe; the P-frames do not reference them.
    // With keep_bframe, a player that negotiated Baseline still skips the
    // ones nothing references (flagged on their packets).
    frame_disposable_ = false;
    if (info.codec == VideoCodec::kH264 && h264_frame_has_b_slice(info.data, info.size, nalu_length_size_)) {
        counters_.bframes++;
        if (!bframe_logged_) {
            bframe_logged_ = true;
            srs_trace("RTC: bridge %s: the stream has B-frames: %s", live_->url().c_str(),
                      vhost_.keep_bframe ? "sent to WebRTC players (keep_bframe on)"
                                         : "dropped for WebRTC players (browsers cannot decode them over WebRTC; "
                                           "keep_bframe on sends them)");
        }
        if (!vhost_.keep_bframe) {
            counters_.bframes_dropped++;
            return;
        }
        frame_disposable_ = h264_frame_is_disposable(info.data, info.size, nalu_length_size_);
    }
    counters_.video_frames++;
    // RTP carries the presentation time: decode time plus composition offset.
    int64_t pts = static_cast<int64_t>(msg.timestamp()) + info.composition_time;
    if (pts < 0) pts = 0;
    frame_ts_ = static_cast<uint32_t>(pts * (kVideoClock / 1000));
    Error err;
    if (info.codec == VideoCodec::kH264 && h264_) {
        if (!h264_->has_sequence_header()) return;  // nothing decodes without SPS/PPS
        err = h264_->packetize(info.data, info.size, this);
    } else if (info.codec == VideoCodec::kH265 && h265_) {
        if (!h265_->has_sequence_header()) return;
        err = h265_->packetize(info.data, info.size, this);
    } else if (info.codec == VideoCodec::kAV1 && av1_) {
        err = av1_->packetize(info.data, info.size, info.keyframe, this);
    }
    if (err.failed()) {
        // The frame's packets so far went out; the players' decoders recover at the next keyframe.
        if (counters_.video_errors++ == 0) {
            srs_warn("RTC: bridge %s: bad video frame at %u ms: %s", live_->url().c_str(), msg.timestamp(),
                     err.summary().c_str());
        }
        err.ignore();
    }
}

void LiveToRtcBridge::on_rtp_payload(const uint8_t* data, size_t size, bool marker) {
    counters_.video_packets++;
    store(RtcMediaKind::kVideo, data, size, marker, frame_ts_, frame_disposable_);
}

void LiveToRtcBridge::store(RtcMediaKind kind, const uint8_t* payload, size_t size, bool marker,
                            uint32_t timestamp, bool disposable) {
    // The payload goes straight into the ring: a header of size 0 around it.
    RtpHeader h;
    h.marker = marker;
    h.payload_type = kind == RtcMediaKind::kVideo ? kVideoPt : kAudioPt;
    h.sequence = kind == RtcMediaKind::kVideo ? video_seq_++ : audio_seq_++;
    h.timestamp = timestamp;
    h.header_size = 0;
    h.payload_size = size;
    rtc_->on_publisher_rtp(kind, payload, size, h, now_, disposable);
}

Error LiveToRtcBridge::start_transcoder() {
    AudioTranscoderOptions o;
    o.from = audio_codec_;
    o.to = AudioCodec::kOpus;
    o.to_sample_rate = kOpusClock;
    o.to_channels = 2;
    o.bitrate = vhost_.opus_bitrate;
    if (audio_codec_ == AudioCodec::kAAC) {
        o.from_config = aac_config_;
    } else {
        o.from_sample_rate = mp3_rate_;
        o.from_channels = mp3_channels_;
    }
    std::unique_ptr<AudioTranscoder> t;
    if (Error err = AudioTranscoder::create(o, &t); err.failed()) return err;
    transcoder_ = std::move(t);
    counters_.transcoder_starts++;
    srs_trace("RTC: bridge %s: %s -> Opus %d bps for %zu WebRTC players", live_->url().c_str(),
              audio_codec_name(audio_codec_), vhost_.opus_bitrate, rtc_->player_count());
    return Error();
}

void LiveToRtcBridge::on_audio(const LiveMessage& msg) {
    AudioPacketInfo info;
    if (Error err = parse_audio_packet(msg.payload().data(), msg.size(), &info); err.failed()) {
        counters_.audio_errors++;
        err.ignore();
        return;
    }
    if (info.codec != audio_codec_) {
        audio_codec_ = info.codec;
        transcoder_.reset();
        transcoder_failed_ = false;
    }
    if (info.sequence_header) {
        if (info.codec == AudioCodec::kAAC) {
            std::string config(reinterpret_cast<const char*>(info.data), info.size);
            if (config != aac_config_) {
                aac_config_ = config;
                transcoder_.reset();  // a new configuration: the next frame starts a new decoder
                transcoder_failed_ = false;
            }
        }
        return;
    }
    if (info.size == 0 || info.end_of_sequence) return;
    counters_.audio_frames_in++;
    if (info.codec == AudioCodec::kOpus) {
        send_opus(info.data, info.size, msg.timestamp() * (kOpusClock / 1000));
        return;
    }
    if (info.codec != AudioCodec::kAAC && info.codec != AudioCodec::kMP3) return;
    // Transcoding costs a core's percent or two: only while somebody listens.
    if (rtc_->player_count() == 0) {
        transcoder_.reset();
        return;
    }
    if (!transcoder_) {
        if (transcoder_failed_) return;
        if (info.codec == AudioCodec::kAAC && aac_config_.empty()) return;  // no AudioSpecificConfig yet
        if (info.codec == AudioCodec::kMP3) {
            static const int rates[4] = {5512, 11025, 22050, 44100};
            mp3_rate_ = info.sound_rate_index >= 0 && info.sound_rate_index < 4 ? rates[info.sound_rate_index] : 44100;
            mp3_channels_ = info.channels_flag == 1 ? 2 : 1;
        }
        if (Error err = start_transcoder(); err.failed()) {
            transcoder_failed_ = true;
            counters_.audio_errors++;
            srs_warn("RTC: bridge %s: no Opus for WebRTC players: %s", live_->url().c_str(), err.summary().c_str());
            err.ignore();
            return;
        }
    }
    opus_.clear();
    Error err = transcoder_->transcode(info.data, info.size, static_cast<int64_t>(msg.timestamp()) * 1000, &opus_);
    if (err.failed()) {
        // One bad frame: the transcoder goes on with the next; video is not affected.
        if (counters_.audio_errors++ == 0) {
            srs_warn("RTC: bridge %s: audio frame at %u ms not transcoded: %s", live_->url().c_str(),
                     msg.timestamp(), err.summary().c_str());
        }
        err.ignore();
    }
    for (const AudioTranscodedFrame& f : opus_) {
        send_opus(reinterpret_cast<const uint8_t*>(f.data.data()), f.data.size(), static_cast<uint32_t>(f.pts));
    }
}

void LiveToRtcBridge::send_opus(const uint8_t* data, size_t size, uint32_t timestamp) {
    if (size == 0 || size > kMaxPayload) return;
    counters_.audio_packets++;
    store(RtcMediaKind::kAudio, data, size, false, timestamp, false);
}

std::unique_ptr<LiveSourceBridge> LiveToRtcBridgeFactory::create_bridge(LiveSource* source) {
    return server_->create_live_bridge(source);
}

}  // namespace srs
