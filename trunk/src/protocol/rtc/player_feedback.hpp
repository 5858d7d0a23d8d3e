// The RTCP feedback a sender of media (a player's session) handles, as one
// chain of sans-IO units around the sent RTP:
//
//   sent RTP     -> send statistics (per track: SR counts, RTP time)
//   RTCP in: RR   -> send statistics (RTT, the player's loss figures)
//            NACK -> NACK responder (per-NACK and per-second budget), which
//                    has the owner resend from where it keeps packets
//            PLI/FIR -> a keyframe request to the owner (the stream's
//                    KeyframeRequestLimiter collapses those of all players)
//   on_timer(now) -> one SR per sending track per interval.
//
// The owner learns of retransmissions and keyframe requests through Sink.
// Nothing reads a clock: `now` (monotonic) and `wall_us` (Unix time, for the
// NTP fields and the RTT) are given.
#pragma once

#include <cstdint>
#include <memory>

#include "core/clock.hpp"
#include "kernel/rtp/rtcp.hpp"
#include "protocol/rtc/nack_responder.hpp"
#include "protocol/rtc/rtc_feedback.hpp"
#include "protocol/rtc/send_stats.hpp"

namespace srs {

struct RtcPlayerFeedbackOptions {
    bool nack = true;  // answer NACKs
    NackResponderOptions responder;
    utime_t report_interval = 1 * kUsPerSecond;  // between SRs
};

class RtcPlayerFeedback {
  public:
    class Sink {
      public:
        virtual ~Sink() = default;
        // Sends the kept packet `seq` of a track again; false when it is not kept.
        virtual bool resend(int track, uint16_t seq) = 0;
        // A PLI or FIR from the player.
        virtual void on_keyframe_request(utime_t now) = 0;
    };

    explicit RtcPlayerFeedback(RtcPlayerFeedbackOptions o);

    // A track of the stream, by the SSRC it is sent with (NACKs name it);
    // `sending`: negotiated with this player (its packets are counted, SRs sent).
    // nack: the player's offer took NACKs for it; others are not answered.
    void add_track(int track, uint32_t ssrc, uint32_t clock_rate, bool sending, bool nack = true);

    // The first SR is due one interval after this.
    void start(utime_t now) { next_report_ = now + opt_.report_interval; }
    // A packet sent for the first time (not a retransmission).
    void on_rtp_sent(int track, uint32_t timestamp, size_t payload_bytes, utime_t now);
    // One packet of an RTCP compound from the player (BYE is the owner's).
    void on_rtcp(const RtcpPacketRef& p, utime_t now, int64_t wall_us, Sink* sink);
    // Whether on_timer has anything to do now (the owner reads the wall
    // clock only then).
    bool timer_due(utime_t now) const { return now >= next_report_; }
    // Appends what is due now to *out (which is not cleared).
    void on_timer(utime_t now, int64_t wall_us, RtcFeedbackOutput* out);

    const RtpSendStats* send_stats(int track) const { return tracks_[track].stats.get(); }
    // Ahead of on_rtp_sent in a fan-out: the tracks, then their stats.
    void prefetch_tracks() const { __builtin_prefetch(&tracks_[0]); }
    void prefetch_stats() const {
        for (const Track& t : tracks_) __builtin_prefetch(t.stats.get());
    }
    struct Stats {
        uint64_t nacks = 0;               // NACK packets taken
        uint64_t keyframe_requests = 0;   // PLI and FIR
    };
    const Stats& stats() const { return stats_; }
    const NackResponder::Stats& responder_stats() const { return responder_.stats(); }

  private:
    struct Track {
        uint32_t ssrc = 0;
        bool known = false;
        bool nack = true;
        std::unique_ptr<RtpSendStats> stats;  // when sending
    };
    void on_nack(const RtcpPacketRef& p, utime_t now, Sink* sink);

    RtcPlayerFeedbackOptions opt_;
    Track tracks_[kRtcTracks];
    NackResponder responder_;
    utime_t next_report_ = 0;
    RtcpNack nack_;  // reused
    Stats stats_;
};

}  // namespace srs
