// A session that plays a stream: the RtcSource gives it every packet of the
// stream (RtcPlayerSink); it sends those of the codecs it negotiated, with its
// payload type, SRTP-protected. Video is held back until a keyframe so the
// first frame decodes: a player that connects while the source's ring holds
// one starts there (paced, kCatchupPerTick per tick), otherwise it asks the
// publisher for one. A Baseline H.264 player of a stream with B-frames gets
// the video without them, renumbered without holes. RtcPlayerFeedback around
// the sent packets: SRs, the player's RRs, its NACKs answered from the ring
// within a budget, its PLI/FIR turned into keyframe requests to the source.
#pragma once

#include <vector>

#include "app/rtc/rtc_session.hpp"
#include "protocol/rtc/player_feedback.hpp"

namespace srs {

class RtcPlayerSession : public RtcSession, public RtcPlayerSink, private RtcPlayerFeedback::Sink {
  public:
    RtcPlayerSession(std::string cid, RtcSessionParams params, RtcSource* source, SourceManager* live_sources,
                     RtcSessionDeps deps);
    ~RtcPlayerSession() override;

    // RtcPeerListener: players send no media; counted and dropped.
    void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& header, utime_t now) override;

    // RtcPlayerSink
    void on_source_packet(RtcMediaKind kind, const RtcPacket& packet, utime_t now) override;
    void prefetch(int stage) const override;
    void on_source_unpublish() override;

    const RtcPlayerFeedback& feedback() const { return feedback_; }

  protected:
    Error attach(LiveSource* live, utime_t now) override;
    void detach_role(LiveSource* live) override;
    void on_connected() override;
    void on_role_timer(utime_t now) override;
    void on_rtcp_packet(const RtcpPacketRef& p, utime_t now) override;

  private:
    // RtcPlayerFeedback::Sink
    bool resend(int track, uint16_t seq) override;
    void on_keyframe_request(utime_t now) override;

    static RtcPlayerFeedbackOptions feedback_options(const RtcSessionParams& params);
    void send_media(RtcMediaKind kind, const RtcPacket& packet, bool retransmit);
    // Whether the published codecs are the negotiated ones (once per publish).
    void check_codecs();
    // Waiting for a keyframe: sends the ring's packets from its latest
    // keyframe, if it still holds one (true then).
    bool start_from_ring();
    void catch_up();

    RtcPlayerFeedback feedback_;
    bool waiting_keyframe_ = true;
    // Whether the published codec of each kind is the one this player
    // negotiated (checked once per publish, not per packet).
    uint32_t checked_generation_ = 0;
    bool codec_ok_[2] = {false, false};
    utime_t keyframe_asked_ = -1;
    // Starting from the ring: the next packet to send, paced per timer tick.
    static constexpr int kCatchupPerTick = 40;
    bool catching_up_ = false;
    uint16_t catchup_next_ = 0;
    // A Baseline player of a stream with B-frames: they are skipped and its
    // video renumbered (sent_seq_ maps its numbers back for NACKs).
    bool skip_bframes_ = false;
    bool bframes_logged_ = false;
    uint16_t skipped_ = 0;
    struct SentSeq {
        uint16_t sent = 0, ring = 0;
    };
    static constexpr size_t kSentSeqHistory = 1024;
    std::vector<SentSeq> sent_seq_;
};

}  // namespace srs
