// What the RTCP feedback chains of a session (publisher_feedback,
// player_feedback) hand back from their timer: RTCP packets, each tagged with
// its kind so the owner can count them, each sent on its own.
//
// The chains are sans-IO like the units they compose (nack_generator,
// nack_responder, receive_stats, send_stats, twcc_recorder): packets and
// RTCP go in with the time they happened, RTCP to send comes out of
// on_timer(now). Tracks are numbered kRtcAudioTrack and kRtcVideoTrack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace srs {

constexpr int kRtcAudioTrack = 0;
constexpr int kRtcVideoTrack = 1;
constexpr int kRtcTracks = 2;

enum class RtcFeedbackKind : uint8_t { kNack, kPli, kTwcc, kReceiverReport, kSenderReport };

// The RTCP packets one timer call produced, in order. Reused from call to
// call: the buffers keep their capacity, so a warm output allocates nothing.
class RtcFeedbackOutput {
  public:
    void clear() { size_ = 0; }
    // An empty buffer for one packet of `kind`, counted in size().
    std::string* add(RtcFeedbackKind kind) {
        if (size_ == items_.size()) items_.emplace_back();
        Item& i = items_[size_++];
        i.kind = kind;
        i.rtcp.clear();
        return &i.rtcp;
    }
    // Takes back the last add() (its packet turned out empty or failed).
    void drop_last() {
        if (size_ > 0) size_--;
    }
    size_t size() const { return size_; }
    RtcFeedbackKind kind(size_t i) const { return items_[i].kind; }
    const std::string& rtcp(size_t i) const { return items_[i].rtcp; }

  private:
    struct Item {
        RtcFeedbackKind kind = RtcFeedbackKind::kNack;
        std::string rtcp;
    };
    std::vector<Item> items_;
    size_t size_ = 0;
};

}  // namespace srs
