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
#include "io/signal_pipe.hpp"
#include "io/socket.hpp"
#include "kernel/flv.hpp"
#include "protocol/http_request.hpp"
#include "protocol/rtmp_url.hpp"
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
constexpr size_t kBodyPrefix = 64;          // bytes of a tag body the checks need at least
constexpr uint32_t kMaxFlvDataOffset = 64 * 1024;

// Non-200 statuses by code, over all players (one process, one thread).
std::map<int, uint64_t> g_rejected_statuses;

std::string_view trim(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
}

// ---- FLV, decoded as it arrives ----

// Takes the FLV stream in pieces of any size and keeps no pointer into them:
// the headers being read (9, 11 or 4 bytes) are gathered in a small array, a
// tag body is skipped once its first bytes were shown to on_tag. on_tag(type,
// timestamp, body, n) is called once per tag, as soon as min(DataSize, 64)
// bytes of its body are in: `body` holds n of them, in place when they are
// contiguous in the piece (then n is all of the body the piece has), else
// gathered. The PreviousTagSize after the tag must be 11 + DataSize (0 after
// the file header); a mismatch, a bad signature, a tag type other than 8/9/18,
// a filtered tag or a non-zero stream id is an error, and the stream is then
// unusable.
class FlvStream {
  public:
    template <typename OnTag>
    Error feed(const uint8_t* p, size_t n, OnTag&& on_tag);
    // Between two tags (after the file header): where a stream may end.
    bool at_boundary() const { return state_ == kTagHeader && have_ == 0; }
    bool header_done() const { return state_ != kHeader && state_ != kHeaderSkip; }

  private:
    enum State : uint8_t { kHeader, kHeaderSkip, kTagHeader, kBody, kPreviousSize };
    // Gathers up to `need` bytes into small_; true once there are `need`.
    bool gather(const uint8_t** p, const uint8_t* end, size_t need) {
        size_t k = std::min(need - have_, static_cast<size_t>(end - *p));
        memcpy(small_ + have_, *p, k);
        *p += k;
        have_ += k;
        if (have_ < need) return false;
        have_ = 0;
        return true;
    }

    State state_ = kHeader;
    bool shown_ = false;  // on_tag was called for the current tag
    uint8_t type_ = 0;
    uint8_t small_[kFlvTagHeaderSize] = {};
    size_t have_ = 0;  // bytes in small_
    uint32_t timestamp_ = 0;
    uint32_t data_size_ = 0;
    uint32_t left_ = 0;  // of the body (or of the header's padding)
    uint32_t expected_previous_ = 0;
    uint32_t prefix_size_ = 0;
    uint8_t prefix_[kBodyPrefix] = {};
};

template <typename OnTag>
Error FlvStream::feed(const uint8_t* p, size_t n, OnTag&& on_tag) {
    const uint8_t* const end = p + n;
    while (p < end) {
        switch (state_) {
            case kHeader: {
                if (!gather(&p, end, kFlvHeaderSize)) break;
                if (memcmp(small_, "FLV\x01", 4) != 0) return SRS_ERR(kErrorFlvHeader, "not an FLV version 1 header");
                uint32_t offset = be32(small_ + 5);
                if (offset < kFlvHeaderSize || offset > kMaxFlvDataOffset) {
                    return SRS_ERR(kErrorFlvHeader, "FLV DataOffset %u", offset);
                }
                left_ = offset - kFlvHeaderSize;
                expected_previous_ = 0;
                state_ = left_ ? kHeaderSkip : kPreviousSize;
                break;
            }
            case kHeaderSkip: {
                uint32_t k = static_cast<uint32_t>(std::min<size_t>(left_, end - p));
                p += k;
                left_ -= k;
                if (left_ == 0) state_ = kPreviousSize;
                break;
            }
            case kTagHeader: {
                if (!gather(&p, end, kFlvTagHeaderSize)) break;
                const uint8_t* h = small_;
                type_ = h[0] & 0x1f;
                if (h[0] & 0xe0) return SRS_ERR(kErrorFlvTagType, "FLV tag reserved/filter bits, byte=0x%02x", h[0]);
                if (type_ != kFlvTagAudio && type_ != kFlvTagVideo && type_ != kFlvTagScript) {
                    return SRS_ERR(kErrorFlvTagType, "FLV tag type %u", type_);
                }
                if (be24(h + 8) != 0) return SRS_ERR(kErrorFlvTagType, "FLV tag stream id %u", be24(h + 8));
                data_size_ = be24(h + 1);
                timestamp_ = be24(h + 4) | (static_cast<uint32_t>(h[7]) << 24);
                left_ = data_size_;
                expected_previous_ = static_cast<uint32_t>(kFlvTagHeaderSize) + data_size_;
                prefix_size_ = 0;
                shown_ = false;
                state_ = kBody;
                if (data_size_ == 0) {
                    on_tag(type_, timestamp_, prefix_, 0);
                    shown_ = true;
                    state_ = kPreviousSize;
                }
                break;
            }
            case kBody: {
                const uint32_t avail = static_cast<uint32_t>(std::min<size_t>(left_, end - p));
                if (!shown_) {
                    const uint32_t want = std::min<uint32_t>(data_size_, kBodyPrefix);
                    if (prefix_size_ == 0 && avail >= want) {
                        on_tag(type_, timestamp_, p, avail);  // in place: the common case
                        shown_ = true;
                    } else {
                        uint32_t k = std::min(want - prefix_size_, avail);
                        memcpy(prefix_ + prefix_size_, p, k);
                        prefix_size_ += k;
                        if (prefix_size_ == want) {
                            on_tag(type_, timestamp_, prefix_, want);
                            shown_ = true;
                        }
                    }
                }
                p += avail;
                left_ -= avail;
                if (left_ == 0) state_ = kPreviousSize;
                break;
            }
            case kPreviousSize: {
                if (!gather(&p, end, kFlvPreviousTagSize)) break;
                uint32_t previous = be32(small_);
                if (previous != expected_previous_) {
                    return SRS_ERR(kErrorFlvTagSize, "PreviousTagSize %u, expected %u", previous, expected_previous_);
                }
                state_ = kTagHeader;
                break;
            }
        }
    }
    return Error();
}

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
        return flv_.feed(d, k, [this](uint8_t type, uint32_t ts, const uint8_t* b, size_t m) { on_tag(type, ts, b, m); });
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
        std::string_view name = field.substr(0, colon), value = trim(field.substr(colon + 1));
        if (http_iequals(name, "Transfer-Encoding")) {
            // The last coding must be chunked; identity alone is no coding.
            size_t comma = value.find_last_of(',');
            std::string_view last = trim(comma == std::string_view::npos ? value : value.substr(comma + 1));
            if (http_iequals(last, "chunked")) {
                chunked = true;
            } else if (!http_iequals(value, "identity")) {
                return SRS_ERR(kErrorHttpUnsupportedTransferEncoding, "Transfer-Encoding: %.*s",
                               static_cast<int>(value.size()), value.data());
            }
        } else if (http_iequals(name, "Content-Length")) {
            if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string_view::npos) {
                return SRS_ERR(kErrorHttpBadContentLength, "Content-Length: %.*s", static_cast<int>(value.size()),
                               value.data());
            }
            length = strtoull(std::string(value).c_str(), nullptr, 10);
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
