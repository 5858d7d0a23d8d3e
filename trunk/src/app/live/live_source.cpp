#include "app/live/live_source.hpp"

#include <algorithm>

#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

// Larger steps than this between two messages are treated as a jump (a
// publisher restart, a wrap) and replaced by a nominal frame time.
static const int64_t kMaxJitterMs = 250;
static const int64_t kDefaultFrameMs = 10;

uint32_t TimestampJitter::correct(uint32_t timestamp, TimeJitter mode, bool is_video) {
    int64_t ts = timestamp;
    switch (mode) {
        case TimeJitter::kOff:
            return timestamp;
        case TimeJitter::kZero:
            if (!has_base_) {
                has_base_ = true;
                base_ = ts;
            }
            return static_cast<uint32_t>(std::max<int64_t>(0, ts - base_));
        case TimeJitter::kFull:
        default:
            break;
    }
    if (!started_) {
        // The stream starts at zero for its players.
        started_ = true;
        last_time_ = ts;
        last_corrected_ = 0;
        last_out_[0] = last_out_[1] = 0;
        return 0;
    }
    int64_t delta = ts - last_time_;
    if (delta < -kMaxJitterMs || delta > kMaxJitterMs) delta = kDefaultFrameMs;
    last_corrected_ = std::max<int64_t>(0, last_corrected_ + delta);
    last_time_ = ts;
    // Audio and video share one clock, so a small step back of one track
    // relative to the other is kept; but neither track may go back against
    // itself (decoders and players reject that).
    int64_t& last_out = last_out_[is_video ? 1 : 0];
    last_out = std::max(last_out, last_corrected_);
    return static_cast<uint32_t>(last_out);
}

LiveSource::LiveSource(std::string vhost, std::string app, std::string stream)
    : vhost_(std::move(vhost)),
      app_(std::move(app)),
      stream_(std::move(stream)),
      id_("vid-" + new_context_id().substr(0, 7)),
      idle_since_us_(monotonic_us()) {}

LiveSource::~LiveSource() {
    forward_.reset();
    bridge_.reset();
    for (LiveConsumer* c : consumers_) c->detach();
}

Error LiveSource::on_publish(const std::string& publisher_cid, const SourceOptions& options) {
    if (publishing_) {
        return SRS_ERR(kErrorStreamBusy, "stream %s is already published by %s", url().c_str(), publisher_cid_.c_str());
    }
    publishing_ = true;
    publisher_cid_ = publisher_cid;
    options_ = options;
    gop_.set_enabled(options.gop_cache);
    gop_.set_max_frames(options.gop_cache_max_frames);
    jitter_.reset_base();
    carries_audio_ = carries_video_ = false;
    for (LiveConsumer* c : consumers_) c->on_publish();
    if (bridge_factory_ && options.bridge) bridge_ = bridge_factory_->create_bridge(this);
    if (forward_factory_ && options.claimed) forward_ = forward_factory_->create_bridge(this);
    srs_trace("source %s%s published by %s, gop_cache=%d, consumers=%zu%s", vhost_.c_str(), url().c_str(),
              publisher_cid.c_str(), options.gop_cache, consumers_.size(), bridge_ ? ", bridged to WebRTC" : "");
    return Error();
}

void LiveSource::on_unpublish() {
    if (!publishing_) return;
    publishing_ = false;
    publisher_cid_.clear();
    bridge_.reset();  // its WebRTC players stay and wait for the next publish
    forward_.reset();  // the forwarders stop (their consumers go with them)
    // A new publish brings its own headers; stale ones would break decoders.
    gop_.clear();
    metadata_.reset();
    video_sh_.reset();
    audio_sh_.reset();
    for (LiveConsumer* c : consumers_) c->on_unpublish();
    touch_idle();
    srs_trace("source %s%s unpublished, consumers=%zu", vhost_.c_str(), url().c_str(), consumers_.size());
    if (publish_observer_ && options_.claimed) publish_observer_->on_source_unpublished(this);
}

void LiveSource::on_upstream_switch() {
    gop_.clear();
    srs_trace("source %s%s: upstream switched, gop cache cleared, consumers=%zu", vhost_.c_str(), url().c_str(),
              consumers_.size());
}

Error LiveSource::on_metadata(SharedBytes body) {
    recv_bytes_ += body.size();
    LiveMessagePtr msg(LiveMessage::create(LiveMessageKind::kData, 0, std::move(body)));
    metadata_ = msg;
    fan_out(msg);
    return Error();
}

Error LiveSource::on_audio(uint32_t timestamp, SharedBytes payload) {
    recv_bytes_ += payload.size();
    if (payload.empty()) return Error();  // nothing to decode; some encoders send these
    AudioPacketInfo info;
    if (Error err = parse_audio_packet(payload.data(), payload.size(), &info); !err.ok()) {
        return SRS_WRAP(err, "audio of %s", url().c_str());
    }
    carries_audio_ = true;
    uint32_t ts = jitter_.correct(timestamp, options_.jitter, false);
    LiveMessagePtr msg(LiveMessage::create(LiveMessageKind::kAudio, ts, std::move(payload)));
    if (info.sequence_header) {
        msg->set_sequence_header(true);
        if (info.codec == AudioCodec::kAAC) {
            AudioCodecConfig cfg;
            if (Error err = parse_aac_sequence_header(info.data, info.size, &cfg); err.ok()) {
                audio_config_ = cfg;
                has_audio_config_ = true;
                srs_trace("%s audio %s %s %dHz %d channels", url().c_str(), cfg.codec.c_str(), cfg.profile.c_str(),
                          cfg.sample_rate, cfg.channels);
            } else {
                srs_warn("%s: bad AAC sequence header: %s", url().c_str(), err.summary().c_str());
            }
        }
        audio_sh_ = msg;
    } else {
        if (!has_audio_config_ && info.codec == AudioCodec::kMP3) {
            audio_config_.codec = "MP3";
            has_audio_config_ = true;
        }
        gop_.append(msg);
    }
    fan_out(msg);
    return Error();
}

Error LiveSource::on_video(uint32_t timestamp, SharedBytes payload) {
    recv_bytes_ += payload.size();
    if (payload.empty()) return Error();
    VideoPacketInfo info;
    if (Error err = parse_video_packet(payload.data(), payload.size(), &info); !err.ok()) {
        return SRS_WRAP(err, "video of %s", url().c_str());
    }
    carries_video_ = true;
    uint32_t ts = jitter_.correct(timestamp, options_.jitter, true);
    LiveMessagePtr msg(LiveMessage::create(LiveMessageKind::kVideo, ts, std::move(payload)));
    msg->set_keyframe(info.keyframe);
    if (info.sequence_header) {
        msg->set_sequence_header(true);
        VideoCodecConfig cfg;
        Error err;
        if (info.codec == VideoCodec::kH264) {
            err = parse_avc_sequence_header(info.data, info.size, &cfg);
        } else if (info.codec == VideoCodec::kH265) {
            err = parse_hevc_sequence_header(info.data, info.size, &cfg);
        } else if (info.codec == VideoCodec::kAV1) {
            err = parse_av1_sequence_header(info.data, info.size, &cfg);
        }
        if (err.ok() && !cfg.codec.empty()) {
            video_config_ = cfg;
            has_video_config_ = true;
            srs_trace("%s video %s %s/%s %dx%d", url().c_str(), cfg.codec.c_str(), cfg.profile.c_str(),
                      cfg.level.c_str(), cfg.width, cfg.height);
        } else if (!err.ok()) {
            srs_warn("%s: bad video sequence header: %s", url().c_str(), err.summary().c_str());
        }
        video_sh_ = msg;
    } else {
        video_frames_++;
        gop_.append(msg);
    }
    fan_out(msg);
    return Error();
}

void LiveSource::fan_out(const LiveMessagePtr& msg) {
    for (LiveConsumer* c : consumers_) c->enqueue(msg);
    if (bridge_) bridge_->on_live_message(msg);
    if (forward_) forward_->on_live_message(msg);  // the publish bridges (HLS and DVR write every message)
}

LiveConsumer* LiveSource::create_consumer(const ConsumerOptions& options) {
    auto* consumer = new LiveConsumer(this, options);
    if (metadata_) consumer->enqueue(metadata_);
    if (video_sh_) consumer->enqueue(video_sh_);
    if (audio_sh_) consumer->enqueue(audio_sh_);
    if (gop_.enabled() && !gop_.empty()) {
        for (const auto& m : gop_.messages()) consumer->enqueue(m);
    } else if (video_sh_) {
        // No GOP to start from: hold the player until a keyframe arrives.
        consumer->start_at_keyframe();
    }
    consumer->deliver_primed_now();
    consumers_.push_back(consumer);
    return consumer;
}

void LiveSource::remove_consumer(LiveConsumer* consumer) {
    auto it = std::find(consumers_.begin(), consumers_.end(), consumer);
    if (it != consumers_.end()) {
        consumers_.erase(it);
        dropped_by_removed_ += consumer->dropped();
    }
    touch_idle();
}

uint64_t LiveSource::dropped_messages() const {
    uint64_t n = dropped_by_removed_;
    for (const LiveConsumer* c : consumers_) n += c->dropped();
    return n;
}

void LiveSource::touch_idle() {
    if (idle()) idle_since_us_ = monotonic_us();
}

}  // namespace srs
