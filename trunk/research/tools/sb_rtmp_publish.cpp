// sb_rtmp_publish: many RTMP publishers in one process, one coroutine each,
// all sending the same FLV file in real time.
//
//   sb_rtmp_publish -c 100 -i source.flv -r rtmp://127.0.0.1:1935/live/s%d -t 60 --json
//
// The file is read once at startup (kernel/flv FlvReader) and its tags are
// shared by every publisher: a tag's body is one reference-counted buffer
// written straight to each socket. A publisher connects, publishes (ffmpeg's
// command flow), sends the metadata and the sequence headers, then the tags
// paced by their timestamps, looping the file with timestamps that keep
// growing across loops. Failed sessions are retried after -e ms. Reports and
// the --json summary as sb_rtmp_load's; docs/tools.md has the details.
#include <getopt.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "app/rtmp_client.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "io/coroutine.hpp"
#include "io/runtime.hpp"
#include "io/signal_pipe.hpp"
#include "kernel/flv.hpp"
#include "kernel/media_codec.hpp"
#include "protocol/rtmp_command.hpp"

using namespace srs;

namespace {

struct Options {
    int clients = 1;
    std::string input;
    std::string url;
    int startup_spread_ms = 0;
    int delay_ms = 1000;
    int error_sleep_ms = 3000;
    int report_ms = 5000;
    double duration_s = 0;  // 0: until a signal
    int timeout_ms = 10000;
    int chunk_size = 60000;
    int batch_ms = 0;  // tags due within this window leave in one write
    bool json = false;
};

const char* const kErrorKinds[] = {"connect", "timeout", "closed", "io", "rejected",
                                   "handshake", "protocol", "other"};
constexpr int kErrorKindCount = sizeof(kErrorKinds) / sizeof(kErrorKinds[0]);

int error_kind_index(const char* kind) {
    for (int i = 0; i < kErrorKindCount; i++) {
        if (strcmp(kErrorKinds[i], kind) == 0) return i;
    }
    return kErrorKindCount - 1;
}

// The file, as every publisher sends it.
struct MediaTag {
    uint8_t type = 0;     // 8 audio, 9 video
    uint32_t ts = 0;      // relative to the first media tag
    bool sequence_header = false;
    bool keyframe = false;
    SharedBytes data;
};

struct Media {
    bool has_metadata = false;
    Amf0Value metadata;
    std::vector<MediaTag> tags;  // audio and video, file order
    int video_header = -1;       // index of the first video / audio sequence header
    int audio_header = -1;
    uint32_t loop_duration_ms = 0;  // added to timestamps on each loop
};

struct PublisherStats {
    uint64_t bytes = 0;          // sent in sessions before the current one
    uint64_t session_bytes = 0;  // sent in the current session
    uint64_t messages = 0;
    uint32_t video_frames = 0;
    uint32_t audio_frames = 0;
    uint32_t keyframes = 0;
    uint32_t loops = 0;  // times the file was sent to the end
    uint32_t sessions = 0;
    uint32_t reconnects = 0;
    uint16_t errors[kErrorKindCount] = {};
    bool alive = false;
    bool failed = false;
};

struct ErrorLog {
    int budget = 10;
    int suppressed = 0;
};

bool g_stopping = false;

std::string url_for(const std::string& url, int index) {
    size_t pos = url.find("%d");
    if (pos == std::string::npos) return url;
    return url.substr(0, pos) + std::to_string(index) + url.substr(pos + 2);
}

bool same_bytes(const SharedBytes& a, const SharedBytes& b) {
    return a.size() == b.size() && (a.size() == 0 || memcmp(a.data(), b.data(), a.size()) == 0);
}

// How often a publisher looks at what the server sent (acks, status, a close).
constexpr utime_t kPollIntervalUs = 1 * kUsPerSecond;
// Tags due within this much (or -b, when larger) are sent without sleeping
// first, together in one write.
constexpr utime_t kSendAheadUs = 2 * kUsPerMs;
// Most messages in one write.
constexpr size_t kMaxBatch = 64;

class Publisher : public CoroutineHandler {
  public:
    Publisher(int index, const Options* opt, const Media* media, ErrorLog* log)
        : index_(index), opt_(opt), media_(media), log_(log), co_("publisher", this) {}
    Error start() { return co_.start(); }
    void interrupt() { co_.interrupt(); }
    void stop() { co_.stop(); }
    const PublisherStats& stats() const { return stats_; }

  private:
    Error cycle() override;
    Error session();
    void add_tag(const MediaTag& tag, uint32_t ts);
    Error flush_batch(RtmpClient* client);
    Error check_server(RtmpClient* client);
    void count_error(const Error& err);

    int index_;
    const Options* opt_;
    const Media* media_;
    ErrorLog* log_;
    PublisherStats stats_;
    Coroutine co_;
    std::vector<RtmpMessage> incoming_;
    std::vector<RtmpMessage> batch_;  // due now, not written yet
    std::vector<const MediaTag*> batch_tags_;
};

Error Publisher::cycle() {
    if (opt_->startup_spread_ms > 0 && opt_->clients > 1) {
        utime_t offset = (utime_t)opt_->startup_spread_ms * kUsPerMs * index_ / opt_->clients;
        if (Error err = sleep_us(offset); !err.ok()) {
            err.ignore();
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

void Publisher::count_error(const Error& err) {
    const char* kind = rtmp_client_error_kind(err);
    int i = error_kind_index(kind);
    if (stats_.errors[i] < UINT16_MAX) stats_.errors[i]++;
    stats_.failed = true;
    if (log_->budget > 0) {
        log_->budget--;
        srs_warn("publisher %d: %s: %s", index_, kind, err.summary().c_str());
    } else {
        log_->suppressed++;
    }
}

void Publisher::add_tag(const MediaTag& tag, uint32_t ts) {
    RtmpMessage msg;
    msg.type = tag.type;
    msg.timestamp = ts;
    msg.payload = tag.data;  // a reference, not a copy
    batch_.push_back(std::move(msg));
    batch_tags_.push_back(&tag);
}

Error Publisher::flush_batch(RtmpClient* client) {
    if (batch_.empty()) return Error();
    Error err = client->send_messages(batch_.data(), batch_.size());
    stats_.session_bytes = client->bytes_out();
    if (err.ok()) {
        for (const MediaTag* tag : batch_tags_) {
            stats_.messages++;
            if (tag->sequence_header) continue;
            if (tag->type == kRtmpVideo) {
                stats_.video_frames++;
                if (tag->keyframe) stats_.keyframes++;
            } else {
                stats_.audio_frames++;
            }
        }
    }
    batch_.clear();
    batch_tags_.clear();
    return err;
}

// Drains what the server sent: protocol control is answered inside; a status
// of level "error" ends the session.
Error Publisher::check_server(RtmpClient* client) {
    incoming_.clear();
    if (Error err = client->poll_messages(&incoming_); !err.ok()) return err;
    for (const RtmpMessage& msg : incoming_) {
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
    incoming_.clear();
    return Error();
}

Error Publisher::session() {
    std::unique_ptr<RtmpClient> client(new RtmpClient());
    client->set_flash_ver("FMLE/3.0 (compatible; sb_rtmp_publish)");
    const std::string url = url_for(opt_->url, index_);
    if (Error err = client->connect(url, opt_->timeout_ms * kUsPerMs); !err.ok()) return err;
    if (Error err = client->set_chunk_size(static_cast<uint32_t>(opt_->chunk_size)); !err.ok()) return err;
    if (Error err = client->publish(); !err.ok()) return err;
    stats_.sessions++;
    stats_.alive = true;

    const Media& m = *media_;
    if (m.has_metadata) {
        if (Error err = client->send_metadata(m.metadata); !err.ok()) return SRS_WRAP(err, "metadata");
    }
    // Sequence headers first, then the tags in file order.
    batch_.clear();
    batch_tags_.clear();
    SharedBytes last_header[2];  // [0] audio, [1] video
    for (int idx : {m.video_header, m.audio_header}) {
        if (idx < 0) continue;
        const MediaTag& tag = m.tags[idx];
        add_tag(tag, 0);
        last_header[tag.type == kRtmpVideo] = tag.data;
    }
    if (Error err = flush_batch(client.get()); !err.ok()) return SRS_WRAP(err, "sequence headers");

    const utime_t ahead = std::max<utime_t>(kSendAheadUs, opt_->batch_ms * kUsPerMs);
    const utime_t base = monotonic_us();
    utime_t next_poll = base + kPollIntervalUs;
    uint64_t offset_ms = 0;
    size_t i = 0;
    while (true) {
        if (i == m.tags.size()) {
            i = 0;
            stats_.loops++;
            offset_ms += m.loop_duration_ms;
        }
        const MediaTag& tag = m.tags[i];
        if (tag.sequence_header) {
            // Sent already, or the same as the one the server has.
            if (static_cast<int>(i) == m.video_header || static_cast<int>(i) == m.audio_header ||
                same_bytes(tag.data, last_header[tag.type == kRtmpVideo])) {
                i++;
                continue;
            }
            last_header[tag.type == kRtmpVideo] = tag.data;
        }
        const uint64_t ts = offset_ms + tag.ts;
        const utime_t due = base + static_cast<utime_t>(ts) * kUsPerMs;
        utime_t now = monotonic_us();
        if (due > now + ahead || batch_.size() >= kMaxBatch) {
            // Write what is due, look at the server now and then, wait for the next.
            if (Error err = flush_batch(client.get()); !err.ok()) return err;
            if (now >= next_poll) {
                if (Error err = check_server(client.get()); !err.ok()) return err;
                next_poll = now + kPollIntervalUs;
            }
            now = monotonic_us();
            if (due > now + ahead) {
                if (Error err = sleep_us(due - now); !err.ok()) return err;
            }
        }
        add_tag(tag, static_cast<uint32_t>(ts));
        i++;
    }
}

Error load_flv(const std::string& path, Media* out) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) return SRS_ERR(kErrorFileOpen, "open %s: %s", path.c_str(), strerror(errno));
    std::vector<uint8_t> bytes;
    uint8_t buf[64 * 1024];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
    bool read_error = ferror(f);
    fclose(f);
    if (read_error) return SRS_ERR(kErrorFileRead, "read %s", path.c_str());

    FlvReader reader;
    std::vector<FlvTag> tags;
    size_t consumed = 0;
    if (Error err = reader.feed(bytes.data(), bytes.size(), &consumed, &tags); !err.ok()) {
        return SRS_WRAP(err, "parse %s", path.c_str());
    }
    if (!reader.header_parsed()) return SRS_ERR(kErrorFlvHeader, "%s is not an FLV file", path.c_str());
    if (consumed < bytes.size()) {
        fprintf(stderr, "warning: %s ends with %zu bytes of a partial tag (ignored)\n", path.c_str(),
                bytes.size() - consumed);
    }

    bool have_first = false;
    uint32_t first_ts = 0, last_ts = 0;
    uint32_t prev_video_ts = 0, video_interval = 0;
    int videos = 0;
    for (FlvTag& t : tags) {
        if (t.type == kFlvTagScript) {
            RtmpData data;
            if (Error err = decode_rtmp_data_body(t.data.data(), t.data.size(), &data); !err.ok()) {
                fprintf(stderr, "warning: script tag not decodable: %s\n", err.summary().c_str());
                err.ignore();
                continue;
            }
            if (!out->has_metadata && data.name == kRtmpDataOnMetaData && !data.values.empty() &&
                data.values[0].has_properties()) {
                out->has_metadata = true;
                out->metadata = data.values[0];
            }
            continue;
        }
        MediaTag m;
        m.type = t.type;
        m.data = std::move(t.data);
        const uint8_t* p = m.data.data();
        const size_t size = m.data.size();
        if (m.type == kFlvTagVideo) {
            m.sequence_header = is_video_sequence_header(p, size);
            m.keyframe = !m.sequence_header && is_video_keyframe(p, size);
            if (m.sequence_header && out->video_header < 0) out->video_header = static_cast<int>(out->tags.size());
        } else {
            m.sequence_header = is_audio_sequence_header(p, size);
            if (m.sequence_header && out->audio_header < 0) out->audio_header = static_cast<int>(out->tags.size());
        }
        if (!have_first) {
            have_first = true;
            first_ts = t.timestamp;
        }
        // Timestamps going back inside a file are clamped (never sent backwards).
        uint32_t ts = t.timestamp >= first_ts ? t.timestamp - first_ts : 0;
        if (ts < last_ts) ts = last_ts;
        m.ts = ts;
        last_ts = ts;
        if (m.type == kFlvTagVideo && !m.sequence_header) {
            if (videos > 0 && ts > prev_video_ts) video_interval = ts - prev_video_ts;
            prev_video_ts = ts;
            videos++;
        }
        out->tags.push_back(std::move(m));
    }
    if (out->tags.empty()) return SRS_ERR(kErrorFlvTagType, "%s has no audio or video", path.c_str());
    // The next loop starts one frame after the last tag.
    out->loop_duration_ms = last_ts + (video_interval ? video_interval : 40);
    return Error();
}

struct Totals {
    int clients = 0;
    int alive = 0;
    int failed = 0;
    uint64_t bytes = 0;
    uint64_t messages = 0;
    uint64_t video_frames = 0;
    uint64_t audio_frames = 0;
    uint64_t keyframes = 0;
    uint64_t loops = 0;
    uint64_t sessions = 0;
    uint64_t reconnects = 0;
    uint64_t errors[kErrorKindCount] = {};
    uint64_t error_total = 0;
};

Totals sum(const std::vector<std::unique_ptr<Publisher>>& pubs) {
    Totals t;
    t.clients = static_cast<int>(pubs.size());
    for (const auto& p : pubs) {
        const PublisherStats& s = p->stats();
        t.alive += s.alive;
        t.failed += s.failed;
        t.bytes += s.bytes + s.session_bytes;
        t.messages += s.messages;
        t.video_frames += s.video_frames;
        t.audio_frames += s.audio_frames;
        t.keyframes += s.keyframes;
        t.loops += s.loops;
        t.sessions += s.sessions;
        t.reconnects += s.reconnects;
        for (int i = 0; i < kErrorKindCount; i++) {
            t.errors[i] += s.errors[i];
            t.error_total += s.errors[i];
        }
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

void usage(const char* argv0) {
    printf("Usage: %s -c CLIENTS -i FILE.flv -r URL [options]\n"
           "  -c CLIENTS   publishers to run (default 1)\n"
           "  -i FILE      FLV file to send, looped, paced by its timestamps\n"
           "  -r URL       rtmp://ip[:port]/app/stream[?params]; %%d is replaced by the publisher index\n"
           "  -s MS        spread the publishers' start over MS milliseconds (default 0)\n"
           "  -d MS        wait before publishing again after the server ended a session (default 1000)\n"
           "  -e MS        wait before retrying after a failed session (default 3000)\n"
           "  -m MS        report interval (default 5000)\n"
           "  -t SECONDS   run time; 0 runs until SIGINT/SIGTERM (default 0)\n"
           "  --timeout MS connect/send timeout (default 10000)\n"
           "  --chunk-size N  RTMP chunk size to send with (default 60000)\n"
           "  -b MS        send the tags due within MS ms in one write (default 0: each as it is due,\n"
           "               as an encoder does; larger values cost the tool less CPU)\n"
           "  --json       print the summary as one JSON object on the last line\n"
           "Exit code: 0; 1 when the file cannot be used; 2 for bad arguments.\n",
           argv0);
}

int parse_int(const char* s, const char* what, int min, int max = 100000000) {
    char* end = nullptr;
    long v = strtol(s, &end, 10);
    if (!end || *end || v < min || v > max) {
        fprintf(stderr, "bad %s: %s\n", what, s);
        exit(2);
    }
    return static_cast<int>(v);
}

Options parse_options(int argc, char** argv) {
    Options opt;
    static const struct option kLong[] = {{"json", no_argument, nullptr, 'j'},
                                          {"timeout", required_argument, nullptr, 'o'},
                                          {"chunk-size", required_argument, nullptr, 'k'},
                                          {"help", no_argument, nullptr, 'h'},
                                          {nullptr, 0, nullptr, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "c:i:r:s:d:e:m:t:b:h", kLong, nullptr)) != -1) {
        switch (c) {
            case 'c': opt.clients = parse_int(optarg, "-c", 1); break;
            case 'i': opt.input = optarg; break;
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
            case 'b': opt.batch_ms = parse_int(optarg, "-b", 0, 10000); break;
            case 'k': opt.chunk_size = parse_int(optarg, "--chunk-size", 128, 65536); break;
            case 'j': opt.json = true; break;
            case 'h': usage(argv[0]); exit(0);
            default: usage(argv[0]); exit(2);
        }
    }
    if (opt.url.empty() || opt.input.empty()) {
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
        fprintf(stderr, "warning: %d publishers but only %llu file descriptors\n", clients,
                static_cast<unsigned long long>(rl.rlim_cur));
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    raise_fd_limit(opt.clients);
    Media media;
    if (Error err = load_flv(opt.input, &media); !err.ok()) {
        fprintf(stderr, "input: %s\n", err.summary().c_str());
        return 1;
    }
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
    std::vector<std::unique_ptr<Publisher>> pubs;
    pubs.reserve(opt.clients);
    for (int i = 0; i < opt.clients; i++) {
        pubs.emplace_back(new Publisher(i, &opt, &media, &error_log));
        if (Error err = pubs.back()->start(); !err.ok()) {
            fprintf(stderr, "start publisher %d: %s\n", i, err.summary().c_str());
            return 2;
        }
    }
    printf("[%s] sb_rtmp_publish: %d publishers of %s to %s, %zu tags, loop %u ms, metadata=%d, report every "
           "%d ms, run %g s (0: until SIGINT)\n",
           now_text().c_str(), opt.clients, opt.input.c_str(), opt.url.c_str(), media.tags.size(),
           media.loop_duration_ms, media.has_metadata, opt.report_ms, opt.duration_s);
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
            Totals t = sum(pubs);
            utime_t span = std::max<utime_t>(now - last_report, 1);
            int kbps = static_cast<int>((t.bytes - last_bytes) * 8 * 1000 / static_cast<uint64_t>(span));
            printf("[%s] clients=%d alive=%d, time=%ds, msgs=%" PRIu64 " (+%" PRIu64 "), video=%" PRIu64
                   ", audio=%" PRIu64 ", loops=%" PRIu64 ", kbps=%d, errors=%" PRIu64 ", reconnects=%" PRIu64 "\n",
                   now_text().c_str(), t.clients, t.alive, static_cast<int>((now - start) / kUsPerSecond), t.messages,
                   t.messages - last_msgs, t.video_frames, t.audio_frames, t.loops, kbps, t.error_total,
                   t.reconnects);
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

    g_stopping = true;
    Totals at_end = sum(pubs);
    for (auto& p : pubs) p->interrupt();
    for (auto& p : pubs) p->stop();
    Totals t = sum(pubs);
    t.alive = at_end.alive;
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const uint64_t kbps = t.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);

    printf("[%s] summary: %.1f s, clients=%d alive=%d failed=%d sessions=%" PRIu64 " reconnects=%" PRIu64 "\n",
           now_text().c_str(), elapsed / 1e6, t.clients, t.alive, t.failed, t.sessions, t.reconnects);
    printf("  sent %" PRIu64 " bytes (%" PRIu64 " kbps), %" PRIu64 " messages: video %" PRIu64 " (keyframes %" PRIu64
           "), audio %" PRIu64 ", file loops %" PRIu64 "\n",
           t.bytes, kbps, t.messages, t.video_frames, t.keyframes, t.audio_frames, t.loops);
    printf("  errors %" PRIu64 ":", t.error_total);
    for (int i = 0; i < kErrorKindCount; i++) {
        if (t.errors[i]) printf(" %s=%" PRIu64, kErrorKinds[i], t.errors[i]);
    }
    printf("\n");
    if (opt.json) {
        std::string errors = "{";
        for (int i = 0; i < kErrorKindCount; i++) {
            if (i) errors += ",";
            errors += "\"" + std::string(kErrorKinds[i]) + "\":" + std::to_string(t.errors[i]);
        }
        errors += "}";
        printf("{\"clients\":%d,\"alive\":%d,\"failed\":%d,\"bytes\":%" PRIu64 ",\"kbps\":%" PRIu64
               ",\"elapsed_ms\":%" PRId64 ",\"msgs\":%" PRIu64 ",\"video_frames\":%" PRIu64
               ",\"audio_frames\":%" PRIu64 ",\"keyframes\":%" PRIu64 ",\"loops\":%" PRIu64 ",\"sessions\":%" PRIu64
               ",\"reconnects\":%" PRIu64 ",\"errors\":%s}\n",
               t.clients, t.alive, t.failed, t.bytes, kbps, static_cast<int64_t>(elapsed / kUsPerMs), t.messages,
               t.video_frames, t.audio_frames, t.keyframes, t.loops, t.sessions, t.reconnects, errors.c_str());
    }
    fflush(stdout);
    return 0;
}
