// sb_udp_floor: what the kernel alone charges a server for sending one
// WebRTC stream's datagrams to N players on this machine, with nothing else
// (no SRTP, no session, no RTCP): the floor under the server's CPU per player
// in test/bench/rtc_play_bench.py.
//
//   objs/sb_udp_floor -c 200 [-t 10] [--gso] [--srtp] [--video-kbps 530] [--fps 25]
//                     [--mtu 1200] [--audio-size 160] [--audio-pps 50]
//
// --srtp adds the one thing every WebRTC server must do per player and packet:
// each player has its own AES-128-GCM SRTP context (the server's SrtpGcmSender
// on OpenSSL) and SSRCs, and each datagram is that player's RTP header plus the
// shared payload encrypted out of place into its send buffer, as the server
// does from its ring. The receiver decrypts each player's first datagram with
// the player's key and counts the players whose bytes came out right
// ("players_verified"). Without --srtp the datagrams are the same bytes for
// every player, sized as if encrypted.
//
// "frame_fanout_ms": per video frame, from building the first player's
// message to the return of the last sendmmsg: one frame's fan-out to every
// player, the floor under the delay a server adds to its last player.
//
// A child process holds the N player sockets on 127.0.0.1 and drains them as
// sb_rtc_load's players do (epoll, edge-triggered, then recvmmsg until empty),
// so the receive path the loopback charges to the sender is the benchmark's.
// The parent sends from one socket bound to 0.0.0.0 with an IP_PKTINFO source
// per datagram, as the server does: every audio period one packet to each
// player, every video frame the frame's packets (mtu-sized, the last one
// shorter) to each player, one sendmmsg per 64 messages; --gso sends a
// player's packets of a frame as one UDP GSO message. Its own CPU
// (getrusage: user + system, which includes the loopback delivery) over
// the run is the result, printed as one JSON line.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "protocol/rtc/srtp_gcm.hpp"

namespace {

using srs::Error;
using srs::SrtpGcmReceiver;
using srs::SrtpGcmSender;

struct Options {
    int players = 100;
    double seconds = 10;
    bool gso = false;
    bool srtp = false;
    int video_kbps = 530;
    int fps = 25;
    int mtu = 1200;  // RTP payload and header of a full video packet, before SRTP's 16-byte tag
    int audio_size = 160;
    int audio_pps = 50;
};

double now_s() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

double cpu_s() {
    rusage u;
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

bool parse(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&](int* out) {
            if (i + 1 >= argc) return false;
            *out = atoi(argv[++i]);
            return *out > 0;
        };
        bool ok = true;
        if (a == "-c") {
            ok = value(&o->players);
        } else if (a == "-t") {
            int t = 0;
            ok = value(&t);
            o->seconds = t;
        } else if (a == "--gso") {
            o->gso = true;
        } else if (a == "--srtp") {
            o->srtp = true;
        } else if (a == "--video-kbps") {
            ok = value(&o->video_kbps);
        } else if (a == "--fps") {
            ok = value(&o->fps);
        } else if (a == "--mtu") {
            ok = value(&o->mtu) && o->mtu <= 1400;
        } else if (a == "--audio-size") {
            ok = value(&o->audio_size) && o->audio_size <= 1400;
        } else if (a == "--audio-pps") {
            ok = value(&o->audio_pps);
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "bad or unknown argument: %s (see the header of sb_udp_floor.cpp)\n", a.c_str());
            return false;
        }
    }
    return o->players <= 20000;
}

constexpr uint8_t kPayloadByte = 0x5a;
constexpr size_t kRtpHeader = 12;

// Player p's SRTP master key and salt, and its SSRCs: distinct per player.
void player_keys(int p, uint8_t key[SrtpGcmSender::kKeyLength], uint8_t salt[SrtpGcmSender::kSaltLength]) {
    for (size_t i = 0; i < SrtpGcmSender::kKeyLength; i++) key[i] = static_cast<uint8_t>(p * 31 + i * 7 + 1);
    for (size_t i = 0; i < SrtpGcmSender::kSaltLength; i++) salt[i] = static_cast<uint8_t>(p * 17 + i * 5 + 3);
}
uint32_t player_ssrc(int p, bool video) { return 0x10000000u + static_cast<uint32_t>(p) * 2 + (video ? 1 : 0); }

// Whether buf[0, len) is player p's SRTP packet of the floor's payload.
bool verify_first(int p, uint8_t* buf, size_t len) {
    uint8_t key[SrtpGcmSender::kKeyLength], salt[SrtpGcmSender::kSaltLength];
    player_keys(p, key, salt);
    SrtpGcmReceiver r(64);
    size_t out = 0;
    if (Error err = r.initialize(key, sizeof(key), salt, sizeof(salt)); err.failed()) {
        err.ignore();
        return false;
    }
    if (Error err = r.unprotect_rtp(buf, len, &out); err.failed()) {
        err.ignore();
        return false;
    }
    uint32_t ssrc = (static_cast<uint32_t>(buf[8]) << 24) | (static_cast<uint32_t>(buf[9]) << 16) |
                    (static_cast<uint32_t>(buf[10]) << 8) | buf[11];
    if (out <= kRtpHeader || (ssrc != player_ssrc(p, false) && ssrc != player_ssrc(p, true))) return false;
    for (size_t i = kRtpHeader; i < out; i++) {
        if (buf[i] != kPayloadByte) return false;
    }
    return true;
}

// The child: drains the player sockets until its parent closes `control`;
// with `srtp` it then writes the number of players whose first datagram
// decrypted right (4 bytes) to `control`.
[[noreturn]] void receive(const std::vector<int>& fds, int control, bool srtp) {
    int ep = epoll_create1(0);
    for (size_t i = 0; i < fds.size(); i++) {
        epoll_event e{};
        e.events = EPOLLIN | EPOLLET;
        e.data.u32 = static_cast<uint32_t>(i);
        epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
    }
    constexpr uint32_t kControl = UINT32_MAX;
    epoll_event ce{};
    ce.events = EPOLLIN;
    ce.data.u32 = kControl;
    epoll_ctl(ep, EPOLL_CTL_ADD, control, &ce);
    std::vector<uint8_t> checked(fds.size(), 0);
    uint32_t verified = 0;
    static uint8_t bufs[64][2048];
    mmsghdr msgs[64];
    iovec iov[64];
    for (int i = 0; i < 64; i++) {
        iov[i] = {bufs[i], sizeof(bufs[i])};
        memset(&msgs[i], 0, sizeof(msgs[i]));
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    epoll_event ev[256];
    for (;;) {
        int n = epoll_wait(ep, ev, 256, 1000);
        for (int k = 0; k < n; k++) {
            uint32_t p = ev[k].data.u32;
            if (p == kControl) {
                ssize_t w = write(control, &verified, sizeof(verified));
                _exit(w == sizeof(verified) ? 0 : 1);
            }
            int got = 0;
            while ((got = recvmmsg(fds[p], msgs, 64, MSG_DONTWAIT, nullptr)) > 0) {
                if (srtp && !checked[p]) {
                    checked[p] = 1;
                    if (verify_first(static_cast<int>(p), bufs[0], msgs[0].msg_len)) verified++;
                }
            }
        }
    }
}

struct Sender {
    int fd = -1;
    std::vector<sockaddr_in> to;
    std::vector<mmsghdr> msgs;
    std::vector<iovec> iovs;
    std::vector<std::vector<uint8_t>> controls;
    uint64_t packets = 0, messages = 0, errors = 0;

    void reset(size_t messages_max, size_t iov_max) {
        msgs.assign(messages_max, mmsghdr{});
        iovs.assign(iov_max, iovec{});
        controls.assign(messages_max, std::vector<uint8_t>(CMSG_SPACE(sizeof(in_pktinfo)) + CMSG_SPACE(sizeof(uint16_t))));
    }

    // One message to player p: the iovecs [first, first + count), GSO when count > 1.
    void add(size_t m, int p, size_t first, size_t count, uint16_t gso_size) {
        msghdr& h = msgs[m].msg_hdr;
        h = msghdr{};
        h.msg_name = &to[p];
        h.msg_namelen = sizeof(sockaddr_in);
        h.msg_iov = &iovs[first];
        h.msg_iovlen = count;
        uint8_t* c = controls[m].data();
        memset(c, 0, controls[m].size());
        cmsghdr* pk = reinterpret_cast<cmsghdr*>(c);
        pk->cmsg_level = IPPROTO_IP;
        pk->cmsg_type = IP_PKTINFO;
        pk->cmsg_len = CMSG_LEN(sizeof(in_pktinfo));
        in_pktinfo pi{};
        pi.ipi_spec_dst.s_addr = htonl(INADDR_LOOPBACK);
        memcpy(CMSG_DATA(pk), &pi, sizeof(pi));
        size_t len = CMSG_SPACE(sizeof(in_pktinfo));
        if (count > 1) {
            cmsghdr* g = reinterpret_cast<cmsghdr*>(c + len);
            g->cmsg_level = SOL_UDP;
            g->cmsg_type = UDP_SEGMENT;
            g->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            memcpy(CMSG_DATA(g), &gso_size, sizeof(gso_size));
            len += CMSG_SPACE(sizeof(uint16_t));
        }
        h.msg_control = c;
        h.msg_controllen = len;
        packets += count;
    }

    void send(size_t n) {
        for (size_t off = 0; off < n;) {
            int r = sendmmsg(fd, &msgs[off], static_cast<unsigned>(std::min<size_t>(n - off, 64)), 0);
            if (r <= 0) {
                errors++;
                off++;
                continue;
            }
            off += static_cast<size_t>(r);
            messages += static_cast<uint64_t>(r);
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, &o)) return 2;
    std::vector<int> fds;
    Sender s;
    for (int i = 0; i < o.players; i++) {
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int rcvbuf = 1 << 20;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
        socklen_t len = sizeof(a);
        if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0 ||
            getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) < 0) {
            fprintf(stderr, "player socket %d: %s (raise ulimit -n?)\n", i, strerror(errno));
            return 1;
        }
        fds.push_back(fd);
        s.to.push_back(a);
    }
    int control[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, control) < 0) return 1;
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        close(control[0]);
        receive(fds, control[1], o.srtp);
    }
    close(control[1]);
    for (int fd : fds) close(fd);

    // --srtp: one sender per player, and its audio and video sequence numbers.
    std::vector<std::unique_ptr<SrtpGcmSender>> srtp;
    std::vector<uint16_t> seqs;
    if (o.srtp) {
        for (int p = 0; p < o.players; p++) {
            uint8_t key[SrtpGcmSender::kKeyLength], salt[SrtpGcmSender::kSaltLength];
            player_keys(p, key, salt);
            srtp.emplace_back(new SrtpGcmSender());
            if (Error err = srtp.back()->initialize(key, sizeof(key), salt, sizeof(salt)); err.failed()) {
                fprintf(stderr, "SRTP: %s\n", err.describe().c_str());
                return 1;
            }
        }
        seqs.assign(static_cast<size_t>(o.players) * 2, 0);
    }

    s.fd = socket(AF_INET, SOCK_DGRAM, 0);
    int sndbuf = 8 << 20;
    setsockopt(s.fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    sockaddr_in any{};
    any.sin_family = AF_INET;
    if (bind(s.fd, reinterpret_cast<sockaddr*>(&any), sizeof(any)) < 0) return 1;

    // A frame's packets: mtu-sized, the last one shorter; SRTP adds 16 bytes each.
    constexpr int kSrtpTag = 16;
    int frame = std::max(1, o.video_kbps * 1000 / 8 / o.fps);
    std::vector<size_t> video;
    for (int left = frame; left > 0; left -= o.mtu) video.push_back(static_cast<size_t>(std::min(left, o.mtu) + kSrtpTag));
    static uint8_t payload[64][1500];
    memset(payload, 0x5a, sizeof(payload));
    size_t per_frame = std::min<size_t>(video.size(), 64);
    s.reset(static_cast<size_t>(o.players) * per_frame, static_cast<size_t>(o.players) * per_frame);

    // --srtp: the shared RTP packets (header and payload) each player's
    // datagram is encrypted from, and a send buffer per message of a batch.
    constexpr size_t kSlot = 1536;
    std::vector<uint8_t> slots;
    uint8_t audio_src[1500], video_src[1500];
    memset(audio_src, kPayloadByte, sizeof(audio_src));
    memset(video_src, kPayloadByte, sizeof(video_src));
    audio_src[0] = video_src[0] = 0x80;
    audio_src[1] = 111;
    video_src[1] = 96;
    memset(audio_src + 2, 0, kRtpHeader - 2);
    memset(video_src + 2, 0, kRtpHeader - 2);
    if (o.srtp) slots.resize(static_cast<size_t>(o.players) * per_frame * kSlot);
    uint64_t srtp_errors = 0;
    // Player p's datagram from src[0, len) (len: RTP header and payload) into
    // send buffer `slot`: its SSRC and sequence number, then SRTP.
    auto protect = [&](int p, bool is_video, const uint8_t* src, size_t len, size_t slot) -> iovec {
        uint8_t* dst = &slots[slot * kSlot];
        memcpy(dst, src, kRtpHeader);
        uint16_t seq = seqs[static_cast<size_t>(p) * 2 + (is_video ? 1 : 0)]++;
        dst[2] = static_cast<uint8_t>(seq >> 8);
        dst[3] = static_cast<uint8_t>(seq);
        uint32_t ssrc = player_ssrc(p, is_video);
        for (int i = 0; i < 4; i++) dst[8 + i] = static_cast<uint8_t>(ssrc >> (24 - 8 * i));
        size_t out = 0;
        if (Error err = srtp[static_cast<size_t>(p)]->protect_rtp_from(dst, kSlot, src, kRtpHeader, len, &out);
            err.failed()) {
            err.ignore();
            srtp_errors++;
            out = len + kSrtpTag;
        }
        return {dst, out};
    };

    usleep(200 * 1000);  // the child is in epoll_wait
    std::vector<double> fanouts;  // ms per video frame
    double t0 = now_s(), c0 = cpu_s();
    double audio_period = 1.0 / o.audio_pps, video_period = 1.0 / o.fps;
    double next_audio = t0, next_video = t0, end = t0 + o.seconds;
    while (true) {
        double t = std::min(next_audio, next_video);
        if (t >= end) break;
        double wait = t - now_s();
        if (wait > 0) usleep(static_cast<useconds_t>(wait * 1e6));
        size_t m = 0, iov = 0;
        if (next_audio <= next_video) {
            size_t audio_len = static_cast<size_t>(o.audio_size);
            for (int p = 0; p < o.players; p++) {
                s.iovs[iov] = o.srtp ? protect(p, false, audio_src, audio_len, iov)
                                     : iovec{payload[0], audio_len + kSrtpTag};
                s.add(m++, p, iov++, 1, 0);
            }
            next_audio += audio_period;
            s.send(m);
        } else {
            double started = now_s();
            for (int p = 0; p < o.players; p++) {
                size_t first = iov;
                for (size_t k = 0; k < per_frame; k++) {
                    s.iovs[iov] = o.srtp ? protect(p, true, video_src, video[k] - kSrtpTag, iov)
                                         : iovec{payload[k], video[k]};
                    iov++;
                }
                if (o.gso) {
                    s.add(m++, p, first, per_frame, static_cast<uint16_t>(video[0]));
                } else {
                    for (size_t k = 0; k < per_frame; k++) s.add(m++, p, first + k, 1, 0);
                }
            }
            next_video += video_period;
            s.send(m);
            fanouts.push_back((now_s() - started) * 1000.0);
        }
    }
    double cpu = cpu_s() - c0, wall = now_s() - t0;
    // The receiver's count of players verified, then it exits.
    uint32_t verified = 0;
    shutdown(control[0], SHUT_WR);
    pollfd pf{control[0], POLLIN, 0};
    bool counted = poll(&pf, 1, 5000) == 1 && read(control[0], &verified, sizeof(verified)) == sizeof(verified);
    kill(child, SIGTERM);
    waitpid(child, nullptr, 0);
    std::sort(fanouts.begin(), fanouts.end());
    auto pct_of = [&](double q) { return fanouts.empty() ? 0.0 : fanouts[static_cast<size_t>(q * (fanouts.size() - 1))]; };
    double pct = 100.0 * cpu / wall;
    double per_packet_us = s.packets ? cpu * 1e6 / static_cast<double>(s.packets) : 0;
    printf("{\"players\":%d,\"gso\":%s,\"srtp\":%s,\"seconds\":%.3f,\"cpu\":%.2f,\"cpu_per_player\":%.4f,"
           "\"packets_per_player_s\":%.1f,\"messages\":%llu,\"us_per_packet\":%.2f,\"send_errors\":%llu,"
           "\"srtp_errors\":%llu,\"players_verified\":%d,\"video_packets_per_frame\":%zu,"
           "\"frame_fanout_ms\":{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}}\n",
           o.players, o.gso ? "true" : "false", o.srtp ? "true" : "false", wall, pct, pct / o.players,
           static_cast<double>(s.packets) / wall / o.players, static_cast<unsigned long long>(s.messages),
           per_packet_us, static_cast<unsigned long long>(s.errors), static_cast<unsigned long long>(srtp_errors),
           o.srtp && counted ? static_cast<int>(verified) : -1, per_frame, pct_of(0.5), pct_of(0.99),
           fanouts.empty() ? 0.0 : fanouts.back());
    return 0;
}
