// sb_latency: the latency probe. One process plays both ends of a live
// stream: a publisher that stamps every video frame with the wall-clock time
// it sends it, and N players that read the stamp when the frame arrives.
//
//   sb_latency -i source.flv -p rtmp://127.0.0.1:1935/live/probe
//       -r rtmp://127.0.0.1:1935/live/probe -r http://127.0.0.1:8080/live/probe.flv
//       -c 1000 -s 5000 -t 60 --joins 50 --json
//
// The stamp is an SEI NAL unit put before the first NAL unit of each H.264 or
// H.265 frame (kernel/latency_stamp.hpp): a server forwards video payloads
// untouched, so it arrives as it left. Both ends read the same clock
// (CLOCK_REALTIME, one process), so arrival - stamp is the delay the server
// added, plus loopback and this process's own scheduling.
//
// - Publisher: RTMP, the file's tags paced by their timestamps (looped, the
//   timestamps growing across loops), one write per tag as an encoder does;
//   each coded video frame is stamped right before its write.
// - Players (-c, spread over -s ms): each -r URL gets every n-th player;
//   rtmp:// URLs are played with RtmpClient, http:// ones as HTTP-FLV. A frame
//   counts once it arrived completely. Frames stamped before the player's
//   play was accepted came from the GOP cache and are not delay samples;
//   neither are those stamped before the measurement starts (-s plus
//   --warmup after the start). HTTP-FLV players also read the kernel's
//   receive time of each read (SO_TIMESTAMPNS): kernel - stamp leaves out
//   this process's scheduling, which matters with many players on one core.
// - WebRTC (rtc_latency_session.hpp): a -p URL of WHIP (http://.../whip/...,
//   whip://, or webrtc:// for SRS's /rtc/v1/publish/) publishes the video
//   over one WebRTC session instead: each frame stamped, then packetized to
//   H.264 RTP by the kernel's packetizer (as the server's RTMP -> WebRTC
//   bridge does); audio and B-frames are not sent. A -r URL of WHEP
//   (http://.../whep/..., whep://, webrtc:// for /rtc/v1/play/) plays over
//   WebRTC: RTP put back in order and rebuilt into frames (a frame with a
//   hole is not a sample), read with the same stamp reader; "play accepted"
//   is ICE + DTLS up, so frames stamped before it are the cached ones.
// - Joins (--joins N): after the warm-up, N more players connect one after
//   another (--join-interval ms apart, the -r URLs in turn) and leave at their
//   first decodable video frame (a keyframe after a sequence header): the time
//   from the connect to it is the time to first frame.
//
// Every -m ms a report line per URL with the delay percentiles of the
// period; at the end a summary, and with --json one JSON object as the last
// line of stdout. docs/tools.md has it all.
#include <sys/socket.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/upstream/rtmp_client.hpp"
#include "core/clock.hpp"
#include "core/strings.hpp"
#include "io/signal_pipe.hpp"
#include "io/socket.hpp"
#include "kernel/flv/flv.hpp"
#include "kernel/latency_stamp.hpp"
#include "kernel/codec/media_codec.hpp"
#include "protocol/http/http_response_parser.hpp"
#include "protocol/rtmp/rtmp_command.hpp"
#include "flv_stream.hpp"
#include "http_client.hpp"
#include "rtc_latency_session.hpp"
#include "tool_common.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

struct Options : ToolOptions {
    std::vector<std::string> urls;  // -r, in order
    std::string publish_url;        // -p
    std::string input;              // -i
    int joins = 0;
    int join_interval_ms = 200;
    double warmup_s = 2;
    int chunk_size = 60000;
    bool whep_video_only = false;  // --whep-video-only
    // The process's one DTLS certificate, made when a URL is WebRTC.
    std::shared_ptr<DtlsCertificate> certificate;
};

// ---- a histogram of microseconds ----

// Values below 512 us have buckets of 1 us; above, each power of two has 256
// buckets (relative error under 0.4 %). Up to 2^32 us (71 minutes); larger
// values land in the last bucket. The maximum and minimum are kept exactly.
class Histogram {
  public:
    Histogram() : buckets_(kBuckets, 0) {}

    void add(int64_t us) {
        if (us < 0) {
            negative_++;
            us = 0;
        }
        buckets_[index_of(static_cast<uint64_t>(us))]++;
        if (count_ == 0 || us > max_) max_ = us;
        if (count_ == 0 || us < min_) min_ = us;
        count_++;
        sum_ += static_cast<double>(us);
    }
    void merge(const Histogram& o) {
        if (o.count_ == 0) return;
        for (int i = 0; i < kBuckets; i++) buckets_[i] += o.buckets_[i];
        max_ = count_ ? std::max(max_, o.max_) : o.max_;
        min_ = count_ ? std::min(min_, o.min_) : o.min_;
        count_ += o.count_;
        sum_ += o.sum_;
        negative_ += o.negative_;
    }
    void reset() { *this = Histogram(); }

    uint64_t count() const { return count_; }
    uint64_t negative() const { return negative_; }
    int64_t max() const { return max_; }
    int64_t min() const { return min_; }
    double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }
    // The smallest value v with at least p (0..1) of the samples <= v, as
    // the middle of its bucket (clamped to the exact min and max).
    int64_t percentile(double p) const {
        if (count_ == 0) return 0;
        uint64_t rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_)));
        rank = std::max<uint64_t>(1, std::min(rank, count_));
        uint64_t seen = 0;
        for (int i = 0; i < kBuckets; i++) {
            seen += buckets_[i];
            if (seen >= rank) {
                int64_t lo = 0, hi = 0;
                range_of(i, &lo, &hi);
                return std::min(max_, std::max(min_, (lo + hi) / 2));
            }
        }
        return max_;
    }

  private:
    static constexpr int kSubBits = 8;
    static constexpr int kLinear = 2 << kSubBits;  // 512
    static constexpr int kMaxShift = 32 - kSubBits - 1;
    static constexpr int kBuckets = kLinear + kMaxShift * (1 << kSubBits);

    static int index_of(uint64_t v) {
        if (v < static_cast<uint64_t>(kLinear)) return static_cast<int>(v);
        const int msb = 63 - __builtin_clzll(v);
        const int shift = msb - kSubBits;
        if (shift > kMaxShift) return kBuckets - 1;
        return kLinear + (shift - 1) * (1 << kSubBits) + static_cast<int>((v >> shift) - (1u << kSubBits));
    }
    static void range_of(int i, int64_t* lo, int64_t* hi) {
        if (i < kLinear) {
            *lo = *hi = i;
            return;
        }
        const int shift = (i - kLinear) / (1 << kSubBits) + 1;
        const int64_t mantissa = (i - kLinear) % (1 << kSubBits) + (1 << kSubBits);
        *lo = mantissa << shift;
        *hi = *lo + (int64_t{1} << shift) - 1;
    }

    std::vector<uint32_t> buckets_;
    uint64_t count_ = 0;
    uint64_t negative_ = 0;
    int64_t max_ = 0;
    int64_t min_ = 0;
    double sum_ = 0;
};

// The spread of one frame's arrival over the players of a URL: from the
// first player's arrival to the last one's (kernel receive times where
// known). With N players of one stream this is how long the server took to
// send that frame N times: a floor under the delay of the last player.
// Only frames every player of the URL got count; the newest kOpen frames are
// open, older ones are closed as they are pushed out.
class ArrivalSpread {
  public:
    void add(uint64_t stamp, utime_t at, int players) {
        Open& e = open_[stamp];
        if (e.count == 0) e.first = e.last = at;
        e.first = std::min(e.first, at);
        e.last = std::max(e.last, at);
        e.count++;
        players_ = players;
        while (open_.size() > kOpen) close(open_.begin());
    }
    void finish() {
        while (!open_.empty()) close(open_.begin());
    }
    const Histogram& spread() const { return spread_; }
    uint64_t incomplete() const { return incomplete_; }

  private:
    static constexpr size_t kOpen = 64;
    struct Open {
        int count = 0;
        utime_t first = 0, last = 0;
    };
    void close(std::map<uint64_t, Open>::iterator it) {
        if (it->second.count >= players_) spread_.add(it->second.last - it->second.first);
        else incomplete_++;
        open_.erase(it);
    }
    std::map<uint64_t, Open> open_;
    int players_ = 0;
    Histogram spread_;
    uint64_t incomplete_ = 0;
};

// ---- what is measured, per -r URL ----

enum class Scheme { kRtmp, kHttp, kWhep };

struct Probe {
    std::string url;
    Scheme scheme = Scheme::kRtmp;
    HttpUrl http;  // for kHttp
    int players = 0;
    // Delay samples: user-space arrival - stamp, and (HTTP-FLV) the kernel's
    // receive time - stamp. The period ones are reset by each report line.
    Histogram delay, delay_period;
    Histogram kernel, kernel_period;
    uint64_t cached = 0;     // stamped before the player's play was accepted: from the GOP cache
    uint64_t warmup = 0;     // stamped before the measurement started (or after it stopped)
    uint64_t unstamped = 0;  // coded video frames without a stamp
    uint64_t bad_stamps = 0; // a stamp SEI that did not parse
    // Joins.
    Histogram ttff;
    // Of the joins that got a frame, from the connect's start: connected
    // (RTMP: with the connect command answered), play accepted.
    Histogram join_connect, join_play;
    int joins_ok = 0;
    int joins_failed = 0;
    WhepCounters whep;  // kWhep: loss and refused payloads, summed over the sessions
    ArrivalSpread spread;  // the same frame's arrival, first player to last

    const char* protocol() const {
        return scheme == Scheme::kRtmp ? "rtmp" : scheme == Scheme::kHttp ? "http-flv" : "webrtc";
    }
};

// Wall-clock time from which stamped frames are delay samples.
utime_t g_measure_from = INT64_MAX;

// ---- HTTP-FLV, read with the kernel's receive times ----

// The one read buffer of every HTTP-FLV player: a player parses all it read
// before it can block again, so no other player touches it in between.
constexpr size_t kReadBufferSize = 128 * 1024;
uint8_t g_read_buffer[kReadBufferSize];

// ---- sessions ----


// One RTMP play session; success when the server ended it or the sink did.
Error play_rtmp(const std::string& url, utime_t timeout, MediaSink* sink, ClientStats* stats) {
    std::unique_ptr<RtmpClient> client(new RtmpClient());
    if (Error err = client->connect(url, timeout); !err.ok()) return err;
    sink->on_connected();
    if (Error err = client->play(); !err.ok()) return err;
    sink->on_play(wall_us());
    RtmpMessage msg;
    while (true) {
        Error err = client->recv_message(&msg);
        stats->session_bytes = client->bytes_in();
        if (!err.ok()) {
            if (err.code() != kErrorSocketClosed) return err;
            err.ignore();  // the server ended the session
            return Error();
        }
        if (!sink->on_message(msg.type, msg.timestamp, msg.payload.data(), msg.payload.size(), wall_us(), 0)) {
            return Error();
        }
    }
}

// One HTTP-FLV play session, read with recvmsg so that each read brings the
// kernel's receive time (SO_TIMESTAMPNS). Success when the server ended the
// response at a tag boundary or the sink ended the session.
Error play_http(const HttpUrl& url, utime_t timeout, MediaSink* sink, ClientStats* stats) {
    TcpConn* raw = nullptr;
    if (Error err = TcpConn::connect(url.host, url.port, timeout, &raw); !err.ok()) return err;
    std::unique_ptr<TcpConn> conn(raw);
    conn->set_recv_timeout(timeout);
    conn->set_send_timeout(timeout);
    // Set before the request goes out, so every byte of the answer is stamped;
    // without it there are no kernel times, only user-space ones.
    const int on = 1;
    setsockopt(conn->fd(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
    sink->on_connected();
    {
        const std::string req = http_get_request(url, "sb_latency");
        if (Error err = conn->write(req.data(), req.size()); !err.ok()) return err;
    }

    HttpResponseParser response(tool_response_limits());
    std::string body;                  // what one read decoded
    FlvStream flv(FlvStream::kAtEnd);  // a frame counts when it has arrived whole
    utime_t user_us = 0, kernel_us = 0;  // of the current read
    auto on_tag = [&](uint8_t type, uint32_t ts, const uint8_t* p, size_t n) {
        return sink->on_message(type, ts, p, n, user_us, kernel_us);
    };
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(struct timespec)) + 64];
    while (true) {
        struct iovec iov = {g_read_buffer, kReadBufferSize};
        struct msghdr msg = {};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof(control);
        size_t n = 0;
        Error err = conn->recvmsg(&msg, &n);
        user_us = wall_us();
        stats->session_bytes = conn->recv_bytes();
        if (!err.ok()) {
            if (err.code() != kErrorSocketClosed) return err;
            if (!response.head_done()) return SRS_WRAP(err, "closed before the response head ended");
            if (response.head().chunked || response.head().has_length) {
                return SRS_WRAP(err, "closed inside the response body");
            }
            if (!flv.at_boundary()) return SRS_WRAP(err, "closed inside an FLV tag");
            err.ignore();  // the server ended the response
            return Error();
        }
        kernel_us = 0;
        for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof(ts));
                kernel_us = static_cast<utime_t>(ts.tv_sec) * kUsPerSecond + ts.tv_nsec / 1000;
            }
        }
        const bool had_head = response.head_done();
        body.clear();
        size_t used = 0;
        Error parsed = response.feed(g_read_buffer, n, &used, &body);
        if (!had_head && response.head_done()) {
            const int status = response.head().status;
            if (status != 200) {
                parsed.ignore();  // the status says more than the body after it
                return SRS_ERR(kErrorRtmpClientRejected, "HTTP %d", status);
            }
            sink->on_play(user_us);
        }
        if (!parsed.ok()) return parsed;
        if (Error e = flv.feed(reinterpret_cast<const uint8_t*>(body.data()), body.size(), on_tag); !e.ok()) return e;
        if (flv.stopped()) return Error();
        if (response.done()) {
            if (!flv.at_boundary()) return SRS_ERR(kErrorSocketClosed, "the response body ended inside an FLV tag");
            return Error();
        }
    }
}

// One play session of the probe's URL, whatever its protocol.
Error play_probe(Probe* probe, const Options* opt, MediaSink* sink, ClientStats* stats) {
    const utime_t timeout = opt->timeout_ms * kUsPerMs;
    if (probe->scheme == Scheme::kRtmp) return play_rtmp(probe->url, timeout, sink, stats);
    if (probe->scheme == Scheme::kHttp) return play_http(probe->http, timeout, sink, stats);
    WhepSession session(probe->url, opt->certificate, timeout, opt->whep_video_only, sink, stats, &probe->whep);
    return session.run();
}

// ---- the players ----

const char* session_error_kind(const Error& err) {
    const int code = err.code();
    // WebRTC: STUN, DTLS, SRTP or the peer: ICE or the DTLS handshake did not
    // get through, or the session failed.
    if ((code >= kErrorStunTruncated && code <= kErrorStunCrypto) || (code >= kErrorDtlsInit && code <= kErrorDtlsSrtp) ||
        (code >= kErrorSrtpInit && code <= kErrorSrtpUnprotect) || (code >= kErrorRtcPeerState && code <= kErrorRtcPeerDtls)) {
        return "handshake";
    }
    if (code == kErrorRtcApiBody || (code >= kErrorSdpTooLarge && code <= kErrorSdpAnswer)) return "protocol";
    if ((code > kErrorHttpBase && code < kErrorRtcBase) || (code >= kErrorFlvHeader && code <= kErrorFlvTagSize)) {
        return "protocol";
    }
    return rtmp_client_error_kind(err);
}

// Logs the first few bad stamps.
int g_bad_stamp_logs = 5;

class Player : public ToolClient<Options, PlayerStats>, public MediaSink {
  public:
    Player(int index, const Options* opt, Probe* probe, ErrorLog* log)
        : ToolClient("player", index, opt, log), probe_(probe) {}

  private:
    Error session() override {
        verify_.reset();
        nalu_length_size_ = 4;
        play_start_ = INT64_MAX;
        return play_probe(probe_, opt_, this, &stats_);
    }
    const char* error_kind(const Error& err) const override { return session_error_kind(err); }

    void on_play(utime_t now) override {
        stats_.sessions++;
        stats_.alive = true;
        play_start_ = now;
    }

    bool on_message(uint8_t type, uint32_t ts, const uint8_t* p, size_t n, utime_t user_us,
                    utime_t kernel_us) override {
        stats_.messages++;
        if (type == kFlvTagVideo) {
            verify_.on_video(ts, p, n, &stats_);
            measure(p, n, user_us, kernel_us);
        } else if (type == kFlvTagAudio) {
            verify_.on_audio(ts, p, n, &stats_);
        } else {
            stats_.data_messages++;
        }
        return true;
    }

    void measure(const uint8_t* p, size_t n, utime_t user_us, utime_t kernel_us) {
        if (n == 0) return;
        if (is_video_sequence_header(p, n)) {
            if (int size = video_nalu_length_size(p, n); size > 0) nalu_length_size_ = size;
            return;
        }
        uint64_t stamp = 0;
        bool found = false;
        if (Error err = find_latency_stamp(p, n, nalu_length_size_, &stamp, &found); !err.ok()) {
            probe_->bad_stamps++;
            if (g_bad_stamp_logs > 0) {
                g_bad_stamp_logs--;
                srs_warn("player %d: bad stamp: %s", index_, err.summary().c_str());
            }
            err.ignore();
            return;
        }
        if (!found) {
            probe_->unstamped++;
            return;
        }
        const utime_t sent = static_cast<utime_t>(stamp);
        if (sent < play_start_) {
            probe_->cached++;
            return;
        }
        if (sent < g_measure_from || g_stopping) {
            probe_->warmup++;
            return;
        }
        probe_->delay.add(user_us - sent);
        probe_->delay_period.add(user_us - sent);
        if (kernel_us > 0) {
            probe_->kernel.add(kernel_us - sent);
            probe_->kernel_period.add(kernel_us - sent);
        }
        probe_->spread.add(stamp, kernel_us > 0 ? kernel_us : user_us, probe_->players);
    }

    Probe* probe_;
    MediaVerifier verify_;
    int nalu_length_size_ = 4;
    utime_t play_start_ = INT64_MAX;
};

// The joins, one after another: each connects, plays until its first
// decodable video frame, and leaves.
class Joiner : public CoroutineHandler, public MediaSink {
  public:
    Joiner(const Options* opt, std::vector<std::unique_ptr<Probe>>* probes, ErrorLog* log)
        : opt_(opt), probes_(probes), log_(log), co_("joiner", this) {}
    Error start() { return co_.start(); }
    void stop() { co_.stop(); }
    int done() const { return done_; }

  private:
    Error cycle() override {
        if (Error err = sleep_us(std::max<utime_t>(0, g_measure_from - wall_us())); !err.ok()) {
            err.ignore();
            return Error();
        }
        for (int i = 0; i < opt_->joins && !g_stopping; i++) {
            Probe* probe = (*probes_)[i % probes_->size()].get();
            seen_header_ = got_frame_ = false;
            ClientStats stats;
            start_us_ = monotonic_us();
            Error err = play_probe(probe, opt_, this, &stats);
            if (g_stopping || err.code() == kErrorThreadInterrupted) {
                err.ignore();
                break;
            }
            done_++;
            if (got_frame_) {
                probe->ttff.add(ttff_us_);
                probe->join_connect.add(connect_us_);
                probe->join_play.add(play_us_);
                probe->joins_ok++;
            } else {
                probe->joins_failed++;
                if (log_->budget > 0) {
                    log_->budget--;
                    srs_warn("join %d: no video frame: %s", i, err.ok() ? "the session ended" : err.summary().c_str());
                } else {
                    log_->suppressed++;
                }
            }
            err.ignore();
            if (Error e = sleep_us(opt_->join_interval_ms * kUsPerMs); !e.ok()) {
                e.ignore();
                break;
            }
        }
        return Error();
    }

    void on_connected() override { connect_us_ = monotonic_us() - start_us_; }
    void on_play(utime_t) override { play_us_ = monotonic_us() - start_us_; }
    bool on_message(uint8_t type, uint32_t, const uint8_t* p, size_t n, utime_t, utime_t) override {
        if (type != kFlvTagVideo || n == 0) return true;
        if (is_video_sequence_header(p, n)) {
            seen_header_ = true;
            return true;
        }
        if (!seen_header_ || !is_video_keyframe(p, n)) return true;
        ttff_us_ = monotonic_us() - start_us_;
        got_frame_ = true;
        return false;
    }

    const Options* opt_;
    std::vector<std::unique_ptr<Probe>>* probes_;
    ErrorLog* log_;
    Coroutine co_;
    int done_ = 0;
    bool seen_header_ = false;
    bool got_frame_ = false;
    utime_t start_us_ = 0;
    utime_t ttff_us_ = 0;
    utime_t connect_us_ = 0;
    utime_t play_us_ = 0;
};

// ---- the publisher ----

struct MediaTag {
    uint8_t type = 0;  // 8 audio, 9 video
    uint32_t ts = 0;   // relative to the first media tag
    bool sequence_header = false;
    SharedBytes data;
};

struct Media {
    bool has_metadata = false;
    Amf0Value metadata;
    std::vector<MediaTag> tags;  // audio and video, file order, sequence headers left out
    SharedBytes video_header;
    SharedBytes audio_header;
    int nalu_length_size = 4;
    VideoCodec codec = VideoCodec::kH264;
    uint32_t loop_duration_ms = 0;
    size_t largest_video = 0;
};

Error load_flv(const std::string& path, Media* out) {
    std::vector<FlvTag> tags;
    if (Error err = read_flv_file(path, &tags, &out->metadata, &out->has_metadata); !err.ok()) return err;

    bool have_first = false;
    uint32_t first_ts = 0, last_ts = 0, prev_video = 0, video_interval = 0;
    for (FlvTag& t : tags) {
        const uint8_t* p = t.data.data();
        const size_t size = t.data.size();
        const bool header = t.type == kFlvTagVideo ? is_video_sequence_header(p, size) : is_audio_sequence_header(p, size);
        if (header) {
            // The first one of each; a file with a different one later is not
            // what a probe needs.
            if (t.type == kFlvTagVideo && !out->video_header) {
                out->video_header = t.data;
                if (int s = video_nalu_length_size(p, size); s > 0) out->nalu_length_size = s;
            } else if (t.type == kFlvTagAudio && !out->audio_header) {
                out->audio_header = t.data;
            }
            continue;
        }
        if (!have_first) {
            have_first = true;
            first_ts = t.timestamp;
        }
        uint32_t ts = t.timestamp >= first_ts ? t.timestamp - first_ts : 0;
        ts = std::max(ts, last_ts);  // never backwards
        last_ts = ts;
        if (t.type == kFlvTagVideo) {
            if (ts > prev_video) video_interval = ts - prev_video;
            prev_video = ts;
            out->largest_video = std::max(out->largest_video, size);
        }
        MediaTag m;
        m.type = t.type;
        m.ts = ts;
        m.data = std::move(t.data);
        out->tags.push_back(std::move(m));
    }
    if (!out->video_header) return SRS_ERR(kErrorFlvTagType, "%s has no video sequence header", path.c_str());
    VideoPacketInfo info;
    if (Error err = parse_video_packet(out->video_header.data(), out->video_header.size(), &info); !err.ok()) {
        return SRS_WRAP(err, "%s: video sequence header", path.c_str());
    }
    if (info.codec != VideoCodec::kH264 && info.codec != VideoCodec::kH265) {
        return SRS_ERR(kErrorFlvTagType, "%s: video is %s; the stamp needs H.264 or H.265", path.c_str(),
                       video_codec_name(info.codec));
    }
    out->codec = info.codec;
    if (out->tags.empty()) return SRS_ERR(kErrorFlvTagType, "%s has no audio or video frames", path.c_str());
    out->loop_duration_ms = last_ts + (video_interval ? video_interval : 40);
    return Error();
}

struct PublisherStats : ClientStats {
    uint64_t stamped = 0;      // video frames sent with a stamp
    uint64_t measured = 0;     // of them, stamped while the measurement ran
    uint64_t not_stamped = 0;  // video frames stamp_video_tag refused (sent as they are)
    uint64_t audio_dropped = 0;  // WHIP: audio tags not sent (the offer is video only)
    uint64_t bframes_dropped = 0;  // WHIP: B-frames not sent
    WhipCounters whip;
};

class Publisher : public ToolClient<Options, PublisherStats> {
  public:
    Publisher(const Options* opt, const Media* media, ErrorLog* log)
        : ToolClient("publisher", 0, opt, log), media_(media), scratch_(media->largest_video + kLatencyStampMaxGrowth) {}

  private:
    Error session() override;
    Error session_rtmp();
    Error session_whip();
    // The video tag `tag` stamped into scratch_ (counted); false when it
    // could not be stamped (sent as it is).
    bool stamp(const MediaTag& tag, size_t* size);

    const Media* media_;
    std::vector<uint8_t> scratch_;
    std::vector<RtmpMessage> incoming_;
};

Error Publisher::session() { return is_whip_publish_url(opt_->publish_url) ? session_whip() : session_rtmp(); }

bool Publisher::stamp(const MediaTag& tag, size_t* size) {
    // Stamped right before the write: the server's delay starts here.
    const uint64_t stamp = static_cast<uint64_t>(wall_us());
    Error err = stamp_video_tag(tag.data.data(), tag.data.size(), media_->nalu_length_size, stamp, scratch_.data(), size);
    const bool ok = err.ok();
    err.ignore();
    if (!ok) {
        stats_.not_stamped++;
        return false;
    }
    stats_.stamped++;
    if (static_cast<utime_t>(stamp) >= g_measure_from && !g_stopping) stats_.measured++;
    return true;
}

// WHIP: the video only, each frame stamped, packetized and sent as it is due;
// between frames the session's datagrams (NACKs, consent) are handled.
Error Publisher::session_whip() {
    const Media& m = *media_;
    if (m.codec != VideoCodec::kH264) return SRS_ERR(kErrorFlvTagType, "WHIP publishing needs H.264 video");
    const utime_t timeout = opt_->timeout_ms * kUsPerMs;
    WhipSender sender(opt_->publish_url, opt_->certificate, timeout, &stats_.whip);
    if (m.video_header.size() <= 5) return SRS_ERR(kErrorFlvTagType, "the video sequence header is empty");
    if (Error err = sender.connect(m.video_header.data() + 5, m.video_header.size() - 5); !err.ok()) return err;
    stats_.sessions++;
    stats_.alive = true;

    const utime_t base = monotonic_us();
    uint64_t offset_ms = 0;
    for (size_t i = 0;; i++) {
        if (i == m.tags.size()) {
            i = 0;
            offset_ms += m.loop_duration_ms;
        }
        const MediaTag& tag = m.tags[i];
        const uint64_t ts = offset_ms + tag.ts;
        if (Error err = sender.pump(base + static_cast<utime_t>(ts) * kUsPerMs); !err.ok()) return err;
        if (tag.type != kFlvTagVideo) {
            stats_.audio_dropped++;
            continue;
        }
        // WebRTC has no frame reordering: B-frames are not sent (as the
        // server drops them for its WebRTC players), so the RTP timestamps
        // of what is sent only grow.
        if (tag.data.size() > 5 && h264_frame_has_b_slice(tag.data.data() + 5, tag.data.size() - 5, m.nalu_length_size)) {
            stats_.bframes_dropped++;
            continue;
        }
        size_t size = 0;
        const bool stamped = stamp(tag, &size);
        const uint8_t* body = stamped ? scratch_.data() : tag.data.data();
        const size_t n = stamped ? size : tag.data.size();
        // The RTP timestamp is the presentation time: dts + composition time.
        VideoPacketInfo info;
        int32_t cts = 0;
        if (Error err = parse_video_packet(tag.data.data(), tag.data.size(), &info); err.ok()) {
            cts = std::max<int32_t>(0, info.composition_time);
        } else {
            err.ignore();
        }
        const uint64_t pts = ts + static_cast<uint64_t>(cts);
        if (Error err = sender.send_frame(body, n, pts); !err.ok()) return err;
        stats_.session_bytes = sender.bytes_out();
        stats_.messages++;
        stats_.video_frames++;
        if (is_video_keyframe(tag.data.data(), tag.data.size())) stats_.keyframes++;
    }
}

Error Publisher::session_rtmp() {
    std::unique_ptr<RtmpClient> client(new RtmpClient());
    if (Error err = start_publishing(client.get(), "sb_latency", opt_->publish_url, opt_->timeout_ms, opt_->chunk_size);
        !err.ok()) {
        return err;
    }
    stats_.sessions++;
    stats_.alive = true;

    const Media& m = *media_;
    if (m.has_metadata) {
        if (Error err = client->send_metadata(m.metadata); !err.ok()) return SRS_WRAP(err, "metadata");
    }
    if (Error err = client->send_media(kRtmpVideo, 0, m.video_header); !err.ok()) return SRS_WRAP(err, "video header");
    if (m.audio_header) {
        if (Error err = client->send_media(kRtmpAudio, 0, m.audio_header); !err.ok()) return SRS_WRAP(err, "audio header");
    }
    stats_.messages += m.audio_header ? 2 : 1;

    const utime_t base = monotonic_us();
    utime_t next_poll = base + kUsPerSecond;
    uint64_t offset_ms = 0;
    for (size_t i = 0;; i++) {
        if (i == m.tags.size()) {
            i = 0;
            offset_ms += m.loop_duration_ms;
        }
        const MediaTag& tag = m.tags[i];
        const uint64_t ts = offset_ms + tag.ts;
        const utime_t due = base + static_cast<utime_t>(ts) * kUsPerMs;
        utime_t now = monotonic_us();
        if (now >= next_poll) {
            if (Error err = check_publish_status(client.get(), &incoming_); !err.ok()) return err;
            next_poll = now + kUsPerSecond;
            now = monotonic_us();
        }
        if (due > now) {
            if (Error err = sleep_us(due - now); !err.ok()) return err;
        }
        SharedBytes payload = tag.data;
        if (tag.type == kFlvTagVideo) {
            size_t size = 0;
            if (stamp(tag, &size)) payload = SharedBytes::copy_of(scratch_.data(), size);
        }
        if (Error err = client->send_media(tag.type, static_cast<uint32_t>(ts), payload); !err.ok()) return err;
        stats_.session_bytes = client->bytes_out();
        stats_.messages++;
        if (tag.type == kFlvTagVideo) {
            stats_.video_frames++;
            if (is_video_keyframe(tag.data.data(), tag.data.size())) stats_.keyframes++;
        } else {
            stats_.audio_frames++;
        }
    }
}

// ---- reports ----

double ms(int64_t us) { return static_cast<double>(us) / 1000.0; }

std::string percentiles_text(const Histogram& h) {
    char buf[160];
    snprintf(buf, sizeof(buf), "p50=%.2f p95=%.2f p99=%.2f max=%.2f ms", ms(h.percentile(0.5)), ms(h.percentile(0.95)),
             ms(h.percentile(0.99)), ms(h.max()));
    return buf;
}

std::string percentiles_json(const Histogram& h) {
    char buf[256];
    snprintf(buf, sizeof(buf),
             "{\"samples\":%" PRIu64 ",\"p50\":%.3f,\"p95\":%.3f,\"p99\":%.3f,\"max\":%.3f,\"min\":%.3f,\"mean\":%.3f"
             ",\"negative\":%" PRIu64 "}",
             h.count(), ms(h.percentile(0.5)), ms(h.percentile(0.95)), ms(h.percentile(0.99)), ms(h.max()), ms(h.min()),
             h.mean() / 1000.0, h.negative());
    return buf;
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out += c;
    }
    return out + "\"";
}

void usage(const char* argv0) {
    printf("Usage: %s -i FILE.flv -p PUBLISH_URL -r PLAY_URL [-r PLAY_URL...] [options]\n"
           "  -i FILE      FLV file to publish (H.264 or H.265 video), looped, paced by its timestamps\n"
           "  -p URL       where to publish: rtmp://ip[:port]/app/stream, or WebRTC (video only, no\n"
           "               B-frames): a WHIP endpoint http://ip:port/rtc/v1/whip/?app=APP&stream=STREAM\n"
           "               (whip://... the same), or webrtc://ip[:port]/app/stream (SRS's /rtc/v1/publish/)\n"
           "  -r URL       a URL of the same stream to play: rtmp://..., http://.../app/stream.flv, or\n"
           "               WebRTC: a WHEP endpoint http://ip:port/rtc/v1/whep/?app=APP&stream=STREAM\n"
           "               (whep://... the same), or webrtc://ip[:port]/app/stream (/rtc/v1/play/);\n"
           "               repeat for several (the players take them in turn)\n"
           "  -c PLAYERS   players to run (default 1)\n"
           "  -s MS        spread the players' start over MS milliseconds (default 0: all at once)\n"
           "  --warmup S   seconds after the spread before frames count (default 2)\n"
           "  --joins N    after the warm-up, N players join one after another and leave at their\n"
           "               first video frame: time to first frame (default 0)\n"
           "  --join-interval MS  between two joins (default 200)\n"
           "  -t SECONDS   run time from the players' start; 0 runs until SIGINT/SIGTERM (default 0)\n"
           "  -m MS        report interval (default 5000)\n"
           "  -d MS        wait before playing again after the server ended a session (default 1000)\n"
           "  -e MS        wait before retrying after a failed session (default 3000)\n"
           "  --timeout MS connect/receive timeout (default 10000)\n"
           "  --chunk-size N  RTMP chunk size the publisher sends with (default 60000)\n"
           "  --whep-video-only  WHEP players offer no audio: the server sends them video only\n"
           "  --json       print the summary as one JSON object on the last line\n"
           "Exit code: 0; 1 when the file cannot be used, the publisher never got on, or a\n"
           "verification failed (timestamps going back, a session starting without a keyframe, a\n"
           "stream that does not parse, a stamp that does not parse); 2 for bad arguments.\n",
           argv0);
}

Options parse_options(int argc, char** argv) {
    Options opt;
    const struct option longs[] = {{"json", no_argument, nullptr, 'j'},
                                   {"timeout", required_argument, nullptr, 'o'},
                                   {"joins", required_argument, nullptr, 'J'},
                                   {"join-interval", required_argument, nullptr, 'I'},
                                   {"warmup", required_argument, nullptr, 'W'},
                                   {"chunk-size", required_argument, nullptr, 'k'},
                                   {"whep-video-only", no_argument, nullptr, 'V'},
                                   {"help", no_argument, nullptr, 'h'},
                                   {nullptr, 0, nullptr, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "c:r:p:i:s:d:e:m:t:h", longs, nullptr)) != -1) {
        switch (c) {
            case 'r': opt.urls.push_back(optarg); continue;
            case 'p': opt.publish_url = optarg; continue;
            case 'i': opt.input = optarg; continue;
            case 'J': opt.joins = parse_int(optarg, "--joins", 0, 100000); continue;
            case 'I': opt.join_interval_ms = parse_int(optarg, "--join-interval", 0, 600000); continue;
            case 'V': opt.whep_video_only = true; continue;
            case 'k': opt.chunk_size = parse_int(optarg, "--chunk-size", 128, 65536); continue;
            case 'W': opt.warmup_s = parse_double_arg(optarg, "--warmup", 0, 3600); continue;
            case 'h': usage(argv[0]); exit(0);
            default: break;
        }
        if (!parse_common_option(c, optarg, &opt)) {
            usage(argv[0]);
            exit(2);
        }
    }
    if (optind < argc || opt.urls.empty() || opt.publish_url.empty() || opt.input.empty()) {
        usage(argv[0]);
        exit(2);
    }
    opt.url = opt.urls[0];
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    raise_fd_limit(opt.clients * 2 + 4, "players (a WHEP player signals on TCP while its UDP socket opens)");

    std::vector<std::unique_ptr<Probe>> probes;
    for (const std::string& url : opt.urls) {
        auto probe = std::make_unique<Probe>();
        probe->url = url;
        if (url.compare(0, 7, "rtmp://") == 0) {
            probe->scheme = Scheme::kRtmp;
            if (!check_rtmp_url(url)) return 2;
        } else if (is_whep_play_url(url)) {
            probe->scheme = Scheme::kWhep;
            RtcPlayUrl u;
            if (Error err = parse_rtc_play_url(rtc_http_form(url), &u); !err.ok()) {
                fprintf(stderr, "bad url %s: %s\n", url.c_str(), err.summary().c_str());
                err.ignore();
                return 2;
            }
        } else {
            probe->scheme = Scheme::kHttp;
            if (Error err = parse_http_url(url, &probe->http); !err.ok()) {
                fprintf(stderr, "bad url %s: %s\n", url.c_str(), err.summary().c_str());
                return 2;
            }
        }
        probes.push_back(std::move(probe));
    }
    const bool whip = is_whip_publish_url(opt.publish_url);
    if (whip) {
        RtcPlayUrl u;
        if (Error err = parse_rtc_publish_url(rtc_http_form(opt.publish_url), &u); !err.ok()) {
            fprintf(stderr, "bad url %s: %s\n", opt.publish_url.c_str(), err.summary().c_str());
            err.ignore();
            return 2;
        }
    } else if (!check_rtmp_url(opt.publish_url)) {
        return 2;
    }
    bool rtc = whip;
    for (const auto& p : probes) rtc = rtc || p->scheme == Scheme::kWhep;
    if (rtc) {
        if (Error err = DtlsCertificate::create(DtlsKeyType::kEcdsaP256, &opt.certificate); !err.ok()) {
            fprintf(stderr, "certificate: %s\n", err.describe().c_str());
            err.ignore();
            return 2;
        }
    }

    Media media;
    if (Error err = load_flv(opt.input, &media); !err.ok()) {
        fprintf(stderr, "input: %s\n", err.summary().c_str());
        return 1;
    }
    SignalPipe signals;
    if (!prepare_run(opt, &signals, [](const std::string&) { return true; })) return 2;

    ErrorLog error_log;
    Publisher publisher(&opt, &media, &error_log);
    if (Error err = publisher.start(); !err.ok()) {
        fprintf(stderr, "start publisher: %s\n", err.summary().c_str());
        return 2;
    }
    // Players of HTTP-FLV get a 404 until the stream is published.
    const utime_t publish_deadline = monotonic_us() + opt.timeout_ms * kUsPerMs;
    while (!publisher.stats().alive && monotonic_us() < publish_deadline) {
        if (Error err = sleep_us(10 * kUsPerMs); !err.ok()) {
            err.ignore();
            break;
        }
    }
    if (!publisher.stats().alive) {
        fprintf(stderr, "the publisher did not get on %s in %d ms\n", opt.publish_url.c_str(), opt.timeout_ms);
        g_stopping = true;
        publisher.interrupt();
        publisher.stop();
        return 1;
    }

    const utime_t start = monotonic_us();
    g_measure_from = wall_us() + (opt.startup_spread_ms + static_cast<utime_t>(opt.warmup_s * 1000)) * kUsPerMs;
    std::vector<std::unique_ptr<Player>> players;
    if (!start_clients(opt.clients, &players, [&](int i) {
            Probe* probe = probes[i % probes.size()].get();
            probe->players++;
            return new Player(i, &opt, probe, &error_log);
        })) {
        return 2;
    }
    Joiner joiner(&opt, &probes, &error_log);
    if (opt.joins > 0) {
        if (Error err = joiner.start(); !err.ok()) {
            fprintf(stderr, "start joiner: %s\n", err.summary().c_str());
            return 2;
        }
    }
    printf("[%s] sb_latency: %s to %s, %d players of", now_text().c_str(), opt.input.c_str(), opt.publish_url.c_str(),
           opt.clients);
    for (const auto& p : probes) printf(" %s", p->url.c_str());
    printf(", spread %d ms, warm-up %g s, %d joins, report every %d ms, run %g s (0: until SIGINT)\n",
           opt.startup_spread_ms, opt.warmup_s, opt.joins, opt.report_ms, opt.duration_s);
    fflush(stdout);

    auto sum = [&] { return sum_players(players); };
    run_reports(opt, &signals, &error_log, start, sum, [&](const PlayerTotals& t, const ReportPeriod& r) {
        const PublisherStats& ps = publisher.stats();
        printf("[%s] time=%ds players=%d alive=%d kbps=%d errors=%" PRIu64 " verify=%s; publisher alive=%d "
               "stamped=%" PRIu64 "\n",
               now_text().c_str(), r.elapsed_s, t.clients, t.alive, r.kbps, t.error_total,
               player_verify_failed(t) ? "FAIL" : "ok", ps.alive, ps.stamped);
        for (auto& p : probes) {
            printf("  %-8s frames=+%" PRIu64 " delay %s", p->protocol(), p->delay_period.count(),
                   percentiles_text(p->delay_period).c_str());
            if (p->scheme != Scheme::kRtmp) printf("; kernel %s", percentiles_text(p->kernel_period).c_str());
            printf("\n");
            p->delay_period.reset();
            p->kernel_period.reset();
        }
    });

    g_stopping = true;
    joiner.stop();
    PlayerTotals t = stop_clients(players, sum);
    publisher.interrupt();
    publisher.stop();
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const uint64_t kbps = t.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);
    const PublisherStats& ps = publisher.stats();

    uint64_t bad_stamps = 0;
    for (const auto& p : probes) {
        bad_stamps += p->bad_stamps;
        p->spread.finish();
    }
    const bool verify_failed = player_verify_failed(t) || bad_stamps > 0;

    print_summary_head(t, elapsed);
    print_player_summary(t, kbps);
    printf("  publisher: sessions %u, video %u (stamped %" PRIu64 ", %" PRIu64 " of them measured; not stamped %" PRIu64
           "), audio %u\n",
           ps.sessions, ps.video_frames, ps.stamped, ps.measured, ps.not_stamped, ps.audio_frames);
    if (whip) {
        printf("  WHIP: %" PRIu64 " RTP packets, B-frames not sent %" PRIu64 ", audio tags not sent %" PRIu64 ", NACKs %" PRIu64 " (%" PRIu64
               " resent), PLIs %" PRIu64 ", SRs %" PRIu64 "\n",
               ps.whip.packets, ps.bframes_dropped, ps.audio_dropped, ps.whip.nacks, ps.whip.resent, ps.whip.plis,
               ps.whip.sr_sent);
    }
    for (const auto& p : probes) {
        printf("  %s %s: %d players, %" PRIu64 " delay samples (cached %" PRIu64 ", warm-up %" PRIu64
               ", unstamped %" PRIu64 ", bad %" PRIu64 ")\n",
               p->protocol(), p->url.c_str(), p->players, p->delay.count(), p->cached, p->warmup, p->unstamped,
               p->bad_stamps);
        printf("    delay  %s (mean %.2f)\n", percentiles_text(p->delay).c_str(), p->delay.mean() / 1000.0);
        if (p->scheme != Scheme::kRtmp) {
            printf("    kernel %s (mean %.2f)\n", percentiles_text(p->kernel).c_str(), p->kernel.mean() / 1000.0);
        }
        if (p->players > 1) {
            printf("    spread of a frame's arrival over the %d players: %s (%" PRIu64 " frames; %" PRIu64
                   " not got by all)\n",
                   p->players, percentiles_text(p->spread.spread()).c_str(), p->spread.spread().count(),
                   p->spread.incomplete());
        }
        if (p->scheme == Scheme::kWhep) {
            printf("    RTP: %" PRIu64 " packets lost, %" PRIu64 " frames dropped (holes, or before a keyframe), %" PRIu64
                   " payloads refused, %" PRIu64 " datagrams refused\n",
                   p->whep.packets_lost, p->whep.frames_dropped, p->whep.bad_payloads, p->whep.refused_datagrams);
        }
        if (p->joins_ok + p->joins_failed > 0) {
            printf("    time to first frame: %d joins, %d failed, p50=%.1f p95=%.1f max=%.1f ms (p50 connected "
                   "after %.1f ms, play accepted after %.1f ms)\n",
                   p->joins_ok + p->joins_failed, p->joins_failed, ms(p->ttff.percentile(0.5)),
                   ms(p->ttff.percentile(0.95)), ms(p->ttff.max()), ms(p->join_connect.percentile(0.5)),
                   ms(p->join_play.percentile(0.5)));
        }
    }
    if (opt.json) {
        unsigned publisher_errors = 0;
        for (uint16_t e : ps.errors) publisher_errors += e;
        std::string streams = "[";
        for (const auto& p : probes) {
            if (streams.size() > 1) streams += ",";
            char head[512];
            snprintf(head, sizeof(head),
                     "{\"url\":%s,\"protocol\":\"%s\",\"players\":%d,\"frames\":%" PRIu64 ",\"cached_frames\":%" PRIu64
                     ",\"warmup_frames\":%" PRIu64 ",\"unstamped_frames\":%" PRIu64 ",\"bad_stamps\":%" PRIu64,
                     json_string(p->url).c_str(), p->protocol(), p->players, p->delay.count(), p->cached, p->warmup,
                     p->unstamped, p->bad_stamps);
            streams += head;
            streams += ",\"latency_ms\":" + percentiles_json(p->delay);
            streams += ",\"kernel_latency_ms\":" + (p->scheme != Scheme::kRtmp ? percentiles_json(p->kernel) : "null");
            streams += ",\"arrival_spread_ms\":" + percentiles_json(p->spread.spread());
            if (p->scheme == Scheme::kWhep) {
                char rtp[256];
                snprintf(rtp, sizeof(rtp),
                         ",\"rtp\":{\"packets_lost\":%" PRIu64 ",\"frames_dropped\":%" PRIu64 ",\"bad_payloads\":%" PRIu64
                         ",\"refused_datagrams\":%" PRIu64 "}",
                         p->whep.packets_lost, p->whep.frames_dropped, p->whep.bad_payloads, p->whep.refused_datagrams);
                streams += rtp;
            }
            char ttff[256];
            snprintf(ttff, sizeof(ttff),
                     ",\"ttff_ms\":{\"joins\":%d,\"ok\":%d,\"failed\":%d,\"p50\":%.3f,\"p95\":%.3f,\"max\":%.3f"
                     ",\"connected_p50\":%.3f,\"play_p50\":%.3f}}",
                     p->joins_ok + p->joins_failed, p->joins_ok, p->joins_failed, ms(p->ttff.percentile(0.5)),
                     ms(p->ttff.percentile(0.95)), ms(p->ttff.max()), ms(p->join_connect.percentile(0.5)),
                     ms(p->join_play.percentile(0.5)));
            streams += ttff;
        }
        streams += "]";
        printf("{\"players\":%d,\"alive\":%d,\"failed\":%d,\"elapsed_ms\":%" PRId64 ",\"kbps\":%" PRIu64
               ",\"video_frames\":%" PRIu64 ",\"audio_frames\":%" PRIu64 ",\"sessions\":%" PRIu64
               ",\"reconnects\":%" PRIu64 ",\"first_video_keyframe_ok\":%d,\"first_video_keyframe_bad\":%" PRIu64
               ",\"ts_monotonic_violations\":%" PRIu64 ",\"errors\":%s,\"joins_done\":%d"
               ",\"publisher\":{\"alive\":%s,\"sessions\":%u,\"video_frames\":%u,\"stamped\":%" PRIu64
               ",\"measured\":%" PRIu64 ",\"not_stamped\":%" PRIu64 ",\"audio_frames\":%u,\"errors\":%u"
               ",\"protocol\":\"%s\",\"rtp_packets\":%" PRIu64 ",\"audio_not_sent\":%" PRIu64 ",\"nacks\":%" PRIu64
               ",\"resent\":%" PRIu64 ",\"bframes_not_sent\":%" PRIu64 "},\"streams\":%s,\"verify_ok\":%s}\n",
               t.clients, t.alive, t.failed, static_cast<int64_t>(elapsed / kUsPerMs), kbps, t.video_frames,
               t.audio_frames, t.sessions, t.reconnects, t.first_video_keyframe_ok, t.keyframe_bad, t.ts_violations,
               errors_json(t).c_str(), joiner.done(), ps.sessions > 0 ? "true" : "false", ps.sessions,
               ps.video_frames, ps.stamped, ps.measured, ps.not_stamped, ps.audio_frames,
               publisher_errors, whip ? "webrtc" : "rtmp", ps.whip.packets, ps.audio_dropped, ps.whip.nacks,
               ps.whip.resent, ps.bframes_dropped, streams.c_str(), verify_failed ? "false" : "true");
    }
    fflush(stdout);
    return verify_failed ? 1 : 0;
}
