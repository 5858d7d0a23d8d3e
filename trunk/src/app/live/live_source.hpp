// A live stream: one publisher, any number of consumers.
//
// The source parses each message once, corrects its timestamp (time_jitter),
// caches what a joining player needs (metadata, sequence headers, the GOP)
// and hands the same shared message to every consumer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/live/gop_cache.hpp"
#include "app/live/live_bridge.hpp"
#include "app/stats/kbps.hpp"
#include "app/live/live_consumer.hpp"
#include "app/live/live_message.hpp"
#include "app/live/live_message_log.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "kernel/codec/media_codec.hpp"

namespace srs {

enum class TimeJitter { kFull, kZero, kOff };

struct SourceOptions {
    bool gop_cache = true;
    int gop_cache_max_frames = 2500;
    TimeJitter jitter = TimeJitter::kFull;
    // Whether the source's bridge factory is asked for a bridge (off for a
    // WebRTC publisher: its stream is WebRTC already).
    bool bridge = true;
    // Whether this publish holds the stream's registry claim, to be given up
    // at unpublish: false for a pull from another server (an edge, or an
    // origin pulling from the owner), which never claimed the stream.
    bool claimed = true;
    // Who published and how, for the forwarders (an RTMP publisher sets
    // them; "" when the protocol has none): the stream's query with its
    // leading "?", the tcUrl, the client's address.
    std::string param;
    std::string tc_url;
    std::string client_ip;
};

// Corrects timestamps so players see them monotonic and without jumps.
class TimestampJitter {
  public:
    // is_video picks the track: in full mode each track's output never goes
    // back, whatever the publisher (or a republish) sends.
    uint32_t correct(uint32_t timestamp, TimeJitter mode, bool is_video = false);
    void reset_base() { has_base_ = false; }  // a new publish: rebase zero mode

  private:
    bool started_ = false;
    bool has_base_ = false;
    int64_t last_time_ = 0;
    int64_t last_corrected_ = 0;
    int64_t base_ = 0;
    int64_t last_out_[2] = {0, 0};  // audio, video
};

class LiveSource;
// Told when a source stops being published, whichever protocol published
// it (the stream registry gives the stream up then).
class LivePublishObserver {
  public:
    virtual ~LivePublishObserver() = default;
    virtual void on_source_unpublished(LiveSource* source) = 0;
};

class LiveSource {
  public:
    LiveSource(std::string vhost, std::string app, std::string stream);
    ~LiveSource();

    const std::string& vhost() const { return vhost_; }
    const std::string& app() const { return app_; }
    const std::string& stream() const { return stream_; }
    // "/app/stream", the stream's url in logs and the API.
    std::string url() const { return "/" + app_ + "/" + stream_; }

    bool publishing() const { return publishing_; }
    const std::string& publisher_cid() const { return publisher_cid_; }
    Error on_publish(const std::string& publisher_cid, const SourceOptions& options);
    void on_unpublish();
    // The publisher's own upstream changed (an edge switched origins) while
    // the stream stays published, so players stay: the cached GOP belongs to
    // the old upstream and goes; new sequence headers replace the old ones
    // as they come.
    void on_upstream_switch();

    // onMetaData as players get it: an AMF0 data body "onMetaData" + object.
    Error on_metadata(SharedBytes body);
    Error on_audio(uint32_t timestamp, SharedBytes payload);
    Error on_video(uint32_t timestamp, SharedBytes payload);

    // A new consumer, primed with metadata, sequence headers and the GOP.
    LiveConsumer* create_consumer(const ConsumerOptions& options);
    void remove_consumer(LiveConsumer* consumer);
    // What the consumers read (LiveConsumer::catch_up).
    const LiveMessageLog& message_log() const { return log_; }
    // A consumer waits until a message with timestamp >= due_ms (-1: any
    // message; any too when timestamps jump back over a second) is logged.
    void add_waiter(LiveConsumer* consumer, int64_t due_ms);
    void remove_waiter(LiveConsumer* consumer);
    size_t waiter_count() const { return waiters_.size(); }
    size_t consumer_count() const { return consumers_.size(); }
    // Messages its players' queues dropped (queue shrinks), those that left
    // included: never goes down.
    uint64_t dropped_messages() const;

    // For the source manager's clean-up.
    bool idle() const { return !publishing_ && consumers_.empty() && attached_players_ == 0; }
    // Players that another protocol's source feeds (WebRTC players of this
    // stream): counted in clients and kept from idle collection.
    void attach_player() { attached_players_++; }
    void detach_player() {
        if (attached_players_ > 0) attached_players_--;
        touch_idle();
    }
    size_t attached_players() const { return attached_players_; }
    // Bytes a publisher of another protocol received for this stream.
    void add_recv_bytes(uint64_t n) { recv_bytes_ += n; }
    utime_t idle_since_us() const { return idle_since_us_; }

    // What the API shows.
    const VideoCodecConfig* video_config() const { return has_video_config_ ? &video_config_ : nullptr; }
    const AudioCodecConfig* audio_config() const { return has_audio_config_ ? &audio_config_ : nullptr; }
    // Whether this publish has carried any audio / video message yet: what
    // HTTP-FLV's guess_has_av announces in the FLV header.
    bool carries_audio() const { return carries_audio_; }
    bool carries_video() const { return carries_video_; }
    uint64_t video_frames() const { return video_frames_; }
    uint64_t recv_bytes() const { return recv_bytes_; }
    uint64_t send_bytes() const { return send_bytes_; }
    void add_send_bytes(uint64_t n) { send_bytes_ += n; }
    // "vid-xxxxxxx": the stream's id in the API.
    const std::string& id() const { return id_; }
    void sample_kbps(utime_t now_us) {
        recv_kbps_.sample(now_us, recv_bytes_);
        send_kbps_.sample(now_us, send_bytes_);
    }
    int recv_kbps() const { return recv_kbps_.kbps(); }
    int send_kbps() const { return send_kbps_.kbps(); }

    // Who makes a bridge on each publish (the source manager sets it).
    // A new factory (nullptr when its owner goes) drops the current bridge.
    void set_bridge_factory(LiveBridgeFactory* factory) {
        if (factory != bridge_factory_) bridge_.reset();
        bridge_factory_ = factory;
    }
    bool bridged() const { return bridge_ != nullptr; }
    // Who makes the forwarders of each publish (the forward manager; nullptr:
    // none). Unlike the bridge it serves every publisher, WebRTC included,
    // but not a pull from another server (options.claimed false): the
    // stream is forwarded where it is published.
    void set_forward_factory(LiveBridgeFactory* factory) {
        if (factory != forward_factory_) forward_.reset();
        forward_factory_ = factory;
    }
    // The options of the current (or last) publish.
    const SourceOptions& publish_options() const { return options_; }
    // Who hears of unpublishes (the source manager sets it; nullptr: nobody).
    void set_publish_observer(LivePublishObserver* observer) { publish_observer_ = observer; }

  private:
    void fan_out(const LiveMessagePtr& msg);
    void wake_due(int64_t ts);
    void trim_log();
    void touch_idle();

    struct Waiter {
        LiveConsumer* consumer;
        int64_t due_ms;
    };

    std::string vhost_, app_, stream_;
    bool publishing_ = false;
    std::string publisher_cid_;
    SourceOptions options_;
    size_t attached_players_ = 0;
    TimestampJitter jitter_;
    LiveMessagePtr metadata_;
    LiveMessagePtr video_sh_;
    LiveMessagePtr audio_sh_;
    GopCache gop_;
    std::vector<LiveConsumer*> consumers_;
    LiveMessageLog log_;  // read by consumers_, each at its own cursor
    std::vector<Waiter> waiters_;
    int64_t min_due_ms_ = INT64_MAX;  // no waiter is due before it
    int64_t last_logged_ts_ = 0;
    VideoCodecConfig video_config_;
    AudioCodecConfig audio_config_;
    bool has_video_config_ = false;
    bool has_audio_config_ = false;
    bool carries_audio_ = false;
    bool carries_video_ = false;
    uint64_t video_frames_ = 0;
    uint64_t recv_bytes_ = 0;
    uint64_t send_bytes_ = 0;
    uint64_t dropped_by_removed_ = 0;  // by consumers already removed
    Kbps30s recv_kbps_, send_kbps_;
    std::string id_;
    utime_t idle_since_us_;
    LiveBridgeFactory* bridge_factory_ = nullptr;
    LivePublishObserver* publish_observer_ = nullptr;
    std::unique_ptr<LiveSourceBridge> bridge_;  // while published, when the factory made one
    LiveBridgeFactory* forward_factory_ = nullptr;
    std::unique_ptr<LiveSourceBridge> forward_;  // while published, when the factory made one
};

}  // namespace srs
