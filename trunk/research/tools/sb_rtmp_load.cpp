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
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/rtmp_client.hpp"
#include "core/clock.hpp"
#include "io/signal_pipe.hpp"
#include "kernel/media_codec.hpp"
#include "tool_common.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

using Options = ToolOptions;

// Everything one player counts, over all its sessions: bytes are received
// ones, sessions the plays that reached NetStream.Play.Start.
struct PlayerStats : ClientStats {
    uint32_t sequence_headers = 0;
    uint32_t data_messages = 0;  // metadata, |RtmpSampleAccess, onStatus...
    uint32_t ts_violations = 0;  // a timestamp lower than the one before (same type)
    uint32_t keyframe_bad = 0;   // sessions whose first coded video was not a keyframe after a header
    uint32_t keyframe_ok = 0;    // sessions whose first coded video was
};

class Player : public ToolClient<Options, PlayerStats> {
  public:
    Player(int index, const Options* opt, ErrorLog* log) : ToolClient("player", index, opt, log) {}

  private:
    Error session() override;
    void on_video(const RtmpMessage& msg);
    void on_audio(const RtmpMessage& msg);

    // Per-session verification state.
    bool have_video_ts_ = false;
    bool have_audio_ts_ = false;
    uint32_t last_video_ts_ = 0;
    uint32_t last_audio_ts_ = 0;
    bool seen_video_header_ = false;
    bool first_video_checked_ = false;
};

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
struct Totals : ClientTotals {
    uint64_t data_messages = 0;
    uint64_t ts_violations = 0;
    int first_video_keyframe_ok = 0;  // players with at least one checked session and no bad one
    uint64_t keyframe_bad = 0;
    uint32_t video_min = 0;
    uint32_t video_max = 0;
};

Totals sum(const std::vector<std::unique_ptr<Player>>& players) {
    Totals t;
    bool first = true;
    for (const auto& p : players) {
        const PlayerStats& s = p->stats();
        t.add(s);
        t.data_messages += s.data_messages;
        t.ts_violations += s.ts_violations;
        t.keyframe_bad += s.keyframe_bad;
        if (s.keyframe_ok > 0 && s.keyframe_bad == 0) t.first_video_keyframe_ok++;
        t.video_min = first ? s.video_frames : std::min(t.video_min, s.video_frames);
        t.video_max = first ? s.video_frames : std::max(t.video_max, s.video_frames);
        first = false;
    }
    return t;
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

Options parse_options(int argc, char** argv) {
    Options opt;
    parse_command_line(argc, argv, "c:r:s:d:e:m:t:h", {}, usage, &opt, [](int, const char*) { return false; });
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    raise_fd_limit(opt.clients, "players");
    SignalPipe signals;
    if (!prepare_run(opt, &signals)) return 2;

    ErrorLog error_log;
    std::vector<std::unique_ptr<Player>> players;
    if (!start_clients(opt.clients, &players, [&](int i) { return new Player(i, &opt, &error_log); })) return 2;
    printf("[%s] sb_rtmp_load: %d players of %s, report every %d ms, run %g s (0: until SIGINT)\n",
           now_text().c_str(), opt.clients, opt.url.c_str(), opt.report_ms, opt.duration_s);
    fflush(stdout);

    const utime_t start = monotonic_us();
    auto sum_players = [&] { return sum(players); };
    run_reports(opt, &signals, &error_log, start, sum_players, [&](const Totals& t, const ReportPeriod& r) {
        printf("[%s] clients=%d alive=%d, time=%ds, msgs=%" PRIu64 " (+%" PRIu64 "), video=%" PRIu64
               ", audio=%" PRIu64 ", kbps=%d, errors=%" PRIu64 ", reconnects=%" PRIu64 ", verify=%s\n",
               now_text().c_str(), t.clients, t.alive, r.elapsed_s, t.messages, r.new_messages, t.video_frames,
               t.audio_frames, r.kbps, t.error_total, t.reconnects,
               (t.ts_violations || t.keyframe_bad || t.errors[error_kind_index("protocol")]) ? "FAIL" : "ok");
    });

    Totals t = stop_clients(players, sum_players);
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const uint64_t kbps = t.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);
    const bool verify_failed = t.ts_violations > 0 || t.keyframe_bad > 0 || t.errors[error_kind_index("protocol")] > 0;

    print_summary_head(t, elapsed);
    printf("  received %" PRIu64 " bytes (%" PRIu64 " kbps), %" PRIu64 " messages: video %" PRIu64
           " (keyframes %" PRIu64 "), audio %" PRIu64 ", data %" PRIu64 "\n",
           t.bytes, kbps, t.messages, t.video_frames, t.keyframes, t.audio_frames, t.data_messages);
    printf("  video frames per player: min %u, max %u\n", t.video_min, t.video_max);
    printf("  verify: first video is a keyframe for %d/%d players (%" PRIu64 " bad sessions), timestamp "
           "violations %" PRIu64 ": %s\n",
           t.first_video_keyframe_ok, t.clients, t.keyframe_bad, t.ts_violations, verify_failed ? "FAIL" : "ok");
    print_errors_line(t);
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
