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
// Memory per player: the Player below (400 bytes: stats, the FLV and
// HTTP decoder states, the first 64 bytes of the tag being read), the
// coroutine's stack (touched pages only, a few KB), and while connected the
// TcpConn (about 100 bytes) and the kernel's socket buffers; while the
// response head is read, the head itself (at most 16 KB, freed once parsed).
// There is no per-player read buffer: every player reads into one 128 KB
// buffer and parses all it read before it can block again, so no other
// player touches the buffer in between. Tag bodies are never copied or kept:
// the checks read their first bytes in place and the rest is skipped.
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
#include "protocol/http/http_request.hpp"
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

constexpr size_t kMaxHeadSize = 16 * 1024;  // status line and header fields

// Non-200 statuses by code, over all players (one process, one thread).
std::map<int, uint64_t> g_rejected_statuses;

// ---- the player ----

class Player : public ToolClient<Options, PlayerStats> {
  public:
    Player(int index, const Options* opt, ErrorLog* log) : ToolClient("player", index, opt, log) {}

  private:
    Error session() override;
    const char* error_kind(const Error& err) const override;
    // Gathers the response head from p[0, n): *used is what belongs to it
    // (interim 1xx responses included), *done once a 200 head was parsed.
    Error take_head(const uint8_t* p, size_t n, size_t* used, bool* done);
    // Parses the head in head_; sets *interim for a 1xx to skip.
    Error parse_head(bool* interim);
    void on_tag(uint8_t type, uint32_t timestamp, const uint8_t* body, size_t n);

    MediaVerifier verify_;  // per session, as the decoders
    FlvStream flv_;
    HttpBody body_;
    std::string head_;  // while the head is read
};

Error Player::session() {
    verify_.reset();
    flv_ = FlvStream();
    body_ = HttpBody();
    head_.clear();

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
        std::string req = "GET " + url.target + " HTTP/1.1\r\nHost: " + url.host_header +
                          "\r\nUser-Agent: sb_http_load\r\nAccept: */*\r\nConnection: close\r\n\r\n";
        if (Error err = sock->write(req.data(), req.size()); !err.ok()) return SRS_WRAP(err, "send request");
    }

    bool in_head = true;
    auto on_data = [this](const uint8_t* d, size_t k) {
        return flv_.feed(d, k, [this](uint8_t type, uint32_t ts, const uint8_t* b, size_t m) {
            on_tag(type, ts, b, m);
            return true;
        });
    };
    while (true) {
        size_t n = 0;
        Error err = sock->read(g_read_buffer, kReadBufferSize, &n);
        stats_.session_bytes = sock->recv_bytes();
        if (!err.ok()) {
            if (err.code() != kErrorSocketClosed) return err;
            if (in_head) return SRS_WRAP(err, "closed before the response head ended");
            if (body_.mode() != HttpBody::kUntilClose) return SRS_WRAP(err, "closed before the response body ended");
            if (!flv_.header_done()) return SRS_WRAP(err, "closed inside the FLV header");
            if (!flv_.at_boundary()) return SRS_WRAP(err, "closed inside an FLV tag");
            // The server ended the response (stream gone, kicked): a normal end.
            err.ignore();
            return Error();
        }
        const uint8_t* p = g_read_buffer;
        if (in_head) {
            size_t used = 0;
            bool done = false;
            if (Error e = take_head(p, n, &used, &done); !e.ok()) return e;
            if (!done) continue;
            in_head = false;
            std::string().swap(head_);  // frees it
            stats_.sessions++;
            stats_.alive = true;
            p += used;
            n -= used;
        }
        if (Error e = body_.feed(p, n, on_data); !e.ok()) return e;
        if (body_.done()) {
            if (!flv_.at_boundary()) return SRS_ERR(kErrorSocketClosed, "the response body ended inside FLV");
            return Error();  // the server ended the response: a normal end
        }
    }
}

Error Player::take_head(const uint8_t* p, size_t n, size_t* used, bool* done) {
    *used = 0;
    *done = false;
    while (n > 0) {
        const size_t old = head_.size();
        head_.append(reinterpret_cast<const char*>(p), std::min(n, kMaxHeadSize + 4 - old));
        size_t pos = head_.find("\r\n\r\n", old >= 3 ? old - 3 : 0);
        if (pos == std::string::npos) {
            if (head_.size() > kMaxHeadSize) {
                return SRS_ERR(kErrorHttpHeadersTooLarge, "response head over %zu bytes", kMaxHeadSize);
            }
            *used += n;
            return Error();
        }
        const size_t taken = pos + 4 - old;
        head_.resize(pos + 4);
        *used += taken;
        p += taken;
        n -= taken;
        bool interim = false;
        if (Error err = parse_head(&interim); !err.ok()) return err;
        if (!interim) {
            *done = true;
            return Error();
        }
        head_.clear();  // 100 Continue and the like: the real response follows
    }
    return Error();
}

Error Player::parse_head(bool* interim) {
    *interim = false;
    std::string_view h(head_);
    size_t eol = h.find("\r\n");
    std::string_view line = h.substr(0, eol);
    // HTTP/1.x SP 3DIGIT [SP reason]
    if (line.size() < 12 || line.compare(0, 7, "HTTP/1.") != 0 || line[8] != ' ' || line[9] < '1' ||
        line[9] > '5' || line[10] < '0' || line[10] > '9' || line[11] < '0' || line[11] > '9' ||
        (line.size() > 12 && line[12] != ' ')) {
        return SRS_ERR(kErrorHttpBadRequestLine, "bad status line '%.*s'", static_cast<int>(std::min<size_t>(line.size(), 80)),
                       line.data());
    }
    const int status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    if (status >= 100 && status < 200) {
        if (status == 101) return SRS_ERR(kErrorHttpBadRequestLine, "unexpected 101 Switching Protocols");
        *interim = true;
        return Error();
    }
    if (status != 200) {
        g_rejected_statuses[status]++;
        std::string reason(line.size() > 13 ? line.substr(13) : std::string_view());
        return SRS_ERR(kErrorRtmpClientRejected, "HTTP %d %s", status, reason.c_str());
    }
    bool chunked = false, has_length = false;
    uint64_t length = 0;
    for (size_t at = eol + 2; at < h.size();) {
        size_t next = h.find("\r\n", at);
        std::string_view field = h.substr(at, next - at);
        at = next + 2;
        if (field.empty()) break;
        size_t colon = field.find(':');
        if (colon == std::string_view::npos || colon == 0) {
            return SRS_ERR(kErrorHttpBadHeader, "bad header field '%.*s'", static_cast<int>(std::min<size_t>(field.size(), 80)),
                           field.data());
        }
        std::string_view name = field.substr(0, colon), value = trim_ows(field.substr(colon + 1));
        if (iequals(name, "Transfer-Encoding")) {
            // The last coding must be chunked; identity alone is no coding.
            size_t comma = value.find_last_of(',');
            std::string_view last = trim_ows(comma == std::string_view::npos ? value : value.substr(comma + 1));
            if (iequals(last, "chunked")) {
                chunked = true;
            } else if (!iequals(value, "identity")) {
                return SRS_ERR(kErrorHttpUnsupportedTransferEncoding, "Transfer-Encoding: %.*s",
                               static_cast<int>(value.size()), value.data());
            }
        } else if (iequals(name, "Content-Length")) {
            if (value.size() > 18 || !parse_integer(value, &length)) {
                return SRS_ERR(kErrorHttpBadContentLength, "Content-Length: %.*s", static_cast<int>(value.size()),
                               value.data());
            }
            has_length = true;
        }
    }
    // Chunked wins over a length (RFC 9112 6.3).
    if (chunked) body_.start(HttpBody::kChunked, 0);
    else if (has_length) body_.start(HttpBody::kLength, length);
    else body_.start(HttpBody::kUntilClose, 0);
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
