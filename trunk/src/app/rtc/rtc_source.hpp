// The WebRTC side of one stream: the publisher's tracks, a ring of recent
// packets per track, and the players it fans out to.
//
// A packet from the publisher is copied once into its track's ring with the
// header the players get (the track's own SSRC, sequence and timestamp made
// continuous across republishes, header extensions removed); every player
// then reads that one copy: it rewrites the payload type where its
// negotiation differs, SRTP-protects into its send slot and queues it. A
// player's NACK is answered from the same ring (the sequence numbers it sees
// are the ring's), so no player keeps packets of its own.
//
// The ring costs what it holds: each slot owns a buffer sized to its packet
// (not a fixed 1.5 KB array), the ring is bounded by packets and by bytes,
// and a source whose publisher honours keyframe requests (a WHIP client)
// keeps no ring at all while nobody plays: the first player asks for a
// keyframe and starts there; the ring goes a few seconds after the last
// player left. The RTMP bridge cannot be asked, so its ring stays.
//
// The stream itself (its name in /api/v1/streams, who publishes it) is the
// protocol-neutral LiveSource: an RTC publisher publishes it there too, so an
// RTMP publisher of the same stream is refused and the API lists it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "kernel/rtp/rtp.hpp"
#include "kernel/sdp/sdp_answer.hpp"
#include "protocol/rtc/keyframe_limiter.hpp"

namespace srs {

constexpr size_t kRtcMaxRtpPacket = 1500;

enum class RtcMediaKind : uint8_t { kAudio = 0, kVideo = 1 };
const char* rtc_media_kind_name(RtcMediaKind kind);

// One packet as players get it (before their payload type and SRTP); data
// points into its ring slot's own buffer.
struct RtcPacket {
    uint16_t seq = 0;
    bool valid = false;
    bool keyframe = false;  // the first packet of a keyframe (players waiting for one start here)
    bool marker = false;
    bool disposable = false;  // of a frame nothing references (an H.264 B-frame from the RTMP bridge)
    uint32_t timestamp = 0;
    uint16_t size = 0;
    uint16_t payload_offset = 0;
    uint8_t* data = nullptr;
};

// What the publisher negotiated for one kind of media.
struct RtcTrackCodec {
    bool present = false;
    std::string name;        // "H264", "opus", "VP8"...
    int pt = -1;             // the publisher's payload type
    uint32_t clock_rate = 0;
    int channels = 0;
    std::string fmtp;
};

// Whether this payload starts a keyframe, for the codecs that say so cheaply
// (H.264: an IDR or SPS NALU, alone, in a STAP-A or starting a FU-A; VP8:
// the start of a partition 0 whose P bit is 0). Others: false.
bool rtp_payload_starts_keyframe(const std::string& codec, const uint8_t* payload, size_t size);

class RtcPlayerSink {
  public:
    virtual ~RtcPlayerSink() = default;
    // One packet of the stream for this player (from the ring; read only).
    virtual void on_source_packet(RtcMediaKind kind, const RtcPacket& packet, utime_t now) = 0;
    // A fan-out walks many players, and by its turn each one's state is out
    // of the cache: the fan-out asks for the first line of the player three
    // ahead, for the player two ahead with stage 0 (lines found from the
    // object's address, reading none) and for the next one with stage 1 (what
    // those lines point to). Only a hint to the CPU: nothing changes.
    virtual void prefetch(int stage) const { (void)stage; }
    // The publisher went away (players keep their session and wait for the next).
    virtual void on_source_unpublish() = 0;
};

class RtcPublisherControl {
  public:
    virtual ~RtcPublisherControl() = default;
    // Ask the publisher for a keyframe (the source rate-limits the calls).
    virtual void request_keyframe(utime_t now) = 0;
    // False when request_keyframe() cannot reach the encoder: the source then
    // keeps its ring without players, so a first player starts at its keyframe.
    virtual bool honours_keyframe_requests() const { return true; }
};

class RtcTrack {
  public:
    // ring_capacity: packets (rounded up to a power of two); max_bytes: what
    // the packets' buffers may take together (0: capacity full-sized packets).
    RtcTrack(RtcMediaKind kind, size_t ring_capacity, uint32_t ssrc, size_t max_bytes = 0);
    RtcMediaKind kind() const { return kind_; }
    uint32_t ssrc() const { return ssrc_; }
    const RtcTrackCodec& codec() const { return codec_; }
    void set_codec(const RtcTrackCodec& codec) { codec_ = codec; }
    // Starts a new publish: the next packet's seq/timestamp continue from the last one sent.
    void rebase() { rebase_ = true; }
    // Copies a publisher packet into the ring with the players' header; nullptr
    // when it does not fit (too big) or repeats a packet still in the ring.
    const RtcPacket* store(const uint8_t* data, size_t size, const RtpHeader& h, bool disposable = false);
    const RtcPacket* find(uint16_t seq) const;
    uint64_t packets() const { return packets_; }
    // The packets from the first of the latest keyframe to the newest, while
    // that keyframe is still in the ring (a joining player starts with them
    // instead of waiting for the next keyframe). Empty otherwise.
    void since_keyframe(std::vector<const RtcPacket*>* out) const;
    // The first packet of that keyframe, while the ring holds it.
    bool keyframe_start(uint16_t* seq) const;
    // The newest packet's sequence number (players' numbering).
    uint16_t last_seq() const { return last_seq_; }

    // Whether store() keeps packets (the default). Off frees the ring: store()
    // then only numbers the packets and returns nullptr.
    void keep_ring(bool on);
    bool ring_kept() const { return keep_ring_; }
    // Memory the ring takes now: its slots plus the packets' buffers.
    size_t ring_bytes() const;
    size_t ring_packets() const { return ring_packets_; }
    size_t capacity() const { return capacity_; }
    size_t max_bytes() const { return max_bytes_; }

  private:
    struct Slot {
        RtcPacket packet;
        std::unique_ptr<uint8_t[]> buf;
        uint16_t cap = 0;
    };
    void free_slot(Slot& slot);
    // Frees the oldest packets until `need` more bytes fit, never `newest` or newer.
    void evict_for(size_t need, uint16_t newest);

    RtcMediaKind kind_;
    uint32_t ssrc_;
    RtcTrackCodec codec_;
    std::vector<Slot> ring_;  // allocated by the first store(): a source that is only negotiated costs nothing
    size_t capacity_;
    size_t mask_;
    size_t max_bytes_;
    size_t bytes_ = 0;           // the packets' buffers
    size_t ring_packets_ = 0;
    uint16_t evict_next_ = 0;    // where the byte bound's eviction goes on
    bool keep_ring_ = true;
    bool started_ = false;
    bool rebase_ = true;
    uint16_t seq_offset_ = 0;
    uint32_t ts_offset_ = 0;
    uint16_t last_seq_ = 0;      // the last sequence handed out (players' numbering)
    uint32_t last_ts_ = 0;
    uint64_t packets_ = 0;
    bool has_keyframe_ = false;
    uint16_t keyframe_seq_ = 0;  // the first packet of the latest keyframe
    uint32_t keyframe_ts_ = 0;
};

class RtcSourceManager;

class RtcSource {
  public:
    RtcSource(std::string vhost, std::string app, std::string stream);
    const std::string& vhost() const { return vhost_; }
    const std::string& app() const { return app_; }
    const std::string& stream() const { return stream_; }
    std::string url() const { return "/" + app_ + "/" + stream_; }

    bool has_publisher() const { return publisher_ != nullptr; }
    // Changes with every set_publisher(): players re-check the codecs then.
    uint32_t generation() const { return generation_; }
    void set_publisher(RtcPublisherControl* publisher, const RtcTrackCodec& audio, const RtcTrackCodec& video);
    void clear_publisher(RtcPublisherControl* publisher);
    RtcTrack& track(RtcMediaKind kind) { return kind == RtcMediaKind::kAudio ? audio_ : video_; }
    const RtcTrack& track(RtcMediaKind kind) const { return kind == RtcMediaKind::kAudio ? audio_ : video_; }

    // The first player turns the rings on (they may have been off, see above).
    void add_player(RtcPlayerSink* player);
    void remove_player(RtcPlayerSink* player);
    // How long the rings stay after the last player left (one that comes back
    // soon still starts at a keyframe).
    static constexpr utime_t kRingLinger = 5 * kUsPerSecond;
    // Ring bounds: about 3 s of a 2.5 Mbps video stream, 5 s of Opus.
    static constexpr size_t kVideoRingPackets = 1024, kVideoRingBytes = 1024 * 1024;
    static constexpr size_t kAudioRingPackets = 256, kAudioRingBytes = 256 * 1024;
    size_t player_count() const { return players_.size(); }
    bool idle() const { return publisher_ == nullptr && players_.empty(); }

    // A publisher packet: stored once, then given to every player: at once,
    // or, while the manager has a fan-out batch open, when it closes.
    void on_publisher_rtp(RtcMediaKind kind, const uint8_t* data, size_t size, const RtpHeader& h, utime_t now,
                          bool disposable = false);
    // A player's PLI/FIR, or a player that needs a first keyframe: at most one
    // request to the publisher per kKeyframeInterval.
    void request_keyframe(utime_t now);
    uint64_t keyframe_requests() const { return keyframe_requests_; }
    uint64_t keyframe_suppressed() const { return keyframe_limiter_.suppressed(); }

    static constexpr utime_t kKeyframeInterval = 300 * kUsPerMs;
    // Gives every player the packets kept during a batch, player by player
    // (audio, then video), so one player's datagrams are adjacent in the
    // send queue: a video frame's packets leave as one UDP GSO message.
    void fan_out(utime_t now);
    // Set by the manager that keeps the source (batches are the manager's).
    void set_manager(RtcSourceManager* manager) { manager_ = manager; }
    // Packets kept for fan_out(): fewer than either ring holds, so none is
    // overwritten before it went out.
    static constexpr size_t kMaxPending = 128;

  private:
    // fn(player) for each player in order (an index loop), asking for the
    // state of the players ahead first (RtcPlayerSink::prefetch).
    template <typename Fn>
    void each_player(Fn fn) {
        size_t n = players_.size();
        for (size_t i = 0; i < n; i++) {
            if (i + 3 < n) __builtin_prefetch(players_[i + 3]);
            if (i + 2 < n) players_[i + 2]->prefetch(0);
            if (i + 1 < n) players_[i + 1]->prefetch(1);
            fn(players_[i]);
        }
    }

    struct Pending {
        RtcMediaKind kind;
        const RtcPacket* packet;
    };
    std::string vhost_, app_, stream_;
    RtcPublisherControl* publisher_ = nullptr;
    uint32_t generation_ = 0;
    RtcTrack audio_;
    RtcTrack video_;
    std::vector<RtcPlayerSink*> players_;
    RtcSourceManager* manager_ = nullptr;
    std::vector<Pending> pending_;
    KeyframeRequestLimiter keyframe_limiter_{kKeyframeInterval};
    uint64_t keyframe_requests_ = 0;
    utime_t no_player_since_ = -1;  // when a packet first came with no player (-1: players, or not yet)
    // Rings on or off (both tracks) by who needs them now.
    void keep_rings(bool on);
    bool rings_needed_without_players() const;
};

// Every RtcSource by vhost/app/stream; a source is freed when it has neither
// publisher nor players.
class RtcSourceManager {
  public:
    RtcSource* fetch_or_create(const std::string& vhost, const std::string& app, const std::string& stream);
    RtcSource* find(const std::string& vhost, const std::string& app, const std::string& stream) const;
    // Takes a source made outside (negotiated against before it was kept).
    RtcSource* adopt(std::unique_ptr<RtcSource> source);
    // Frees the source if it is idle.
    void release(RtcSource* source);
    size_t size() const { return sources_.size(); }

    // Fan-out batches (RtcFanOutBatch): while one is open, sources keep
    // their new packets; closing the outermost one fans them out.
    void begin_batch() { batch_depth_++; }
    void end_batch(utime_t now);
    bool batching() const { return batch_depth_ > 0; }
    // A source that kept its first packet of the batch.
    void mark_pending(RtcSource* source) { pending_.push_back(source); }

  private:
    std::vector<std::unique_ptr<RtcSource>> sources_;
    int batch_depth_ = 0;
    std::vector<RtcSource*> pending_;
};

// Holds fan-out for the scope of one receive batch (the UDP listener) or one
// frame (the RTMP bridge): what the publishers sent in it reaches each player
// in a row when the scope ends. Nothing in the scope may yield.
class RtcFanOutBatch {
  public:
    RtcFanOutBatch(RtcSourceManager* manager, utime_t now) : manager_(manager), now_(now) { manager_->begin_batch(); }
    ~RtcFanOutBatch() { manager_->end_batch(now_); }
    RtcFanOutBatch(const RtcFanOutBatch&) = delete;
    RtcFanOutBatch& operator=(const RtcFanOutBatch&) = delete;

  private:
    RtcSourceManager* manager_;
    utime_t now_;
};

}  // namespace srs
