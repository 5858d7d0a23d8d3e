#include "app/rtc/rtc_source.hpp"

#include <algorithm>
#include <cstring>

#include "core/bytes.hpp"
#include "core/strings.hpp"
#include "app/rtc/rtc_random.hpp"

namespace srs {

const char* rtc_media_kind_name(RtcMediaKind kind) { return kind == RtcMediaKind::kAudio ? "audio" : "video"; }

namespace {

bool h264_nalu_is_key(uint8_t type) { return type == 5 || type == 7; }  // IDR slice, SPS

}  // namespace

bool rtp_payload_starts_keyframe(const std::string& codec, const uint8_t* p, size_t size) {
    if (size == 0) return false;
    if (iequals(codec, "H264")) {
        uint8_t type = p[0] & 0x1f;
        if (type >= 1 && type <= 23) return h264_nalu_is_key(type);
        if (type == 24) {  // STAP-A: 16-bit sizes, then NALUs
            size_t i = 1;
            while (i + 3 <= size) {
                size_t n = load_be16(p + i);
                if (n == 0 || i + 2 + n > size) return false;
                if (h264_nalu_is_key(p[i + 2] & 0x1f)) return true;
                i += 2 + n;
            }
            return false;
        }
        if (type == 28 && size >= 2) {  // FU-A: start bit and the fragmented NALU's type
            return (p[1] & 0x80) && h264_nalu_is_key(p[1] & 0x1f);
        }
        return false;
    }
    if (iequals(codec, "H265")) {
        // RFC 7798: a 2-byte NAL header, type in bits 1..6 of the first byte.
        auto key = [](uint8_t type) { return (type >= 16 && type <= 21) || (type >= 32 && type <= 34); };
        if (size < 2) return false;
        uint8_t type = (p[0] >> 1) & 0x3f;
        if (type == 48) {  // AP: 16-bit sizes, then NALUs
            size_t i = 2;
            while (i + 4 <= size) {
                size_t n = load_be16(p + i);
                if (n < 2 || i + 2 + n > size) return false;
                if (key((p[i + 2] >> 1) & 0x3f)) return true;
                i += 2 + n;
            }
            return false;
        }
        if (type == 49) return size >= 3 && (p[2] & 0x80) && key(p[2] & 0x3f);  // FU: start bit
        return key(type);
    }
    if (iequals(codec, "AV1")) {
        // The aggregation header's N bit: the first packet of a coded video sequence.
        return (p[0] & 0x08) != 0;
    }
    if (iequals(codec, "VP8")) {
        // RFC 7741 payload descriptor: X R N S R PID; optional extension bytes.
        size_t i = 1;
        bool start = p[0] & 0x10;
        uint8_t pid = p[0] & 0x07;
        if (p[0] & 0x80) {  // X: I L T K follow
            if (size < 2) return false;
            uint8_t x = p[1];
            i = 2;
            if (x & 0x80) {  // I: picture id, 7 or 15 bits
                if (i >= size) return false;
                i += (p[i] & 0x80) ? 2 : 1;
            }
            if (x & 0x40) i += 1;           // L: TL0PICIDX
            if (x & 0x30) i += 1;           // T or K: TID/KEYIDX
        }
        if (!start || pid != 0 || i >= size) return false;
        return (p[i] & 0x01) == 0;  // the VP8 frame header's inverse key frame flag
    }
    return false;
}

namespace {

// Buffers are sized to the packet in steps of 64 bytes; one more than twice
// what the packet needs is given back (a slot that held a full-sized packet
// and now holds an Opus frame).
constexpr size_t kBufferStep = 64;
constexpr size_t kMaxBuffer = (kRtcMaxRtpPacket + kBufferStep - 1) / kBufferStep * kBufferStep;

size_t buffer_size_for(size_t size) { return (size + kBufferStep - 1) / kBufferStep * kBufferStep; }

}  // namespace

RtcTrack::RtcTrack(RtcMediaKind kind, size_t ring_capacity, uint32_t ssrc, size_t max_bytes)
    : kind_(kind), ssrc_(ssrc) {
    size_t cap = 1;
    while (cap < ring_capacity) cap <<= 1;
    capacity_ = cap;
    mask_ = cap - 1;
    // Never below one full-sized packet, or nothing would fit.
    max_bytes_ = max_bytes == 0 ? cap * kMaxBuffer : std::max(max_bytes, kMaxBuffer);
}

void RtcTrack::keep_ring(bool on) {
    if (on == keep_ring_) return;
    keep_ring_ = on;
    if (on) return;
    std::vector<Slot>().swap(ring_);
    bytes_ = 0;
    ring_packets_ = 0;
    has_keyframe_ = false;  // it was in the ring
}

size_t RtcTrack::ring_bytes() const { return ring_.capacity() * sizeof(Slot) + bytes_; }

void RtcTrack::free_slot(Slot& slot) {
    if (slot.packet.valid) ring_packets_--;
    bytes_ -= slot.cap;
    slot.buf.reset();
    slot.cap = 0;
    slot.packet.valid = false;
    slot.packet.data = nullptr;
}

void RtcTrack::evict_for(size_t need, uint16_t newest) {
    // The oldest packet the ring can hold, or where the last eviction stopped.
    uint16_t oldest = static_cast<uint16_t>(newest - (capacity_ - 1));
    uint16_t s = oldest;
    if (seq_newer(evict_next_, s) && seq_newer(newest, evict_next_)) s = evict_next_;
    for (int pass = 0; pass < 2 && bytes_ + need > max_bytes_; pass++) {
        // The second pass from the oldest: a late packet stored behind the cursor.
        if (pass == 1) s = oldest;
        while (bytes_ + need > max_bytes_ && seq_newer(newest, s)) {
            Slot& slot = ring_[s & mask_];
            if (slot.packet.valid && slot.packet.seq == s) free_slot(slot);
            s++;
        }
    }
    evict_next_ = s;
}

const RtcPacket* RtcTrack::store(const uint8_t* data, size_t size, const RtpHeader& h, bool disposable) {
    // The players' header: 12 bytes, no CSRCs, no extensions, no padding.
    size_t payload_size = h.payload_size;
    if (h.header_size + payload_size > size || kRtpFixedHeaderSize + payload_size > kRtcMaxRtpPacket) return nullptr;
    if (rebase_ || !started_) {
        // Continue right after what players last saw, whatever the new
        // publisher numbers from; a timestamp step of one frame at 90 kHz.
        uint16_t next_seq = started_ ? static_cast<uint16_t>(last_seq_ + 1) : h.sequence;
        uint32_t next_ts = started_ ? last_ts_ + 3000 : h.timestamp;
        seq_offset_ = static_cast<uint16_t>(next_seq - h.sequence);
        ts_offset_ = next_ts - h.timestamp;
        rebase_ = false;
        started_ = true;
        last_seq_ = static_cast<uint16_t>(next_seq - 1);
        last_ts_ = next_ts;
    }
    uint16_t seq = static_cast<uint16_t>(h.sequence + seq_offset_);
    uint32_t ts = h.timestamp + ts_offset_;
    bool keyframe = kind_ == RtcMediaKind::kVideo &&
                    rtp_payload_starts_keyframe(codec_.name, data + h.header_size, payload_size);
    bool newest = seq_newer(seq, last_seq_);
    if (!keep_ring_) {
        // No ring: only the numbering goes on (a player that comes continues it).
        if (newest) {
            last_seq_ = seq;
            last_ts_ = ts;
        }
        packets_++;
        return nullptr;
    }
    if (ring_.empty()) ring_.resize(capacity_);
    Slot& slot = ring_[seq & mask_];
    if (slot.packet.valid && slot.packet.seq == seq) return nullptr;  // a duplicate (a retransmission we already had)
    // Too old for the ring (a late retransmission): its slot holds a newer packet.
    if (slot.packet.valid && seq_newer(slot.packet.seq, seq)) return nullptr;
    size_t out_size = kRtpFixedHeaderSize + payload_size;
    size_t want = buffer_size_for(out_size);
    if (slot.cap < out_size || slot.cap > 2 * want) {
        free_slot(slot);
        evict_for(want, newest ? seq : last_seq_);
        slot.buf.reset(new uint8_t[want]);
        slot.cap = static_cast<uint16_t>(want);
        bytes_ += want;
    } else if (slot.packet.valid) {
        ring_packets_--;
    }
    ring_packets_++;
    RtcPacket& pkt = slot.packet;
    pkt.data = slot.buf.get();
    pkt.valid = true;
    pkt.seq = seq;
    pkt.timestamp = ts;
    pkt.marker = h.marker;
    pkt.disposable = disposable;
    pkt.size = static_cast<uint16_t>(out_size);
    pkt.payload_offset = kRtpFixedHeaderSize;
    uint8_t* out = pkt.data;
    out[0] = 0x80;
    out[1] = static_cast<uint8_t>((h.marker ? 0x80 : 0) | (h.payload_type & 0x7f));
    store_be16(out + 2, seq);
    store_be32(out + 4, ts);
    store_be32(out + 8, ssrc_);
    memcpy(out + kRtpFixedHeaderSize, data + h.header_size, payload_size);
    pkt.keyframe = keyframe;
    if (newest) {
        last_seq_ = seq;
        last_ts_ = ts;
        // A keyframe's parameter sets and first slice may both say "key":
        // the frame starts at the first of them.
        if (keyframe && (!has_keyframe_ || ts != keyframe_ts_)) {
            has_keyframe_ = true;
            keyframe_seq_ = seq;
            keyframe_ts_ = ts;
        }
    }
    packets_++;
    return &pkt;
}

bool RtcTrack::keyframe_start(uint16_t* seq) const {
    if (!has_keyframe_ || !find(keyframe_seq_)) return false;
    if (static_cast<uint16_t>(last_seq_ - keyframe_seq_) >= capacity_) return false;
    *seq = keyframe_seq_;
    return true;
}

void RtcTrack::since_keyframe(std::vector<const RtcPacket*>* out) const {
    out->clear();
    if (!has_keyframe_ || !find(keyframe_seq_)) return;
    uint16_t n = static_cast<uint16_t>(last_seq_ - keyframe_seq_);
    if (n >= capacity_) return;
    for (uint16_t i = 0; i <= n; i++) {
        if (const RtcPacket* p = find(static_cast<uint16_t>(keyframe_seq_ + i))) out->push_back(p);
    }
}

const RtcPacket* RtcTrack::find(uint16_t seq) const {
    if (ring_.empty()) return nullptr;
    const RtcPacket& p = ring_[seq & mask_].packet;
    return p.valid && p.seq == seq ? &p : nullptr;
}

// A batch's kept packets must all still be in the ring when it fans out.
static_assert(RtcSource::kMaxPending < RtcSource::kAudioRingPackets &&
                  RtcSource::kMaxPending * kMaxBuffer < RtcSource::kAudioRingBytes,
              "a fan-out batch outgrows the audio ring");
static_assert(RtcSource::kAudioRingPackets <= RtcSource::kVideoRingPackets &&
                  RtcSource::kAudioRingBytes <= RtcSource::kVideoRingBytes,
              "the video ring is the larger one");

RtcSource::RtcSource(std::string vhost, std::string app, std::string stream)
    : vhost_(std::move(vhost)),
      app_(std::move(app)),
      stream_(std::move(stream)),
      audio_(RtcMediaKind::kAudio, kAudioRingPackets, rtc_random_u32(), kAudioRingBytes),
      video_(RtcMediaKind::kVideo, kVideoRingPackets, rtc_random_u32(), kVideoRingBytes) {
    keep_rings(false);  // until a player, or a publisher that cannot be asked for a keyframe
}

void RtcSource::keep_rings(bool on) {
    audio_.keep_ring(on);
    video_.keep_ring(on);
}

bool RtcSource::rings_needed_without_players() const {
    return publisher_ && !publisher_->honours_keyframe_requests();
}

void RtcSource::set_publisher(RtcPublisherControl* publisher, const RtcTrackCodec& audio, const RtcTrackCodec& video) {
    generation_++;
    audio_.set_codec(audio);
    video_.set_codec(video);
    if (publisher != publisher_) {
        // A new publisher numbers from anywhere; the same one announcing new
        // codecs (the RTMP bridge at a new sequence header) keeps its timeline.
        audio_.rebase();
        video_.rebase();
    }
    publisher_ = publisher;
    keyframe_limiter_.reset();
    if (rings_needed_without_players()) keep_rings(true);
}

void RtcSource::clear_publisher(RtcPublisherControl* publisher) {
    if (publisher_ != publisher) return;
    publisher_ = nullptr;
    // Copy: a player may leave from inside its callback.
    std::vector<RtcPlayerSink*> players = players_;
    for (RtcPlayerSink* p : players) p->on_source_unpublish();
}

void RtcSource::add_player(RtcPlayerSink* player) {
    players_.push_back(player);
    no_player_since_ = -1;
    // A ring that was off holds no keyframe: the player asks the publisher
    // for one when it connects (RtcPlayerSession::on_connected).
    keep_rings(true);
}

void RtcSource::remove_player(RtcPlayerSink* player) {
    players_.erase(std::remove(players_.begin(), players_.end(), player), players_.end());
}

void RtcSource::on_publisher_rtp(RtcMediaKind kind, const uint8_t* data, size_t size, const RtpHeader& h,
                                 utime_t now, bool disposable) {
    const RtcPacket* packet = track(kind).store(data, size, h, disposable);
    if (players_.empty()) {
        // Nobody plays: the rings go once kRingLinger passed without players.
        if (!video_.ring_kept() || rings_needed_without_players()) return;
        if (no_player_since_ < 0) no_player_since_ = now;
        if (now - no_player_since_ >= kRingLinger) {
            keep_rings(false);
            no_player_since_ = -1;
        }
        return;
    }
    if (!packet) return;
    if (manager_ && manager_->batching()) {
        if (pending_.empty()) manager_->mark_pending(this);
        pending_.push_back(Pending{kind, packet});
        if (pending_.size() >= kMaxPending) fan_out(now);
        return;
    }
    // Players only leave from the server's reaper, never from here.
    each_player([&](RtcPlayerSink* player) { player->on_source_packet(kind, *packet, now); });
}

void RtcSource::fan_out(utime_t now) {
    if (pending_.empty()) return;
    // Audio before video, each in its order: put in that order once, so each
    // player takes the batch in one pass.
    std::stable_partition(pending_.begin(), pending_.end(),
                          [](const Pending& p) { return p.kind == RtcMediaKind::kAudio; });
    each_player([&](RtcPlayerSink* player) {
        for (const Pending& p : pending_) player->on_source_packet(p.kind, *p.packet, now);
    });
    pending_.clear();
}

void RtcSource::request_keyframe(utime_t now) {
    if (!publisher_) return;
    if (!keyframe_limiter_.allow(now)) return;
    keyframe_requests_++;
    publisher_->request_keyframe(now);
}

RtcSource* RtcSourceManager::fetch_or_create(const std::string& vhost, const std::string& app,
                                             const std::string& stream) {
    if (RtcSource* s = find(vhost, app, stream)) return s;
    sources_.emplace_back(new RtcSource(vhost, app, stream));
    sources_.back()->set_manager(this);
    return sources_.back().get();
}

RtcSource* RtcSourceManager::find(const std::string& vhost, const std::string& app, const std::string& stream) const {
    for (const auto& s : sources_) {
        if (s->vhost() == vhost && s->app() == app && s->stream() == stream) return s.get();
    }
    return nullptr;
}

RtcSource* RtcSourceManager::adopt(std::unique_ptr<RtcSource> source) {
    sources_.push_back(std::move(source));
    sources_.back()->set_manager(this);
    return sources_.back().get();
}

void RtcSourceManager::release(RtcSource* source) {
    if (!source || !source->idle()) return;
    pending_.erase(std::remove(pending_.begin(), pending_.end(), source), pending_.end());
    for (auto it = sources_.begin(); it != sources_.end(); ++it) {
        if (it->get() == source) {
            sources_.erase(it);
            return;
        }
    }
}

void RtcSourceManager::end_batch(utime_t now) {
    if (--batch_depth_ > 0) return;
    // The batch is closed: a fan-out keeps nothing new (index loop all the same).
    for (size_t i = 0; i < pending_.size(); i++) pending_[i]->fan_out(now);
    pending_.clear();
}

}  // namespace srs
