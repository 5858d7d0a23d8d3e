// rtc_latency_session.hpp: sb_latency's WebRTC ends, on the coroutine runtime.
//
//   - MediaSink: where a play session (RTMP, HTTP-FLV, WHEP) puts what it
//     receives, as FLV tag bodies, so one Player and one Joiner serve all;
//   - the URL forms: which -r URLs are WHEP, which -p URLs are WHIP;
//   - RtcVideoToFlv (sans-IO): a WHEP player's H.264 RTP put back in order
//     (protocol/rtc's RtpReorderBuffer), rebuilt into frames (kernel's
//     H264Depacketizer: a frame with a hole is dropped, and so is every
//     frame up to the next keyframe), handed out as FLV video tag bodies with
//     an AVC sequence header before the first frame and whenever SPS/PPS
//     change: the stamp reader sb_latency uses for RTMP reads them unchanged;
//   - play_whep(): one WHEP (or SRS /rtc/v1/play/) session;
//   - WhipSender: one WHIP (or SRS /rtc/v1/publish/) session that sends the
//     stamped frames it is given, packetized by the kernel's H264Packetizer
//     as the server's own RTMP -> WebRTC bridge does (SPS/PPS STAP-A before
//     each IDR, FU-A above 1200 bytes), answers NACKs from a ring, and sends
//     an SR + SDES every second (the server's WebRTC -> RTMP bridge waits
//     for an SR to time the track).
//
// The signalling and the peer are copied in shape from sb_rtc_load and
// sb_rtc_publish (their offer builders in rtc_player.hpp / rtc_publisher.hpp
// are used as they are). The WHIP offer is video only: the FLV's AAC audio
// is not sent (WebRTC carries Opus; the tool encodes nothing).
// Header-only for the reason tool_common.hpp gives.
#pragma once

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "app/rtc/rtc_random.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/strings.hpp"
#include "io/socket.hpp"
#include "kernel/rtp/rtcp.hpp"
#include "kernel/rtp/rtp.hpp"
#include "kernel/rtp/rtp_h264.hpp"
#include "protocol/rtc/dtls.hpp"
#include "protocol/rtc/receive_stats.hpp"
#include "protocol/rtc/rtc_peer.hpp"
#include "protocol/rtc/rtp_reorder.hpp"
#include "protocol/rtc/send_stats.hpp"
#include "rtc_io.hpp"
#include "rtc_player.hpp"
#include "rtc_publisher.hpp"
#include "tool_common.hpp"

namespace srs::tool {

// ---- where a play session's messages go ----

class MediaSink {
  public:
    virtual ~MediaSink() = default;
    // Connected: TCP (HTTP-FLV); TCP, handshake and the connect command
    // (RTMP); the offer answered (WHEP).
    virtual void on_connected() {}
    // The server accepted the play (NetStream.Play.Start, HTTP 200, WebRTC
    // ICE + DTLS up), at wall time `now`.
    virtual void on_play(utime_t now) = 0;
    // One audio (8), video (9) or data (18) message as an FLV tag body. `p`
    // holds the whole payload (RTMP, WHEP) or its first min(size, 64) bytes
    // (HTTP-FLV); it arrived completely at wall time user_us, and kernel_us is
    // when the kernel received the last of it (0: unknown). False ends the
    // session.
    virtual bool on_message(uint8_t type, uint32_t ts, const uint8_t* p, size_t n, utime_t user_us,
                            utime_t kernel_us) = 0;
};

// ---- URL forms ----

// whip:// and whep:// are names for http:// (the WHIP/WHEP endpoint as given).
inline std::string rtc_http_form(const std::string& url) {
    if (istarts_with(url, "whip://") || istarts_with(url, "whep://")) return "http://" + url.substr(7);
    return url;
}

// The path of an http:// URL (from the first '/' after the authority), "" if none.
inline std::string http_path_of(const std::string& url) {
    const size_t scheme = url.find("://");
    if (scheme == std::string::npos) return "";
    const size_t slash = url.find('/', scheme + 3);
    return slash == std::string::npos ? "" : url.substr(slash);
}

// A -r URL played over WebRTC: webrtc:// (SRS's JSON API, POST
// /rtc/v1/play/), whep://, or an http:// URL whose path names a WHEP endpoint
// (".../whep..."). An http:// URL is POSTed as WHEP (the offer as the body),
// so SRS's JSON API is reached only through webrtc://.
inline bool is_whep_play_url(const std::string& url) {
    if (istarts_with(url, "webrtc://") || istarts_with(url, "whep://")) return true;
    return istarts_with(url, "http://") && http_path_of(url).find("/whep") != std::string::npos;
}

// A -p URL published over WebRTC: webrtc:// (POST /rtc/v1/publish/), whip://,
// or an http:// URL whose path names a WHIP endpoint (".../whip...").
inline bool is_whip_publish_url(const std::string& url) {
    if (istarts_with(url, "webrtc://") || istarts_with(url, "whip://")) return true;
    return istarts_with(url, "http://") && http_path_of(url).find("/whip") != std::string::npos;
}

// ---- H.264 RTP back to FLV video tag bodies ----

class RtcVideoToFlv {
  public:
    // How long a reordered packet is waited for. The player sends no NACK, so
    // only reordering can fill a gap; on loopback that is within microseconds.
    static constexpr utime_t kReorderWait = 20 * kUsPerMs;
    // The reorder window, in packets: more than a keyframe of a few hundred
    // kbps stream (a jump past it releases what is held). Each slot is 1.5 KB
    // of every player: 1024 slots made 1,000 players 1.6 GB.
    static constexpr size_t kReorderSlots = 128;

    RtcVideoToFlv() : reorder_(kReorderSlots, kReorderWait) {}

    // One decrypted video RTP packet (header included).
    void push(const uint8_t* packet, size_t size, uint16_t seq, utime_t now) { reorder_.push(seq, packet, size, now); }

    // Releases what can be released at `now`; for each whole frame calls
    // emit(ts_ms, body, size) (first a sequence header when the frame's
    // SPS/PPS are new). emit returning false stops (the rest stays queued).
    // A payload the depacketizer refuses drops its frame (counted), not the
    // session.
    template <class Emit>
    bool drain(utime_t now, Emit&& emit) {
        RtpReorderPacket pkt;
        while (reorder_.pop(now, &pkt)) {
            RtpHeader h;
            if (Error err = rtp_parse_header(pkt.data, pkt.size, &h); err.failed()) {
                err.ignore();
                bad_payloads_++;
                continue;
            }
            if (Error err = depacketizer_.push(pkt.seq, h.timestamp, h.marker, pkt.data + h.header_size,
                                               h.payload_size, pkt.lost_before);
                err.failed()) {
                err.ignore();
                bad_payloads_++;
            }
            H264Frame frame;
            while (depacketizer_.pop(&frame)) {
                if (!emit_frame(frame, emit)) return false;
            }
        }
        return true;
    }

    utime_t next_timeout() const { return reorder_.next_timeout(); }
    uint64_t frames_dropped() const { return depacketizer_.frames_dropped(); }
    uint64_t packets_lost() const { return reorder_.lost(); }
    uint64_t bad_payloads() const { return bad_payloads_; }

  private:
    template <class Emit>
    bool emit_frame(const H264Frame& frame, Emit& emit) {
        if (!have_first_ts_) {
            have_first_ts_ = true;
            first_ts_ = frame.timestamp;
        }
        // RTP time (90 kHz) since the first frame, in ms; the 32-bit
        // difference keeps counting across the wrap.
        const uint32_t ts_ms = static_cast<uint32_t>(static_cast<uint32_t>(frame.timestamp - first_ts_) / 90);
        if (!frame.sps.empty() && !frame.pps.empty() && (frame.sps != sps_ || frame.pps != pps_)) {
            std::string record;
            if (Error err = h264_build_avcc_record(frame.sps, frame.pps, &record); err.ok()) {
                sps_ = frame.sps;
                pps_ = frame.pps;
                body_.assign({0x17, 0x00, 0x00, 0x00, 0x00});
                body_.insert(body_.end(), record.begin(), record.end());
                if (!emit(ts_ms, body_.data(), body_.size())) return false;
            } else {
                err.ignore();
                bad_payloads_++;
            }
        }
        // An AVC NALU tag: frame type, packet type 1, composition time 0
        // (RTP carries the presentation time only).
        body_.assign({static_cast<uint8_t>(frame.keyframe ? 0x17 : 0x27), 0x01, 0x00, 0x00, 0x00});
        body_.insert(body_.end(), frame.nalus.begin(), frame.nalus.end());
        return emit(ts_ms, body_.data(), body_.size());
    }

    RtpReorderBuffer reorder_;
    H264Depacketizer depacketizer_;
    std::vector<uint8_t> body_;
    std::string sps_, pps_;
    bool have_first_ts_ = false;
    uint32_t first_ts_ = 0;
    uint64_t bad_payloads_ = 0;
};

// ---- one WHEP play session ----

constexpr size_t kRtcDatagramSize = 2048;
constexpr utime_t kRtcReportInterval = kUsPerSecond;
constexpr utime_t kRtcMaxWait = 200 * kUsPerMs;
constexpr utime_t kWhepDeleteTimeout = 3 * kUsPerSecond;

// POSTs the offer (WHEP, or SRS's JSON API) and reads the answer.
inline Error rtc_signal(const RtcPlayUrl& url, const std::string& offer, utime_t timeout, const char* what,
                        RtcAnswerInfo* answer, std::string* delete_target) {
    HttpResponseHead head;
    std::string body, sdp;
    const bool whep = url.signalling == RtcSignalling::kWhep;
    if (whep) {
        if (Error err = http_exchange(url.api, "POST", url.api.target, "application/sdp", offer, timeout, "sb_latency",
                                      &head, &body);
            err.failed()) {
            return SRS_WRAP(err, "%s POST", what);
        }
    } else {
        const std::string api = "http://" + url.api.host_header + url.api.target;
        const std::string req = srs_play_request(api, rtc_random_string(7), url.stream_url, offer);
        if (Error err = http_exchange(url.api, "POST", url.api.target, "application/json", req, timeout, "sb_latency",
                                      &head, &body);
            err.failed()) {
            return SRS_WRAP(err, "POST %s", url.api.target.c_str());
        }
    }
    if (head.status < 200 || head.status > 299) {
        const std::string why = body.substr(0, std::min<size_t>(body.find('\n'), 200));
        return SRS_ERR(kErrorRtmpClientRejected, "HTTP %d %s: %s", head.status, head.reason.c_str(), why.c_str());
    }
    if (whep) {
        sdp = std::move(body);
        if (delete_target) *delete_target = whep_delete_target(head.location, url.api);
    } else {
        std::string session_id;
        if (Error err = read_srs_play_reply(body, &sdp, &session_id); err.failed()) return SRS_WRAP(err, "%s API", what);
    }
    return read_play_answer(sdp, answer);
}

// The peer options of a client session towards the answer's candidate.
inline Error rtc_client_peer_options(const std::string& ufrag, const std::string& pwd,
                                     const std::shared_ptr<DtlsCertificate>& cert, const RtcAnswerInfo& answer,
                                     RtcPeerOptions* po) {
    StunAddress server;
    if (!stun_address_of_ip(answer.candidate_ip, answer.candidate_port, &server)) {
        return SRS_ERR(kErrorSdpAnswer, "candidate %s is not an address", answer.candidate_ip.c_str());
    }
    po->ice_controlling = true;
    po->local_ufrag = ufrag;
    po->local_pwd = pwd;
    po->remote_ufrag = answer.ice_ufrag;
    po->remote_pwd = answer.ice_pwd;
    po->certificate = cert;
    po->dtls_role = answer.setup == SdpSetup::kActive ? DtlsRole::kServer : DtlsRole::kClient;
    po->remote_fingerprint = answer.fingerprint;
    po->remote_candidate = server;
    po->software = "sb_latency";
    return Error();
}

// One UDP socket and the peer on it: what the play and publish sessions share.
class RtcClientLink {
  public:
    Error open(const RtcPeerOptions& po, RtcPeerListener* listener) {
        UdpSocket* raw = nullptr;
        const char* any = po.remote_candidate.family == StunAddress::kIpv4 ? "0.0.0.0" : "::";
        if (Error err = UdpSocket::bind(any, 0, &raw); err.failed()) return SRS_WRAP(err, "udp bind");
        sock_.reset(raw);
        // Each datagram's kernel receive time (SIOCGSTAMPNS after the read):
        // the delay without this process's own scheduling. The first ask
        // turns the socket's stamping on (and finds none); SO_TIMESTAMPNS
        // would not do: it sends the time as a cmsg and leaves the ioctl's
        // stamp unset.
        struct timespec none;
        if (ioctl(sock_->fd(), SIOCGSTAMPNS, &none) != 0) {
            // ENOENT: nothing received yet, stamping now on.
        }
        peer_.reset(new RtcPeer(po, listener));
        if (Error err = peer_->start(monotonic_us()); err.failed()) return SRS_WRAP(err, "start the peer");
        return Error();
    }
    RtcPeer* peer() { return peer_.get(); }

    // Sends what the peer queued (STUN, DTLS, RTCP). UDP: a full buffer loses it.
    Error flush(utime_t timeout) {
        RtcTransmit t;
        while (peer_->pop_transmit(&t)) {
            sockaddr_storage ss;
            const socklen_t len = sockaddr_of(t.to, &ss);
            if (Error err = sock_->sendto(t.data.data(), t.data.size(), reinterpret_cast<const sockaddr*>(&ss), len,
                                          timeout);
                err.failed()) {
                return SRS_WRAP(err, "send to %s", t.to.to_string().c_str());
            }
        }
        return Error();
    }
    // Protects buf[0, n) in place (room after it) and sends it to the peer.
    Error send_rtp(uint8_t* buf, size_t n, size_t cap, utime_t timeout) {
        size_t out = 0;
        if (Error err = peer_->protect_rtp(buf, n, cap, &out); err.failed()) return err;
        sockaddr_storage ss;
        const socklen_t len = sockaddr_of(peer_->remote_address(), &ss);
        return sock_->sendto(buf, out, reinterpret_cast<const sockaddr*>(&ss), len, timeout);
    }
    // One datagram into buf, handed to the peer; *got false when none came
    // within `wait`. *wall is the wall time it was read at, *kernel when the
    // kernel received it (0: unknown). A datagram the peer refuses is
    // counted in *refused.
    Error receive(uint8_t* buf, size_t cap, utime_t wait, bool* got, utime_t* wall, utime_t* kernel,
                  uint64_t* refused) {
        *got = false;
        sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        size_t n = 0;
        Error err = sock_->recvfrom(buf, cap, &n, &ss, &len, std::max<utime_t>(wait, kUsPerMs));
        if (err.failed()) {
            if (err.code() != kErrorSocketTimeout) return SRS_WRAP(err, "recv");
            err.ignore();
            return Error();
        }
        *got = true;
        *wall = wall_us();
        struct timespec ts;
        *kernel = ioctl(sock_->fd(), SIOCGSTAMPNS, &ts) == 0
                      ? static_cast<utime_t>(ts.tv_sec) * kUsPerSecond + ts.tv_nsec / 1000
                      : 0;
        bytes_ += n;
        if (Error e = peer_->handle_datagram(buf, n, stun_address_of(ss), monotonic_us()); e.failed()) {
            (*refused)++;
            if (getenv("SB_DEBUG")) fprintf(stderr, "sb_latency: datagram refused: %s\n", e.summary().c_str());
            e.ignore();
        }
        return Error();
    }
    uint64_t bytes() const { return bytes_; }

  private:
    std::unique_ptr<UdpSocket> sock_;
    std::unique_ptr<RtcPeer> peer_;
    uint64_t bytes_ = 0;
};

// What a WHEP session counts beyond ClientStats, summed per -r URL by the tool.
struct WhepCounters {
    uint64_t frames_dropped = 0;   // frames the depacketizer could not rebuild whole (loss), or before a keyframe
    uint64_t packets_lost = 0;     // sequence numbers never received
    uint64_t bad_payloads = 0;     // RTP the depacketizer refused
    uint64_t refused_datagrams = 0;
};

// One WHEP session: POST the offer, ICE + DTLS, then video frames to the sink
// until the server ends the session, the sink does, or nothing comes for
// `timeout`. Hangs up with the WHEP DELETE and a DTLS close_notify.
class WhepSession : public RtcPeerListener {
  public:
    // video_only: the offer has no audio section, so the server sends no
    // Opus (half the packets of a 25 fps stream with 20 ms audio frames).
    WhepSession(const std::string& url, std::shared_ptr<DtlsCertificate> cert, utime_t timeout, bool video_only,
                MediaSink* sink, ClientStats* stats, WhepCounters* counters)
        : url_(url), cert_(std::move(cert)), timeout_(timeout), video_only_(video_only), sink_(sink), stats_(stats),
          counters_(counters) {}

    Error run() {
        RtcPlayUrl url;
        if (Error err = parse_rtc_play_url(rtc_http_form(url_), &url); err.failed()) return err;
        RtcOfferParams params;
        params.ice_ufrag = rtc_random_string(8);
        params.ice_pwd = rtc_random_string(24);
        params.fingerprint = cert_->fingerprint();
        params.session_id = (static_cast<uint64_t>(rtc_random_u32()) << 31) | rtc_random_u32();
        ssrc_ = rtc_random_u32();
        RtcAnswerInfo answer;
        std::string delete_target;
        SessionDescription offer = build_play_offer(params);
        if (video_only_) {
            offer.media.erase(offer.media.begin());  // mid 0, the audio
            offer.bundle = {"1"};
        }
        if (Error err = rtc_signal(url, write_sdp(offer), timeout_, "WHEP", &answer, &delete_target); err.failed()) {
            return err;
        }
        if (answer.video_pt < 0) return SRS_ERR(kErrorSdpNoMedia, "the answer refuses video");
        video_pt_ = answer.video_pt;
        video_ssrc_ = answer.video_ssrc;
        sink_->on_connected();
        RtcPeerOptions po;
        if (Error err = rtc_client_peer_options(params.ice_ufrag, params.ice_pwd, cert_, answer, &po); err.failed()) {
            return err;
        }
        if (Error err = link_.open(po, this); err.failed()) return err;
        Error err = loop();
        // The hang-up: DELETE first unless the server ended the session.
        if (!server_ended_) hang_up(url, delete_target);
        if (!closed_) {
            link_.peer()->close(monotonic_us(), SRS_ERR(kErrorRtcSessionClosed, "the player leaves"));
            if (Error e = link_.flush(timeout_); e.failed()) e.ignore();
        }
        counters_->frames_dropped += video_.frames_dropped();
        counters_->packets_lost += video_.packets_lost();
        counters_->bad_payloads += video_.bad_payloads();
        return err;
    }

  private:
    Error loop() {
        const utime_t start = monotonic_us();
        utime_t next_report = -1;
        RtcPeer* peer = link_.peer();
        while (true) {
            if (Error err = link_.flush(timeout_); err.failed()) return err;
            if (sink_done_) return Error();
            if (closed_ || server_ended_) {
                if (connected_ && server_ended_) return Error();
                return SRS_ERR(closed_code_ ? closed_code_ : kErrorDtlsHandshake, "peer closed %s: %s",
                               connected_ ? "while playing" : "before connecting", closed_why_.c_str());
            }
            const utime_t now = monotonic_us();
            if (!connected_ && now - start > timeout_) {
                return SRS_ERR(kErrorDtlsTimeout, "not connected after %d ms (%s)",
                               static_cast<int>(timeout_ / kUsPerMs), peer->milestones().c_str());
            }
            if (connected_ && now - last_media_us_ > timeout_) {
                return SRS_ERR(kErrorSocketTimeout, "no RTP for %d ms", static_cast<int>(timeout_ / kUsPerMs));
            }
            if (const utime_t due = peer->next_timeout(); due >= 0 && due <= now) {
                if (Error err = peer->handle_timeout(now); err.failed()) return SRS_WRAP(err, "peer timer");
                continue;
            }
            if (const utime_t due = video_.next_timeout(); due >= 0 && due <= now) {
                release(wall_us(), 0);
                continue;
            }
            if (connected_ && now >= next_report) {
                send_report(now);
                next_report = now + kRtcReportInterval;
                continue;
            }
            utime_t wake = now + kRtcMaxWait;
            if (const utime_t due = peer->next_timeout(); due > now) wake = std::min(wake, due);
            if (const utime_t due = video_.next_timeout(); due > now) wake = std::min(wake, due);
            if (connected_) wake = std::min(wake, next_report);
            bool got = false;
            utime_t wall = 0, kernel = 0;
            if (Error err = link_.receive(buf_, sizeof(buf_), wake - now, &got, &wall, &kernel,
                                          &counters_->refused_datagrams);
                err.failed()) {
                return err;
            }
            stats_->session_bytes = link_.bytes();
            if (got && connected_) release(wall, kernel);
        }
    }

    // Hands the frames that are whole to the sink, as completed by the
    // datagram read at `wall` (received by the kernel at `kernel`, 0: a
    // frame released by the reorder timer).
    void release(utime_t wall, utime_t kernel) {
        if (sink_done_) return;
        video_.drain(monotonic_us(), [this, wall, kernel](uint32_t ts, const uint8_t* p, size_t n) {
            if (!sink_->on_message(9, ts, p, n, wall, kernel)) sink_done_ = true;
            return !sink_done_;
        });
    }

    void send_report(utime_t now) {
        RtcpReceiverReport rr;
        rr.ssrc = ssrc_;
        if (receive_stats_) rr.reports.push_back(receive_stats_->report(now));
        std::string compound;
        rtcp_build_rr(rr, &compound);
        rtcp_build_sdes({{ssrc_, "sb_latency"}}, &compound);
        if (Error err = link_.peer()->send_rtcp(compound); err.failed()) err.ignore();
    }

    void hang_up(const RtcPlayUrl& url, const std::string& target) {
        if (target.empty()) return;
        HttpResponseHead head;
        std::string body;
        Error err = http_exchange(url.api, "DELETE", target, nullptr, "", kWhepDeleteTimeout, "sb_latency", &head, &body);
        err.ignore();
    }

    void on_peer_address(const StunAddress&) override {}
    void on_peer_connected() override {
        connected_ = true;
        last_media_us_ = monotonic_us();
        sink_->on_play(wall_us());
    }
    void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& h, utime_t now) override {
        last_media_us_ = now;
        stats_->messages++;
        const bool video = h.payload_type == video_pt_ || (video_ssrc_ != 0 && h.ssrc == video_ssrc_);
        if (!video) return;  // Opus: not measured
        if (!receive_stats_) receive_stats_.reset(new RtpReceiveStats(h.ssrc, 90000));
        receive_stats_->on_packet(h.sequence, h.timestamp, now);
        video_.push(data, size, h.sequence, now);
    }
    void on_peer_rtcp(const uint8_t*, size_t, const std::vector<RtcpPacketRef>& packets, utime_t) override {
        for (const RtcpPacketRef& p : packets) {
            if (p.type == kRtcpBye) server_ended_ = true;
        }
    }
    void on_peer_closed(const Error& reason) override {
        closed_ = true;
        closed_code_ = reason.code();
        closed_why_ = reason.summary();
        if (reason.code() == kErrorRtcPeerClosedByPeer || reason.code() == kErrorRtcSessionClosed) {
            server_ended_ = connected_;
        }
    }

    std::string url_;
    std::shared_ptr<DtlsCertificate> cert_;
    utime_t timeout_;
    bool video_only_;
    MediaSink* sink_;
    ClientStats* stats_;
    WhepCounters* counters_;
    RtcClientLink link_;
    RtcVideoToFlv video_;
    std::unique_ptr<RtpReceiveStats> receive_stats_;
    uint32_t ssrc_ = 0;
    int video_pt_ = -1;
    uint32_t video_ssrc_ = 0;
    bool connected_ = false, closed_ = false, server_ended_ = false, sink_done_ = false;
    int closed_code_ = 0;
    std::string closed_why_;
    utime_t last_media_us_ = 0;
    uint8_t buf_[kRtcDatagramSize];
};

// ---- one WHIP publish session ----

struct WhipCounters {
    uint64_t packets = 0;
    uint64_t nacks = 0;
    uint64_t resent = 0;
    uint64_t plis = 0;
    uint64_t sr_sent = 0;
    uint64_t refused_datagrams = 0;
};

class WhipSender : public RtcPeerListener, public RtpPayloadSink {
  public:
    static constexpr size_t kSrtpRoom = 64;

    WhipSender(const std::string& url, std::shared_ptr<DtlsCertificate> cert, utime_t timeout, WhipCounters* counters)
        : url_(url), cert_(std::move(cert)), timeout_(timeout), counters_(counters) {}

    ~WhipSender() override {
        if (link_.peer() && !closed_) {
            link_.peer()->close(monotonic_us(), SRS_ERR(kErrorRtcSessionClosed, "the publisher leaves"));
            if (Error e = link_.flush(timeout_); e.failed()) e.ignore();
        }
    }

    // Signals, then waits for ICE + DTLS. avc_record: the FLV sequence
    // header's AVCDecoderConfigurationRecord (its SPS/PPS go before each IDR).
    Error connect(const uint8_t* avc_record, size_t n) {
        if (Error err = packetizer_.set_sequence_header(avc_record, n); err.failed()) {
            return SRS_WRAP(err, "the video sequence header");
        }
        RtcPlayUrl url;
        if (Error err = parse_rtc_publish_url(rtc_http_form(url_), &url); err.failed()) return err;
        RtcPublishParams p;
        p.ice.ice_ufrag = rtc_random_string(8);
        p.ice.ice_pwd = rtc_random_string(24);
        p.ice.fingerprint = cert_->fingerprint();
        p.ice.session_id = (static_cast<uint64_t>(rtc_random_u32()) << 31) | rtc_random_u32();
        p.audio_ssrc = rtc_random_u32() | 1;
        ssrc_ = p.video_ssrc = (rtc_random_u32() & ~1u) | 2;
        p.cname = "sb_latency-" + rtc_random_string(8);
        p.stream_id = "sb-" + rtc_random_string(8);
        SessionDescription sd = build_publish_offer(p);
        // Video only: drop the audio section (mid 0) and its BUNDLE entry.
        sd.media.erase(sd.media.begin());
        sd.bundle = {"1"};
        RtcAnswerInfo answer;
        if (Error err = rtc_signal(url, write_sdp(sd), timeout_, "WHIP", &answer, nullptr); err.failed()) return err;
        if (answer.video_pt < 0) return SRS_ERR(kErrorSdpNoMedia, "the answer refuses video");
        const int pt = publish_video_pt(answer, p.profile_level_id);  // the packetizer makes FU-As: mode 1
        if (pt < 0) return SRS_ERR(kErrorSdpAnswer, "the answer has no H.264 packetization-mode 1");
        pt_ = static_cast<uint8_t>(pt);
        send_stats_.reset(new RtpSendStats(ssrc_, 90000));
        RtcPeerOptions po;
        if (Error err = rtc_client_peer_options(p.ice.ice_ufrag, p.ice.ice_pwd, cert_, answer, &po); err.failed()) {
            return err;
        }
        if (Error err = link_.open(po, this); err.failed()) return err;
        const utime_t deadline = monotonic_us() + timeout_;
        while (!connected_) {
            if (monotonic_us() >= deadline) {
                return SRS_ERR(kErrorDtlsTimeout, "not connected after %d ms (%s)",
                               static_cast<int>(timeout_ / kUsPerMs), link_.peer()->milestones().c_str());
            }
            if (Error err = pump(std::min(deadline, monotonic_us() + 10 * kUsPerMs)); err.failed()) return err;
        }
        return Error();
    }

    // Handles datagrams and timers until monotonic time `until`.
    Error pump(utime_t until) {
        RtcPeer* peer = link_.peer();
        while (true) {
            if (Error err = link_.flush(timeout_); err.failed()) return err;
            if (closed_) return SRS_ERR(kErrorRtcSessionClosed, "the session ended: %s", closed_why_.c_str());
            const utime_t now = monotonic_us();
            if (const utime_t due = peer->next_timeout(); due >= 0 && due <= now) {
                if (Error err = peer->handle_timeout(now); err.failed()) return SRS_WRAP(err, "peer timer");
                continue;
            }
            if (connected_ && now >= next_sr_) {
                send_sr(now);
                next_sr_ = now + kRtcReportInterval;
                continue;
            }
            if (now >= until) return Error();
            utime_t wake = std::min(until, now + kRtcMaxWait);
            if (const utime_t due = peer->next_timeout(); due > now) wake = std::min(wake, due);
            if (connected_) wake = std::min(wake, next_sr_);
            bool got = false;
            utime_t wall = 0, kernel = 0;
            if (Error err = link_.receive(in_, sizeof(in_), wake - now, &got, &wall, &kernel,
                                          &counters_->refused_datagrams);
                err.failed()) {
                return err;
            }
        }
    }

    // One video frame (an FLV AVC NALU tag body, stamped), presentation time
    // in ms. The packets go out at once, the last with the marker bit.
    Error send_frame(const uint8_t* body, size_t n, uint64_t pts_ms) {
        if (n <= 5) return Error();
        timestamp_ = static_cast<uint32_t>(pts_ms * 90);
        send_error_ = Error();
        if (Error err = packetizer_.packetize(body + 5, n - 5, this); err.failed()) return SRS_WRAP(err, "packetize");
        return std::move(send_error_);
    }

    uint64_t bytes_out() const { return bytes_out_; }

  private:
    void on_rtp_payload(const uint8_t* data, size_t size, bool marker) override {
        if (send_error_.failed() || size + 12 > RtpSendRing::kMaxPacket) return;
        uint8_t* p = out_;
        p[0] = 0x80;
        p[1] = static_cast<uint8_t>((marker ? 0x80 : 0) | (pt_ & 0x7f));
        store_be16(p + 2, seq_++);
        store_be32(p + 4, timestamp_);
        store_be32(p + 8, ssrc_);
        memcpy(p + 12, data, size);
        const size_t n = 12 + size;
        ring_.put(p, n);
        send_stats_->on_packet(timestamp_, size, monotonic_us());
        counters_->packets++;
        bytes_out_ += n;
        send_error_ = link_.send_rtp(p, n, sizeof(out_), timeout_);
    }

    void send_sr(utime_t now) {
        RtcpSenderReport sr;
        if (!send_stats_ || !send_stats_->build_sr(wall_us(), now, &sr)) return;
        std::string compound;
        rtcp_build_sr(sr, &compound);
        rtcp_build_sdes({{ssrc_, "sb_latency"}}, &compound);
        if (Error err = link_.peer()->send_rtcp(compound); err.failed()) {
            err.ignore();
            return;
        }
        counters_->sr_sent++;
    }

    void on_peer_address(const StunAddress&) override {}
    void on_peer_connected() override { connected_ = true; }
    void on_peer_rtp(uint8_t*, size_t, const RtpHeader&, utime_t) override {}
    void on_peer_rtcp(const uint8_t*, size_t, const std::vector<RtcpPacketRef>& packets, utime_t) override {
        for (const RtcpPacketRef& p : packets) {
            if (p.type == kRtcpPsfb && p.count == kRtcpFmtPli) {
                counters_->plis++;  // the file's GOP is what it is
            } else if (p.type == kRtcpRtpfb && p.count == kRtcpFmtNack) {
                RtcpNack nack;
                if (Error err = rtcp_parse_nack(p, &nack); err.failed()) {
                    err.ignore();
                    continue;
                }
                counters_->nacks++;
                if (nack.media_ssrc != ssrc_) continue;
                for (uint16_t seq : nack.lost) {
                    size_t n = 0;
                    const uint8_t* kept = ring_.get(seq, &n);
                    if (!kept) continue;
                    memcpy(resend_, kept, n);
                    if (Error err = link_.send_rtp(resend_, n, sizeof(resend_), timeout_); err.failed()) {
                        err.ignore();
                        continue;
                    }
                    counters_->resent++;
                }
            }
        }
    }
    void on_peer_closed(const Error& reason) override {
        closed_ = true;
        closed_why_ = reason.summary();
    }

    std::string url_;
    std::shared_ptr<DtlsCertificate> cert_;
    utime_t timeout_;
    WhipCounters* counters_;
    RtcClientLink link_;
    H264Packetizer packetizer_;
    std::unique_ptr<RtpSendStats> send_stats_;
    RtpSendRing ring_;
    uint32_t ssrc_ = 0;
    uint8_t pt_ = 0;  // the answer's choice
    uint16_t seq_ = 0;
    uint32_t timestamp_ = 0;
    utime_t next_sr_ = 0;
    bool connected_ = false, closed_ = false;
    std::string closed_why_;
    Error send_error_;
    uint64_t bytes_out_ = 0;
    uint8_t out_[RtpSendRing::kMaxPacket + kSrtpRoom];
    uint8_t resend_[RtpSendRing::kMaxPacket + kSrtpRoom];
    uint8_t in_[kRtcDatagramSize];
};

}  // namespace srs::tool
