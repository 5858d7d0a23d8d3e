// sb_rtc_publish: one WebRTC publisher that costs almost nothing: it encodes
// nothing and packetizes nothing. ffmpeg sends plain RTP (H.264 and Opus) to
// two local UDP ports; this tool relays every packet into a WHIP session
// (or SRS's POST /rtc/v1/publish/) after rewriting its PT and SSRC to what
// its offer announced, and answers the server's NACKs from a ring of the
// packets it sent. For benchmarks and tests (issue 12), not for production.
//
//   sb_rtc_publish -r 'http://127.0.0.1:1985/rtc/v1/whip/?app=live&stream=livestream' --ffmpeg media.flv -t 60
//   sb_rtc_publish -r webrtc://127.0.0.1:1985/live/livestream -v 5004 -a 5006   (ffmpeg started by hand)
//
// The session: a sendonly offer (rtc_publisher.hpp) with our ICE credentials,
// the fingerprint of a fresh certificate and our two SSRCs, POSTed; then an
// RtcPeer in client mode (ICE controlling, DTLS client unless the server
// answered active) on a UDP socket towards the answer's first udp host
// candidate. Once connected, each packet from ffmpeg's video (audio) port is
// rewritten, kept in that SSRC's ring, protected and sent (or dropped on
// purpose under --loss); an RTCP SR + SDES goes out every second. From the
// server: NACKs (RTPFB 1) are answered by protecting the kept packet again;
// PLIs and FIRs are counted (ffmpeg's GOP is fixed: they cannot be honoured).
// Before connected, ffmpeg's packets are read and thrown away.
//
// The loop is one poll() over four sockets (the peer's, ffmpeg's two RTP
// ports and the RTCP ports next to them, which are drained so ffmpeg's
// sender reports do not bounce) with the peer's timer as its timeout. The
// signalling HTTP uses the coroutine runtime (rtc_io.hpp) before the loop.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/rtc/rtc_random.hpp"
#include "core/clock.hpp"
#include "io/runtime.hpp"
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

volatile sig_atomic_t g_signal = 0;
void on_signal(int signo) { g_signal = signo; }

struct PubOptions {
    std::string url;
    int video_port = 0;  // 0: chosen
    int audio_port = 0;
    std::string ffmpeg_input;
    std::string sdp_file;  // --sdp: ffmpeg's -sdp_file, when it was started by hand
    double duration_s = 0;
    double loss_percent = 0;
    int timeout_ms = 10000;
    bool json = false;
};

struct PubStats {
    uint64_t packets = 0, bytes = 0;              // RTP sent (first time)
    uint64_t video_packets = 0, audio_packets = 0;
    uint64_t dropped_on_purpose = 0;              // --loss
    uint64_t dropped_before_connected = 0;        // from ffmpeg while ICE/DTLS
    uint64_t nacks = 0;                           // NACK packets received
    uint64_t nacked_seqs = 0;                     // sequence numbers asked
    uint64_t resent = 0;                          // answered from the ring
    uint64_t not_in_ring = 0;
    uint64_t plis = 0, firs = 0;
    uint64_t rtcp_in = 0, sr_sent = 0;
    uint64_t refused_datagrams = 0;
    uint64_t parameter_sets_added = 0;  // STAP-As of SPS/PPS put before IDRs
};

// One UDP socket of our own, not the coroutine runtime's: the media loop is
// a plain poll() (one publisher, one thread).
int udp_bind(uint32_t ip_host_order, int port, int* bound_port) {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(ip_host_order);
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    const int size = 4 * 1024 * 1024;  // a keyframe arrives as a burst
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    socklen_t len = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    if (bound_port) *bound_port = ntohs(a.sin_port);
    return fd;
}

// ffmpeg's RTP port (given, or an even free one) and its RTCP port, port + 1,
// on 127.0.0.1. False when they cannot be bound.
bool bind_rtp_pair(int want, int* port, int* rtp_fd, int* rtcp_fd) {
    for (int attempt = 0; attempt < 64; attempt++) {
        int p = want;
        if (p == 0) p = 20000 + 2 * static_cast<int>(rtc_random_u32() % 20000);
        *rtp_fd = udp_bind(INADDR_LOOPBACK, p, nullptr);
        if (*rtp_fd >= 0) {
            *rtcp_fd = udp_bind(INADDR_LOOPBACK, p + 1, nullptr);
            if (*rtcp_fd >= 0) {
                *port = p;
                return true;
            }
            close(*rtp_fd);
        }
        if (want != 0) return false;
    }
    return false;
}

// Starts ffmpeg sending `input` (looped, in real time) as RTP: video copied,
// audio as Opus. Its SDP goes to sdp_file: the stream's SPS/PPS are there
// (sprop-parameter-sets), not in-band, and the tool adds them before each IDR.
// (-bsf:v h264_mp4toannexb would put them in-band, but ffmpeg 5.1 stops the
// video at the first -stream_loop with it: "A non-NULL packet sent after an
// EOF".) Returns the pid, or -1.
pid_t start_ffmpeg(const std::string& input, int vport, int aport, const std::string& sdp_file) {
    const std::string v = "rtp://127.0.0.1:" + std::to_string(vport) + "?pkt_size=1200";
    const std::string a = "rtp://127.0.0.1:" + std::to_string(aport) + "?pkt_size=1200";
    std::vector<std::string> args = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re",
                                     "-stream_loop", "-1", "-i", input, "-map", "0:v:0", "-c:v", "copy",
                                     "-f", "rtp", v, "-map", "0:a:0",
                                     "-c:a", "libopus", "-b:a", "48k", "-ar", "48000", "-ac", "2",
                                     "-f", "rtp", a, "-sdp_file", sdp_file};
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

class Publisher : public RtcPeerListener {
  public:
    Publisher(const PubOptions& opt, int peer_fd) : opt_(opt), fd_(peer_fd), loss_(opt.loss_percent) {}

    Error run(const RtcPlayUrl& url, const std::shared_ptr<DtlsCertificate>& cert, const std::string& ffmpeg_sdp,
              int video_fd, int audio_fd, int video_rtcp_fd, int audio_rtcp_fd, utime_t deadline);
    const PubStats& stats() const { return stats_; }
    std::string summary() const { return milestones_; }

  private:
    Error signal(const RtcPlayUrl& url, const std::string& offer, RtcAnswerInfo* answer);
    Error flush();
    Error send_rtp(uint8_t* buf, size_t n);
    void relay(int fd, bool video);
    void send_new(uint8_t* p, size_t n, bool video);
    void send_sr(utime_t now);

    void on_peer_address(const StunAddress&) override {}
    void on_peer_connected() override { connected_ = true; }
    void on_peer_rtp(uint8_t*, size_t, const RtpHeader&, utime_t) override {}
    void on_peer_rtcp(const uint8_t* data, size_t size, const std::vector<RtcpPacketRef>& packets,
                      utime_t now) override;
    void on_peer_closed(const Error& reason) override {
        closed_ = true;
        closed_why_ = reason.summary();
    }

    const PubOptions& opt_;
    int fd_;
    std::unique_ptr<RtcPeer> peer_;
    LossDropper loss_;
    uint32_t audio_ssrc_ = 0, video_ssrc_ = 0;
    int audio_pt_ = kPublishOpusPt, video_pt_ = -1;  // what the answer chose
    RtpSendRing audio_ring_, video_ring_;
    // Every ask is answered: the tool plays a publisher under test, not a
    // server that must bound what a NACK storm costs it.
    NackResponder nack_responder_{NackResponderOptions{SIZE_MAX, UINT32_MAX}};
    std::string parameter_sets_;  // a STAP-A payload of ffmpeg's SPS/PPS ("" none)
    bool last_was_parameter_sets_ = false;
    uint16_t next_seq_[2] = {0, 0};  // ours, per SSRC (audio, video): added packets shift ffmpeg's numbers
    // What the SRs say (audio, video): made once the SSRCs are drawn.
    std::unique_ptr<RtpSendStats> send_stats_[2];
    bool connected_ = false, closed_ = false;
    std::string closed_why_, milestones_;
    PubStats stats_;
    uint8_t buf_[kDatagramSize + kSrtpRoom];
    uint8_t scratch_[RtpSendRing::kMaxPacket + kSrtpRoom];
};

Error Publisher::signal(const RtcPlayUrl& url, const std::string& offer, RtcAnswerInfo* answer) {
    const utime_t timeout = opt_.timeout_ms * kUsPerMs;
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

Error Publisher::run(const RtcPlayUrl& url, const std::shared_ptr<DtlsCertificate>& cert, const std::string& ffmpeg_sdp,
                     int video_fd, int audio_fd, int video_rtcp_fd, int audio_rtcp_fd, utime_t deadline) {
    RtcPublishParams p;
    p.ice.ice_ufrag = rtc_random_string(8);
    p.ice.ice_pwd = rtc_random_string(24);
    p.ice.fingerprint = cert->fingerprint();
    p.ice.session_id = (static_cast<uint64_t>(rtc_random_u32()) << 31) | rtc_random_u32();
    audio_ssrc_ = p.audio_ssrc = rtc_random_u32() | 1;
    video_ssrc_ = p.video_ssrc = rtc_random_u32() | 2;
    if (video_ssrc_ == audio_ssrc_) video_ssrc_ = p.video_ssrc = audio_ssrc_ ^ 0x10;
    send_stats_[0].reset(new RtpSendStats(audio_ssrc_, 48000));
    send_stats_[1].reset(new RtpSendStats(video_ssrc_, 90000));
    p.cname = "sb_rtc_publish-" + rtc_random_string(8);
    p.stream_id = "sb-" + rtc_random_string(8);
    if (const std::string id = sdp_h264_profile_level_id(ffmpeg_sdp); !id.empty()) p.profile_level_id = id;
    parameter_sets_ = h264_stap_a(sdp_h264_sprop_parameter_sets(ffmpeg_sdp));
    const std::string offer = write_sdp(build_publish_offer(p));

    RtcAnswerInfo answer;
    if (Error err = signal(url, offer, &answer); err.failed()) return err;
    if (answer.audio_pt < 0 || answer.video_pt < 0) {
        fprintf(stderr, "warning: the answer accepts %s only\n", answer.audio_pt < 0 ? "video" : "audio");
    }
    audio_pt_ = answer.audio_pt;
    video_pt_ = publish_video_pt(answer, p.profile_level_id);
    if (answer.video_pt >= 0 && video_pt_ < 0) return SRS_ERR(kErrorSdpAnswer, "the answer has no H.264 mode 1");
    StunAddress server;
    if (!stun_address_of_ip(answer.candidate_ip, answer.candidate_port, &server) ||
        server.family != StunAddress::kIpv4) {
        return SRS_ERR(kErrorSdpAnswer, "candidate %s is not an IPv4 address", answer.candidate_ip.c_str());
    }
    RtcPeerOptions po;
    po.ice_controlling = true;
    po.local_ufrag = p.ice.ice_ufrag;
    po.local_pwd = p.ice.ice_pwd;
    po.remote_ufrag = answer.ice_ufrag;
    po.remote_pwd = answer.ice_pwd;
    po.certificate = cert;
    po.dtls_role = answer.setup == SdpSetup::kActive ? DtlsRole::kServer : DtlsRole::kClient;
    po.remote_fingerprint = answer.fingerprint;
    po.remote_candidate = server;
    po.software = "sb_rtc_publish";
    peer_.reset(new RtcPeer(std::move(po), this));
    const utime_t start = monotonic_us();
    if (Error err = peer_->start(start); err.failed()) return SRS_WRAP(err, "start the peer");

    pollfd fds[5] = {{fd_, POLLIN, 0}, {video_fd, POLLIN, 0}, {audio_fd, POLLIN, 0}, {video_rtcp_fd, POLLIN, 0},
                     {audio_rtcp_fd, POLLIN, 0}};
    utime_t next_sr = 0;
    bool announced = false;
    Error result;
    while (true) {
        if (Error err = flush(); err.failed()) return err;
        if (closed_) {
            result = SRS_ERR(kErrorRtcSessionClosed, "the session ended: %s", closed_why_.c_str());
            break;
        }
        if (g_signal) break;
        const utime_t now = monotonic_us();
        if (deadline > 0 && now >= deadline) break;
        if (!connected_ && now - start > opt_.timeout_ms * kUsPerMs) {
            return SRS_ERR(kErrorDtlsTimeout, "not connected after %d ms (%s)", opt_.timeout_ms,
                           peer_->milestones().c_str());
        }
        if (connected_ && !announced) {
            announced = true;
            printf("[%s] connected in %.1f ms (%s); relaying\n", now_text().c_str(), (now - start) / 1e3,
                   peer_->milestones().c_str());
            fflush(stdout);
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
        utime_t wake = now + kMaxWait;
        wake = std::min(wake, peer_->next_timeout());
        if (connected_) wake = std::min(wake, next_sr);
        if (deadline > 0) wake = std::min(wake, deadline);
        const int ms = static_cast<int>(std::max<utime_t>((wake - now + kUsPerMs - 1) / kUsPerMs, 1));
        const int n = poll(fds, 5, ms);
        if (n < 0 && errno != EINTR) return SRS_ERR(kErrorSocketTimeout, "poll: %s", strerror(errno));
        if (n <= 0) continue;
        if (fds[0].revents & POLLIN) {
            for (int i = 0; i < 64; i++) {
                sockaddr_storage from;
                socklen_t len = sizeof(from);
                const ssize_t r = recvfrom(fd_, buf_, kDatagramSize, 0, reinterpret_cast<sockaddr*>(&from), &len);
                if (r <= 0) break;
                if (Error e = peer_->handle_datagram(buf_, static_cast<size_t>(r), stun_address_of(from),
                                                     monotonic_us());
                    e.failed()) {
                    stats_.refused_datagrams++;
                    if (getenv("SB_DEBUG")) fprintf(stderr, "refused: %s\n", e.summary().c_str());
                    e.ignore();
                }
            }
        }
        if (fds[1].revents & POLLIN) relay(video_fd, true);
        if (fds[2].revents & POLLIN) relay(audio_fd, false);
        for (int i = 3; i < 5; i++) {
            if (!(fds[i].revents & POLLIN)) continue;
            while (recv(fds[i].fd, buf_, kDatagramSize, 0) > 0) {
            }
        }
    }
    milestones_ = peer_->milestones();
    if (!closed_) {
        peer_->close(monotonic_us(), SRS_ERR(kErrorRtcSessionClosed, "the publisher leaves"));
        if (Error e = flush(); e.failed()) e.ignore();
    }
    return result;
}

Error Publisher::flush() {
    RtcTransmit t;
    while (peer_->pop_transmit(&t)) {
        sockaddr_storage to;
        const socklen_t len = sockaddr_of(t.to, &to);
        // UDP: a full send buffer loses the datagram, as the network would.
        sendto(fd_, t.data.data(), t.data.size(), 0, reinterpret_cast<const sockaddr*>(&to), len);
    }
    return Error();
}

// Protects buf[0, n) in place (room for the tag after it) and sends it.
Error Publisher::send_rtp(uint8_t* buf, size_t n) {
    size_t out = 0;
    if (Error err = peer_->protect_rtp(buf, n, n + kSrtpRoom, &out); err.failed()) return err;
    sockaddr_storage to;
    const socklen_t len = sockaddr_of(peer_->remote_address(), &to);
    sendto(fd_, buf, out, 0, reinterpret_cast<const sockaddr*>(&to), len);
    return Error();
}

void Publisher::relay(int fd, bool video) {
    for (int i = 0; i < 256; i++) {
        const ssize_t r = recv(fd, buf_, kDatagramSize, 0);
        if (r <= 0) return;
        const size_t n = static_cast<size_t>(r);
        if (!connected_ || closed_) {
            stats_.dropped_before_connected++;
            continue;
        }
        const size_t header = rtp_header_size_of(buf_, n);
        if (header == 0 || (buf_[0] >> 6) != 2 || (video ? video_pt_ : audio_pt_) < 0) continue;  // or refused
        if (video && !parameter_sets_.empty()) {
            // An IDR not preceded by SPS/PPS gets them from ffmpeg's SDP first.
            const H264PayloadKind kind = h264_payload_kind(buf_ + header, n - header);
            if (kind == H264PayloadKind::kIdrStart && !last_was_parameter_sets_) {
                memcpy(scratch_, buf_, 12);
                scratch_[0] = static_cast<uint8_t>(scratch_[0] & 0xc0);  // no CSRC, no extension, no padding
                scratch_[1] = static_cast<uint8_t>(scratch_[1] & 0x7f);  // not the end of the frame
                memcpy(scratch_ + 12, parameter_sets_.data(), parameter_sets_.size());
                send_new(scratch_, 12 + parameter_sets_.size(), true);
                stats_.parameter_sets_added++;
            }
            last_was_parameter_sets_ = kind == H264PayloadKind::kParameterSets;
        }
        send_new(buf_, n, video);
    }
}

// A packet relayed for the first time: renumbered in our sequence, kept for
// NACKs, then sent unless --loss drops it.
void Publisher::send_new(uint8_t* p, size_t n, bool video) {
    const int k = video ? 1 : 0;
    const uint32_t ssrc = video ? video_ssrc_ : audio_ssrc_;
    rewrite_rtp_header(p, n, video ? video_pt_ : audio_pt_, next_seq_[k]++, ssrc);
    const uint32_t timestamp = (static_cast<uint32_t>(p[4]) << 24) | (p[5] << 16) | (p[6] << 8) | p[7];
    send_stats_[k]->on_packet(timestamp, n - 12, monotonic_us());
    (video ? video_ring_ : audio_ring_).put(p, n);
    stats_.packets++;
    stats_.bytes += n;
    (video ? stats_.video_packets : stats_.audio_packets)++;
    if (loss_.drop()) {
        stats_.dropped_on_purpose++;
        return;
    }
    if (Error err = send_rtp(p, n); err.failed()) {
        if (getenv("SB_DEBUG")) fprintf(stderr, "protect: %s\n", err.summary().c_str());
        err.ignore();
    }
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
    rtcp_build_sdes({{video_ssrc_, "sb_rtc_publish"}, {audio_ssrc_, "sb_rtc_publish"}}, &compound);
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
            const RtpSendRing* ring = nack.media_ssrc == video_ssrc_   ? &video_ring_
                                      : nack.media_ssrc == audio_ssrc_ ? &audio_ring_
                                                                       : nullptr;
            nack_responder_.answer(nack.lost, now, [this, ring](uint16_t seq) {
                stats_.nacked_seqs++;
                size_t n = 0;
                const uint8_t* kept = ring ? ring->get(seq, &n) : nullptr;
                if (!kept) {
                    stats_.not_in_ring++;
                    return false;
                }
                memcpy(scratch_, kept, n);
                if (Error err = send_rtp(scratch_, n); err.failed()) {
                    err.ignore();
                    return true;  // it was kept: resending failed
                }
                stats_.resent++;
                return true;
            });
        }
    }
}

void usage(const char* argv0) {
    printf("Usage: %s -r URL [options]\n"
           "  -r URL         a WHIP endpoint http://ip:port/rtc/v1/whip/?app=APP&stream=STREAM, or\n"
           "                 webrtc://ip[:port]/app/stream (SRS's POST /rtc/v1/publish/, port 1985 by default)\n"
           "  -v PORT        the UDP port ffmpeg sends H.264 RTP to (default: a free even port, printed)\n"
           "  -a PORT        the UDP port ffmpeg sends Opus RTP to (default: a free even port, printed);\n"
           "                 PORT + 1 is bound too (ffmpeg's RTCP goes there and is dropped)\n"
           "  --ffmpeg FILE  start ffmpeg on FILE (looped, -re, video copied, audio to Opus) with these\n"
           "                 ports, and stop it at the end\n"
           "  --sdp FILE     ffmpeg's -sdp_file when ffmpeg was started by hand: its H.264 profile-level-id\n"
           "                 goes in the offer, and its sprop-parameter-sets (SPS/PPS) are sent before each\n"
           "                 IDR that does not follow them (needed unless ffmpeg ran -bsf:v h264_mp4toannexb)\n"
           "  -t SECONDS     run time; 0 runs until SIGINT/SIGTERM (default 0)\n"
           "  --loss PERCENT drop this share of outgoing RTP on purpose (kept for NACKs; default 0)\n"
           "  --timeout MS   signalling and ICE+DTLS timeout (default 10000)\n"
           "  --json         print the summary as one JSON object on the last line\n"
           "Exit code: 0, 1 when the session failed, 2 for bad arguments.\n",
           argv0);
}

PubOptions parse_options(int argc, char** argv) {
    PubOptions opt;
    static const option longs[] = {{"ffmpeg", required_argument, nullptr, 'F'},
                                   {"loss", required_argument, nullptr, 'L'},
                                   {"sdp", required_argument, nullptr, 'S'},
                                   {"timeout", required_argument, nullptr, 'T'},
                                   {"json", no_argument, nullptr, 'J'},
                                   {"help", no_argument, nullptr, 'h'},
                                   {nullptr, 0, nullptr, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "r:v:a:t:h", longs, nullptr)) != -1) {
        switch (c) {
            case 'r': opt.url = optarg; break;
            case 'v': opt.video_port = parse_int(optarg, "-v", 1, 65534); break;
            case 'a': opt.audio_port = parse_int(optarg, "-a", 1, 65534); break;
            case 't': opt.duration_s = parse_double_arg(optarg, "-t", 0, 1e9); break;
            case 'F': opt.ffmpeg_input = optarg; break;
            case 'S': opt.sdp_file = optarg; break;
            case 'L': opt.loss_percent = parse_double_arg(optarg, "--loss", 0, 100); break;
            case 'T': opt.timeout_ms = parse_int(optarg, "--timeout", 1); break;
            case 'J': opt.json = true; break;
            case 'h': usage(argv[0]); exit(0);
            default: usage(argv[0]); exit(2);
        }
    }
    if (opt.url.empty() || optind != argc) {
        usage(argv[0]);
        exit(2);
    }
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    const PubOptions opt = parse_options(argc, argv);
    RtcPlayUrl url;
    if (Error err = parse_rtc_publish_url(opt.url, &url); err.failed()) {
        fprintf(stderr, "bad url %s: %s\n", opt.url.c_str(), err.summary().c_str());
        err.ignore();
        return 2;
    }
    if (Error err = init_runtime(); err.failed()) {
        fprintf(stderr, "runtime: %s\n", err.describe().c_str());
        err.ignore();
        return 2;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);

    int vport = 0, aport = 0, vfd = -1, vrtcp = -1, afd = -1, artcp = -1;
    if (!bind_rtp_pair(opt.video_port, &vport, &vfd, &vrtcp) || !bind_rtp_pair(opt.audio_port, &aport, &afd, &artcp)) {
        fprintf(stderr, "cannot bind the RTP ports (and the RTCP ports after them)\n");
        return 2;
    }
    int peer_port = 0;
    const int peer_fd = udp_bind(INADDR_ANY, 0, &peer_port);
    if (peer_fd < 0) {
        fprintf(stderr, "cannot bind the peer's UDP socket: %s\n", strerror(errno));
        return 2;
    }
    std::shared_ptr<DtlsCertificate> cert;
    if (Error err = DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &cert); err.failed()) {
        fprintf(stderr, "certificate: %s\n", err.describe().c_str());
        err.ignore();
        return 2;
    }

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
        ffmpeg = start_ffmpeg(opt.ffmpeg_input, vport, aport, sdp_file);
        if (ffmpeg < 0) {
            fprintf(stderr, "fork ffmpeg: %s\n", strerror(errno));
            return 2;
        }
        sdp = read_ffmpeg_sdp(sdp_file, true);
        unlink(sdp_file.c_str());
    }
    printf("[%s] sb_rtc_publish: video RTP on 127.0.0.1:%d, audio RTP on 127.0.0.1:%d, peer UDP port %d%s%s, "
           "to %s\n",
           now_text().c_str(), vport, aport, peer_port, ffmpeg > 0 ? ", ffmpeg pid " : "",
           ffmpeg > 0 ? std::to_string(ffmpeg).c_str() : "", opt.url.c_str());
    if (!sdp.empty()) {
        const std::string id = sdp_h264_profile_level_id(sdp);
        printf("  from ffmpeg's SDP: H.264 profile-level-id %s, %zu parameter sets to put before IDRs\n",
               id.empty() ? "(none)" : id.c_str(), sdp_h264_sprop_parameter_sets(sdp).size());
    }
    fflush(stdout);

    const utime_t start = monotonic_us();
    const utime_t deadline = opt.duration_s > 0 ? start + static_cast<utime_t>(opt.duration_s * kUsPerSecond) : 0;
    std::unique_ptr<Publisher> pub(new Publisher(opt, peer_fd));
    Error err = pub->run(url, cert, sdp, vfd, afd, vrtcp, artcp, deadline);
    stop_ffmpeg(ffmpeg);
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const PubStats& s = pub->stats();
    const uint64_t kbps = s.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);
    printf("[%s] %s after %.1f s: %" PRIu64 " RTP packets (%" PRIu64 " video, %" PRIu64 " audio), %" PRIu64
           " bytes, %" PRIu64 " kbps; dropped on purpose %" PRIu64 ", before connected %" PRIu64 "\n",
           now_text().c_str(), err.failed() ? "failed" : "done", elapsed / 1e6, s.packets, s.video_packets,
           s.audio_packets, s.bytes, kbps, s.dropped_on_purpose, s.dropped_before_connected);
    printf("  NACKs %" PRIu64 " (%" PRIu64 " seqs: %" PRIu64 " resent, %" PRIu64 " no longer kept), PLIs %" PRIu64
           " and FIRs %" PRIu64 " (not honoured: ffmpeg's GOP is fixed), RTCP in %" PRIu64 ", SR sent %" PRIu64
           ", refused datagrams %" PRIu64 ", SPS/PPS added %" PRIu64 "\n",
           s.nacks, s.nacked_seqs, s.resent, s.not_in_ring, s.plis, s.firs, s.rtcp_in, s.sr_sent,
           s.refused_datagrams, s.parameter_sets_added);
    if (err.failed()) printf("  error: %s\n", err.summary().c_str());
    if (opt.json) {
        printf("{\"ok\":%s,\"elapsed_ms\":%" PRId64 ",\"packets\":%" PRIu64 ",\"video_packets\":%" PRIu64
               ",\"audio_packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"kbps\":%" PRIu64
               ",\"dropped_on_purpose\":%" PRIu64 ",\"dropped_before_connected\":%" PRIu64 ",\"nacks\":%" PRIu64
               ",\"nacked_seqs\":%" PRIu64 ",\"nacks_answered\":%" PRIu64 ",\"nacks_not_kept\":%" PRIu64
               ",\"plis\":%" PRIu64 ",\"firs\":%" PRIu64 ",\"rtcp_in\":%" PRIu64 ",\"sr_sent\":%" PRIu64
               ",\"refused_datagrams\":%" PRIu64 ",\"parameter_sets_added\":%" PRIu64 "}\n",
               err.failed() ? "false" : "true", static_cast<int64_t>(elapsed / kUsPerMs), s.packets, s.video_packets,
               s.audio_packets, s.bytes, kbps, s.dropped_on_purpose, s.dropped_before_connected, s.nacks,
               s.nacked_seqs, s.resent, s.not_in_ring, s.plis, s.firs, s.rtcp_in, s.sr_sent, s.refused_datagrams,
               s.parameter_sets_added);
    }
    fflush(stdout);
    const bool failed = err.failed();
    err.ignore();
    close(peer_fd);
    close(vfd);
    close(afd);
    close(vrtcp);
    close(artcp);
    return failed ? 1 : 0;
}
