// A message of a live stream as the source shares it with every consumer.
//
// The publisher's payload is read once (SharedBytes). Per-protocol framing is
// built on first use and cached on the message, so a thousand RTMP players
// of one stream cost one header build and then only writev calls; an RTMP
// player whose chunk size or stream id differs builds its own.
#pragma once

#include <cstdint>
#include <string>

#include "core/shared_buffer.hpp"

namespace srs {

class LiveMessage {
  public:
    static LiveMessage* create(uint8_t type, uint32_t timestamp, SharedBytes payload) {
        return new LiveMessage(type, timestamp, std::move(payload));
    }

    uint8_t type() const { return type_; }          // 8 audio, 9 video, 18 data
    uint32_t timestamp() const { return timestamp_; }  // ms, after the source's jitter correction
    const SharedBytes& payload() const { return payload_; }
    size_t size() const { return payload_.size(); }
    bool is_audio() const { return type_ == 8; }
    bool is_video() const { return type_ == 9; }
    bool is_keyframe() const { return keyframe_; }
    bool is_sequence_header() const { return sequence_header_; }
    void set_keyframe(bool v) { keyframe_ = v; }
    void set_sequence_header(bool v) { sequence_header_ = v; }

    // The cached RTMP chunk headers for one (chunk size, stream id).
    struct RtmpFraming {
        uint32_t chunk_size = 0;
        uint32_t stream_id = 0;
        std::string first;         // type-0 header of the first chunk
        std::string continuation;  // type-3 header before each further chunk
    };
    RtmpFraming& rtmp_framing() { return rtmp_; }
    // The cached FLV tag header (11 bytes) and PreviousTagSize (4 bytes).
    bool has_flv_framing() const { return flv_ready_; }
    const uint8_t* flv_tag_header() const { return flv_header_; }
    const uint8_t* flv_previous_size() const { return flv_trailer_; }
    uint8_t* mutable_flv_tag_header() { return flv_header_; }
    uint8_t* mutable_flv_previous_size() { return flv_trailer_; }
    void set_flv_ready() { flv_ready_ = true; }

    void ref() { refs_++; }
    void unref() {
        if (--refs_ == 0) delete this;
    }

  private:
    LiveMessage(uint8_t type, uint32_t timestamp, SharedBytes payload)
        : type_(type), timestamp_(timestamp), payload_(std::move(payload)) {}
    ~LiveMessage() = default;

    uint8_t type_;
    bool keyframe_ = false;
    bool sequence_header_ = false;
    bool flv_ready_ = false;
    uint32_t timestamp_;
    int refs_ = 1;
    SharedBytes payload_;
    RtmpFraming rtmp_;
    uint8_t flv_header_[11];
    uint8_t flv_trailer_[4];
};

// Owning reference to a LiveMessage.
class LiveMessagePtr {
  public:
    LiveMessagePtr() = default;
    explicit LiveMessagePtr(LiveMessage* adopt) : m_(adopt) {}
    LiveMessagePtr(const LiveMessagePtr& o) : m_(o.m_) {
        if (m_) m_->ref();
    }
    LiveMessagePtr(LiveMessagePtr&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
    LiveMessagePtr& operator=(LiveMessagePtr o) noexcept {
        std::swap(m_, o.m_);
        return *this;
    }
    ~LiveMessagePtr() {
        if (m_) m_->unref();
    }
    LiveMessage* get() const { return m_; }
    LiveMessage* operator->() const { return m_; }
    LiveMessage& operator*() const { return *m_; }
    explicit operator bool() const { return m_ != nullptr; }
    void reset() { *this = LiveMessagePtr(); }

  private:
    LiveMessage* m_ = nullptr;
};

}  // namespace srs
