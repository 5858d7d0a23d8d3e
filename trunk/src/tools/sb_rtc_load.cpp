// sb_rtc_load: many WebRTC players in one process, one coroutine each, every
// one checking what it receives. The WebRTC twin of sb_rtmp_load: same
// options, same kind of report lines and JSON summary.
//
//   sb_rtc_load -c 1000 -r 'http://127.0.0.1:1985/rtc/v1/whep/?app=live&stream=livestream' -s 10000 -t 60 --json
//   sb_rtc_load -c 10 -r webrtc://127.0.0.1:1985/live/livestream     (SRS's POST /rtc/v1/play/)
//
// A session: the player makes a recvonly offer (rtc_player.hpp) with its own
// ICE credentials and the fingerprint of the one certificate of the process,
// POSTs it, reads the answer, then runs an RtcPeer in client mode (ICE
// controlling, DTLS client unless the server answered active) over a UDP
// socket of its own towards the server's first udp host candidate. It feeds
// the peer what the socket receives, sends what the peer queues, drives its
// timers, and sends an RTCP RR + SDES every second so the server sees a live
// receiver; it sends nothing else (no NACK, no PLI). On every decrypted RTP
// packet it checks, per session: sequence numbers per SSRC (gaps, late and
// duplicate packets), that the first video packet starts an H.264 keyframe,
// and it counts packets, frames (marker bit), keyframes, bytes. A datagram the
// peer cannot decrypt is counted, not fatal. It samples, from the POST: the
// answer, ICE+DTLS connected, the first RTP packet and the first complete
// keyframe (the time to first frame, TTFF). The session ends when the server
// closes it (DTLS close_notify, RTCP BYE: a normal end, played again after -d
// ms), on a failure (retried after -e ms), or at the end of the run; then the
// player DELETEs the WHEP resource (unless the server ended the session; the
// JSON API has no delete) and sends its DTLS close_notify.
//
// Memory per player: the Player (stats, up to four SSRC trackers), its
// coroutine's touched stack, and while in a session the RtcPeer (its DTLS
// and SRTP state) and one UDP socket. Datagrams are read into one buffer all
// players share: a player handles what it read before it can block again.
#include <arpa/inet.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/rtc/rtc_random.hpp"
#include "core/clock.hpp"
#include "io/signal_pipe.hpp"
#include "io/socket.hpp"
#include "kernel/rtp/rtcp.hpp"
#include "kernel/rtp/rtp.hpp"
#include "protocol/rtc/dtls.hpp"
#include "protocol/rtc/receive_stats.hpp"
#include "protocol/rtc/rfc4571.hpp"
#include "protocol/rtc/rtc_peer.hpp"
#include "http_client.hpp"
#include "rtc_io.hpp"
#include "rtc_player.hpp"
#include "tool_common.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

constexpr size_t kDatagramBufferSize = 64 * 1024;
uint8_t g_datagram[kDatagramBufferSize];  // shared by every player (see the top)

constexpr size_t kMaxTracks = 4;                       // SSRCs followed per session
constexpr utime_t kReportInterval = kUsPerSecond;      // RTCP RR
constexpr utime_t kMaxWait = 200 * kUsPerMs;           // longest sleep in the media loop
constexpr utime_t kDeleteTimeout = 3 * kUsPerSecond;

// What every player shares: the certificate and the run's samples (one
// process, one thread: no locking).
struct RtcShared {
    std::shared_ptr<DtlsCertificate> certificate;
    std::vector<int64_t> answer_us;        // POST to answer parsed
    std::vector<int64_t> connected_us;     // POST to ICE + DTLS connected
    std::vector<int64_t> first_packet_us;  // POST to the first RTP packet
    std::vector<int64_t> ttff_us;          // POST to the end of the first keyframe
    std::map<int, uint64_t> http_statuses; // other than 2xx, by code
    uint64_t deletes_ok = 0;
    uint64_t deletes_failed = 0;
};

struct Options : ToolOptions {
    RtcShared* shared = nullptr;
    bool tcp = false;  // --tcp: media over the answer's TCP candidate (RFC 4571 frames)
};

// Where a player's datagrams go: its own UDP socket, or (--tcp) one TCP
// connection to the server's TCP candidate carrying RFC 4571 frames.
class PlayerLink {
  public:
    virtual ~PlayerLink() = default;
    virtual Error send(const std::string& data, const StunAddress& to, utime_t timeout) = 0;
    // One datagram into buf; kErrorSocketTimeout when none came in time.
    virtual Error recv(uint8_t* buf, size_t cap, size_t* n, StunAddress* from, utime_t timeout) = 0;
};

class UdpLink : public PlayerLink {
  public:
    explicit UdpLink(UdpSocket* s) : sock_(s) {}
    Error send(const std::string& data, const StunAddress& to, utime_t timeout) override {
        sockaddr_storage ss;
        const socklen_t len = sockaddr_of(to, &ss);
        return sock_->sendto(data.data(), data.size(), reinterpret_cast<const sockaddr*>(&ss), len, timeout);
    }
    Error recv(uint8_t* buf, size_t cap, size_t* n, StunAddress* from, utime_t timeout) override {
        sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        if (Error err = sock_->recvfrom(buf, cap, n, &ss, &len, timeout); err.failed()) return err;
        *from = stun_address_of(ss);
        return Error();
    }

  private:
    std::unique_ptr<UdpSocket> sock_;
};

class TcpLink : public PlayerLink {
  public:
    TcpLink(TcpConn* c, const StunAddress& server) : conn_(c), server_(server) {}
    Error send(const std::string& data, const StunAddress&, utime_t timeout) override {
        uint8_t head[2];
        if (Error err = rfc4571_header(data.size(), head); err.failed()) return err;
        conn_->set_send_timeout(timeout);
        struct iovec iov[2] = {{head, 2}, {const_cast<char*>(data.data()), data.size()}};
        return conn_->writev(iov, 2);
    }
    Error recv(uint8_t* buf, size_t cap, size_t* n, StunAddress* from, utime_t timeout) override {
        *from = server_;
        while (true) {
            uint8_t* frame = nullptr;
            size_t size = 0;
            if (decoder_.next(&frame, &size)) {
                if (size > cap) return SRS_ERR(kErrorRfc4571Frame, "a frame of %zu bytes", size);
                memcpy(buf, frame, size);
                *n = size;
                return Error();
            }
            uint8_t chunk[8192];
            size_t got = 0;
            conn_->set_recv_timeout(timeout);
            if (Error err = conn_->read(chunk, sizeof(chunk), &got); err.failed()) return err;
            if (Error err = decoder_.feed(chunk, got); err.failed()) return err;
        }
    }

  private:
    std::unique_ptr<TcpConn> conn_;
    StunAddress server_;
    Rfc4571Decoder decoder_;
};

struct RtcPlayerStats : PlayerStats {
    uint64_t rtp_missing = 0;  // sequence numbers skipped (gaps)
    uint64_t rtp_late = 0;     // behind the highest (reordered or retransmitted)
    uint64_t rtp_duplicates = 0;
    uint64_t unknown_ssrc = 0;  // packets of a fifth SSRC in a session
    uint32_t decrypt_failures = 0;  // datagrams SRTP/SRTCP rejected
    uint32_t bad_datagrams = 0;     // other datagrams the peer refused
    uint32_t rtcp_received = 0;
    uint32_t rr_sent = 0;
};

struct RtcTotals : PlayerTotals {
    uint64_t rtp_missing = 0;
    uint64_t rtp_late = 0;
    uint64_t rtp_duplicates = 0;
    uint64_t unknown_ssrc = 0;
    uint64_t decrypt_failures = 0;
    uint64_t bad_datagrams = 0;
    uint64_t rtcp_received = 0;
    uint64_t rr_sent = 0;

    void add_rtc(const RtcPlayerStats& s) {
        add_player(s);
        rtp_missing += s.rtp_missing;
        rtp_late += s.rtp_late;
        rtp_duplicates += s.rtp_duplicates;
        unknown_ssrc += s.unknown_ssrc;
        decrypt_failures += s.decrypt_failures;
        bad_datagrams += s.bad_datagrams;
        rtcp_received += s.rtcp_received;
        rr_sent += s.rr_sent;
    }
};

// A verification failed: a session began with a video packet that does not
// start a keyframe, a datagram did not decrypt, or the signalling or the
// answer did not parse.
bool rtc_verify_failed(const RtcTotals& t) {
    return t.keyframe_bad > 0 || t.decrypt_failures > 0 || t.errors[error_kind_index("protocol")] > 0;
}

// ---- the player ----

class Player : public ToolClient<Options, RtcPlayerStats>, public RtcPeerListener {
  public:
    Player(int index, const Options* opt, ErrorLog* log) : ToolClient("player", index, opt, log) {}

  private:
    // One SSRC of the session.
    struct Track {
        Track(uint32_t s, bool v) : ssrc(s), video(v), stats(s, v ? 90000 : 48000) {}
        uint32_t ssrc = 0;
        bool video = false;
        RtpSeqTracker seq;      // gaps, late packets, duplicates: what the tool checks
        RtpReceiveStats stats;  // the RR block: loss, jitter, LSR/DLSR, as the server computes them
    };

    Error session() override;
    const char* error_kind(const Error& err) const override;

    // POSTs the offer, reads the answer; *delete_target is the WHEP
    // resource to DELETE at the end ("" for none).
    Error signal(const RtcPlayUrl& url, const std::string& offer, RtcAnswerInfo* answer,
                 std::string* delete_target);
    // ICE, DTLS, then media until the session ends; then the hang-up.
    Error play(const RtcPlayUrl& url, const RtcAnswerInfo& answer, const std::string& delete_target);
    Error media_loop(RtcPeer* peer, PlayerLink* link);
    Error flush(RtcPeer* peer, PlayerLink* link);
    Error send_report(RtcPeer* peer, utime_t now);
    void hang_up(const RtcPlayUrl& url, const std::string& delete_target);
    Track* track_of(const RtpHeader& h);

    void on_peer_address(const StunAddress&) override {}
    void on_peer_connected() override;
    void on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& h, utime_t now) override;
    void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                      utime_t now) override;
    void on_peer_closed(const Error& reason) override;

    // Per session.
    std::string ufrag_, pwd_;
    uint32_t ssrc_ = 0;  // ours, in RRs
    std::vector<int> video_pts_;  // every video PT of the answer (Pion may send any of them)
    uint32_t video_ssrc_ = 0;
    utime_t post_us_ = 0;
    utime_t last_media_us_ = 0;
    utime_t first_packet_us_ = -1;
    utime_t ttff_us_ = -1;
    bool connected_ = false;
    bool closed_ = false;      // the peer closed (either side)
    int closed_code_ = 0;
    std::string closed_why_;
    bool server_bye_ = false;  // an RTCP BYE came
    bool first_video_checked_ = false;
    bool frame_has_key_ = false;  // the video frame being received has a keyframe start
    std::vector<Track> tracks_;
};

Error Player::session() {
    ufrag_ = rtc_random_string(8);
    pwd_ = rtc_random_string(24);
    ssrc_ = rtc_random_u32();
    video_pts_.clear();
    video_ssrc_ = 0;
    first_packet_us_ = ttff_us_ = -1;
    connected_ = closed_ = server_bye_ = first_video_checked_ = frame_has_key_ = false;
    closed_code_ = 0;
    closed_why_.clear();
    tracks_.clear();

    RtcPlayUrl url;
    if (Error err = parse_rtc_play_url(url_for(opt_->url, index_), &url); err.failed()) return err;
    RtcOfferParams params;
    params.ice_ufrag = ufrag_;
    params.ice_pwd = pwd_;
    params.fingerprint = opt_->shared->certificate->fingerprint();
    params.session_id = (static_cast<uint64_t>(rtc_random_u32()) << 31) | rtc_random_u32();
    const std::string offer = write_sdp(build_play_offer(params));

    post_us_ = monotonic_us();
    RtcAnswerInfo answer;
    std::string delete_target;
    if (Error err = signal(url, offer, &answer, &delete_target); err.failed()) return err;
    opt_->shared->answer_us.push_back(monotonic_us() - post_us_);
    video_pts_ = answer.video_pts;
    video_ssrc_ = answer.video_ssrc;

    return play(url, answer, delete_target);
}

Error Player::signal(const RtcPlayUrl& url, const std::string& offer, RtcAnswerInfo* answer,
                     std::string* delete_target) {
    const utime_t timeout = opt_->timeout_ms * kUsPerMs;
    HttpResponseHead head;
    std::string body, sdp;
    const bool whep = url.signalling == RtcSignalling::kWhep;
    if (whep) {
        if (Error err = http_exchange(url.api, "POST", url.api.target, "application/sdp", offer, timeout, "sb_rtc_load", &head, &body);
            err.failed()) {
            return SRS_WRAP(err, "WHEP POST");
        }
    } else {
        const std::string api = "http://" + url.api.host_header + url.api.target;
        const std::string req = srs_play_request(api, rtc_random_string(7), url.stream_url, offer);
        if (Error err = http_exchange(url.api, "POST", url.api.target, "application/json", req, timeout, "sb_rtc_load", &head,
                                      &body);
            err.failed()) {
            return SRS_WRAP(err, "POST /rtc/v1/play/");
        }
    }
    if (head.status < 200 || head.status > 299) {
        opt_->shared->http_statuses[head.status]++;
        std::string why = body.substr(0, std::min<size_t>(body.find('\n'), 200));
        return SRS_ERR(kErrorRtmpClientRejected, "HTTP %d %s: %s", head.status, head.reason.c_str(), why.c_str());
    }
    if (whep) {
        sdp = std::move(body);
        *delete_target = whep_delete_target(head.location, url.api);
    } else {
        std::string session_id;
        if (Error err = read_srs_play_reply(body, &sdp, &session_id); err.failed()) return SRS_WRAP(err, "play API");
    }
    return read_play_answer(sdp, answer, opt_->tcp);
}

Error Player::play(const RtcPlayUrl& url, const RtcAnswerInfo& answer, const std::string& delete_target) {
    StunAddress server;
    if (!stun_address_of_ip(answer.candidate_ip, answer.candidate_port, &server)) {
        return SRS_ERR(kErrorSdpAnswer, "candidate %s is not an address", answer.candidate_ip.c_str());
    }
    std::unique_ptr<PlayerLink> sock;
    if (opt_->tcp) {
        TcpConn* conn = nullptr;
        if (Error err = TcpConn::connect(answer.candidate_ip, answer.candidate_port, opt_->timeout_ms * kUsPerMs, &conn);
            err.failed()) {
            return SRS_WRAP(err, "tcp connect to %s:%u", answer.candidate_ip.c_str(), answer.candidate_port);
        }
        sock.reset(new TcpLink(conn, server));
    } else {
        UdpSocket* raw = nullptr;
        const char* any = server.family == StunAddress::kIpv4 ? "0.0.0.0" : "::";
        if (Error err = UdpSocket::bind(any, 0, &raw); err.failed()) return SRS_WRAP(err, "udp bind");
        sock.reset(new UdpLink(raw));
    }

    RtcPeerOptions po;
    po.ice_controlling = true;
    po.local_ufrag = ufrag_;
    po.local_pwd = pwd_;
    po.remote_ufrag = answer.ice_ufrag;
    po.remote_pwd = answer.ice_pwd;
    po.certificate = opt_->shared->certificate;
    po.dtls_role = answer.setup == SdpSetup::kActive ? DtlsRole::kServer : DtlsRole::kClient;
    po.remote_fingerprint = answer.fingerprint;
    po.remote_candidate = server;
    po.software = "sb_rtc_load";
    std::unique_ptr<RtcPeer> peer(new RtcPeer(std::move(po), this));
    if (Error err = peer->start(monotonic_us()); err.failed()) return SRS_WRAP(err, "start the peer");

    Error err = media_loop(peer.get(), sock.get());
    // The hang-up: the WHEP DELETE first, unless the server already ended the
    // session (the resource is gone: a DELETE would get 404); then our DTLS
    // close_notify (the peer queues it), sent at once.
    if (!server_bye_ && closed_code_ != kErrorRtcPeerClosedByPeer) hang_up(url, delete_target);
    if (!closed_) {
        peer->close(monotonic_us(), SRS_ERR(kErrorRtcSessionClosed, "the player leaves"));
        if (Error e = flush(peer.get(), sock.get()); e.failed()) e.ignore();
    }
    return err;
}

Error Player::media_loop(RtcPeer* peer, PlayerLink* sock) {
    const utime_t timeout = opt_->timeout_ms * kUsPerMs;
    const utime_t start = monotonic_us();
    utime_t next_report = -1;
    while (true) {
        if (Error err = flush(peer, sock); err.failed()) return err;
        if (closed_ || server_bye_) {
            // The server ended a session that played: a normal end. Before
            // that (ICE, DTLS): a failed handshake.
            if (connected_ && (server_bye_ || closed_code_ == kErrorRtcPeerClosedByPeer ||
                               closed_code_ == kErrorRtcSessionClosed)) {
                return Error();
            }
            return SRS_ERR(closed_code_ ? closed_code_ : kErrorDtlsHandshake, "peer closed %s: %s",
                           connected_ ? "while playing" : "before connecting", closed_why_.c_str());
        }
        utime_t now = monotonic_us();
        if (!connected_ && now - start > timeout) {
            return SRS_ERR(kErrorDtlsTimeout, "not connected after %d ms (%s)", opt_->timeout_ms,
                           peer->milestones().c_str());
        }
        if (connected_ && now - last_media_us_ > timeout) {
            return SRS_ERR(kErrorSocketTimeout, "no RTP for %d ms", opt_->timeout_ms);
        }
        bool queued = false;
        if (const utime_t due = peer->next_timeout(); due >= 0 && due <= now) {
            if (Error err = peer->handle_timeout(now); err.failed()) return SRS_WRAP(err, "peer timer");
            queued = true;
        }
        if (connected_ && now >= next_report) {
            if (Error err = send_report(peer, now); err.failed()) return err;
            next_report = now + kReportInterval;
            queued = true;
        }
        if (queued) {
            if (Error err = flush(peer, sock); err.failed()) return err;
        }
        // Sleep until a packet, the peer's next timer or the next report; a
        // timer still due (or none) waits at least 1 ms, at most kMaxWait.
        utime_t wake = now + kMaxWait;
        if (const utime_t due = peer->next_timeout(); due > now) wake = std::min(wake, due);
        if (connected_) wake = std::min(wake, next_report);
        StunAddress from;
        size_t n = 0;
        Error err = sock->recv(g_datagram, sizeof(g_datagram), &n, &from, std::max<utime_t>(wake - now, kUsPerMs));
        if (err.failed()) {
            if (err.code() != kErrorSocketTimeout) return SRS_WRAP(err, "recv");
            err.ignore();
            continue;
        }
        stats_.session_bytes += n;
        if (Error e = peer->handle_datagram(g_datagram, n, from, monotonic_us()); e.failed()) {
            // A datagram the peer refuses is counted; the session goes on
            // unless the peer itself gave up (closed_ then tells).
            const int code = e.code();
            if (code == kErrorSrtpUnprotect) stats_.decrypt_failures++;
            else stats_.bad_datagrams++;
            if (getenv("SB_DEBUG")) fprintf(stderr, "player %d: refused: %s\n", index_, e.summary().c_str());
            e.ignore();
            if (peer->state() == RtcPeerState::kFailed && !closed_) {
                closed_ = true;
                closed_code_ = code;
                closed_why_ = "the peer failed";
            }
        }
    }
}

Error Player::flush(RtcPeer* peer, PlayerLink* sock) {
    RtcTransmit t;
    while (peer->pop_transmit(&t)) {
        if (Error err = sock->send(t.data, t.to, opt_->timeout_ms * kUsPerMs); err.failed()) {
            return SRS_WRAP(err, "send to %s", t.to.to_string().c_str());
        }
    }
    return Error();
}

Error Player::send_report(RtcPeer* peer, utime_t now) {
    RtcpReceiverReport rr;
    rr.ssrc = ssrc_;
    for (Track& t : tracks_) rr.reports.push_back(t.stats.report(now));
    std::string compound;
    rtcp_build_rr(rr, &compound);
    rtcp_build_sdes({{ssrc_, "sb_rtc_load"}}, &compound);
    if (Error err = peer->send_rtcp(compound); err.failed()) return SRS_WRAP(err, "send RR");
    stats_.rr_sent++;
    return Error();
}

void Player::hang_up(const RtcPlayUrl& url, const std::string& delete_target) {
    if (delete_target.empty()) return;
    HttpResponseHead head;
    std::string body;
    Error err = http_exchange(url.api, "DELETE", delete_target, nullptr, "", kDeleteTimeout, "sb_rtc_load", &head, &body);
    if (err.failed() || head.status < 200 || head.status > 299) {
        opt_->shared->deletes_failed++;
        if (getenv("SB_DEBUG")) {
            fprintf(stderr, "player %d: DELETE %s: HTTP %d %s\n", index_, delete_target.c_str(), head.status,
                    err.failed() ? err.summary().c_str() : "");
        }
    } else {
        opt_->shared->deletes_ok++;
    }
    err.ignore();
}

Player::Track* Player::track_of(const RtpHeader& h) {
    for (Track& t : tracks_) {
        if (t.ssrc == h.ssrc) return &t;
    }
    if (tracks_.size() >= kMaxTracks) return nullptr;
    const bool video_pt = std::find(video_pts_.begin(), video_pts_.end(), h.payload_type) != video_pts_.end();
    tracks_.emplace_back(h.ssrc, video_pt || (video_ssrc_ != 0 && h.ssrc == video_ssrc_));
    return &tracks_.back();
}

void Player::on_peer_connected() {
    connected_ = true;
    last_media_us_ = monotonic_us();
    stats_.sessions++;
    stats_.alive = true;
    opt_->shared->connected_us.push_back(last_media_us_ - post_us_);
}

void Player::on_peer_rtp(uint8_t* data, size_t size, const RtpHeader& h, utime_t now) {
    (void)size;
    stats_.messages++;
    last_media_us_ = now;
    if (first_packet_us_ < 0) {
        first_packet_us_ = now;
        opt_->shared->first_packet_us.push_back(now - post_us_);
    }
    Track* t = track_of(h);
    if (!t) {
        stats_.unknown_ssrc++;
        return;
    }
    const uint64_t missing = t->seq.missing(), late = t->seq.late(), dups = t->seq.duplicates();
    t->seq.on_packet(h.sequence);
    t->stats.on_packet(h.sequence, h.timestamp, now);
    stats_.rtp_missing += t->seq.missing() - missing;
    stats_.rtp_late += t->seq.late() - late;
    stats_.rtp_duplicates += t->seq.duplicates() - dups;
    if (!t->video) {
        stats_.audio_frames++;  // an Opus packet is a frame
        return;
    }
    const bool key = h264_payload_starts_keyframe(data + h.header_size, h.payload_size);
    if (!first_video_checked_) {
        first_video_checked_ = true;
        if (key) stats_.keyframe_ok++;
        else stats_.keyframe_bad++;
    }
    frame_has_key_ = frame_has_key_ || key;
    if (h.marker) {
        stats_.video_frames++;
        if (frame_has_key_) {
            stats_.keyframes++;
            if (ttff_us_ < 0) {
                ttff_us_ = now;
                opt_->shared->ttff_us.push_back(now - post_us_);
            }
        }
        frame_has_key_ = false;
    }
}

void Player::on_peer_rtcp(const uint8_t*, size_t, const std::vector<RtcpPacketRef>& packets, utime_t now) {
    stats_.rtcp_received++;
    for (const RtcpPacketRef& p : packets) {
        if (p.type == kRtcpBye) {
            server_bye_ = true;
        } else if (p.type == kRtcpSr) {
            RtcpSenderReport sr;
            if (Error err = rtcp_parse_sr(p, &sr); err.failed()) {
                err.ignore();
                continue;
            }
            for (Track& t : tracks_) {
                if (t.ssrc == sr.ssrc) t.stats.on_sender_report(sr.ntp, now);
            }
        }
    }
}

void Player::on_peer_closed(const Error& reason) {
    closed_ = true;
    closed_code_ = reason.code();
    closed_why_ = reason.summary();
}

const char* Player::error_kind(const Error& err) const {
    const int code = err.code();
    // STUN, DTLS, SRTP, the peer: ICE or the DTLS handshake did not get
    // through, or the session failed (consent lost, DTLS alert).
    if ((code >= kErrorStunTruncated && code <= kErrorStunCrypto) || (code >= kErrorDtlsInit && code <= kErrorDtlsSrtp) ||
        (code >= kErrorSrtpInit && code <= kErrorSrtpUnprotect) || (code >= kErrorRtcPeerState && code <= kErrorRtcPeerDtls)) {
        return "handshake";
    }
    // The signalling's HTTP, JSON or SDP that does not parse or is unusable.
    if ((code > kErrorHttpBase && code < kErrorRtcBase) || code == kErrorRtcApiBody ||
        (code >= kErrorSdpTooLarge && code <= kErrorSdpAnswer)) {
        return "protocol";
    }
    return rtmp_client_error_kind(err);  // sockets; a refused offer is "rejected"
}

// ---- reports ----

bool check_rtc_url(const std::string& url) {
    RtcPlayUrl u;
    if (Error err = parse_rtc_play_url(url_for(url, 0), &u); err.failed()) {
        fprintf(stderr, "bad url %s: %s\n", url.c_str(), err.summary().c_str());
        err.ignore();
        return false;
    }
    return true;
}

void print_report(const RtcTotals& t, const ReportPeriod& r) {
    printf("[%s] clients=%d alive=%d, time=%ds, rtp=%" PRIu64 " (+%" PRIu64 "), video=%" PRIu64 ", audio=%" PRIu64
           ", keyframes=%" PRIu64 ", kbps=%d, gaps=%" PRIu64 ", late=%" PRIu64 ", decrypt_failures=%" PRIu64
           ", errors=%" PRIu64 ", reconnects=%" PRIu64 ", verify=%s\n",
           now_text().c_str(), t.clients, t.alive, r.elapsed_s, t.messages, r.new_messages, t.video_frames,
           t.audio_frames, t.keyframes, r.kbps, t.rtp_missing, t.rtp_late, t.decrypt_failures, t.error_total,
           t.reconnects, rtc_verify_failed(t) ? "FAIL" : "ok");
}

void print_summary(const RtcTotals& t, const RtcShared& s, uint64_t kbps) {
    printf("  received %" PRIu64 " bytes (%" PRIu64 " kbps), %" PRIu64 " RTP packets: video frames %" PRIu64
           " (keyframes %" PRIu64 "), audio %" PRIu64 "\n",
           t.bytes, kbps, t.messages, t.video_frames, t.keyframes, t.audio_frames);
    printf("  sequence: %" PRIu64 " missing, %" PRIu64 " late, %" PRIu64 " duplicate, %" PRIu64
           " of other SSRCs; %" PRIu64 " datagrams not decrypted, %" PRIu64 " refused\n",
           t.rtp_missing, t.rtp_late, t.rtp_duplicates, t.unknown_ssrc, t.decrypt_failures, t.bad_datagrams);
    printf("  RTCP: %" PRIu64 " received, %" PRIu64 " RR sent; WHEP DELETE: %" PRIu64 " ok, %" PRIu64 " failed\n",
           t.rtcp_received, t.rr_sent, s.deletes_ok, s.deletes_failed);
    print_samples("answer (POST to answer):", s.answer_us);
    print_samples("connected (POST to ICE+DTLS up):", s.connected_us);
    print_samples("first RTP packet (from the POST):", s.first_packet_us);
    print_samples("TTFF (POST to first keyframe):", s.ttff_us);
    printf("  video frames per player: min %u, max %u\n", t.video_min, t.video_max);
    printf("  verify: first video packet starts a keyframe for %d/%d players (%" PRIu64
           " bad sessions), %" PRIu64 " datagrams not decrypted: %s\n",
           t.first_video_keyframe_ok, t.clients, t.keyframe_bad, t.decrypt_failures,
           rtc_verify_failed(t) ? "FAIL" : "ok");
    if (!s.http_statuses.empty()) {
        printf("  HTTP statuses other than 2xx:");
        for (const auto& [status, count] : s.http_statuses) printf(" %d=%" PRIu64, status, count);
        printf("\n");
    }
    print_errors_line(t);
}

void print_json(const RtcTotals& t, const RtcShared& s, uint64_t kbps, utime_t elapsed) {
    std::string statuses = "{";
    for (const auto& [status, count] : s.http_statuses) {
        if (statuses.size() > 1) statuses += ",";
        statuses += "\"" + std::to_string(status) + "\":" + std::to_string(count);
    }
    statuses += "}";
    printf("{\"clients\":%d,\"alive\":%d,\"failed\":%d,\"bytes\":%" PRIu64 ",\"kbps\":%" PRIu64
           ",\"elapsed_ms\":%" PRId64 ",\"rtp_packets\":%" PRIu64 ",\"video_frames\":%" PRIu64
           ",\"audio_frames\":%" PRIu64 ",\"keyframes\":%" PRIu64 ",\"sessions\":%" PRIu64 ",\"reconnects\":%" PRIu64
           ",\"first_video_keyframe_ok\":%d,\"first_video_keyframe_bad\":%" PRIu64 ",\"rtp_missing\":%" PRIu64
           ",\"rtp_late\":%" PRIu64 ",\"rtp_duplicates\":%" PRIu64 ",\"unknown_ssrc_packets\":%" PRIu64
           ",\"decrypt_failures\":%" PRIu64 ",\"refused_datagrams\":%" PRIu64 ",\"rtcp_received\":%" PRIu64
           ",\"rr_sent\":%" PRIu64 ",\"deletes_ok\":%" PRIu64 ",\"deletes_failed\":%" PRIu64
           ",\"answer_ms\":%s,\"connected_ms\":%s,\"first_packet_ms\":%s,\"ttff_ms\":%s"
           ",\"errors\":%s,\"http_status\":%s,\"per_client_video_frames_min\":%u,\"per_client_video_frames_max\":%u"
           ",\"verify_ok\":%s}\n",
           t.clients, t.alive, t.failed, t.bytes, kbps, static_cast<int64_t>(elapsed / kUsPerMs), t.messages,
           t.video_frames, t.audio_frames, t.keyframes, t.sessions, t.reconnects, t.first_video_keyframe_ok,
           t.keyframe_bad, t.rtp_missing, t.rtp_late, t.rtp_duplicates, t.unknown_ssrc, t.decrypt_failures,
           t.bad_datagrams, t.rtcp_received, t.rr_sent, s.deletes_ok, s.deletes_failed,
           samples_json(s.answer_us).c_str(), samples_json(s.connected_us).c_str(),
           samples_json(s.first_packet_us).c_str(), samples_json(s.ttff_us).c_str(), errors_json(t).c_str(),
           statuses.c_str(), t.video_min, t.video_max, rtc_verify_failed(t) ? "false" : "true");
}

void usage(const char* argv0) {
    printf("Usage: %s -c CLIENTS -r URL [options]\n"
           "  -c CLIENTS   players to run (default 1)\n"
           "  -r URL       a WHEP endpoint http://ip:port/rtc/v1/whep/?app=APP&stream=STREAM, or\n"
           "               webrtc://ip[:port]/app/stream (SRS's POST /rtc/v1/play/, port 1985 by default);\n"
           "               %%d is replaced by the player index\n"
           "  -s MS        spread the players' start over MS milliseconds (default 0: all at once)\n"
           "  -d MS        wait before playing again after the server ended a session (default 1000)\n"
           "  -e MS        wait before retrying after a failed session (default 3000)\n"
           "  -m MS        report interval (default 5000)\n"
           "  -t SECONDS   run time; 0 runs until SIGINT/SIGTERM (default 0)\n"
           "  --timeout MS signalling timeout, longest wait for ICE+DTLS, and for RTP (default 10000)\n"
           "  --json       print the summary as one JSON object on the last line\n"
           "  --tcp        media over the answer's TCP candidate (rtc_server.tcp, RFC 4571 frames)\n"
           "Exit code: 0, or 1 when a verification failed (a session whose first video packet\n"
           "does not start a keyframe, a datagram that does not decrypt, signalling or an answer\n"
           "that does not parse), 2 for bad arguments.\n",
           argv0);
}

Options parse_options(int argc, char** argv) {
    Options opt;
    parse_command_line(argc, argv, "c:r:s:d:e:m:t:h", {{"tcp", no_argument, nullptr, 'T'}}, usage, &opt,
                       [&opt](int c, const char*) {
                           if (c != 'T') return false;
                           opt.tcp = true;
                           return true;
                       });
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    // Each player holds a UDP socket, and a TCP one while it signals.
    raise_fd_limit(opt.clients * 2, "sockets for the players");
    SignalPipe signals;
    if (!prepare_run(opt, &signals, check_rtc_url)) return 2;
    RtcShared shared;
    if (Error err = DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &shared.certificate); err.failed()) {
        fprintf(stderr, "certificate: %s\n", err.describe().c_str());
        err.ignore();
        return 2;
    }
    opt.shared = &shared;

    ErrorLog error_log;
    std::vector<std::unique_ptr<Player>> players;
    if (!start_clients(opt.clients, &players, [&](int i) { return new Player(i, &opt, &error_log); })) return 2;
    printf("[%s] sb_rtc_load: %d players of %s, report every %d ms, run %g s (0: until SIGINT)\n",
           now_text().c_str(), opt.clients, opt.url.c_str(), opt.report_ms, opt.duration_s);
    fflush(stdout);

    const utime_t start = monotonic_us();
    auto sum = [&players] {
        RtcTotals t;
        for (const auto& p : players) t.add_rtc(p->stats());
        return t;
    };
    run_reports(opt, &signals, &error_log, start, sum, print_report);

    RtcTotals t = stop_clients(players, sum);
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const uint64_t kbps = t.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);
    print_summary_head(t, elapsed);
    print_summary(t, shared, kbps);
    if (opt.json) print_json(t, shared, kbps, elapsed);
    fflush(stdout);
    return rtc_verify_failed(t) ? 1 : 0;
}
