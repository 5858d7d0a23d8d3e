// tool_common.hpp: what the load tools (sb_rtmp_load, sb_rtmp_publish,
// sb_http_load) share. The options they take, the failure kinds they count, a
// client coroutine that runs sessions and retries them, and the run: start the
// clients, print a report line every -m ms until -t seconds or SIGINT/SIGTERM,
// stop them, sum up.
//
// Header-only on purpose: the Makefile builds every research/tools/*.cpp into
// a binary of its own, so a shared .cpp would become a tool. Each tool is one
// translation unit, so the inline definitions here exist once per binary.
#pragma once

#include <getopt.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "app/upstream/rtmp_client.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "io/signal_pipe.hpp"
#include "kernel/flv/flv.hpp"
#include "kernel/codec/media_codec.hpp"
#include "protocol/rtmp/rtmp_command.hpp"
#include "protocol/rtmp/rtmp_url.hpp"

namespace srs::tool {

// The options both tools take; a tool's Options derive from it and add theirs.
struct ToolOptions {
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

// An integer argument in [min, max]; anything else ends the tool with exit code 2.
inline int parse_int(const char* s, const char* what, int min, int max = 100000000) {
    int v = 0;
    if (!parse_integer(s, min, max, &v)) {
        fprintf(stderr, "bad %s: %s\n", what, s);
        exit(2);
    }
    return v;
}

// A decimal number argument in [min, max]; anything else ends the tool with exit code 2.
inline double parse_double_arg(const char* s, const char* what, double min, double max) {
    double v = 0;
    if (!parse_double(s, &v) || v < min || v > max) {
        fprintf(stderr, "bad %s: %s\n", what, s);
        exit(2);
    }
    return v;
}

// Takes one getopt_long result if it is a common option: -c -r -s -d -e -m -t,
// --timeout (returned as 'o') and --json ('j'). False for any other, which the
// tool handles itself (its own options, -h, errors).
inline bool parse_common_option(int c, const char* arg, ToolOptions* opt) {
    switch (c) {
        case 'c': opt->clients = parse_int(arg, "-c", 1); return true;
        case 'r': opt->url = arg; return true;
        case 's': opt->startup_spread_ms = parse_int(arg, "-s", 0); return true;
        case 'd': opt->delay_ms = parse_int(arg, "-d", 0); return true;
        case 'e': opt->error_sleep_ms = parse_int(arg, "-e", 0); return true;
        case 'm': opt->report_ms = parse_int(arg, "-m", 1); return true;
        case 't': opt->duration_s = parse_double_arg(arg, "-t", 0, 1e9); return true;
        case 'o': opt->timeout_ms = parse_int(arg, "--timeout", 1); return true;
        case 'j': opt->json = true; return true;
        default: return false;
    }
}

// Parses the command line with getopt_long: the common options; -h/--help
// (usage, exit 0); and the tool's own through extra(c, optarg), which returns
// false for an option it does not take (usage, exit 2). Without -r: usage, exit 2. `shortopts` lists every
// short option, the common ones included; `longs` the tool's long options
// besides --json, --timeout and --help.
template <typename Extra>
void parse_command_line(int argc, char** argv, const char* shortopts, std::initializer_list<struct option> longs,
                        void (*usage)(const char* argv0), ToolOptions* opt, Extra extra) {
    std::vector<struct option> table = {{"json", no_argument, nullptr, 'j'},
                                        {"timeout", required_argument, nullptr, 'o'}};
    table.insert(table.end(), longs);
    table.push_back({"help", no_argument, nullptr, 'h'});
    table.push_back({nullptr, 0, nullptr, 0});
    int c;
    while ((c = getopt_long(argc, argv, shortopts, table.data(), nullptr)) != -1) {
        if (parse_common_option(c, optarg, opt)) continue;
        if (c == 'h') {
            usage(argv[0]);
            exit(0);
        }
        if (!extra(c, optarg)) {
            usage(argv[0]);
            exit(2);
        }
    }
    if (opt->url.empty()) {
        usage(argv[0]);
        exit(2);
    }
}

// Failure kinds, as rtmp_client_error_kind() names them.
inline const char* const kErrorKinds[] = {"connect", "timeout", "closed", "io", "rejected",
                                          "handshake", "protocol", "other"};
constexpr int kErrorKindCount = sizeof(kErrorKinds) / sizeof(kErrorKinds[0]);

inline int error_kind_index(const char* kind) {
    for (int i = 0; i < kErrorKindCount; i++) {
        if (strcmp(kErrorKinds[i], kind) == 0) return i;
    }
    return kErrorKindCount - 1;
}

// What every client counts, over all its sessions; a tool's stats derive from
// it and add theirs.
struct ClientStats {
    uint64_t bytes = 0;          // moved in sessions before the current one
    uint64_t session_bytes = 0;  // moved in the current session
    uint64_t messages = 0;
    uint32_t video_frames = 0;  // coded frames (sequence headers not counted)
    uint32_t audio_frames = 0;
    uint32_t keyframes = 0;
    uint32_t sessions = 0;
    uint32_t reconnects = 0;
    uint16_t errors[kErrorKindCount] = {};
    bool alive = false;
    bool failed = false;  // at least one session ended in an error
};

// Shared by all clients: first N error lines per report period are logged.
struct ErrorLog {
    int budget = 10;
    int suppressed = 0;
};

// Set once the run is over: clients end instead of starting another session.
inline bool g_stopping = false;

// The URL of client `index`: its first "%d" replaced by the index.
inline std::string url_for(const std::string& url, int index) {
    size_t pos = url.find("%d");
    if (pos == std::string::npos) return url;
    return url.substr(0, pos) + std::to_string(index) + url.substr(pos + 2);
}

// One client coroutine, named by its role ("player", "publisher"). After its
// share of the startup spread (-s) it runs session() until the run stops,
// waiting -d ms after a session the server ended and -e ms after a failed one.
// A failure is counted by kind; the first ones of a report period are logged.
template <typename Options, typename Stats>
class ToolClient : public CoroutineHandler {
  public:
    ToolClient(const char* role, int index, const Options* opt, ErrorLog* log)
        : index_(index), opt_(opt), log_(log), co_(role, this) {}
    Error start() { return co_.start(); }
    void interrupt() { co_.interrupt(); }
    void stop() { co_.stop(); }
    const Stats& stats() const { return stats_; }
    const std::string& role() const { return co_.name(); }

  protected:
    // One session: connect, then play or publish until it fails (an error)
    // or the server ends it (success). Keeps stats_.session_bytes current.
    virtual Error session() = 0;
    // The kind (a name in kErrorKinds) of a failure session() returned.
    virtual const char* error_kind(const Error& err) const { return rtmp_client_error_kind(err); }

    int index_;
    const Options* opt_;
    ErrorLog* log_;
    Stats stats_;
    Coroutine co_;

  private:
    Error cycle() override;
    void count_error(const Error& err);
};

template <typename Options, typename Stats>
Error ToolClient<Options, Stats>::cycle() {
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

template <typename Options, typename Stats>
void ToolClient<Options, Stats>::count_error(const Error& err) {
    const char* kind = error_kind(err);
    int i = error_kind_index(kind);
    if (stats_.errors[i] < UINT16_MAX) stats_.errors[i]++;
    stats_.failed = true;
    if (log_->budget > 0) {
        log_->budget--;
        srs_warn("%s %d: %s: %s", role().c_str(), index_, kind, err.summary().c_str());
    } else {
        log_->suppressed++;
    }
}

// Sums over all clients; a tool's totals derive from it and add theirs.
struct ClientTotals {
    int clients = 0;
    int alive = 0;
    int failed = 0;
    uint64_t bytes = 0;
    uint64_t messages = 0;
    uint64_t video_frames = 0;
    uint64_t audio_frames = 0;
    uint64_t keyframes = 0;
    uint64_t sessions = 0;
    uint64_t reconnects = 0;
    uint64_t errors[kErrorKindCount] = {};
    uint64_t error_total = 0;

    // Adds one client.
    void add(const ClientStats& s) {
        clients++;
        alive += s.alive;
        failed += s.failed;
        bytes += s.bytes + s.session_bytes;
        messages += s.messages;
        video_frames += s.video_frames;
        audio_frames += s.audio_frames;
        keyframes += s.keyframes;
        sessions += s.sessions;
        reconnects += s.reconnects;
        for (int i = 0; i < kErrorKindCount; i++) {
            errors[i] += s.errors[i];
            error_total += s.errors[i];
        }
    }
};

// ---- Players (sb_rtmp_load, sb_http_load) ----

// Everything one verifying player counts, over all its sessions: bytes are
// received ones, sessions the plays the server accepted (NetStream.Play.Start,
// HTTP 200).
struct PlayerStats : ClientStats {
    uint32_t sequence_headers = 0;
    uint32_t data_messages = 0;  // metadata, |RtmpSampleAccess, onStatus...
    uint32_t ts_violations = 0;  // a timestamp lower than the one before (same type)
    uint32_t keyframe_bad = 0;   // sessions whose first coded video was not a keyframe after a header
    uint32_t keyframe_ok = 0;    // sessions whose first coded video was
};

// The checks a player makes within one session, on each audio or video
// message (an RTMP message payload or an FLV tag body; `n` may be a prefix of
// it, at least its first 64 bytes): the first coded video frame is a keyframe
// that follows a video sequence header, and audio and video timestamps never
// go backwards. Counts into the player's stats.
class MediaVerifier {
  public:
    void reset() { *this = MediaVerifier(); }  // a new session

    void on_video(uint32_t timestamp, const uint8_t* p, size_t n, PlayerStats* s) {
        if (have_video_ts_ && timestamp < last_video_ts_) {
            s->ts_violations++;
            if (getenv("SB_DEBUG")) fprintf(stderr, "video ts %u after %u\n", timestamp, last_video_ts_);
        }
        have_video_ts_ = true;
        last_video_ts_ = timestamp;
        if (n == 0) return;  // an empty video message carries nothing to check
        if (is_video_sequence_header(p, n)) {
            seen_video_header_ = true;
            s->sequence_headers++;
            return;
        }
        const bool key = is_video_keyframe(p, n);
        s->video_frames++;
        if (key) s->keyframes++;
        if (!first_video_checked_) {
            first_video_checked_ = true;
            if (key && seen_video_header_) s->keyframe_ok++;
            else s->keyframe_bad++;
        }
    }

    void on_audio(uint32_t timestamp, const uint8_t* p, size_t n, PlayerStats* s) {
        if (have_audio_ts_ && timestamp < last_audio_ts_) {
            s->ts_violations++;
            if (getenv("SB_DEBUG")) fprintf(stderr, "audio ts %u after %u\n", timestamp, last_audio_ts_);
        }
        have_audio_ts_ = true;
        last_audio_ts_ = timestamp;
        if (n == 0) return;
        if (is_audio_sequence_header(p, n)) {
            s->sequence_headers++;
            return;
        }
        s->audio_frames++;
    }

  private:
    uint32_t last_video_ts_ = 0;
    uint32_t last_audio_ts_ = 0;
    bool have_video_ts_ = false;
    bool have_audio_ts_ = false;
    bool seen_video_header_ = false;
    bool first_video_checked_ = false;
};

// Sums over all players.
struct PlayerTotals : ClientTotals {
    uint64_t data_messages = 0;
    uint64_t ts_violations = 0;
    int first_video_keyframe_ok = 0;  // players with at least one checked session and no bad one
    uint64_t keyframe_bad = 0;
    uint32_t video_min = 0;
    uint32_t video_max = 0;
    bool first_ = true;

    void add_player(const PlayerStats& s) {
        add(s);
        data_messages += s.data_messages;
        ts_violations += s.ts_violations;
        keyframe_bad += s.keyframe_bad;
        if (s.keyframe_ok > 0 && s.keyframe_bad == 0) first_video_keyframe_ok++;
        video_min = first_ ? s.video_frames : std::min(video_min, s.video_frames);
        video_max = first_ ? s.video_frames : std::max(video_max, s.video_frames);
        first_ = false;
    }
};

// Sums the stats of every player (a ToolClient whose stats are PlayerStats).
template <typename Player>
PlayerTotals sum_players(const std::vector<std::unique_ptr<Player>>& players) {
    PlayerTotals t;
    for (const auto& p : players) t.add_player(p->stats());
    return t;
}

// Local wall-clock time with milliseconds, as report lines start with.
inline std::string now_text() {
    utime_t us = wall_us();
    time_t sec = static_cast<time_t>(us / kUsPerSecond);
    struct tm tm;
    localtime_r(&sec, &tm);
    char buf[64];
    size_t n = strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf + n, sizeof(buf) - n, ".%03d", static_cast<int>((us % kUsPerSecond) / kUsPerMs));
    return buf;
}

// The failures by kind as a JSON object, every kind present.
inline std::string errors_json(const ClientTotals& t) {
    std::string s = "{";
    for (int i = 0; i < kErrorKindCount; i++) {
        if (i) s += ",";
        s += "\"" + std::string(kErrorKinds[i]) + "\":" + std::to_string(t.errors[i]);
    }
    return s + "}";
}

// Raises the open-file limit to its maximum; warns when `clients` (the tool's
// word for them: "players") may still not fit.
inline void raise_fd_limit(int clients, const char* what) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur != RLIM_INFINITY && static_cast<rlim_t>(clients) + 32 > rl.rlim_cur) {
        fprintf(stderr, "warning: %d %s but only %llu file descriptors\n", clients, what,
                static_cast<unsigned long long>(rl.rlim_cur));
    }
}

// Checks an rtmp:// URL (as client 0 uses it): it parses and its host is an
// IP address (no DNS). On a failure prints why and returns false.
inline bool check_rtmp_url(const std::string& url) {
    RtmpRequestInfo probe;
    if (Error err = parse_rtmp_url(url_for(url, 0), &probe); !err.ok()) {
        fprintf(stderr, "bad url %s: %s\n", url.c_str(), err.summary().c_str());
        return false;
    }
    if (!is_ip_literal(probe.host)) {
        fprintf(stderr, "bad url %s: the host must be an IP address (no DNS)\n", url.c_str());
        return false;
    }
    return true;
}

// Starts the runtime and the SIGINT/SIGTERM pipe, and checks the URL with
// check_url (which prints why it is bad). On a failure prints why and returns
// false: the tool exits with code 2.
inline bool prepare_run(const ToolOptions& opt, SignalPipe* signals,
                        bool (*check_url)(const std::string& url) = check_rtmp_url) {
    if (Error err = init_runtime(); !err.ok()) {
        fprintf(stderr, "runtime: %s\n", err.describe().c_str());
        return false;
    }
    if (Error err = signals->open({SIGINT, SIGTERM}); !err.ok()) {
        fprintf(stderr, "signals: %s\n", err.describe().c_str());
        return false;
    }
    return check_url(opt.url);
}

// Makes client i with make(i) and starts it, for i in [0, count). On a failure
// prints why and returns false: the tool exits with code 2.
template <typename Client, typename Make>
bool start_clients(int count, std::vector<std::unique_ptr<Client>>* clients, Make make) {
    clients->reserve(count);
    for (int i = 0; i < count; i++) {
        clients->emplace_back(make(i));
        if (Error err = clients->back()->start(); !err.ok()) {
            fprintf(stderr, "start %s %d: %s\n", clients->back()->role().c_str(), i, err.summary().c_str());
            return false;
        }
    }
    return true;
}

// What a report line covers besides the totals.
struct ReportPeriod {
    int elapsed_s = 0;          // since the start
    uint64_t new_messages = 0;  // since the last report
    int kbps = 0;               // over the period
};

// Runs until -t seconds passed since `start` or SIGINT/SIGTERM came. Every -m
// ms: totals = sum(), report(totals, period) prints the tool's line, then the
// count of errors not logged in the period follows it.
template <typename Sum, typename Report>
void run_reports(const ToolOptions& opt, SignalPipe* signals, ErrorLog* error_log, utime_t start, Sum sum,
                 Report report) {
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
        if (Error err = signals->wait(&signo, std::max<utime_t>(wake - now, 0)); !err.ok()) {
            err.ignore();
            break;
        }
        if (signo) {
            printf("[%s] signal %d: stopping\n", now_text().c_str(), signo);
            break;
        }
        now = monotonic_us();
        if (now >= next_report) {
            const auto t = sum();
            utime_t span = std::max<utime_t>(now - last_report, 1);
            ReportPeriod period;
            period.elapsed_s = static_cast<int>((now - start) / kUsPerSecond);
            period.new_messages = t.messages - last_msgs;
            period.kbps = static_cast<int>((t.bytes - last_bytes) * 8 * 1000 / static_cast<uint64_t>(span));
            report(t, period);
            if (error_log->suppressed) printf("  (%d more errors not logged)\n", error_log->suppressed);
            fflush(stdout);
            error_log->budget = 10;
            error_log->suppressed = 0;
            last_report = now;
            last_bytes = t.bytes;
            last_msgs = t.messages;
            next_report += opt.report_ms * kUsPerMs;
            if (next_report <= now) next_report = now + opt.report_ms * kUsPerMs;
        }
    }
}

// Ends the run: stops every client and returns sum() taken after they
// stopped, but with who was alive read before.
template <typename Client, typename Sum>
auto stop_clients(const std::vector<std::unique_ptr<Client>>& clients, Sum sum) {
    g_stopping = true;
    auto at_end = sum();
    for (auto& c : clients) c->interrupt();
    for (auto& c : clients) c->stop();
    auto t = sum();
    t.alive = at_end.alive;
    return t;
}

// The first summary line, over `elapsed` microseconds.
inline void print_summary_head(const ClientTotals& t, utime_t elapsed) {
    printf("[%s] summary: %.1f s, clients=%d alive=%d failed=%d sessions=%" PRIu64 " reconnects=%" PRIu64 "\n",
           now_text().c_str(), elapsed / 1e6, t.clients, t.alive, t.failed, t.sessions, t.reconnects);
}

// The summary's line of failures: the total, then each kind that occurred.
inline void print_errors_line(const ClientTotals& t) {
    printf("  errors %" PRIu64 ":", t.error_total);
    for (int i = 0; i < kErrorKindCount; i++) {
        if (t.errors[i]) printf(" %s=%" PRIu64, kErrorKinds[i], t.errors[i]);
    }
    printf("\n");
}

// A verification failed: a timestamp went back, a session began without a
// keyframe after a sequence header, or the stream did not parse.
inline bool player_verify_failed(const PlayerTotals& t) {
    return t.ts_violations > 0 || t.keyframe_bad > 0 || t.errors[error_kind_index("protocol")] > 0;
}

// A player tool's report line.
inline void print_player_report(const PlayerTotals& t, const ReportPeriod& r) {
    printf("[%s] clients=%d alive=%d, time=%ds, msgs=%" PRIu64 " (+%" PRIu64 "), video=%" PRIu64 ", audio=%" PRIu64
           ", kbps=%d, errors=%" PRIu64 ", reconnects=%" PRIu64 ", verify=%s\n",
           now_text().c_str(), t.clients, t.alive, r.elapsed_s, t.messages, r.new_messages, t.video_frames,
           t.audio_frames, r.kbps, t.error_total, t.reconnects, player_verify_failed(t) ? "FAIL" : "ok");
}

// A player tool's summary lines (after the head line), the errors line last.
inline void print_player_summary(const PlayerTotals& t, uint64_t kbps) {
    printf("  received %" PRIu64 " bytes (%" PRIu64 " kbps), %" PRIu64 " messages: video %" PRIu64
           " (keyframes %" PRIu64 "), audio %" PRIu64 ", data %" PRIu64 "\n",
           t.bytes, kbps, t.messages, t.video_frames, t.keyframes, t.audio_frames, t.data_messages);
    printf("  video frames per player: min %u, max %u\n", t.video_min, t.video_max);
    printf("  verify: first video is a keyframe for %d/%d players (%" PRIu64 " bad sessions), timestamp "
           "violations %" PRIu64 ": %s\n",
           t.first_video_keyframe_ok, t.clients, t.keyframe_bad, t.ts_violations,
           player_verify_failed(t) ? "FAIL" : "ok");
    print_errors_line(t);
}

// A player tool's --json line; `extra` (",\"name\":value..." or "") goes
// before the per-client frame counts.
inline void print_player_json(const PlayerTotals& t, uint64_t kbps, utime_t elapsed, const std::string& extra) {
    printf("{\"clients\":%d,\"alive\":%d,\"failed\":%d,\"bytes\":%" PRIu64 ",\"kbps\":%" PRIu64
           ",\"elapsed_ms\":%" PRId64 ",\"msgs\":%" PRIu64 ",\"video_frames\":%" PRIu64
           ",\"audio_frames\":%" PRIu64 ",\"keyframes\":%" PRIu64 ",\"data_messages\":%" PRIu64
           ",\"sessions\":%" PRIu64 ",\"reconnects\":%" PRIu64 ",\"first_video_keyframe_ok\":%d"
           ",\"first_video_keyframe_bad\":%" PRIu64 ",\"ts_monotonic_violations\":%" PRIu64
           ",\"errors\":%s%s,\"per_client_video_frames_min\":%u,\"per_client_video_frames_max\":%u"
           ",\"verify_ok\":%s}\n",
           t.clients, t.alive, t.failed, t.bytes, kbps, static_cast<int64_t>(elapsed / kUsPerMs), t.messages,
           t.video_frames, t.audio_frames, t.keyframes, t.data_messages, t.sessions, t.reconnects,
           t.first_video_keyframe_ok, t.keyframe_bad, t.ts_violations, errors_json(t).c_str(), extra.c_str(),
           t.video_min, t.video_max, player_verify_failed(t) ? "false" : "true");
}

// main() of a player tool (sb_rtmp_load, sb_http_load) after its options:
// starts opt.clients Players, reports until the run ends, prints the summary.
// summary_extra() prints the tool's own summary lines and returns what its
// --json line adds (see print_player_json). The exit code: 2 when the run
// could not start, 1 when a verification failed, else 0.
template <typename Player, typename Opt, typename SummaryExtra>
int run_player_tool(const char* tool, const Opt& opt, bool (*check_url)(const std::string& url),
                    SummaryExtra summary_extra) {
    raise_fd_limit(opt.clients, "players");
    SignalPipe signals;
    if (!prepare_run(opt, &signals, check_url)) return 2;

    ErrorLog error_log;
    std::vector<std::unique_ptr<Player>> players;
    if (!start_clients(opt.clients, &players, [&](int i) { return new Player(i, &opt, &error_log); })) return 2;
    printf("[%s] %s: %d players of %s, report every %d ms, run %g s (0: until SIGINT)\n", now_text().c_str(),
           tool, opt.clients, opt.url.c_str(), opt.report_ms, opt.duration_s);
    fflush(stdout);

    const utime_t start = monotonic_us();
    auto sum = [&] { return sum_players(players); };
    run_reports(opt, &signals, &error_log, start, sum, print_player_report);

    PlayerTotals t = stop_clients(players, sum);
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const uint64_t kbps = t.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);

    print_summary_head(t, elapsed);
    print_player_summary(t, kbps);
    const std::string json_extra = summary_extra();
    if (opt.json) print_player_json(t, kbps, elapsed, json_extra);
    fflush(stdout);
    return player_verify_failed(t) ? 1 : 0;
}

// ---- publishers: the file they send and what the server tells them ----

// How a publishing tool starts a session: connects as an encoder would
// (flashVer "FMLE/3.0 (compatible; TOOL)"), sets its chunk size, publishes.
inline Error start_publishing(RtmpClient* client, const char* tool, const std::string& url, int timeout_ms,
                              int chunk_size) {
    client->set_flash_ver(std::string("FMLE/3.0 (compatible; ") + tool + ")");
    if (Error err = client->connect(url, timeout_ms * kUsPerMs); !err.ok()) return err;
    if (Error err = client->set_chunk_size(static_cast<uint32_t>(chunk_size)); !err.ok()) return err;
    return client->publish();
}

// A whole FLV file as tags, and its first onMetaData object. The publishing
// tools (sb_rtmp_publish, sb_latency) turn the tags into what they send.
inline Error read_flv_file(const std::string& path, std::vector<FlvTag>* tags, Amf0Value* metadata,
                           bool* has_metadata) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) return SRS_ERR(kErrorFileOpen, "open %s: %s", path.c_str(), strerror(errno));
    std::vector<uint8_t> bytes;
    uint8_t buf[64 * 1024];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
    const bool read_error = ferror(f);
    fclose(f);
    if (read_error) return SRS_ERR(kErrorFileRead, "read %s", path.c_str());

    FlvReader reader;
    std::vector<FlvTag> all;
    size_t consumed = 0;
    if (Error err = reader.feed(bytes.data(), bytes.size(), &consumed, &all); !err.ok()) {
        return SRS_WRAP(err, "parse %s", path.c_str());
    }
    if (!reader.header_parsed()) return SRS_ERR(kErrorFlvHeader, "%s is not an FLV file", path.c_str());
    if (consumed < bytes.size()) {
        fprintf(stderr, "warning: %s ends with %zu bytes of a partial tag (ignored)\n", path.c_str(),
                bytes.size() - consumed);
    }
    *has_metadata = false;
    for (FlvTag& t : all) {
        if (t.type != kFlvTagScript) {
            tags->push_back(std::move(t));
            continue;
        }
        RtmpData data;
        if (Error err = decode_rtmp_data_body(t.data.data(), t.data.size(), &data); !err.ok()) {
            fprintf(stderr, "warning: script tag not decodable: %s\n", err.summary().c_str());
            err.ignore();
            continue;
        }
        if (!*has_metadata && data.name == kRtmpDataOnMetaData && !data.values.empty() &&
            data.values[0].has_properties()) {
            *has_metadata = true;
            *metadata = data.values[0];
        }
    }
    return Error();
}

// Drains what the server sent a publisher (protocol control is answered
// inside the client); an onStatus of level "error" ends the session.
inline Error check_publish_status(RtmpClient* client, std::vector<RtmpMessage>* scratch) {
    scratch->clear();
    if (Error err = client->poll_messages(scratch); !err.ok()) return err;
    for (const RtmpMessage& msg : *scratch) {
        if (!msg.is_command()) continue;
        RtmpCommand cmd;
        if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) return SRS_WRAP(err, "server command");
        if (classify_rtmp_command(cmd.name) != RtmpCommandKind::kOnStatus) continue;
        RtmpStatus status;
        if (Error err = parse_rtmp_status(cmd, &status); !err.ok()) {
            err.ignore();
            continue;
        }
        if (status.level == kRtmpLevelError) {
            return SRS_ERR(kErrorRtmpClientRejected, "server: %s %s", status.code.c_str(), status.description.c_str());
        }
    }
    scratch->clear();
    return Error();
}

}  // namespace srs::tool
