// The RTCP feedback a receiver of media (a publisher's session) sends, as one
// chain of sans-IO units around the received RTP:
//
//   received RTP -> receive statistics (RFC 3550 A.1/A.3/A.8, per track)
//                -> NACK generator (per track, when enabled)
//                -> TWCC recorder (transport-wide sequence numbers)
//   on_timer(now) -> NACKs (audio, then video), a PLI when a keyframe is
//                    wanted, TWCC feedback when due, one RR per interval.
//
// A keyframe is wanted when the owner asks (request_keyframe) or when the
// video NACK generator gave up on losses; the PLI waits until the video
// SSRC is known. NACK, PLI and TWCC name the track's SSRC (0 while unknown).
// Nothing reads a clock: every time is given.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/clock.hpp"
#include "protocol/rtc/nack_generator.hpp"
#include "protocol/rtc/receive_stats.hpp"
#include "protocol/rtc/rtc_feedback.hpp"
#include "protocol/rtc/twcc_recorder.hpp"

namespace srs {

struct RtcPublisherFeedbackOptions {
    bool nack = true;   // NACK lost packets
    NackOptions nack_options;
    bool twcc = false;  // transport-cc feedback (the extension was negotiated)
    TwccOptions twcc_options;
    utime_t report_interval = 1 * kUsPerSecond;  // between RRs
};

class RtcPublisherFeedback {
  public:
    // local_ssrc: the SSRC our RTCP is sent from.
    RtcPublisherFeedback(uint32_t local_ssrc, RtcPublisherFeedbackOptions o);

    // A negotiated track; ssrc 0 when the offer named none (see learn_ssrc).
    // nack: the peer takes NACKs for it (its offer's a=rtcp-fb nack).
    void add_track(int track, uint32_t ssrc, uint32_t clock_rate, bool nack = true);
    bool has_track(int track) const { return tracks_[track].stats != nullptr; }
    uint32_t track_ssrc(int track) const { return has_track(track) ? tracks_[track].stats->ssrc() : 0; }
    // The SSRC of a track added with 0, from its first packet: its statistics start there.
    void learn_ssrc(int track, uint32_t ssrc);

    // The first RR is due one interval after this.
    void start(utime_t now) { next_report_ = now + opt_.report_interval; }
    // A packet of a track (its SSRC checked by the owner).
    void on_rtp(int track, uint16_t seq, uint32_t timestamp, utime_t arrival);
    // Its transport-wide sequence number, when it carried one.
    void on_transport_seq(uint16_t transport_seq, utime_t arrival);
    // The sender's SR about a track: LSR/DLSR of the next RRs.
    void on_sender_report(int track, uint64_t ntp, utime_t now);
    // A PLI goes out with the next on_timer.
    void request_keyframe() { keyframe_wanted_ = true; }

    // Appends what is due now to *out (which is not cleared).
    void on_timer(utime_t now, RtcFeedbackOutput* out);

    const RtpReceiveStats* receive_stats(int track) const { return tracks_[track].stats.get(); }
    const NackGenerator* nack_generator(int track) const { return tracks_[track].nack.get(); }
    const TwccRecorder& twcc() const { return twcc_; }

  private:
    struct Track {
        std::unique_ptr<RtpReceiveStats> stats;
        std::unique_ptr<NackGenerator> nack;
        uint32_t clock_rate = 0;
    };

    void collect_nacks(utime_t now, RtcFeedbackOutput* out);
    void send_pli(RtcFeedbackOutput* out);
    void send_twcc(utime_t now, RtcFeedbackOutput* out);
    void send_receiver_report(utime_t now, RtcFeedbackOutput* out);

    uint32_t local_ssrc_;
    RtcPublisherFeedbackOptions opt_;
    Track tracks_[kRtcTracks];
    TwccRecorder twcc_;
    bool keyframe_wanted_ = false;
    utime_t next_report_ = 0;
    std::vector<uint16_t> lost_;  // reused
};

}  // namespace srs
