// sb_http_load: many HTTP-FLV players in one process, one coroutine each,
// every one checking what it receives. The HTTP twin of sb_rtmp_load: same
// options, same checks, same report lines and JSON summary.
//
//   sb_http_load -c 1000 -r http://127.0.0.1:8080/live/livestream.flv -t 60 --json
//
// A player connects, sends "GET <path> HTTP/1.1" with a Host header, and reads
// the response: the status must be 200 (anything else is a "rejected"
// failure), the body may be close-delimited, chunked or of a Content-Length.
// The body is decoded as it arrives: the FLV header, then each tag's 11-byte
// header, its body and the PreviousTagSize that must equal 11 + DataSize. The
// first coded video frame of a session must be a keyframe that follows a
// sequence header, and audio and video timestamps must never go backwards. It
// counts bytes, tags, frames, keyframes and failures (by kind); a failed
// session is retried after -e ms, a response the server ended (at a tag
// boundary) after -d ms. Every -m ms one report line; at the end (-t seconds,
// or SIGINT/SIGTERM) a summary, and with --json one JSON object as the last
// line of stdout. docs/tools.md has it all.
//
// The response is read with the project's HttpResponseParser, which hands
// out the body with any chunk framing removed.
//
// Memory per player: the Player below (stats, the FLV decoder's state, the
// first 64 bytes of the tag being read, the response parser and the last
// response head's fields: a few hundred bytes, at most 16 KB), the
// coroutine's stack (touched pages only, a few KB), and while connected the
// TcpConn (about 100 bytes) and the kernel's socket buffers.
// There is no per-player read buffer: every player reads into one 128 KB
// buffer, the parser decodes the body into one shared string, and the player
// parses all it read before it can block again, so no other player touches
// them in between. Tag bodies are never kept: the checks read their first
// bytes in place and the rest is skipped.
// Measured: 10 MB RSS for 1000 players of a 470 kbps stream (sb_rtmp_load
// holds a 64 KB read buffer per player: 38 MB).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/strings.hpp"
#include "io/signal_pipe.hpp"
#include "io/socket.hpp"
#include "kernel/flv/flv.hpp"
#include "protocol/http/http_response_parser.hpp"
#include "protocol/rtmp/rtmp_url.hpp"
#include "flv_stream.hpp"
#include "http_client.hpp"
#include "tool_common.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

using Options = ToolOptions;

// The one read buffer of every player (see the top of this file).
constexpr size_t kReadBufferSize = 128 * 1024;
uint8_t g_read_buffer[kReadBufferSize];

// Non-200 statuses by code, over all players (one process, one thread).
std::map<int, uint64_t> g_rejected_statuses;

// ---- the player ----

// The body bytes one read decoded (chunk framing removed), shared like
// g_read_buffer: a player hands them all to its FLV decoder before it can
// block again.
std::string g_body;

class Player : public ToolClient<Options, PlayerStats> {
  public:
    Player(int index, const Options* opt, ErrorLog* log) : ToolClient("player", index, opt, log) {}

  private:
    Error session() override;
    const char* error_kind(const Error& err) const override;
    // The parsed head: a 200 the tool can decode goes on; any other status is
    // a "rejected" failure, counted by status.
    Error check_head() const;
    void on_tag(uint8_t type, uint32_t timestamp, const uint8_t* body, size_t n);

    MediaVerifier verify_;  // per session, as the decoders
    FlvStream flv_;
    HttpResponseParser response_{tool_response_limits()};
};

Error Player::session() {
    verify_.reset();
    flv_ = FlvStream();
    response_.reset();

    HttpUrl url;
    if (Error err = parse_http_url(url_for(opt_->url, index_), &url); !err.ok()) return err;
    TcpConn* raw = nullptr;
    const utime_t timeout = opt_->timeout_ms * kUsPerMs;
    if (Error err = TcpConn::connect(url.host, url.port, timeout, &raw); !err.ok()) {
        return SRS_WRAP(err, "tcp connect %s:%d", url.host.c_str(), url.port);
    }
    // On the heap only while connected: a waiting player holds no socket.
    std::unique_ptr<TcpConn> sock(raw);
    sock->set_recv_timeout(timeout);
    sock->set_send_timeout(timeout);
    {
        const std::string req = http_get_request(url, "sb_http_load");
        if (Error err = sock->write(req.data(), req.size()); !err.ok()) return SRS_WRAP(err, "send request");
    }

    auto on_tag = [this](uint8_t type, uint32_t ts, const uint8_t* b, size_t m) {
        this->on_tag(type, ts, b, m);
        return true;
    };
    while (true) {
        size_t n = 0;
        Error err = sock->read(g_read_buffer, kReadBufferSize, &n);
        stats_.session_bytes = sock->recv_bytes();
        if (!err.ok()) {
            if (err.code() != kErrorSocketClosed) return err;
            if (!response_.head_done()) return SRS_WRAP(err, "closed before the response head ended");
            if (response_.head().chunked || response_.head().has_length) {
                return SRS_WRAP(err, "closed before the response body ended");
            }
            if (!flv_.header_done()) return SRS_WRAP(err, "closed inside the FLV header");
            if (!flv_.at_boundary()) return SRS_WRAP(err, "closed inside an FLV tag");
            // The server ended the response (stream gone, kicked): a normal end.
            err.ignore();
            return Error();
        }
        const bool had_head = response_.head_done();
        g_body.clear();
        size_t used = 0;
        Error parsed = response_.feed(g_read_buffer, n, &used, &g_body);
        if (!had_head && response_.head_done()) {
            if (Error e = check_head(); !e.ok()) {
                parsed.ignore();  // the status says more than the body after it
                return e;
            }
            stats_.sessions++;
            stats_.alive = true;
        }
        if (!parsed.ok()) return parsed;
        const uint8_t* body = reinterpret_cast<const uint8_t*>(g_body.data());
        if (Error e = flv_.feed(body, g_body.size(), on_tag); !e.ok()) return e;
        if (response_.done()) {
            if (!flv_.at_boundary()) return SRS_ERR(kErrorSocketClosed, "the response body ended inside FLV");
            return Error();  // the server ended the response: a normal end
        }
    }
}

Error Player::check_head() const {
    const HttpParsedResponse& head = response_.head();
    if (head.status == 101) return SRS_ERR(kErrorHttpClientBadStatusLine, "unexpected 101 Switching Protocols");
    if (head.status != 200) {
        g_rejected_statuses[head.status]++;
        return SRS_ERR(kErrorRtmpClientRejected, "HTTP %d %s", head.status, head.reason.c_str());
    }
    // A transfer coding other than chunked (gzip...) would hide the FLV.
    const std::string* coding = head.header("Transfer-Encoding");
    if (coding && !head.chunked && !iequals(*coding, "identity")) {
        return SRS_ERR(kErrorHttpUnsupportedTransferEncoding, "Transfer-Encoding: %s", coding->c_str());
    }
    return Error();
}

void Player::on_tag(uint8_t type, uint32_t timestamp, const uint8_t* body, size_t n) {
    stats_.messages++;
    switch (type) {
        case kFlvTagVideo: verify_.on_video(timestamp, body, n, &stats_); break;
        case kFlvTagAudio: verify_.on_audio(timestamp, body, n, &stats_); break;
        default: stats_.data_messages++; break;
    }
}

const char* Player::error_kind(const Error& err) const {
    const int code = err.code();
    // Responses that do not parse as HTTP, bodies that do not parse as FLV.
    if ((code > kErrorHttpBase && code < kErrorRtcBase) || (code >= kErrorFlvHeader && code <= kErrorFlvTagSize)) {
        return "protocol";
    }
    return rtmp_client_error_kind(err);  // sockets; a status other than 200 is "rejected"
}

// The non-200 statuses as a JSON object: {"404":3}.
std::string statuses_json() {
    std::string s = "{";
    for (const auto& [status, count] : g_rejected_statuses) {
        if (s.size() > 1) s += ",";
        s += "\"" + std::to_string(status) + "\":" + std::to_string(count);
    }
    return s + "}";
}

void usage(const char* argv0) {
    printf("Usage: %s -c CLIENTS -r URL [options]\n"
           "  -c CLIENTS   players to run (default 1)\n"
           "  -r URL       http://ip[:port]/app/stream.flv[?params]; %%d is replaced by the player index\n"
           "  -s MS        spread the players' start over MS milliseconds (default 0: all at once)\n"
           "  -d MS        wait before playing again after the server ended a response (default 1000)\n"
           "  -e MS        wait before retrying after a failed session (default 3000)\n"
           "  -m MS        report interval (default 5000)\n"
           "  -t SECONDS   run time; 0 runs until SIGINT/SIGTERM (default 0)\n"
           "  --timeout MS connect/receive timeout of a player (default 10000)\n"
           "  --json       print the summary as one JSON object on the last line\n"
           "Exit code: 0, or 1 when a verification failed (timestamps going back, a session\n"
           "starting without a keyframe, a response or FLV stream that does not parse), 2 for\n"
           "bad arguments.\n",
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
    return run_player_tool<Player>("sb_http_load", opt, check_http_url, [] {
        if (!g_rejected_statuses.empty()) {
            printf("  HTTP statuses other than 200:");
            for (const auto& [status, count] : g_rejected_statuses) printf(" %d=%" PRIu64, status, count);
            printf("\n");
        }
        return ",\"http_status\":" + statuses_json();
    });
}
