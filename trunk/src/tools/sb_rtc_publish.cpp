// sb_rtc_publish: WebRTC publishers that cost almost nothing: they encode
// nothing and packetize nothing. ffmpeg sends plain RTP (H.264 and Opus) to
// two local UDP ports, read once; every packet is relayed into each of -c N
// WHIP sessions (or SRS's POST /rtc/v1/publish/) after rewriting its PT,
// sequence number and SSRC to what that session's offer announced, and the
// server's NACKs are answered from a ring of what was sent. For benchmarks
// and tests (issues 12 and 23), not for production.
//
//   sb_rtc_publish -r 'http://127.0.0.1:1985/rtc/v1/whip/?app=live&stream=livestream' --ffmpeg media.flv -t 60
//   sb_rtc_publish -c 1000 -s 20000 -r 'http://127.0.0.1:1985/rtc/v1/whip/?app=live&stream=s%d' --ffmpeg media.flv
//   sb_rtc_publish -r webrtc://127.0.0.1:1985/live/livestream -v 5004 -a 5006   (ffmpeg started by hand)
//
// A session (one coroutine each, started over -s ms, at most
// --max-signalling of them signalling at once): a sendonly offer
// (rtc_publisher.hpp) with its own ICE credentials and SSRC pair and the
// fingerprint of the one certificate of the process, POSTed to the URL with
// its first %d replaced by the session's index; then an RtcPeer in client
// mode (ICE controlling, DTLS client unless the server answered active) on a
// UDP socket of its own towards the answer's first udp host candidate. The
// session's coroutine reads that socket (STUN, DTLS, the server's RTCP),
// drives the peer's timers and sends an RTCP SR + SDES every second. A NACK
// (RTPFB 1) is answered by protecting the kept packet again; PLIs and FIRs
// are counted (ffmpeg's GOP is fixed: they cannot be honoured). A failed
// session is tried again after -e ms.
//
// The source: one coroutine per ffmpeg port takes what is queued (up to
// kBatch datagrams), gives each packet our sequence number per SSRC kind
// (audio, video; an IDR not preceded by SPS/PPS gets a STAP-A of ffmpeg's SDP
// parameter sets first) and keeps it once in a shared ring. Then, for each
// connected session, the batch is copied, given the session's SSRC and its
// sequence offset (seq = ours + the session's random base, so a NACKed
// number maps back to the shared ring), protected with the session's SRTP
// context and sent with one sendmmsg. The sessions are paced: in up to 20
// groups, group g gets each packet g ms later (a pacer coroutine ticks every
// millisecond), so N sessions do not put each packet into the server's
// socket N times in the same instant, which real publishers never do and a
// socket buffer does not hold. Per session the tool keeps no packet:
// its memory is the RtcPeer (DTLS, SRTP), the coroutine and the socket.
// ffmpeg's RTCP ports are drained so its sender reports do not bounce.
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <array>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/rtc/rtc_random.hpp"
#include "core/clock.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "io/signal_pipe.hpp"
#include "io/socket.hpp"
#include "kernel/rtp/rtcp.hpp"
#include "kernel/rtp/rtp.hpp"
#include "protocol/rtc/dtls.hpp"
#include "protocol/rtc/nack_responder.hpp"
#include "protocol/rtc/rtc_peer.hpp"
#include "protocol/rtc/send_stats.hpp"
#include "http_client.hpp"
#include "rtc_io.hpp"
#include "rtc_player.hpp"
#include "rtc_publisher.hpp"
#include "tool_common.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

constexpr utime_t kSrInterval = kUsPerSecond;
constexpr utime_t kMaxWait = 200 * kUsPerMs;
constexpr size_t kDatagramSize = 2048;
constexpr size_t kSrtpRoom = 64;  // the auth tag and more
constexpr int kBatch = 32;        // ffmpeg datagrams taken per wake-up
constexpr int kMaxOut = 2 * kBatch;  // with a STAP-A of SPS/PPS before each
constexpr int kAudio = 0, kVideo = 1;
constexpr int kPaceGroups = 20;
constexpr utime_t kPaceSpread = 20 * kUsPerMs;  // group g waits g * kPaceSpread / groups
constexpr utime_t kPaceTick = kUsPerMs;

uint8_t g_datagram[kDatagramSize];  // what a session's socket delivers; handled before blocking again

struct Shared;

struct Options : ToolOptions {
    int video_port = 0;  // 0: chosen
    int audio_port = 0;
    std::string ffmpeg_input;
    std::string sdp_file;  // --sdp: ffmpeg's -sdp_file, when it was started by hand
    double loss_percent = 0;
    int max_signalling = 16;
    Shared* shared = nullptr;
};

// One session's counters, over all its sessions (ClientStats: messages are
// RTP packets sent for the first time, bytes their bytes, sessions the ones
// that connected).
struct PubStats : ClientStats {
    uint64_t video_packets = 0, audio_packets = 0;
    uint64_t dropped_on_purpose = 0;  // --loss
    uint64_t send_drops = 0;          // the kernel refused them (a full send buffer)
    uint64_t nacks = 0;               // NACK packets received
    uint64_t nacked_seqs = 0;         // sequence numbers asked
    uint64_t resent = 0;              // answered from the ring
    uint64_t not_in_ring = 0;
    uint64_t plis = 0, firs = 0;
    uint64_t rtcp_in = 0, sr_sent = 0;
    uint64_t refused_datagrams = 0;
};

struct PubTotals : ClientTotals {
    uint64_t video_packets = 0, audio_packets = 0, dropped_on_purpose = 0, send_drops = 0, nacks = 0,
             nacked_seqs = 0, resent = 0, not_in_ring = 0, plis = 0, firs = 0, rtcp_in = 0, sr_sent = 0,
             refused_datagrams = 0;
    void add_pub(const PubStats& s) {
        add(s);
        video_packets += s.video_packets;
        audio_packets += s.audio_packets;
        dropped_on_purpose += s.dropped_on_purpose;
        send_drops += s.send_drops;
        nacks += s.nacks;
        nacked_seqs += s.nacked_seqs;
        resent += s.resent;
        not_in_ring += s.not_in_ring;
        plis += s.plis;
        firs += s.firs;
        rtcp_in += s.rtcp_in;
        sr_sent += s.sr_sent;
        refused_datagrams += s.refused_datagrams;
    }
};

// A packet of the source in our numbering (SSRC 0, the offer's PT), in the shared ring.
struct PacketRef {
    const uint8_t* data = nullptr;
    size_t size = 0;
};

class Publisher;

// What every session shares (one process, one thread: no locking).
struct Shared {
    std::shared_ptr<DtlsCertificate> certificate;
    std::string profile_level_id;  // "" the default
    std::string parameter_sets;    // a STAP-A payload of ffmpeg's SPS/PPS ("" none)
    // Signalling in progress, bounded by --max-signalling.
    int signalling = 0;
    CoCond signalling_done;
    // What was relayed, in our numbering, per kind: NACKs are answered from
    // it, and the paced groups send from it. next_seq: the number the next
    // packet of the kind gets; arrival: when each slot's packet came.
    RtpSendRing ring[2];
    uint16_t next_seq[2] = {0, 0};
    utime_t arrival[2][RtpSendRing::kSlots] = {};
    uint64_t source_packets[2] = {0, 0};
    uint64_t parameter_sets_added = 0;
    // Sessions in pacing groups (session i in group i % groups): group g
    // gets each packet g * kPaceSpread / groups later than group 0, so a
    // thousand sessions do not hit the server with each packet in the same
    // instant (real publishers are not synchronized). cursor: per group and
    // kind, the next packet to send.
    std::vector<std::vector<Publisher*>> groups;
    std::vector<std::array<uint16_t, 2>> cursor;
    std::vector<int64_t> answer_us, connected_us;  // from the POST
    // Each session's protected copies of a batch, sent by one sendmmsg.
    uint8_t out[kMaxOut][RtpSendRing::kMaxPacket + kSrtpRoom];
};

// ---- one session ----

class Publisher : public ToolClient<Options, PubStats>, public RtcPeerListener {
  public:
    Publisher(int index, const Options* opt, ErrorLog* log)
        : ToolClient("publisher", index, opt, log), loss_(opt->loss_percent, 0x9e3779b97f4a7c15ull + index) {}
    // Relays a batch of the source's packets of one kind, when connected.
    void relay(int kind, const PacketRef* packets, int count);

  private:
    Error session() override;
    const char* error_kind(const Error& err) const override;
    Error signal(const RtcPlayUrl& url, const std::string& offer, RtcAnswerInfo* answer);
    Error media_loop();
    void flush();
    // Copies a packet in our numbering to buf with this session's SSRC and
    // sequence number; false when it cannot be relayed.
    bool make_packet(int kind, const uint8_t* p, size_t n, uint8_t* buf);
    void resend(int kind, uint16_t seq);
    void send_sr(utime_t now);

    void on_peer_address(const StunAddress&) override {}
    void on_peer_connected() override;
    void on_peer_rtp(uint8_t*, size_t, const RtpHeader&, utime_t) override {}
    void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                      utime_t now) override;
    void on_peer_closed(const Error& reason) override {
        closed_ = true;
        closed_why_ = reason.summary();
    }

    std::unique_ptr<UdpSocket> sock_;
    std::unique_ptr<RtcPeer> peer_;
    sockaddr_storage to_{};
    socklen_t to_len_ = 0;
    LossDropper loss_;
    uint32_t ssrc_[2] = {0, 0};
    int pt_[2] = {kPublishOpusPt, -1};  // what the answer chose; -1: refused, not sent
    uint16_t seq_base_[2] = {0, 0};  // ours + base = this session's number
    // Every ask is answered: the tool plays a publisher under test, not a
    // server that must bound what a NACK storm costs it.
    NackResponder nack_responder_{NackResponderOptions{SIZE_MAX, UINT32_MAX}};
    std::unique_ptr<RtpSendStats> send_stats_[2];  // what the SRs say
    utime_t post_us_ = 0;
    bool connected_ = false, closed_ = false;
    std::string closed_why_;
};

Error Publisher::session() {
    Shared* sh = opt_->shared;
    connected_ = closed_ = false;
    closed_why_.clear();
    RtcPlayUrl url;
    if (Error err = parse_rtc_publish_url(url_for(opt_->url, index_), &url); err.failed()) return err;
    RtcPublishParams p;
    p.ice.ice_ufrag = rtc_random_string(8);
    p.ice.ice_pwd = rtc_random_string(24);
    p.ice.fingerprint = sh->certificate->fingerprint();
    p.ice.session_id = (static_cast<uint64_t>(rtc_random_u32()) << 31) | rtc_random_u32();
    ssrc_[kAudio] = p.audio_ssrc = rtc_random_u32() | 1;
    ssrc_[kVideo] = p.video_ssrc = rtc_random_u32() | 2;
    if (ssrc_[kVideo] == ssrc_[kAudio]) ssrc_[kVideo] = p.video_ssrc = ssrc_[kAudio] ^ 0x10;
    seq_base_[kAudio] = static_cast<uint16_t>(rtc_random_u32());
    seq_base_[kVideo] = static_cast<uint16_t>(rtc_random_u32());
    send_stats_[kAudio].reset(new RtpSendStats(ssrc_[kAudio], 48000));
    send_stats_[kVideo].reset(new RtpSendStats(ssrc_[kVideo], 90000));
    p.cname = "sb_rtc_publish-" + rtc_random_string(8);
    p.stream_id = "sb-" + rtc_random_string(8);
    if (!sh->profile_level_id.empty()) p.profile_level_id = sh->profile_level_id;
    const std::string offer = write_sdp(build_publish_offer(p));

    // Wait for a signalling slot: a thousand POSTs at once would measure the
    // listen backlog, not the server.
    while (sh->signalling >= opt_->max_signalling) {
        sh->signalling_done.wait(100 * kUsPerMs);
        if (Error err = co_.pull(); err.failed()) return err;
    }
    sh->signalling++;
    post_us_ = monotonic_us();
    RtcAnswerInfo answer;
    Error err = signal(url, offer, &answer);
    sh->signalling--;
    sh->signalling_done.signal();
    if (err.failed()) return err;
    sh->answer_us.push_back(monotonic_us() - post_us_);
    if ((answer.audio_pt < 0 || answer.video_pt < 0) && opt_->clients == 1) {
        fprintf(stderr, "warning: the answer accepts %s only\n", answer.audio_pt < 0 ? "video" : "audio");
    }
    pt_[kAudio] = answer.audio_pt;
    pt_[kVideo] = publish_video_pt(answer, p.profile_level_id);
    if (answer.video_pt >= 0 && pt_[kVideo] < 0) return SRS_ERR(kErrorSdpAnswer, "the answer has no H.264 mode 1");
    StunAddress server;
    if (!stun_address_of_ip(answer.candidate_ip, answer.candidate_port, &server) ||
        server.family != StunAddress::kIpv4) {
        return SRS_ERR(kErrorSdpAnswer, "candidate %s is not an IPv4 address", answer.candidate_ip.c_str());
    }
    UdpSocket* raw = nullptr;
    if (Error e = UdpSocket::bind("0.0.0.0", 0, &raw); e.failed()) return SRS_WRAP(e, "udp bind");
    sock_.reset(raw);
    RtcPeerOptions po;
    po.ice_controlling = true;
    po.local_ufrag = p.ice.ice_ufrag;
    po.local_pwd = p.ice.ice_pwd;
    po.remote_ufrag = answer.ice_ufrag;
    po.remote_pwd = answer.ice_pwd;
    po.certificate = sh->certificate;
    po.dtls_role = answer.setup == SdpSetup::kActive ? DtlsRole::kServer : DtlsRole::kClient;
    po.remote_fingerprint = answer.fingerprint;
    po.remote_candidate = server;
    po.software = "sb_rtc_publish";
    peer_.reset(new RtcPeer(std::move(po), this));
    err = peer_->start(monotonic_us());
    if (err.ok()) err = media_loop();
    // The source relays to connected sessions only: from here on, none.
    connected_ = false;
    stats_.alive = false;
    if (!closed_) {
        peer_->close(monotonic_us(), SRS_ERR(kErrorRtcSessionClosed, "the publisher leaves"));
        flush();
    }
    if (opt_->clients == 1 && !peer_->milestones().empty()) printf("  peer: %s\n", peer_->milestones().c_str());
    peer_.reset();
    sock_.reset();
    return err;
}

Error Publisher::signal(const RtcPlayUrl& url, const std::string& offer, RtcAnswerInfo* answer) {
    const utime_t timeout = opt_->timeout_ms * kUsPerMs;
    HttpResponseHead head;
    std::string body, sdp;
    const bool whip = url.signalling == RtcSignalling::kWhep;
    if (whip) {
        if (Error err = http_exchange(url.api, "POST", url.api.target, "application/sdp", offer, timeout,
                                      "sb_rtc_publish", &head, &body);
            err.failed()) {
            return SRS_WRAP(err, "WHIP POST");
        }
    } else {
        const std::string api = "http://" + url.api.host_header + url.api.target;
        const std::string req = srs_play_request(api, rtc_random_string(7), url.stream_url, offer);
        if (Error err = http_exchange(url.api, "POST", url.api.target, "application/json", req, timeout,
                                      "sb_rtc_publish", &head, &body);
            err.failed()) {
            return SRS_WRAP(err, "POST /rtc/v1/publish/");
        }
    }
    if (head.status < 200 || head.status > 299) {
        const std::string why = body.substr(0, std::min<size_t>(body.find('\n'), 200));
        return SRS_ERR(kErrorRtmpClientRejected, "HTTP %d %s: %s", head.status, head.reason.c_str(), why.c_str());
    }
    if (whip) {
        sdp = std::move(body);
    } else {
        std::string session_id;
        if (Error err = read_srs_play_reply(body, &sdp, &session_id); err.failed()) return SRS_WRAP(err, "publish API");
    }
    return read_play_answer(sdp, answer);
}

// Until the session ends: what the server sends (STUN, DTLS, RTCP), the
// peer's timers, an SR every second. The media goes out from the source's
// coroutine (relay).
Error Publisher::media_loop() {
    const utime_t start = monotonic_us();
    utime_t next_sr = 0;
    while (true) {
        flush();
        if (closed_) {
            return SRS_ERR(kErrorRtcSessionClosed, "the session ended %s: %s",
                           stats_.alive ? "while publishing" : "before connecting", closed_why_.c_str());
        }
        if (Error err = co_.pull(); err.failed()) return err;
        const utime_t now = monotonic_us();
        if (!connected_ && now - start > opt_->timeout_ms * kUsPerMs) {
            return SRS_ERR(kErrorDtlsTimeout, "not connected after %d ms (%s)", opt_->timeout_ms,
                           peer_->milestones().c_str());
        }
        if (const utime_t due = peer_->next_timeout(); due <= now) {
            if (Error err = peer_->handle_timeout(now); err.failed()) return SRS_WRAP(err, "peer timer");
            continue;
        }
        if (connected_ && now >= next_sr) {
            send_sr(now);
            next_sr = now + kSrInterval;
            continue;
        }
        utime_t wake = std::min(now + kMaxWait, peer_->next_timeout());
        if (connected_) wake = std::min(wake, next_sr);
        sockaddr_storage from;
        socklen_t len = sizeof(from);
        size_t n = 0;
        Error err = sock_->recvfrom(g_datagram, sizeof(g_datagram), &n, &from, &len,
                                    std::max<utime_t>(wake - now, kUsPerMs));
        if (err.failed()) {
            if (err.code() != kErrorSocketTimeout) return SRS_WRAP(err, "recv");
            err.ignore();
            continue;
        }
        if (Error e = peer_->handle_datagram(g_datagram, n, stun_address_of(from), monotonic_us()); e.failed()) {
            stats_.refused_datagrams++;
            if (getenv("SB_DEBUG")) fprintf(stderr, "refused: %s\n", e.summary().c_str());
            e.ignore();
        }
    }
}

void Publisher::on_peer_connected() {
    Shared* sh = opt_->shared;
    const utime_t now = monotonic_us();
    sh->connected_us.push_back(now - post_us_);
    to_len_ = sockaddr_of(peer_->remote_address(), &to_);
    connected_ = true;
    stats_.alive = true;
    stats_.sessions++;
    if (opt_->clients == 1) {
        printf("[%s] connected in %.1f ms (%s); relaying\n", now_text().c_str(), (now - post_us_) / 1e3,
               peer_->milestones().c_str());
        fflush(stdout);
    }
}

// UDP: a full send buffer loses the datagram, as the network would; nothing
// here blocks (the source's coroutine calls in too).
void Publisher::flush() {
    RtcTransmit t;
    while (peer_->pop_transmit(&t)) {
        sockaddr_storage to;
        const socklen_t len = sockaddr_of(t.to, &to);
        if (::sendto(sock_->fd(), t.data.data(), t.data.size(), MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&to),
                     len) < 0) {
            stats_.send_drops++;
        }
    }
}

bool Publisher::make_packet(int kind, const uint8_t* p, size_t n, uint8_t* buf) {
    if (n < 12 || pt_[kind] < 0) return false;  // or a kind the answer refused
    memcpy(buf, p, n);
    buf[1] = static_cast<uint8_t>((buf[1] & 0x80) | pt_[kind]);  // the marker bit stays
    const uint16_t seq = static_cast<uint16_t>(rtp_sequence_of(p) + seq_base_[kind]);
    buf[2] = static_cast<uint8_t>(seq >> 8);
    buf[3] = static_cast<uint8_t>(seq);
    const uint32_t ssrc = ssrc_[kind];
    buf[8] = static_cast<uint8_t>(ssrc >> 24);
    buf[9] = static_cast<uint8_t>(ssrc >> 16);
    buf[10] = static_cast<uint8_t>(ssrc >> 8);
    buf[11] = static_cast<uint8_t>(ssrc);
    return true;
}

void Publisher::relay(int kind, const PacketRef* packets, int count) {
    if (!connected_ || closed_) return;
    Shared* sh = opt_->shared;
    mmsghdr msgs[kMaxOut];
    iovec iov[kMaxOut];
    int m = 0;
    const utime_t now = monotonic_us();
    for (int i = 0; i < count && m < kMaxOut; i++) {
        const PacketRef& sp = packets[i];
        uint8_t* buf = sh->out[m];
        if (!make_packet(kind, sp.data, sp.size, buf)) continue;
        const uint32_t timestamp = (static_cast<uint32_t>(buf[4]) << 24) | (buf[5] << 16) | (buf[6] << 8) | buf[7];
        send_stats_[kind]->on_packet(timestamp, sp.size - 12, now);
        stats_.messages++;
        stats_.session_bytes += sp.size;
        (kind == kVideo ? stats_.video_packets : stats_.audio_packets)++;
        if (loss_.drop()) {
            stats_.dropped_on_purpose++;
            continue;
        }
        size_t out = 0;
        if (Error err = peer_->protect_rtp(buf, sp.size, sp.size + kSrtpRoom, &out); err.failed()) {
            if (getenv("SB_DEBUG")) fprintf(stderr, "protect: %s\n", err.summary().c_str());
            err.ignore();
            continue;
        }
        iov[m].iov_base = buf;
        iov[m].iov_len = out;
        msgs[m] = mmsghdr();
        msgs[m].msg_hdr.msg_name = &to_;
        msgs[m].msg_hdr.msg_namelen = to_len_;
        msgs[m].msg_hdr.msg_iov = &iov[m];
        msgs[m].msg_hdr.msg_iovlen = 1;
        m++;
    }
    int sent = 0;
    while (sent < m) {
        const int r = sendmmsg(sock_->fd(), msgs + sent, static_cast<unsigned>(m - sent), MSG_DONTWAIT);
        if (r <= 0) {
            if (r < 0 && errno == EINTR) continue;
            // The first one was refused (a full buffer...): drop it, try the rest.
            stats_.send_drops++;
            sent++;
            continue;
        }
        sent += r;
    }
}

void Publisher::resend(int kind, uint16_t seq) {
    Shared* sh = opt_->shared;
    stats_.nacked_seqs++;
    size_t n = 0;
    const uint8_t* kept = sh->ring[kind].get(static_cast<uint16_t>(seq - seq_base_[kind]), &n);
    uint8_t* buf = sh->out[0];
    if (!kept || !make_packet(kind, kept, n, buf)) {
        stats_.not_in_ring++;
        return;
    }
    size_t out = 0;
    if (Error err = peer_->protect_rtp(buf, n, n + kSrtpRoom, &out); err.failed()) {
        err.ignore();
        return;
    }
    if (::sendto(sock_->fd(), buf, out, MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&to_), to_len_) < 0) {
        stats_.send_drops++;
        return;
    }
    stats_.resent++;
}

// An SR per SSRC (its last RTP timestamp moved on to now by the clock rate)
// and the SDES with our CNAME, so the server can map RTP time to wall time.
void Publisher::send_sr(utime_t now) {
    std::string compound;
    const int64_t wall = wall_us();
    for (int k = 0; k < 2; k++) {
        RtcpSenderReport sr;
        if (send_stats_[k] && send_stats_[k]->build_sr(wall, now, &sr)) rtcp_build_sr(sr, &compound);
    }
    if (compound.empty()) return;
    rtcp_build_sdes({{ssrc_[kVideo], "sb_rtc_publish"}, {ssrc_[kAudio], "sb_rtc_publish"}}, &compound);
    if (Error err = peer_->send_rtcp(compound); err.failed()) {
        err.ignore();
        return;
    }
    stats_.sr_sent++;
}

void Publisher::on_peer_rtcp(const uint8_t*, size_t, const std::vector<RtcpPacketRef>& packets, utime_t now) {
    stats_.rtcp_in++;
    for (const RtcpPacketRef& p : packets) {
        if (p.type == kRtcpPsfb && p.count == kRtcpFmtPli) {
            stats_.plis++;
        } else if (p.type == kRtcpPsfb && p.count == kRtcpFmtFir) {
            stats_.firs++;
        } else if (p.type == kRtcpRtpfb && p.count == kRtcpFmtNack) {
            RtcpNack nack;
            if (Error err = rtcp_parse_nack(p, &nack); err.failed()) {
                err.ignore();
                continue;
            }
            stats_.nacks++;
            const int kind = nack.media_ssrc == ssrc_[kVideo] ? kVideo : nack.media_ssrc == ssrc_[kAudio] ? kAudio : -1;
            nack_responder_.answer(nack.lost, now, [this, kind](uint16_t seq) {
                if (kind < 0) {
                    stats_.nacked_seqs++;
                    stats_.not_in_ring++;
                    return false;
                }
                resend(kind, seq);
                return true;
            });
        }
    }
}

const char* Publisher::error_kind(const Error& err) const {
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
    if (code == kErrorRtcSessionClosed) return "closed";
    return rtmp_client_error_kind(err);  // sockets; a refused offer is "rejected"
}

// ---- the source: ffmpeg's RTP, read once ----

// Sends group g's sessions the packets of `kind` it has not had yet that are
// old enough for it, up to kMaxOut per relay call.
void deliver(Shared* sh, size_t g, int kind, utime_t now) {
    if (g >= sh->groups.size()) return;
    const utime_t wait = kPaceSpread * static_cast<utime_t>(g) / static_cast<utime_t>(sh->groups.size());
    uint16_t& cursor = sh->cursor[g][kind];
    while (cursor != sh->next_seq[kind]) {
        PacketRef batch[kMaxOut];
        int count = 0;
        while (cursor != sh->next_seq[kind] && count < kMaxOut) {
            if (sh->arrival[kind][cursor % RtpSendRing::kSlots] > now - wait) break;
            size_t n = 0;
            const uint8_t* p = sh->ring[kind].get(cursor, &n);
            cursor++;
            if (p) batch[count++] = PacketRef{p, n};  // gone from the ring (a thousand behind): skipped
        }
        if (count == 0) break;
        for (Publisher* pub : sh->groups[g]) pub->relay(kind, batch, count);
    }
}

// Every kPaceTick: the later groups' packets that are due.
class Pacer : public CoroutineHandler {
  public:
    explicit Pacer(Shared* shared) : shared_(shared), co_("pacer", this) {}
    Error start() { return co_.start(); }
    void stop() { co_.stop(); }

  private:
    Error cycle() override {
        if (shared_->groups.size() <= 1) return Error();  // one group: the source sends it all
        while (co_.pull().ok()) {
            if (Error err = sleep_us(kPaceTick); err.failed()) {
                err.ignore();
                break;
            }
            const utime_t now = monotonic_us();
            for (size_t g = 1; g < shared_->groups.size(); g++) {
                deliver(shared_, g, kAudio, now);
                deliver(shared_, g, kVideo, now);
            }
        }
        return Error();
    }
    Shared* shared_;
    Coroutine co_;
};

// Reads one of ffmpeg's ports: an RTP one (kind audio or video) relays what
// comes to every connected session; an RTCP one (kind -1) is drained.
class SourceReader : public CoroutineHandler {
  public:
    SourceReader(const char* name, UdpSocket* sock, int kind, Shared* shared)
        : sock_(sock), kind_(kind), shared_(shared), co_(name, this) {}
    Error start() { return co_.start(); }
    void stop() { co_.stop(); }

  private:
    Error cycle() override;
    // Puts data[0, n) in our numbering in the shared ring (after a STAP-A of
    // SPS/PPS when it is an IDR that lacks them).
    void take(uint8_t* data, size_t n);
    void add(const uint8_t* data, size_t n);

    std::unique_ptr<UdpSocket> sock_;
    int kind_;
    Shared* shared_;
    Coroutine co_;
    bool last_was_parameter_sets_ = false;
    uint8_t in_[kDatagramSize];
};

Error SourceReader::cycle() {
    while (true) {
        if (Error err = co_.pull(); err.failed()) return Error();
        size_t n = 0;
        sockaddr_storage from;
        socklen_t len = sizeof(from);
        if (Error err = sock_->recvfrom(in_, sizeof(in_), &n, &from, &len, -1); err.failed()) {
            err.ignore();
            return Error();  // interrupted: the run is over
        }
        if (kind_ < 0) continue;
        take(in_, n);
        // What else is queued now goes in the same batch.
        for (int i = 1; i < kBatch; i++) {
            const ssize_t r = ::recv(sock_->fd(), in_, sizeof(in_), MSG_DONTWAIT);
            if (r <= 0) break;
            take(in_, static_cast<size_t>(r));
        }
        deliver(shared_, 0, kind_, monotonic_us());  // group 0 waits for nothing
    }
}

void SourceReader::take(uint8_t* data, size_t n) {
    const size_t header = rtp_header_size_of(data, n);
    if (header == 0 || (data[0] >> 6) != 2 || n > RtpSendRing::kMaxPacket) return;
    shared_->source_packets[kind_]++;
    const std::string& ps = shared_->parameter_sets;
    if (kind_ == kVideo && !ps.empty()) {
        // An IDR not preceded by SPS/PPS gets them from ffmpeg's SDP first.
        const H264PayloadKind what = h264_payload_kind(data + header, n - header);
        if (what == H264PayloadKind::kIdrStart && !last_was_parameter_sets_ && 12 + ps.size() <= RtpSendRing::kMaxPacket) {
            uint8_t stap[RtpSendRing::kMaxPacket];
            memcpy(stap, data, 12);
            stap[0] = static_cast<uint8_t>(stap[0] & 0xc0);  // no CSRC, no extension, no padding
            stap[1] = static_cast<uint8_t>(stap[1] & 0x7f);  // not the end of the frame
            memcpy(stap + 12, ps.data(), ps.size());
            add(stap, 12 + ps.size());
            shared_->parameter_sets_added++;
        }
        last_was_parameter_sets_ = what == H264PayloadKind::kParameterSets;
    }
    add(data, n);
}

void SourceReader::add(const uint8_t* data, size_t n) {
    uint8_t packet[RtpSendRing::kMaxPacket];
    memcpy(packet, data, n);
    const uint16_t seq = shared_->next_seq[kind_]++;
    // The PT stays ffmpeg's here: each session puts the one its answer chose.
    rewrite_rtp_header(packet, n, packet[1] & 0x7f, seq, 0);
    shared_->ring[kind_].put(packet, n);
    shared_->arrival[kind_][seq % RtpSendRing::kSlots] = monotonic_us();
}

// ---- ffmpeg ----

// Binds 127.0.0.1:port (0: a fresh ephemeral port) for one of ffmpeg's ports,
// with room for a keyframe's burst.
Error bind_source(int port, UdpSocket** out) {
    if (Error err = UdpSocket::bind("127.0.0.1", port, out); err.failed()) return err;
    const int size = 4 * 1024 * 1024;
    setsockopt((*out)->fd(), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    return Error();
}

// Starts ffmpeg sending `input` (looped, in real time) as RTP: video copied,
// audio as Opus, each RTP port's RTCP to the port given. Its SDP goes to
// sdp_file: the stream's SPS/PPS are there (sprop-parameter-sets), not
// in-band, and the tool adds them before each IDR. (-bsf:v h264_mp4toannexb
// would put them in-band, but ffmpeg 5.1 stops the video at the first
// -stream_loop with it: "A non-NULL packet sent after an EOF".) Returns the
// pid, or -1.
pid_t start_ffmpeg(const std::string& input, int vport, int vrtcp, int aport, int artcp, const std::string& sdp_file) {
    auto url = [](int port, int rtcp) {
        return "rtp://127.0.0.1:" + std::to_string(port) + "?pkt_size=1200&rtcpport=" + std::to_string(rtcp);
    };
    std::vector<std::string> args = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
                                     "-stream_loop", "-1", "-i", input, "-map", "0:v:0", "-c:v", "copy",
                                     "-f", "rtp", url(vport, vrtcp), "-map", "0:a:0",
                                     "-c:a", "libopus", "-b:a", "48k", "-ar", "48000", "-ac", "2",
                                     "-f", "rtp", url(aport, artcp), "-sdp_file", sdp_file};
    const pid_t pid = fork();
    if (pid != 0) return pid;
    std::vector<char*> argv;
    for (std::string& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    execvp("ffmpeg", argv.data());
    fprintf(stderr, "exec ffmpeg: %s\n", strerror(errno));
    _exit(127);
}

void stop_ffmpeg(pid_t pid) {
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 50; i++) {
        if (waitpid(pid, nullptr, WNOHANG) == pid) return;
        usleep(100 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
}

// ffmpeg's SDP (-sdp_file), waiting up to 3 s for it to be written (the
// H.264 fmtp line is what we need of it). "" when it did not come.
std::string read_ffmpeg_sdp(const std::string& path, bool wait) {
    for (int i = 0; i < (wait ? 30 : 1); i++) {
        std::ifstream f(path);
        std::stringstream ss;
        ss << f.rdbuf();
        if (ss.str().find("H264") != std::string::npos) return ss.str();
        if (wait) usleep(100 * 1000);
    }
    return "";
}

// ---- reports ----

// The tool's own CPU (user + system) since the last call, in % of one core.
class CpuMeter {
  public:
    CpuMeter() : last_cpu_(cpu_us()), last_wall_(monotonic_us()) {}
    double percent() {
        const utime_t cpu = cpu_us(), wall = monotonic_us();
        const double p = 100.0 * static_cast<double>(cpu - last_cpu_) / static_cast<double>(std::max<utime_t>(wall - last_wall_, 1));
        last_cpu_ = cpu;
        last_wall_ = wall;
        return p;
    }
    static utime_t cpu_us() {
        rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * kUsPerSecond + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    }

  private:
    utime_t last_cpu_, last_wall_;
};

long max_rss_kib() {
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

bool check_publish_url(const std::string& url) {
    RtcPlayUrl u;
    if (Error err = parse_rtc_publish_url(url_for(url, 0), &u); err.failed()) {
        fprintf(stderr, "bad url %s: %s\n", url.c_str(), err.summary().c_str());
        err.ignore();
        return false;
    }
    return true;
}

void usage(const char* argv0) {
    printf("Usage: %s -r URL [options]\n"
           "  -r URL         a WHIP endpoint http://ip:port/rtc/v1/whip/?app=APP&stream=STREAM, or\n"
           "                 webrtc://ip[:port]/app/stream (SRS's POST /rtc/v1/publish/, port 1985 by default);\n"
           "                 %%d is replaced by the session index (0..N-1)\n"
           "  -c N           publishers (sessions) relaying the one source (default 1)\n"
           "  -s MS          spread the sessions' start over MS milliseconds (default 0: all at once;\n"
           "                 also --spread)\n"
           "  --max-signalling N  sessions signalling (HTTP POST) at once, at most (default 16)\n"
           "  -v PORT        the UDP port ffmpeg sends H.264 RTP to (default: a free port, printed)\n"
           "  -a PORT        the UDP port ffmpeg sends Opus RTP to (default: a free port, printed);\n"
           "                 with -v/-a, PORT + 1 is bound too (ffmpeg's RTCP goes there and is dropped)\n"
           "  --ffmpeg FILE  start ffmpeg on FILE (looped, -re, video copied, audio to Opus) with these\n"
           "                 ports, and stop it at the end\n"
           "  --sdp FILE     ffmpeg's -sdp_file when ffmpeg was started by hand: its H.264 profile-level-id\n"
           "                 goes in the offer, and its sprop-parameter-sets (SPS/PPS) are sent before each\n"
           "                 IDR that does not follow them (needed unless ffmpeg ran -bsf:v h264_mp4toannexb)\n"
           "  -t SECONDS     run time; 0 runs until SIGINT/SIGTERM (default 0)\n"
           "  -m MS          report interval (default 5000)\n"
           "  -e MS          wait before retrying a failed session (default 3000)\n"
           "  --loss PERCENT drop this share of outgoing RTP on purpose (kept for NACKs; default 0)\n"
           "  --timeout MS   signalling and ICE+DTLS timeout (default 10000)\n"
           "  --json         print the summary as one JSON object on the last line\n"
           "Exit code: 0, 1 when a session failed or none connected, 2 for bad arguments.\n",
           argv0);
}

Options parse_options(int argc, char** argv) {
    Options opt;
    parse_command_line(argc, argv, "c:r:s:d:e:m:t:v:a:h",
                       {{"ffmpeg", required_argument, nullptr, 'F'},
                        {"loss", required_argument, nullptr, 'L'},
                        {"sdp", required_argument, nullptr, 'S'},
                        {"spread", required_argument, nullptr, 's'},
                        {"max-signalling", required_argument, nullptr, 'M'}},
                       usage, &opt, [&opt](int c, const char* arg) {
                           switch (c) {
                               case 'v': opt.video_port = parse_int(arg, "-v", 1, 65534); return true;
                               case 'a': opt.audio_port = parse_int(arg, "-a", 1, 65534); return true;
                               case 'F': opt.ffmpeg_input = arg; return true;
                               case 'S': opt.sdp_file = arg; return true;
                               case 'L': opt.loss_percent = parse_double_arg(arg, "--loss", 0, 100); return true;
                               case 'M': opt.max_signalling = parse_int(arg, "--max-signalling", 1); return true;
                               default: return false;
                           }
                       });
    if (optind != argc) {
        usage(argv[0]);
        exit(2);
    }
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    // Each session holds a UDP socket, and a TCP one while it signals.
    raise_fd_limit(opt.clients + opt.max_signalling + 16, "publishers");
    SignalPipe signals;
    if (!prepare_run(opt, &signals, check_publish_url)) return 2;
    signal(SIGPIPE, SIG_IGN);

    // ffmpeg's ports: RTP and RTCP each, given (-v/-a: PORT and PORT + 1) or fresh.
    UdpSocket* ports[4] = {nullptr, nullptr, nullptr, nullptr};  // video, video RTCP, audio, audio RTCP
    const int wanted[4] = {opt.video_port, opt.video_port ? opt.video_port + 1 : 0, opt.audio_port,
                           opt.audio_port ? opt.audio_port + 1 : 0};
    for (int i = 0; i < 4; i++) {
        if (Error err = bind_source(wanted[i], &ports[i]); err.failed()) {
            fprintf(stderr, "cannot bind ffmpeg's ports (RTP and RTCP): %s\n", err.summary().c_str());
            err.ignore();
            return 2;
        }
    }
    const int vport = ports[0]->port(), vrtcp = ports[1]->port(), aport = ports[2]->port(), artcp = ports[3]->port();
    std::unique_ptr<Shared> shared(new Shared());
    if (Error err = DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &shared->certificate); err.failed()) {
        fprintf(stderr, "certificate: %s\n", err.describe().c_str());
        err.ignore();
        return 2;
    }
    opt.shared = shared.get();

    pid_t ffmpeg = -1;
    std::string sdp;
    if (!opt.sdp_file.empty()) {
        sdp = read_ffmpeg_sdp(opt.sdp_file, false);
        if (sdp.empty()) {
            fprintf(stderr, "no H.264 in the SDP file %s\n", opt.sdp_file.c_str());
            return 2;
        }
    }
    if (!opt.ffmpeg_input.empty()) {
        const std::string sdp_file = "/tmp/sb_rtc_publish." + std::to_string(getpid()) + ".sdp";
        unlink(sdp_file.c_str());
        ffmpeg = start_ffmpeg(opt.ffmpeg_input, vport, vrtcp, aport, artcp, sdp_file);
        if (ffmpeg < 0) {
            fprintf(stderr, "fork ffmpeg: %s\n", strerror(errno));
            return 2;
        }
        sdp = read_ffmpeg_sdp(sdp_file, true);
        unlink(sdp_file.c_str());
    }
    printf("[%s] sb_rtc_publish: %d publisher%s, video RTP on 127.0.0.1:%d, audio RTP on 127.0.0.1:%d%s%s, to %s\n",
           now_text().c_str(), opt.clients, opt.clients == 1 ? "" : "s", vport, aport,
           ffmpeg > 0 ? ", ffmpeg pid " : "", ffmpeg > 0 ? std::to_string(ffmpeg).c_str() : "", opt.url.c_str());
    if (!sdp.empty()) {
        shared->profile_level_id = sdp_h264_profile_level_id(sdp);
        shared->parameter_sets = h264_stap_a(sdp_h264_sprop_parameter_sets(sdp));
        printf("  from ffmpeg's SDP: H.264 profile-level-id %s, %zu parameter sets to put before IDRs\n",
               shared->profile_level_id.empty() ? "(none)" : shared->profile_level_id.c_str(),
               sdp_h264_sprop_parameter_sets(sdp).size());
    }
    fflush(stdout);

    Pacer pacer(shared.get());
    std::vector<std::unique_ptr<SourceReader>> readers;
    readers.emplace_back(new SourceReader("video", ports[0], kVideo, shared.get()));
    readers.emplace_back(new SourceReader("video-rtcp", ports[1], -1, shared.get()));
    readers.emplace_back(new SourceReader("audio", ports[2], kAudio, shared.get()));
    readers.emplace_back(new SourceReader("audio-rtcp", ports[3], -1, shared.get()));
    for (auto& r : readers) {
        if (Error err = r->start(); err.failed()) {
            fprintf(stderr, "start the source: %s\n", err.summary().c_str());
            err.ignore();
            stop_ffmpeg(ffmpeg);
            return 2;
        }
    }

    ErrorLog error_log;
    std::vector<std::unique_ptr<Publisher>> pubs;
    // The source relays to every publisher; each relays only while connected.
    const int groups = std::min(opt.clients, kPaceGroups);
    shared->groups.resize(static_cast<size_t>(groups));
    shared->cursor.assign(static_cast<size_t>(groups), {0, 0});
    auto make = [&](int i) {
        Publisher* p = new Publisher(i, &opt, &error_log);
        shared->groups[static_cast<size_t>(i % groups)].push_back(p);
        return p;
    };
    if (!start_clients(opt.clients, &pubs, make)) {
        stop_ffmpeg(ffmpeg);
        return 2;
    }
    if (Error err = pacer.start(); err.failed()) {
        fprintf(stderr, "start the pacer: %s\n", err.summary().c_str());
        err.ignore();
        stop_ffmpeg(ffmpeg);
        return 2;
    }
    const utime_t start = monotonic_us();
    CpuMeter period_cpu, run_cpu;
    auto sum = [&pubs] {
        PubTotals t;
        for (const auto& p : pubs) t.add_pub(p->stats());
        return t;
    };
    auto report = [&](const PubTotals& t, const ReportPeriod& r) {
        printf("[%s] clients=%d connected=%d, time=%ds, rtp=%" PRIu64 " (+%" PRIu64 "), kbps=%d, nacks=%" PRIu64
               ", resent=%" PRIu64 ", plis=%" PRIu64 ", send_drops=%" PRIu64 ", errors=%" PRIu64
               ", reconnects=%" PRIu64 ", tool_cpu=%.1f%%\n",
               now_text().c_str(), t.clients, t.alive, r.elapsed_s, t.messages, r.new_messages, r.kbps, t.nacks,
               t.resent, t.plis, t.send_drops, t.error_total, t.reconnects, period_cpu.percent());
    };
    run_reports(opt, &signals, &error_log, start, sum, report);

    PubTotals t = stop_clients(pubs, sum);
    const double tool_cpu = run_cpu.percent();
    for (auto& r : readers) r->stop();
    pacer.stop();
    stop_ffmpeg(ffmpeg);
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const uint64_t kbps = t.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);
    const Shared& s = *shared;
    print_summary_head(t, elapsed);
    printf("  sent %" PRIu64 " RTP packets (%" PRIu64 " video, %" PRIu64 " audio), %" PRIu64 " bytes, %" PRIu64
           " kbps; dropped on purpose %" PRIu64 ", refused by the kernel %" PRIu64 "\n",
           t.messages, t.video_packets, t.audio_packets, t.bytes, kbps, t.dropped_on_purpose, t.send_drops);
    printf("  source: %" PRIu64 " video and %" PRIu64 " audio packets from ffmpeg, SPS/PPS added %" PRIu64 "\n",
           s.source_packets[kVideo], s.source_packets[kAudio], s.parameter_sets_added);
    printf("  NACKs %" PRIu64 " (%" PRIu64 " seqs: %" PRIu64 " resent, %" PRIu64 " no longer kept), PLIs %" PRIu64
           " and FIRs %" PRIu64 " (not honoured: ffmpeg's GOP is fixed), RTCP in %" PRIu64 ", SR sent %" PRIu64
           ", refused datagrams %" PRIu64 "\n",
           t.nacks, t.nacked_seqs, t.resent, t.not_in_ring, t.plis, t.firs, t.rtcp_in, t.sr_sent,
           t.refused_datagrams);
    print_samples("answer (POST to answer):", s.answer_us);
    print_samples("connected (POST to ICE+DTLS up):", s.connected_us);
    printf("  tool: %.1f %% of a core, max RSS %ld KiB\n", tool_cpu, max_rss_kib());
    print_errors_line(t);
    const bool ok = t.failed == 0 && t.sessions > 0;
    if (opt.json) {
        printf("{\"ok\":%s,\"clients\":%d,\"connected\":%d,\"failed\":%d,\"sessions\":%" PRIu64
               ",\"reconnects\":%" PRIu64 ",\"elapsed_ms\":%" PRId64 ",\"packets\":%" PRIu64
               ",\"video_packets\":%" PRIu64 ",\"audio_packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"kbps\":%" PRIu64
               ",\"source_video_packets\":%" PRIu64 ",\"source_audio_packets\":%" PRIu64
               ",\"dropped_on_purpose\":%" PRIu64 ",\"send_drops\":%" PRIu64 ",\"nacks\":%" PRIu64
               ",\"nacked_seqs\":%" PRIu64 ",\"nacks_answered\":%" PRIu64 ",\"nacks_not_kept\":%" PRIu64
               ",\"plis\":%" PRIu64 ",\"firs\":%" PRIu64 ",\"rtcp_in\":%" PRIu64 ",\"sr_sent\":%" PRIu64
               ",\"refused_datagrams\":%" PRIu64 ",\"parameter_sets_added\":%" PRIu64
               ",\"answer_ms\":%s,\"connected_ms\":%s,\"errors\":%s,\"tool_cpu_percent\":%.2f"
               ",\"tool_max_rss_kib\":%ld}\n",
               ok ? "true" : "false", t.clients, t.alive, t.failed, t.sessions, t.reconnects,
               static_cast<int64_t>(elapsed / kUsPerMs), t.messages, t.video_packets, t.audio_packets, t.bytes, kbps,
               s.source_packets[kVideo], s.source_packets[kAudio], t.dropped_on_purpose, t.send_drops, t.nacks,
               t.nacked_seqs, t.resent, t.not_in_ring, t.plis, t.firs, t.rtcp_in, t.sr_sent, t.refused_datagrams,
               s.parameter_sets_added, samples_json(s.answer_us).c_str(), samples_json(s.connected_us).c_str(),
               errors_json(t).c_str(), tool_cpu, max_rss_kib());
    }
    fflush(stdout);
    pubs.clear();
    readers.clear();
    return ok ? 0 : 1;
}
