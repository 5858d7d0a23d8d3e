// A session that publishes a stream: the peer's RTP is checked (payload type
// and SSRC per track), fed to the RtcPublisherFeedback chain (receive
// statistics, NACK generator, TWCC recorder; NACK, PLI, TWCC and RR come out
// of its timer) and stored in the RtcSource for its players, and, with
// rtc_to_rtmp, given to the bridge for RTMP/HTTP-FLV players. The stream is
// published on its LiveSource too, so another publisher of any protocol is
// refused while this one lives.
#pragma once

#include <memory>

#include "app/rtc/rtc_bridge_to_live.hpp"
#include "app/rtc/rtc_session.hpp"
#include "protocol/rtc/publisher_feedback.hpp"

namespace srs {

class RtcPublisherSession : public RtcSession, public RtcPublisherControl {
  public:
    RtcPublisherSession(std::string cid, RtcSessionParams params, RtcSource* source, SourceManager* live_sources,
                        RtcSessionDeps deps);
    ~RtcPublisherSession() override;

    // RtcPeerListener
    void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& header, utime_t now) override;

    // RtcPublisherControl: a PLI goes out with the next timer (within 20 ms).
    void request_keyframe(utime_t now) override;

    const RtcPublisherFeedback& feedback() const { return feedback_; }

  protected:
    Error attach(LiveSource* live, utime_t now) override;
    void detach_role(LiveSource* live) override;
    void on_connected() override {}
    void on_role_timer(utime_t now) override;
    void on_rtcp_packet(const RtcpPacketRef& p, utime_t now) override;

  private:
    static RtcPublisherFeedbackOptions feedback_options(const RtcSessionParams& params);

    RtcPublisherFeedback feedback_;
    LiveSource* published_ = nullptr;  // the LiveSource it published, while attached
    std::unique_ptr<RtcToLiveBridge> to_live_;  // rtc_to_rtmp: RTMP/HTTP-FLV players of this stream
};

}  // namespace srs
