// sb_udp_floor: what the kernel alone charges a server for sending one
// WebRTC stream's datagrams to N players on this machine, with nothing else
// (no SRTP, no session, no RTCP): the floor under the server's CPU per player
// in test/bench/rtc_play_bench.py.
//
//   objs/sb_udp_floor -c 200 [-t 10] [--gso] [--video-kbps 530] [--fps 25]
//                     [--mtu 1200] [--audio-size 160] [--audio-pps 50]
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
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
    int players = 100;
    double seconds = 10;
    bool gso = false;
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

// The child: drains the player sockets until its parent says stop (SIGTERM).
[[noreturn]] void receive(const std::vector<int>& fds) {
    int ep = epoll_create1(0);
    for (size_t i = 0; i < fds.size(); i++) {
        epoll_event e{};
        e.events = EPOLLIN | EPOLLET;
        e.data.u32 = static_cast<uint32_t>(i);
        epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e);
    }
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
            while (recvmmsg(fds[ev[k].data.u32], msgs, 64, MSG_DONTWAIT, nullptr) > 0) {
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
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) receive(fds);
    for (int fd : fds) close(fd);

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

    usleep(200 * 1000);  // the child is in epoll_wait
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
            for (int p = 0; p < o.players; p++) {
                s.iovs[iov] = {payload[0], static_cast<size_t>(o.audio_size + kSrtpTag)};
                s.add(m++, p, iov++, 1, 0);
            }
            next_audio += audio_period;
        } else {
            for (int p = 0; p < o.players; p++) {
                size_t first = iov;
                for (size_t k = 0; k < per_frame; k++) s.iovs[iov++] = {payload[k], video[k]};
                if (o.gso) {
                    s.add(m++, p, first, per_frame, static_cast<uint16_t>(video[0]));
                } else {
                    for (size_t k = 0; k < per_frame; k++) s.add(m++, p, first + k, 1, 0);
                }
            }
            next_video += video_period;
        }
        s.send(m);
    }
    double cpu = cpu_s() - c0, wall = now_s() - t0;
    kill(child, SIGTERM);
    waitpid(child, nullptr, 0);
    double pct = 100.0 * cpu / wall;
    double per_packet_us = s.packets ? cpu * 1e6 / static_cast<double>(s.packets) : 0;
    printf("{\"players\":%d,\"gso\":%s,\"seconds\":%.3f,\"cpu\":%.2f,\"cpu_per_player\":%.4f,"
           "\"packets_per_player_s\":%.1f,\"messages\":%llu,\"us_per_packet\":%.2f,\"send_errors\":%llu,"
           "\"video_packets_per_frame\":%zu}\n",
           o.players, o.gso ? "true" : "false", wall, pct, pct / o.players,
           static_cast<double>(s.packets) / wall / o.players, static_cast<unsigned long long>(s.messages),
           per_packet_us, static_cast<unsigned long long>(s.errors), per_frame);
    return 0;
}
