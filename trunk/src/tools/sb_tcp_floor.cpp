// sb_tcp_floor: what the kernel alone charges a server for writing one live
// stream to N TCP players on this machine, with nothing else (no chunking,
// no consumer queues, no coroutines): the floor under the server's CPU per
// player in the RTMP and HTTP-FLV play rows of test/bench/run.
//
//   objs/sb_tcp_floor -c 1000 [-t 20] [--settle 0] [--media bench.flv]
//                     [--mw-ms 350] [--video-kbps 530] [--audio-kbps 64] [--fps 25]
//
// A child process connects the N players to the parent over 127.0.0.1 and
// drains them as sb_rtmp_load's players do (epoll, then read until EAGAIN),
// counting what arrives. The parent writes the same byte stream to every
// player: the FLV tags of --media (looped, the file header once) at their
// real-time rate, or without --media a synthetic FLV stream of the given
// bitrate and frame rate. Like the server with SRS's mw_latency, it wakes
// once per merged-write period (--mw-ms, default 350) and sends each player
// the tags that came due in one writev (one iovec per tag; --mw-ms 0: at
// every tag's time). A player whose socket is full keeps its place and gets
// the rest in the next period, as the server's queue would hold it.
//
// Its own CPU (getrusage: user + system, which includes the loopback
// delivery) from --settle s after the players joined to the end is the
// result, printed as one JSON line with the bytes written and received.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
    int players = 100;
    double seconds = 10;
    double settle = 0;
    int mw_ms = 350;
    std::string media;
    int video_kbps = 530;
    int audio_kbps = 64;
    int fps = 25;
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
        bool has = i + 1 < argc;
        auto positive = [&](int* out, int min) {
            if (!has) return false;
            *out = atoi(argv[++i]);
            return *out >= min;
        };
        bool ok = true;
        if (a == "-c") {
            ok = positive(&o->players, 1) && o->players <= 20000;
        } else if (a == "-t" || a == "--settle") {
            int v = 0;
            ok = positive(&v, a == "-t" ? 1 : 0);
            (a == "-t" ? o->seconds : o->settle) = v;
        } else if (a == "--mw-ms") {
            ok = positive(&o->mw_ms, 0) && o->mw_ms <= 10000;
        } else if (a == "--media" && has) {
            o->media = argv[++i];
        } else if (a == "--video-kbps") {
            ok = positive(&o->video_kbps, 1);
        } else if (a == "--audio-kbps") {
            ok = positive(&o->audio_kbps, 0);
        } else if (a == "--fps") {
            ok = positive(&o->fps, 1) && o->fps <= 240;
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "bad or unknown argument: %s (see the header of sb_tcp_floor.cpp)\n", a.c_str());
            return false;
        }
    }
    return true;
}

uint32_t be24(const uint8_t* p) { return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2]; }

void put_tag(std::vector<uint8_t>* out, uint8_t type, uint32_t ms, size_t size) {
    uint8_t h[11] = {type,
                     uint8_t(size >> 16), uint8_t(size >> 8), uint8_t(size),
                     uint8_t(ms >> 16), uint8_t(ms >> 8), uint8_t(ms), uint8_t(ms >> 24),
                     0, 0, 0};
    out->insert(out->end(), h, h + 11);
    out->resize(out->size() + size, 0x5a);
    uint32_t prev = static_cast<uint32_t>(11 + size);
    uint8_t p[4] = {uint8_t(prev >> 24), uint8_t(prev >> 16), uint8_t(prev >> 8), uint8_t(prev)};
    out->insert(out->end(), p, p + 4);
}

// The stream: FLV file bytes, and where each tag (header, body and the
// PreviousTagSize after it) starts, with its time.
struct Stream {
    std::vector<uint8_t> bytes;
    size_t header = 13;  // the file header and PreviousTagSize0: sent once
    std::vector<size_t> offset;
    std::vector<uint32_t> ms;
    double duration = 0;  // s of one loop

    size_t size_of(size_t k) const { return (k + 1 < offset.size() ? offset[k + 1] : bytes.size()) - offset[k]; }
};

// Ten seconds of audio every 23 ms and video every frame, zero-filled bodies.
void synthesize(const Options& o, Stream* s) {
    const uint8_t head[13] = {'F', 'L', 'V', 1, 5, 0, 0, 0, 9, 0, 0, 0, 0};
    s->bytes.assign(head, head + 13);
    double video_ms = 1000.0 / o.fps, audio_ms = 1024 * 1000.0 / 44100;
    size_t frame = std::max(1, o.video_kbps * 1000 / 8 / o.fps);
    size_t audio = static_cast<size_t>(o.audio_kbps * 1000 / 8 * audio_ms / 1000);
    double va = 0, aa = 0;
    while (va < 10000) {
        bool video = o.audio_kbps == 0 || va <= aa;
        s->offset.push_back(s->bytes.size());
        uint32_t t = static_cast<uint32_t>(video ? va : aa);
        s->ms.push_back(t);
        put_tag(&s->bytes, video ? 9 : 8, t, video ? frame : std::max<size_t>(audio, 1));
        (video ? va : aa) += video ? video_ms : audio_ms;
    }
    s->duration = 10;
}

bool load(const std::string& path, Stream* s) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) return false;
    uint8_t buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;) s->bytes.insert(s->bytes.end(), buf, buf + n);
    fclose(f);
    const std::vector<uint8_t>& b = s->bytes;
    if (b.size() < 13 || memcmp(b.data(), "FLV", 3) != 0) return false;
    s->header = be24(&b[5]) * 256 + b[8] + 4;
    uint32_t last = 0;
    for (size_t p = s->header; p + 15 <= b.size();) {
        size_t size = be24(&b[p + 1]);
        if (p + 15 + size > b.size()) break;
        uint32_t t = be24(&b[p + 4]) | (uint32_t(b[p + 7]) << 24);
        s->offset.push_back(p);
        s->ms.push_back(t);
        last = std::max(last, t);
        p += 15 + size;
    }
    if (s->offset.empty()) return false;
    s->bytes.resize(s->offset.back() + s->size_of(s->offset.size() - 1));
    s->duration = last / 1000.0 + 0.04;  // the last frame lasts one more frame
    return true;
}

// The child: connects the players and drains them until SIGTERM, then
// writes the bytes it read to `report`.
[[noreturn]] void receive(int players, uint16_t port, int report) {
    static volatile sig_atomic_t stop = 0;
    signal(SIGTERM, [](int) { stop = 1; });
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    int ep = epoll_create1(0);
    std::vector<int> fds;
    for (int i = 0; i < players; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0) {
            fprintf(stderr, "player %d: %s (raise ulimit -n?)\n", i, strerror(errno));
            _exit(1);
        }
        fcntl(fd, F_SETFL, O_NONBLOCK);
        epoll_event e{};
        e.events = EPOLLIN;
        e.data.u32 = static_cast<uint32_t>(fds.size());
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
        fds.push_back(fd);
    }
    static uint8_t buf[64 * 1024];
    uint64_t bytes = 0;
    epoll_event ev[256];
    while (!stop) {
        int n = epoll_wait(ep, ev, 256, 200);
        for (int k = 0; k < n; k++) {
            ssize_t r;
            while ((r = read(fds[ev[k].data.u32], buf, sizeof(buf))) > 0) bytes += static_cast<uint64_t>(r);
        }
    }
    for (int fd : fds) {  // what is still in flight counts too
        ssize_t r;
        while ((r = read(fd, buf, sizeof(buf))) > 0) bytes += static_cast<uint64_t>(r);
    }
    ssize_t w = write(report, &bytes, sizeof(bytes));
    _exit(w == sizeof(bytes) ? 0 : 1);
}

// Where a player is in the endless stream: the next tag (counted across
// loops) and how much of it already left.
struct Player {
    int fd = -1;
    uint64_t tag = 0;
    size_t done = 0;
    bool header_sent = false;
};

struct Counters {
    uint64_t bytes = 0, writes = 0, partial = 0, errors = 0;
};

// Writes to p everything due up to tag `end` (exclusive), one writev of at
// most IOV_MAX iovecs per call; stops at a full socket.
void flush(const Stream& s, uint64_t end, Player* p, std::vector<iovec>* iov, Counters* c) {
    size_t tags = s.offset.size();
    while (p->tag < end || !p->header_sent) {
        iov->clear();
        if (!p->header_sent) iov->push_back({const_cast<uint8_t*>(s.bytes.data()), s.header});
        for (uint64_t k = p->tag; k < end && iov->size() < 1024; k++) {
            size_t i = static_cast<size_t>(k % tags), skip = k == p->tag ? p->done : 0;
            iov->push_back({const_cast<uint8_t*>(s.bytes.data() + s.offset[i] + skip), s.size_of(i) - skip});
        }
        ssize_t n = writev(p->fd, iov->data(), static_cast<int>(iov->size()));
        c->writes++;
        if (n < 0) {
            if (errno != EAGAIN) c->errors++;
            return;
        }
        c->bytes += static_cast<uint64_t>(n);
        size_t left = static_cast<size_t>(n);
        if (!p->header_sent) {
            if (left < s.header) {  // too small to happen on a fresh socket
                c->errors++;
                return;
            }
            left -= s.header;
            p->header_sent = true;
        }
        while (left > 0) {
            size_t rest = s.size_of(static_cast<size_t>(p->tag % tags)) - p->done;
            if (left < rest) {
                p->done += left;
                left = 0;
            } else {
                left -= rest;
                p->tag++;
                p->done = 0;
            }
        }
        if (p->tag < end) {
            c->partial++;
            return;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, &o)) return 2;
    Stream s;
    if (o.media.empty()) {
        synthesize(o, &s);
    } else if (!load(o.media, &s)) {
        fprintf(stderr, "%s: not a readable FLV file with tags\n", o.media.c_str());
        return 1;
    }
    rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
    }
    signal(SIGPIPE, SIG_IGN);

    int ls = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof(a);
    if (ls < 0 || bind(ls, reinterpret_cast<sockaddr*>(&a), sizeof(a)) < 0 || listen(ls, 4096) < 0 ||
        getsockname(ls, reinterpret_cast<sockaddr*>(&a), &alen) < 0) {
        perror("listen");
        return 1;
    }
    int pipe_fds[2];
    if (pipe(pipe_fds) < 0) return 1;
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        close(ls);
        close(pipe_fds[0]);
        receive(o.players, ntohs(a.sin_port), pipe_fds[1]);
    }
    close(pipe_fds[1]);
    std::vector<Player> players(static_cast<size_t>(o.players));
    for (Player& p : players) {
        p.fd = accept4(ls, nullptr, nullptr, SOCK_NONBLOCK);
        if (p.fd < 0) {
            fprintf(stderr, "accept: %s\n", strerror(errno));
            kill(child, SIGKILL);
            waitpid(child, nullptr, 0);
            return 1;
        }
        int one = 1;  // as the server with tcp_nodelay off is not: a batch is one writev anyway
        setsockopt(p.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    close(ls);

    // Tag k (counted across loops) is due at start + its time + k's loop.
    size_t tags = s.offset.size();
    auto due = [&](uint64_t k) {
        return static_cast<double>(k / tags) * s.duration + s.ms[static_cast<size_t>(k % tags)] / 1000.0;
    };
    double t0 = now_s(), measure_from = t0 + o.settle, end = measure_from + o.seconds;
    double c0 = 0, m0 = 0;
    bool measuring = o.settle <= 0;
    if (measuring) c0 = cpu_s(), m0 = t0;
    Counters c, before;
    std::vector<iovec> iov;
    iov.reserve(1100);
    uint64_t next = 0;  // the first tag not yet due
    double period = o.mw_ms / 1000.0;
    while (true) {
        double t = now_s();
        if (t >= end) break;
        if (!measuring && t >= measure_from) {
            measuring = true;
            c0 = cpu_s();
            m0 = t;
            before = c;
        }
        while (due(next) <= t - t0) next++;
        for (Player& p : players) flush(s, next, &p, &iov, &c);
        // Sleep to the next period, or with --mw-ms 0 to the next tag.
        double wake = o.mw_ms > 0 ? t + period : t0 + due(next);
        wake = std::min(wake, end);
        double wait = wake - now_s();
        if (wait > 0) usleep(static_cast<useconds_t>(wait * 1e6));
    }
    double cpu = cpu_s() - c0, wall = now_s() - m0;
    kill(child, SIGTERM);
    uint64_t received = 0;
    if (read(pipe_fds[0], &received, sizeof(received)) != sizeof(received)) received = 0;
    waitpid(child, nullptr, 0);
    uint64_t behind = 0;
    for (const Player& p : players) {
        if (p.tag + 1 < next) behind++;
        close(p.fd);
    }
    double pct = 100.0 * cpu / wall;
    double total = now_s() - t0;
    printf("{\"players\":%d,\"mw_ms\":%d,\"seconds\":%.3f,\"cpu\":%.2f,\"cpu_per_player\":%.5f,"
           "\"bytes_sent\":%llu,\"bytes_received\":%llu,\"kbps_per_player\":%.1f,\"writes\":%llu,"
           "\"partial_writes\":%llu,\"write_errors\":%llu,\"players_behind\":%llu,\"tags\":%llu}\n",
           o.players, o.mw_ms, wall, pct, pct / o.players, static_cast<unsigned long long>(c.bytes),
           static_cast<unsigned long long>(received),
           static_cast<double>(c.bytes) * 8 / 1000 / total / o.players,
           static_cast<unsigned long long>(c.writes - before.writes),
           static_cast<unsigned long long>(c.partial - before.partial), static_cast<unsigned long long>(c.errors),
           static_cast<unsigned long long>(behind), static_cast<unsigned long long>(next));
    return received == c.bytes && c.errors == 0 ? 0 : 1;
}
