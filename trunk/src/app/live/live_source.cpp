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
    for (LiveConsumer* c : consumers_) {
        c->set_waiter_index(LiveConsumer::kNotWaiting);
        c->detach();
    }
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
    // Each player takes what it has not read yet, so the old publish's
    // messages leave the log now, as the GOP cache's do, rather than stay
    // while players wait for the next publish.
    for (LiveConsumer* c : consumers_) c->catch_up();
    log_.clear();
    log_.trimmed();
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

// One append for all players, whatever their number; the players due at
// this message's timestamp are woken together (see merged_write_due_ms).
void LiveSource::fan_out(const LiveMessagePtr& msg) {
    if (!consumers_.empty()) {
        log_.append(msg);
        if (log_.trim_due()) trim_log();
        wake_due(msg->timestamp());
    }
    if (bridge_) bridge_->on_live_message(msg);
    if (forward_) forward_->on_live_message(msg);  // the publish bridges (HLS and DVR write every message)
}

// Timestamps that go back by more than this (a new publish with time_jitter
// off, a wrap) wake every waiter, whose due times belong to the old clock.
// Smaller steps back are one track trailing the other and wake nobody.
static const int64_t kTimestampJumpBackMs = 1000;

void LiveSource::wake_due(int64_t ts) {
    bool back = ts + kTimestampJumpBackMs < last_logged_ts_;
    last_logged_ts_ = ts;
    if (waiters_.empty() || (!back && ts < min_due_ms_)) return;
    size_t kept = 0;
    int64_t next_due = INT64_MAX;
    for (const Waiter& w : waiters_) {
        if (back || w.due_ms <= ts) {
            w.consumer->on_due();
            continue;
        }
        w.consumer->set_waiter_index(kept);
        next_due = std::min(next_due, w.due_ms);
        waiters_[kept++] = w;
    }
    waiters_.resize(kept);
    min_due_ms_ = next_due;
}

void LiveSource::add_waiter(LiveConsumer* consumer, int64_t due_ms) {
    if (consumer->waiter_index() != LiveConsumer::kNotWaiting) return;
    consumer->set_waiter_index(waiters_.size());
    waiters_.push_back(Waiter{consumer, due_ms});
    min_due_ms_ = std::min(min_due_ms_, due_ms);
}

void LiveSource::remove_waiter(LiveConsumer* consumer) {
    size_t i = consumer->waiter_index();
    if (i == LiveConsumer::kNotWaiting || i >= waiters_.size() || waiters_[i].consumer != consumer) return;
    waiters_[i] = waiters_.back();
    waiters_[i].consumer->set_waiter_index(i);
    waiters_.pop_back();
    consumer->set_waiter_index(LiveConsumer::kNotWaiting);
}

// Walks the consumers once per doubling of the log: drops what all of them
// have read, and what is older than the longest queue any of them keeps
// (one that far behind shrinks to a keyframe when it reads on).
void LiveSource::trim_log() {
    uint64_t oldest = log_.end();
    utime_t longest_us = 0;
    for (const LiveConsumer* c : consumers_) {
        oldest = std::min(oldest, c->cursor());
        longest_us = std::max(longest_us, c->options().queue_length_us);
    }
    log_.trim_to(oldest);
    log_.trim_older_than(longest_us / kUsPerMs + 1000);
    log_.trimmed();
    // A player the log moved past is stuck (in a write to a peer that does
    // not read): it drops to a keyframe now, not when it wakes, so the drop
    // shows (log, API) while it happens, as with SRS's queue shrink.
    if (log_.base() > oldest) {
        for (LiveConsumer* c : consumers_) {
            if (c->cursor() < log_.base()) c->catch_up();
        }
    }
}

LiveConsumer* LiveSource::create_consumer(const ConsumerOptions& options) {
    auto* consumer = new LiveConsumer(this, options);
    consumer->follow(log_.end());
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
    if (consumers_.empty()) {
        log_.clear();
        log_.trimmed();
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
