#include "app/rtc/rtc_bridge_to_live.hpp"

#include <algorithm>
#include <cstring>

#include "app/live/live_source.hpp"
#include "core/bytes.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"

namespace srs {

namespace {

constexpr size_t kVideoReorderSlots = 512;
constexpr size_t kAudioReorderSlots = 64;
constexpr utime_t kLossPliInterval = 500 * kUsPerMs;
// The timeline starts this far before the first message, so the other
// track's first one (slightly earlier) does not go below zero.
constexpr int64_t kTimelineLeadUs = 1000 * 1000;

int64_t ntp_to_us(uint64_t ntp) {
    uint64_t seconds = ntp >> 32;
    uint64_t fraction = ntp & 0xffffffffu;
    return static_cast<int64_t>(seconds * 1000000u + ((fraction * 1000000u) >> 32));
}

// An FLV video tag body: frame type/codec byte, AVCPacketType, composition time 0.
SharedBytes avc_tag(bool keyframe, uint8_t packet_type, const std::string& body) {
    SharedBytes b = SharedBytes::allocate(5 + body.size());
    uint8_t* p = b.data();
    p[0] = keyframe ? 0x17 : 0x27;
    p[1] = packet_type;
    p[2] = p[3] = p[4] = 0;
    memcpy(p + 5, body.data(), body.size());
    return b;
}

// An FLV audio tag body: AAC, 44 kHz/16-bit/stereo flags (the real rate is in
// the AudioSpecificConfig), then AACPacketType.
SharedBytes aac_tag(uint8_t packet_type, const std::string& body) {
    SharedBytes b = SharedBytes::allocate(2 + body.size());
    uint8_t* p = b.data();
    p[0] = 0xaf;
    p[1] = packet_type;
    memcpy(p + 2, body.data(), body.size());
    return b;
}

}  // namespace

RtcToLiveBridge::RtcToLiveBridge(std::string cid, LiveSource* live, const RtcTrackCodec& audio,
                                 const RtcTrackCodec& video, const RtcToLiveOptions& options)
    : cid_(std::move(cid)), live_(live), options_(options) {
    if (video.present && iequals(video.name, "H264")) {
        video_h264_ = true;
        video_.present = true;
        video_.clock_rate = video.clock_rate ? video.clock_rate : 90000;
        video_.reorder.reset(new RtpReorderBuffer(kVideoReorderSlots, options.video_wait));
    } else if (video.present) {
        srs_warn("RTC: session %s publishes %s video: RTMP players get no video (only H.264 goes to FLV here)",
                 cid_.c_str(), video.name.c_str());
    }
    if (audio.present && iequals(audio.name, "opus")) {
        audio_opus_ = true;
        audio_.present = true;
        audio_.clock_rate = audio.clock_rate ? audio.clock_rate : 48000;
        audio_.reorder.reset(new RtpReorderBuffer(kAudioReorderSlots, options.audio_wait));
        AudioTranscoderOptions o;
        o.from = AudioCodec::kOpus;
        o.from_sample_rate = 48000;
        o.from_channels = 2;
        o.to = AudioCodec::kAAC;
        o.to_sample_rate = 48000;
        o.to_channels = 2;
        o.bitrate = options.aac_bitrate;
        if (Error err = AudioTranscoder::create(o, &transcoder_); err.failed()) {
            transcoder_failed_ = true;
            srs_warn("RTC: session %s: no AAC for RTMP players: %s", cid_.c_str(), err.summary().c_str());
            err.ignore();
        }
    } else if (audio.present) {
        srs_warn("RTC: session %s publishes %s audio: RTMP players get no audio (only Opus is transcoded)",
                 cid_.c_str(), audio.name.c_str());
    }
}

RtcToLiveBridge::~RtcToLiveBridge() = default;

void RtcToLiveBridge::on_rtp(RtcMediaKind kind, const uint8_t* data, size_t size, const RtpHeader& h, utime_t now) {
    Track& t = track(kind);
    if (!t.present) return;
    now_ = now;
    if (started_at_ < 0) started_at_ = now;
    if (!t.has_first) {
        t.has_first = true;
        t.first_rtp = h.timestamp;
        t.first_at = now;
    }
    t.reorder->push(h.sequence, data, size, now);
    drain(kind, now);
}

void RtcToLiveBridge::on_sender_report(RtcMediaKind kind, uint64_t ntp, uint32_t rtp_timestamp, utime_t now) {
    (void)now;
    Track& t = track(kind);
    if (!t.present) return;
    t.has_sr = true;
    t.sr_ntp_us = ntp_to_us(ntp);
    t.sr_rtp = rtp_timestamp;
}

bool RtcToLiveBridge::ready() const {
    if (arrival_timing_) return true;
    for (const Track* t : {&audio_, &video_}) {
        if (t->present && !t->has_sr) return false;
    }
    return audio_.present || video_.present;
}

bool RtcToLiveBridge::timeline_ms(RtcMediaKind kind, uint32_t rtp_timestamp, int64_t* ms) {
    const Track& t = track(kind);
    if (!t.present || !ready() || t.clock_rate == 0) return false;
    int64_t us;
    if (arrival_timing_) {
        if (!t.has_first) return false;
        int32_t d = static_cast<int32_t>(rtp_timestamp - t.first_rtp);
        us = t.first_at + static_cast<int64_t>(d) * 1000000 / t.clock_rate;
    } else {
        int32_t d = static_cast<int32_t>(rtp_timestamp - t.sr_rtp);
        us = t.sr_ntp_us + static_cast<int64_t>(d) * 1000000 / t.clock_rate;
    }
    if (!has_base_) {
        has_base_ = true;
        base_us_ = us - kTimelineLeadUs;
    }
    int64_t rel = us - base_us_;
    *ms = rel < 0 ? 0 : rel / 1000;
    return true;
}

void RtcToLiveBridge::on_timer(utime_t now) {
    now_ = now;
    if (!arrival_timing_ && started_at_ >= 0 && !ready() && now - started_at_ >= options_.sr_wait) {
        arrival_timing_ = true;
        srs_warn("RTC: session %s: no RTCP sender report in %lld ms: RTMP players are timed by arrival",
                 cid_.c_str(), (long long)(options_.sr_wait / kUsPerMs));
    }
    if (audio_.present) drain(RtcMediaKind::kAudio, now);
    if (video_.present) drain(RtcMediaKind::kVideo, now);
    if (video_h264_ && options_.pli_interval > 0 && now >= next_pli_) {
        next_pli_ = now + options_.pli_interval;
        keyframe_wanted_ = true;
    }
}

bool RtcToLiveBridge::take_keyframe_wanted() {
    bool v = keyframe_wanted_;
    keyframe_wanted_ = false;
    if (v) counters_.pli++;
    return v;
}

void RtcToLiveBridge::drain(RtcMediaKind kind, utime_t now) {
    Track& t = track(kind);
    RtpReorderPacket p;
    while (t.reorder->pop(now, &p)) {
        if (kind == RtcMediaKind::kVideo) {
            on_video_packet(p.data, p.size, p.lost_before);
        } else {
            on_audio_packet(p.data, p.size);
        }
    }
}

void RtcToLiveBridge::on_video_packet(const uint8_t* data, size_t size, int lost_before) {
    RtpHeader h;
    if (rtp_parse_header(data, size, &h).failed()) return;
    Error err = depacketizer_.push(h.sequence, h.timestamp, h.marker, data + h.header_size, h.payload_size,
                                   lost_before);
    if (err.failed()) {
        counters_.video_dropped++;
        err.ignore();
    }
    counters_.video_lost = depacketizer_.frames_dropped();
    while (depacketizer_.pop(&frame_)) emit_video(frame_);
    if (depacketizer_.need_keyframe()) want_keyframe();
}

void RtcToLiveBridge::want_keyframe() {
    // A burst of loss, or frames before the timeline is ready, ask once per interval.
    if (last_loss_pli_ >= 0 && now_ - last_loss_pli_ < kLossPliInterval) return;
    last_loss_pli_ = now_;
    keyframe_wanted_ = true;
}

void RtcToLiveBridge::emit_video(const H264Frame& frame) {
    int64_t ms = 0;
    if (!timeline_ms(RtcMediaKind::kVideo, frame.timestamp, &ms)) {
        counters_.waiting_sr_dropped++;
        want_keyframe();  // once timed, start at a keyframe
        return;
    }
    if (!frame.sps.empty() && !frame.pps.empty() && (frame.sps != sps_ || frame.pps != pps_)) {
        sps_ = frame.sps;
        pps_ = frame.pps;
        sent_sequence_header_ = false;
    }
    if (!sent_sequence_header_) {
        if (sps_.empty() || pps_.empty() || !frame.keyframe) {
            counters_.video_dropped++;  // nothing decodes before SPS, PPS and an IDR
            want_keyframe();
            return;
        }
        std::string record;
        if (Error err = h264_build_avcc_record(sps_, pps_, &record); err.failed()) {
            counters_.video_dropped++;
            srs_warn("RTC: session %s: no sequence header from its SPS/PPS: %s", cid_.c_str(),
                     err.summary().c_str());
            err.ignore();
            return;
        }
        if (Error err = live_->on_video(static_cast<uint32_t>(ms), avc_tag(true, 0, record)); err.failed()) {
            err.ignore();
            return;
        }
        sent_sequence_header_ = true;
        counters_.sequence_headers++;
    }
    if (frame.nalus.empty()) return;
    if (Error err = live_->on_video(static_cast<uint32_t>(ms), avc_tag(frame.keyframe, 1, frame.nalus));
        err.failed()) {
        counters_.video_dropped++;
        err.ignore();
        return;
    }
    counters_.video_frames++;
}

void RtcToLiveBridge::on_audio_packet(const uint8_t* data, size_t size) {
    if (!transcoder_) return;
    RtpHeader h;
    if (rtp_parse_header(data, size, &h).failed() || h.payload_size == 0) return;
    int64_t ms = 0;
    if (!timeline_ms(RtcMediaKind::kAudio, h.timestamp, &ms)) {
        counters_.waiting_sr_dropped++;
        return;
    }
    // The exact position, not the millisecond: the transcoder keeps its output continuous from it.
    int64_t us = ms * 1000;
    aac_.clear();
    if (Error err = transcoder_->transcode(data + h.header_size, h.payload_size, us, &aac_); err.failed()) {
        if (counters_.audio_errors++ == 0) {
            srs_warn("RTC: session %s: an Opus packet not transcoded: %s", cid_.c_str(), err.summary().c_str());
        }
        err.ignore();
    }
    for (const AudioTranscodedFrame& f : aac_) {
        // The encoder's priming samples come first: a frame's sound is that
        // much older than its pts says (1024 samples, 21 ms, for AAC).
        int64_t pts = std::max<int64_t>(0, f.pts - transcoder_->delay_samples());
        uint32_t ts = static_cast<uint32_t>(pts * 1000 / transcoder_->output_sample_rate());
        if (!sent_audio_header_) {
            if (Error err = live_->on_audio(ts, aac_tag(0, transcoder_->output_config())); err.failed()) {
                err.ignore();
                return;
            }
            sent_audio_header_ = true;
        }
        if (Error err = live_->on_audio(ts, aac_tag(1, f.data)); err.failed()) {
            err.ignore();
            continue;
        }
        counters_.audio_frames++;
    }
}

}  // namespace srs
