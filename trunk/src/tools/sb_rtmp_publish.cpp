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

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "app/upstream/rtmp_client.hpp"
#include "core/clock.hpp"
#include "io/signal_pipe.hpp"
#include "kernel/flv/flv.hpp"
#include "kernel/codec/media_codec.hpp"
#include "protocol/rtmp/rtmp_command.hpp"
#include "tool_common.hpp"

using namespace srs;
using namespace srs::tool;

namespace {

struct Options : ToolOptions {
    std::string input;
    int chunk_size = 60000;
    int batch_ms = 0;  // tags due within this window leave in one write
};

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

// Everything one publisher counts, over all its sessions: bytes are sent ones.
struct PublisherStats : ClientStats {
    uint32_t loops = 0;  // times the file was sent to the end
};

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

class Publisher : public ToolClient<Options, PublisherStats> {
  public:
    Publisher(int index, const Options* opt, const Media* media, ErrorLog* log)
        : ToolClient("publisher", index, opt, log), media_(media) {}

  private:
    Error session() override;
    void add_tag(const MediaTag& tag, uint32_t ts);
    Error flush_batch(RtmpClient* client);

    const Media* media_;
    std::vector<RtmpMessage> incoming_;
    std::vector<RtmpMessage> batch_;  // due now, not written yet
    std::vector<const MediaTag*> batch_tags_;
};

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

Error Publisher::session() {
    std::unique_ptr<RtmpClient> client(new RtmpClient());
    const std::string url = url_for(opt_->url, index_);
    if (Error err = start_publishing(client.get(), "sb_rtmp_publish", url, opt_->timeout_ms, opt_->chunk_size);
        !err.ok()) {
        return err;
    }
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
                if (Error err = check_publish_status(client.get(), &incoming_); !err.ok()) return err;
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
    std::vector<FlvTag> tags;
    if (Error err = read_flv_file(path, &tags, &out->metadata, &out->has_metadata); !err.ok()) return err;

    bool have_first = false;
    uint32_t first_ts = 0, last_ts = 0;
    uint32_t prev_video_ts = 0, video_interval = 0;
    int videos = 0;
    for (FlvTag& t : tags) {
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

// Sums over all publishers.
struct Totals : ClientTotals {
    uint64_t loops = 0;
};

Totals sum(const std::vector<std::unique_ptr<Publisher>>& pubs) {
    Totals t;
    for (const auto& p : pubs) {
        const PublisherStats& s = p->stats();
        t.add(s);
        t.loops += s.loops;
    }
    return t;
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

Options parse_options(int argc, char** argv) {
    Options opt;
    parse_command_line(argc, argv, "c:i:r:s:d:e:m:t:b:h", {{"chunk-size", required_argument, nullptr, 'k'}}, usage,
                       &opt, [&](int c, const char* arg) {
                           switch (c) {
                               case 'i': opt.input = arg; return true;
                               case 'b': opt.batch_ms = parse_int(arg, "-b", 0, 10000); return true;
                               case 'k': opt.chunk_size = parse_int(arg, "--chunk-size", 128, 65536); return true;
                               default: return false;
                           }
                       });
    if (opt.input.empty()) {
        usage(argv[0]);
        exit(2);
    }
    return opt;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    raise_fd_limit(opt.clients, "publishers");
    Media media;
    if (Error err = load_flv(opt.input, &media); !err.ok()) {
        fprintf(stderr, "input: %s\n", err.summary().c_str());
        return 1;
    }
    SignalPipe signals;
    if (!prepare_run(opt, &signals)) return 2;

    ErrorLog error_log;
    std::vector<std::unique_ptr<Publisher>> pubs;
    if (!start_clients(opt.clients, &pubs, [&](int i) { return new Publisher(i, &opt, &media, &error_log); })) {
        return 2;
    }
    printf("[%s] sb_rtmp_publish: %d publishers of %s to %s, %zu tags, loop %u ms, metadata=%d, report every "
           "%d ms, run %g s (0: until SIGINT)\n",
           now_text().c_str(), opt.clients, opt.input.c_str(), opt.url.c_str(), media.tags.size(),
           media.loop_duration_ms, media.has_metadata, opt.report_ms, opt.duration_s);
    fflush(stdout);

    const utime_t start = monotonic_us();
    auto sum_pubs = [&] { return sum(pubs); };
    run_reports(opt, &signals, &error_log, start, sum_pubs, [&](const Totals& t, const ReportPeriod& r) {
        printf("[%s] clients=%d alive=%d, time=%ds, msgs=%" PRIu64 " (+%" PRIu64 "), video=%" PRIu64
               ", audio=%" PRIu64 ", loops=%" PRIu64 ", kbps=%d, errors=%" PRIu64 ", reconnects=%" PRIu64 "\n",
               now_text().c_str(), t.clients, t.alive, r.elapsed_s, t.messages, r.new_messages, t.video_frames,
               t.audio_frames, t.loops, r.kbps, t.error_total, t.reconnects);
    });

    Totals t = stop_clients(pubs, sum_pubs);
    const utime_t elapsed = std::max<utime_t>(monotonic_us() - start, 1);
    const uint64_t kbps = t.bytes * 8 * 1000 / static_cast<uint64_t>(elapsed);

    print_summary_head(t, elapsed);
    printf("  sent %" PRIu64 " bytes (%" PRIu64 " kbps), %" PRIu64 " messages: video %" PRIu64 " (keyframes %" PRIu64
           "), audio %" PRIu64 ", file loops %" PRIu64 "\n",
           t.bytes, kbps, t.messages, t.video_frames, t.keyframes, t.audio_frames, t.loops);
    print_errors_line(t);
    if (opt.json) {
        printf("{\"clients\":%d,\"alive\":%d,\"failed\":%d,\"bytes\":%" PRIu64 ",\"kbps\":%" PRIu64
               ",\"elapsed_ms\":%" PRId64 ",\"msgs\":%" PRIu64 ",\"video_frames\":%" PRIu64
               ",\"audio_frames\":%" PRIu64 ",\"keyframes\":%" PRIu64 ",\"loops\":%" PRIu64 ",\"sessions\":%" PRIu64
               ",\"reconnects\":%" PRIu64 ",\"errors\":%s}\n",
               t.clients, t.alive, t.failed, t.bytes, kbps, static_cast<int64_t>(elapsed / kUsPerMs), t.messages,
               t.video_frames, t.audio_frames, t.keyframes, t.loops, t.sessions, t.reconnects, errors_json(t).c_str());
    }
    fflush(stdout);
    return 0;
}
