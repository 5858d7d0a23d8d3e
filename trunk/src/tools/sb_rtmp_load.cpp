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

#include "app/upstream/rtmp_client.hpp"
#include "core/clock.hpp"
#include "io/signal_pipe.hpp"
#include "tool_common.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

struct Options : ToolOptions {
    // --read-wait: merged read on the player side (RtmpTransport::set_merged_read).
    int read_wait_ms = 0;
};

class Player : public ToolClient<Options, PlayerStats> {
  public:
    Player(int index, const Options* opt, ErrorLog* log) : ToolClient("player", index, opt, log) {}

  private:
    Error session() override;

    MediaVerifier verify_;  // per session
};

Error Player::session() {
    verify_.reset();

    // On the heap only while connected: a waiting player holds no buffer.
    std::unique_ptr<RtmpClient> client(new RtmpClient());
    const std::string url = url_for(opt_->url, index_);
    if (Error err = client->connect(url, opt_->timeout_ms * kUsPerMs); !err.ok()) return err;
    if (Error err = client->play(); !err.ok()) return err;
    // A server that writes each message on its own would otherwise wake this
    // player, and the whole tool, once per message per player.
    client->transport()->set_merged_read(opt_->read_wait_ms * kUsPerMs);
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
            case kRtmpVideo: verify_.on_video(msg.timestamp, msg.payload.data(), msg.payload.size(), &stats_); break;
            case kRtmpAudio: verify_.on_audio(msg.timestamp, msg.payload.data(), msg.payload.size(), &stats_); break;
            default: stats_.data_messages++; break;
        }
    }
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
           "  --read-wait MS  after a read that emptied the socket wait MS before the next, so a\n"
           "               server that writes message by message is read in batches (default 0)\n"
           "  --json       print the summary as one JSON object on the last line\n"
           "Exit code: 0, or 1 when a verification failed (timestamps going back, a session\n"
           "starting without a keyframe, a malformed chunk stream), 2 for bad arguments.\n",
           argv0);
}

Options parse_options(int argc, char** argv) {
    Options opt;
    parse_command_line(argc, argv, "c:r:s:d:e:m:t:h", {{"read-wait", required_argument, nullptr, 'w'}}, usage,
                       &opt, [&opt](int c, const char* arg) {
                           return c == 'w' && parse_integer(arg, 0, 10000, &opt.read_wait_ms);
                       });
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    return run_player_tool<Player>("sb_rtmp_load", opt, check_rtmp_url, [] { return std::string(); });
}
