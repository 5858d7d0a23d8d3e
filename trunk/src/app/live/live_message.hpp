// A message of a live stream as the source shares it with every consumer.
//
// The publisher's payload is read once (SharedBytes). The message is
// protocol-neutral: a kind (audio, video, data), a timestamp and the payload
// as an FLV tag body. Each protocol that sends it caches its framing in its
// own slot (message_framing.hpp), built on first use, so a thousand RTMP
// players of one stream cost one header build and then only writev calls.
#pragma once

#include <cstdint>
#include <string>

#include "app/live/message_framing.hpp"
#include "core/shared_buffer.hpp"

namespace srs {

enum class LiveMessageKind : uint8_t {
    kAudio,
    kVideo,
    kData,  // onMetaData as players get it (AMF0)
};

class LiveMessage {
  public:
    static LiveMessage* create(LiveMessageKind kind, uint32_t timestamp, SharedBytes payload) {
        return new LiveMessage(kind, timestamp, std::move(payload));
    }

    LiveMessageKind kind() const { return kind_; }
    uint32_t timestamp() const { return timestamp_; }  // ms, after the source's jitter correction
    const SharedBytes& payload() const { return payload_; }
    size_t size() const { return payload_.size(); }
    bool is_audio() const { return kind_ == LiveMessageKind::kAudio; }
    bool is_video() const { return kind_ == LiveMessageKind::kVideo; }
    bool is_data() const { return kind_ == LiveMessageKind::kData; }
    bool is_keyframe() const { return keyframe_; }
    bool is_sequence_header() const { return sequence_header_; }
    void set_keyframe(bool v) { keyframe_ = v; }
    void set_sequence_header(bool v) { sequence_header_ = v; }

    // The framing cache of the protocol registered as id.
    FramingSlot& framing(FramingSlotId id) { return framing_[id]; }

    void ref() { refs_++; }
    void unref() {
        if (--refs_ == 0) delete this;
    }

  private:
    LiveMessage(LiveMessageKind kind, uint32_t timestamp, SharedBytes payload)
        : kind_(kind), timestamp_(timestamp), payload_(std::move(payload)) {}
    ~LiveMessage() = default;

    LiveMessageKind kind_;
    bool keyframe_ = false;
    bool sequence_header_ = false;
    uint32_t timestamp_;
    int refs_ = 1;
    SharedBytes payload_;
    FramingSlot framing_[kMaxFramingSlots];
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
