// sb_rtmp_load: many RTMP players in one process, one coroutine each, every
// one checking what it receives.
//
//   sb_rtmp_load -c 1000 -r rtmp://127.0.0.1:1935/live/livestream -t 60 --json
//
// A player connects, plays, and then only reads: the chunk stream must parse,
// the first coded video frame of a session must be a keyframe that follows a
// sequence header, and audio and video timestamps must never go backwards. It
// counts bytes, frames, keyframes and failures (by kind); a failed session is
// retried after -e ms, a session the server ended after -d ms. Every -m ms one
// report line; at the end (-t seconds, or SIGINT/SIGTERM) a summary, and with
// --json one JSON object as the last line of stdout. docs/tools.md has it all.
//
// Memory per player: the Player below (a few hundred bytes), the coroutine's
// stack (touched pages only), and while connected the RtmpClient with its one
// read buffer; messages are decoded in place, nothing is copied per message.
#include <getopt.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/rtmp_client.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "io/signal_pipe.hpp"
#include "kernel/media_codec.hpp"

using namespace srs;

namespace {

struct Options {
    int clients = 1;
    std::string url;
    int startup_spread_ms = 0;
    int delay_ms = 1000;
    int error_sleep_ms = 3000;
    int report_ms = 5000;
    double duration_s = 0;  // 0: until a signal
    int timeout_ms = 10000;
    bool json = false;
};

// Failure kinds, as rtmp_client_error_kind() names them.
const char* const kErrorKinds[] = {"connect", "timeout", "closed", "io", "rejected",
                                   "handshake", "protocol", "other"};
constexpr int kErrorKindCount = sizeof(kErrorKinds) / sizeof(kErrorKinds[0]);

int error_kind_index(const char* kind) {
    for (int i = 0; i < kErrorKindCount; i++) {
        if (strcmp(kErrorKinds[i], kind) == 0) return i;
    }
    return kErrorKindCount - 1;
}

// Everything one player counts, over all its sessions.
struct PlayerStats {
    uint64_t bytes = 0;          // received, sessions before the current one
    uint64_t session_bytes = 0;  // received in the current session
    uint64_t messages = 0;
    uint32_t video_frames = 0;   // coded frames (sequence headers not counted)
    uint32_t audio_frames = 0;
    uint32_t sequence_headers = 0;
    uint32_t keyframes = 0;
    uint32_t data_messages = 0;  // metadata, |RtmpSampleAccess, onStatus...
    uint32_t sessions = 0;       // plays that reached NetStream.Play.Start
    uint32_t reconnects = 0;
    uint32_t ts_violations = 0;  // a timestamp lower than the one before (same type)
    uint32_t keyframe_bad = 0;   // sessions whose first coded video was not a keyframe after a header
    uint32_t keyframe_ok = 0;    // sessions whose first coded video was
    uint16_t errors[kErrorKindCount] = {};
    bool alive = false;
    bool failed = false;  // at least one session ended in an error
};

// Shared by all players: first N error lines per report period are logged.
struct ErrorLog {
    int budget = 10;
    int suppressed = 0;
};

bool g_stopping = false;

class Player : public CoroutineHandler {
  public:
    Player(int index, const Options* opt, ErrorLog* log)
        : index_(index), opt_(opt), log_(log), co_("player", this) {}
    Error start() { return co_.start(); }
    void interrupt() { co_.interrupt(); }
    void stop() { co_.stop(); }
    const PlayerStats& stats() const { return stats_; }

  private:
    Error cycle() override;
    Error session();
    void on_video(const RtmpMessage& msg);
    void on_audio(const RtmpMessage& msg);
    void count_error(const Error& err);

    int index_;
    const Options* opt_;
    ErrorLog* log_;
    PlayerStats stats_;
    Coroutine co_;
    // Per-session verification state.
    bool have_video_ts_ = false;
    bool have_audio_ts_ = false;
    uint32_t last_video_ts_ = 0;
    uint32_t last_audio_ts_ = 0;
    bool seen_video_header_ = false;
    bool first_video_checked_ = false;
};

std::string url_for(const std::string& url, int index) {
    size_t pos = url.find("%d");
    if (pos == std::string::npos) return url;
    return url.substr(0, pos) + std::to_string(index) + url.substr(pos + 2);
}

Error Player::cycle() {
    if (opt_->startup_spread_ms > 0 && opt_->clients > 1) {
        utime_t offset = (utime_t)opt_->startup_spread_ms * kUsPerMs * index_ / opt_->clients;
        if (Error err = sleep_us(offset); !err.ok()) {
            err.ignore();  // stopped before starting
            return Error();
        }
    }
    while (!g_stopping) {
        if (Error err = co_.pull(); !err.ok()) {
            err.ignore();
            break;
        }
        Error err = session();
        stats_.alive = false;
        stats_.bytes += stats_.session_bytes;
        stats_.session_bytes = 0;
        if (g_stopping || err.code() == kErrorThreadInterrupted) {
            err.ignore();
            break;
        }
        bool failed = !err.ok();
        if (failed) count_error(err);
        err.ignore();
        if (Error e = sleep_us((failed ? opt_->error_sleep_ms : opt_->delay_ms) * kUsPerMs); !e.ok()) {
            e.ignore();
            break;
        }
        stats_.reconnects++;
    }
    return Error();
}

void Player::count_error(const Error& err) {
    const char* kind = rtmp_client_error_kind(err);
    int i = error_kind_index(kind);
    if (stats_.errors[i] < UINT16_MAX) stats_.errors[i]++;
    stats_.failed = true;
    if (log_->budget > 0) {
        log_->budget--;
        srs_warn("player %d: %s: %s", index_, kind, err.summary().c_str());
    } else {
        log_->suppressed++;
    }
}

Error Player::session() {
    have_video_ts_ = have_audio_ts_ = false;
    seen_video_header_ = first_video_checked_ = false;

    // On the heap only while connected: a waiting player holds no buffer.
    std::unique_ptr<RtmpClient> client(new RtmpClient());
    const std::string url = url_for(opt_->url, index_);
    if (Error err = client->connect(url, opt_->timeout_ms * kUsPerMs); !err.ok()) return err;
    if (Error err = client->play(); !err.ok()) return err;
    stats_.sessions++;
    stats_.alive = true;

    RtmpMessage msg;
    while (true) {
        Error err = client->recv_message(&msg);
        stats_.session_bytes = client->bytes_in();
        if (!err.ok()) {
            if (err.code() == kErrorSocketClosed) {
                // The server ended the session (stream gone, kicked): a normal end.
                err.ignore();
                return Error();
            }
            return err;
        }
        stats_.messages++;
        switch (msg.type) {
            case kRtmpVideo: on_video(msg); break;
            case kRtmpAudio: on_audio(msg); break;
            default: stats_.data_messages++; break;
        }
    }
}

void Player::on_video(const RtmpMessage& msg) {
    if (have_video_ts_ && msg.timestamp < last_video_ts_) {
        stats_.ts_violations++;
        if (getenv("SB_DEBUG")) fprintf(stderr, "video ts %u after %u\n", msg.timestamp, last_video_ts_);
    }
    have_video_ts_ = true;
    last_video_ts_ = msg.timestamp;
    const uint8_t* p = msg.payload.data();
    const size_t n = msg.payload.size();
    if (n == 0) return;  // an empty video message carries nothing to check
    if (is_video_sequence_header(p, n)) {
        seen_video_header_ = true;
        stats_.sequence_headers++;
        return;
    }
    const bool key = is_video_keyframe(p, n);
    stats_.video_frames++;
    if (key) stats_.keyframes++;
    if (!first_video_checked_) {
        first_video_checked_ = true;
        if (key && seen_video_header_) stats_.keyframe_ok++;
        else stats_.keyframe_bad++;
    }
}

void Player::on_audio(const RtmpMessage& msg) {
    if (have_audio_ts_ && msg.timestamp < last_audio_ts_) {
        stats_.ts_violations++;
        if (getenv("SB_DEBUG")) fprintf(stderr, "audio ts %u after %u\n", msg.timestamp, last_audio_ts_);
    }
    have_audio_ts_ = true;
    last_audio_ts_ = msg.timestamp;
    const uint8_t* p = msg.payload.data();
    const size_t n = msg.payload.size();
    if (n == 0) return;
    if (is_audio_sequence_header(p, n)) {
        stats_.sequence_headers++;
        return;
    }
    stats_.audio_frames++;
}

// Sums over all players.
struct Totals {
    int clients = 0;
    int alive = 0;
    int failed = 0;
    uint64_t bytes = 0;
    uint64_t messages = 0;
    uint64_t video_frames = 0;
    uint64_t audio_frames = 0;
    uint64_t keyframes = 0;
    uint64_t data_messages = 0;
    uint64_t sessions = 0;
    uint64_t reconnects = 0;
    uint64_t ts_violations = 0;
    int first_video_keyframe_ok = 0;  // players with at least one checked session and no bad one
    uint64_t keyframe_bad = 0;
    uint64_t errors[kErrorKindCount] = {};
    uint64_t error_total = 0;
    uint32_t video_min = 0;
    uint32_t video_max = 0;
};

Totals sum(const std::vector<std::unique_ptr<Player>>& players) {
    Totals t;
    t.clients = static_cast<int>(players.size());
    bool first = true;
    for (const auto& p : players) {
        const PlayerStats& s = p->stats();
        t.alive += s.alive;
        t.failed += s.failed;
        t.bytes += s.bytes + s.session_bytes;
        t.messages += s.messages;
        t.video_frames += s.video_frames;
        t.audio_frames += s.audio_frames;
        t.keyframes += s.keyframes;
        t.data_messages += s.data_messages;
        t.sessions += s.sessions;
        t.reconnects += s.reconnects;
        t.ts_violations += s.ts_violations;
        t.keyframe_bad += s.keyframe_bad;
        if (s.keyframe_ok > 0 && s.keyframe_bad == 0) t.first_video_keyframe_ok++;
        for (int i = 0; i < kErrorKindCount; i++) {
            t.errors[i] += s.errors[i];
            t.error_total += s.errors[i];
        }
        t.video_min = first ? s.video_frames : std::min(t.video_min, s.video_frames);
        t.video_max = first ? s.video_frames : std::max(t.video_max, s.video_frames);
        first = false;
    }
    return t;
}

std::string now_text() {
    utime_t us = wall_us();
    time_t sec = static_cast<time_t>(us / kUsPerSecond);
    struct tm tm;
    localtime_r(&sec, &tm);
    char buf[64];
    size_t n = strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf + n, sizeof(buf) - n, ".%03d", static_cast<int>((us % kUsPerSecond) / kUsPerMs));
    return buf;
}

std::string errors_json(const Totals& t) {
    std::string s = "{";
    for (int i = 0; i < kErrorKindCount; i++) {
        if (i) s += ",";
        s += "\"" + std::string(kErrorKinds[i]) + "\":" + std::to_string(t.errors[i]);
    }
    return s + "}";
}

void usage(const char* argv0) {
    printf("Usage: %s -c CLIENTS -r URL [options]\n"
           "  -c CLIENTS   players to run (default 1)\n"
           "  -r URL       rtmp://ip[:port]/app/stream[?params]; %%d is replaced by the player index\n"
           "  -s MS        spread the players' start over MS milliseconds (default 0: all at once)\n"
           "  -d MS        wait before playing again after the server ended a session (default 1000)\n"
           "  -e MS        wait before retrying after a failed session (default 3000)\n"
           "  -m MS        report interval (default 5000)\n"
           "  -t SECONDS   run time; 0 runs until SIGINT/SIGTERM (default 0)\n"
           "  --timeout MS connect/receive timeout of a player (default 10000)\n"
           "  --json       print the summary as one JSON object on the last line\n"
           "Exit code: 0, or 1 when a verification failed (timestamps going back, a session\n"
           "starting without a keyframe, a malformed chunk stream), 2 for bad arguments.\n",
           argv0);
}

int parse_int(const char* s, const char* what, int min) {
    char* end = nullptr;
    long v = strtol(s, &end, 10);
    if (!end || *end || v < min || v > 100000000) {
        fprintf(stderr, "bad %s: %s\n", what, s);
        exit(2);
    }
    return static_cast<int>(v);
}

Options parse_options(int argc, char** argv) {
    Options opt;
    static const struct option kLong[] = {{"json", no_argument, nullptr, 'j'},
                                          {"timeout", required_argument, nullptr, 'o'},
                                          {"help", no_argument, nullptr, 'h'},
                                          {nullptr, 0, nullptr, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "c:r:s:d:e:m:t:h", kLong, nullptr)) != -1) {
        switch (c) {
            case 'c': opt.clients = parse_int(optarg, "-c", 1); break;
            case 'r': opt.url = optarg; break;
            case 's': opt.startup_spread_ms = parse_int(optarg, "-s", 0); break;
            case 'd': opt.delay_ms = parse_int(optarg, "-d", 0); break;
            case 'e': opt.error_sleep_ms = parse_int(optarg, "-e", 0); break;
            case 'm': opt.report_ms = parse_int(optarg, "-m", 1); break;
            case 't': {
                char* end = nullptr;
                opt.duration_s = strtod(optarg, &end);
                if (!end || *end || opt.duration_s < 0) {
                    fprintf(stderr, "bad -t: %s\n", optarg);
                    exit(2);
                }
                break;
            }
            case 'o': opt.timeout_ms = parse_int(optarg, "--timeout", 1); break;
            case 'j': opt.json = true; break;
            case 'h': usage(argv[0]); exit(0);
            default: usage(argv[0]); exit(2);
        }
    }
    if (opt.url.empty()) {
        usage(argv[0]);
        exit(2);
    }
    return opt;
}

void raise_fd_limit(int clients) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur != RLIM_INFINITY && static_cast<rlim_t>(clients) + 32 > rl.rlim_cur) {
        fprintf(stderr, "warning: %d players but only %llu file descriptors\n", clients,
                static_cast<unsigned long long>(rl.rlim_cur));
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    raise_fd_limit(opt.clients);
    if (Error err = init_runtime(); !err.ok()) {
        fprintf(stderr, "runtime: %s\n", err.describe().c_str());
        return 2;
    }
    SignalPipe signals;
    if (Error err = signals.open({SIGINT, SIGTERM}); !err.ok()) {
        fprintf(stderr, "signals: %s\n", err.describe().c_str());
        return 2;
    }
    RtmpRequestInfo probe;
    if (Error err = parse_rtmp_url(url_for(opt.url, 0), &probe); !err.ok()) {
        fprintf(stderr, "bad url %s: %s\n", opt.url.c_str(), err.summary().c_str());
        return 2;
    }
    if (!is_ip_literal(probe.host)) {
        fprintf(stderr, "bad url %s: the host must be an IP address (no DNS)\n", opt.url.c_str());
        return 2;
    }

    ErrorLog error_log;
    std::vector<std::unique_ptr<Player>> players;
    players.reserve(opt.clients);
    for (int i = 0; i < opt.clients; i++) {
        players.emplace_back(new Player(i, &opt, &error_log));
        if (Error err = players.back()->start(); !err.ok()) {
            fprintf(stderr, "start player %d: %s\n", i, err.summary().c_str());
            return 2;
        }
    }
    printf("[%s] sb_rtmp_load: %d players of %s, report every %d ms, run %g s (0: until SIGINT)\n",
           now_text().c_str(), opt.clients, opt.url.c_str(), opt.report_ms, opt.duration_s);
    fflush(stdout);

    const utime_t start = monotonic_us();
    const utime_t deadline = opt.duration_s > 0 ? start + static_cast<utime_t>(opt.duration_s * kUsPerSecond) : -1;
    utime_t next_report = start + opt.report_ms * kUsPerMs;
    utime_t last_report = start;
    uint64_t last_bytes = 0;
    uint64_t last_msgs = 0;
    while (true) {
        utime_t now = monotonic_us();
        if (deadline > 0 && now >= deadline) break;
        utime_t wake = deadline > 0 ? std::min(deadline, next_report) : next_report;
        int signo = 0;
        if (Error err = signals.wait(&signo, std::max<utime_t>(wake - now, 0)); !err.ok()) {
            err.ignore();
            break;
        }
        if (signo) {
            printf("[%s] signal %d: stopping\n", now_text().c_str(), signo);
            break;
        }
        now = monotonic_us();
        if (now >= next_report) {
            Totals t = sum(players);
            utime_t span = std::max<utime_t>(now - last_report, 1);
            int kbps = static_cast<int>((t.bytes - last_bytes) * 8 * 1000 / static_cast<uint64_t>(span));
            printf("[%s] clients=%d alive=%d, time=%ds, msgs=%" PRIu64 " (+%" PRIu64 "), video=%" PRIu64
                   ", audio=%" PRIu64 ", kbps=%d, errors=%" PRIu64 ", reconnects=%" PRIu64 ", verify=%s\n",
                   now_text().c_str(), t.clients, t.alive, static_cast<int>((now - start) / kUsPerSecond), t.messages,
                   t.messages - last_msgs, t.video_frames, t.audio_frames, kbps, t.error_total, t.reconnects,
                   (t.ts_violations || t.keyframe_bad || t.errors[error_kind_index("protocol")]) ? "FAIL" : "ok");
            if (error_log.suppressed) printf("  (%d more errors not logged)\n", error_log.suppressed);
            fflush(stdout);
            error_log.budget = 10;
            error_log.suppressed = 0;
            last_report = now;
            last_bytes = t.bytes;
            last_msgs = t.messages;
            next_report += opt.report_ms * kUsPerMs;
            if (next_report <= now) next_report = now + opt.report_ms * kUsPerMs;
        }
    }

    // Who is alive is read before the players are stopped.
    g_stopping = true;
    Totals at_end = sum(players);
    for (auto& p : players) p->interrupt();
    for (auto& p : players) p->stop();
    Totals t = sum(players);
    t.alive = at_end.alive;
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const uint64_t kbps = t.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);
    const bool verify_failed = t.ts_violations > 0 || t.keyframe_bad > 0 || t.errors[error_kind_index("protocol")] > 0;

    printf("[%s] summary: %.1f s, clients=%d alive=%d failed=%d sessions=%" PRIu64 " reconnects=%" PRIu64 "\n",
           now_text().c_str(), elapsed / 1e6, t.clients, t.alive, t.failed, t.sessions, t.reconnects);
    printf("  received %" PRIu64 " bytes (%" PRIu64 " kbps), %" PRIu64 " messages: video %" PRIu64
           " (keyframes %" PRIu64 "), audio %" PRIu64 ", data %" PRIu64 "\n",
           t.bytes, kbps, t.messages, t.video_frames, t.keyframes, t.audio_frames, t.data_messages);
    printf("  video frames per player: min %u, max %u\n", t.video_min, t.video_max);
    printf("  verify: first video is a keyframe for %d/%d players (%" PRIu64 " bad sessions), timestamp "
           "violations %" PRIu64 ": %s\n",
           t.first_video_keyframe_ok, t.clients, t.keyframe_bad, t.ts_violations, verify_failed ? "FAIL" : "ok");
    printf("  errors %" PRIu64 ":", t.error_total);
    for (int i = 0; i < kErrorKindCount; i++) {
        if (t.errors[i]) printf(" %s=%" PRIu64, kErrorKinds[i], t.errors[i]);
    }
    printf("\n");
    if (opt.json) {
        printf("{\"clients\":%d,\"alive\":%d,\"failed\":%d,\"bytes\":%" PRIu64 ",\"kbps\":%" PRIu64
               ",\"elapsed_ms\":%" PRId64 ",\"msgs\":%" PRIu64 ",\"video_frames\":%" PRIu64
               ",\"audio_frames\":%" PRIu64 ",\"keyframes\":%" PRIu64 ",\"data_messages\":%" PRIu64
               ",\"sessions\":%" PRIu64 ",\"reconnects\":%" PRIu64 ",\"first_video_keyframe_ok\":%d"
               ",\"first_video_keyframe_bad\":%" PRIu64 ",\"ts_monotonic_violations\":%" PRIu64
               ",\"errors\":%s,\"per_client_video_frames_min\":%u,\"per_client_video_frames_max\":%u"
               ",\"verify_ok\":%s}\n",
               t.clients, t.alive, t.failed, t.bytes, kbps, static_cast<int64_t>(elapsed / kUsPerMs), t.messages,
               t.video_frames, t.audio_frames, t.keyframes, t.data_messages, t.sessions, t.reconnects,
               t.first_video_keyframe_ok, t.keyframe_bad, t.ts_violations, errors_json(t).c_str(), t.video_min,
               t.video_max, verify_failed ? "false" : "true");
    }
    fflush(stdout);
    return verify_failed ? 1 : 0;
}
