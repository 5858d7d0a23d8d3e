#include "app/http/http_flv.hpp"

#include <cstring>
#include <vector>

#include "app/http/http_remux_audio.hpp"
#include "app/http/http_remux_ts.hpp"
#include "app/live/consumer_options.hpp"
#include "app/live/live_consumer.hpp"
#include "app/live/live_source.hpp"
#include "app/live/player_pump.hpp"
#include "app/security/access_check.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"
#include "kernel/flv/flv.hpp"

namespace srs {

static std::string host_without_port(const std::string& host) {
    if (!host.empty() && host[0] == '[') return host.substr(1, host.find(']') - 1);
    return host.substr(0, host.find(':'));
}

FlvTracks choose_flv_tracks(bool conf_audio, bool conf_video, bool guess, bool drop_if_not_match, bool carries_audio,
                            bool carries_video) {
    FlvTracks t;
    bool known = carries_audio || carries_video;
    t.audio = guess && known ? carries_audio : conf_audio;
    t.video = guess && known ? carries_video : conf_video;
    t.drop_unannounced = drop_if_not_match;
    return t;
}

namespace {

// A mount template as pieces: literal text, [app] or [stream].
struct MountPiece {
    enum Kind { kLiteral, kApp, kStream } kind;
    std::string text;
};

// Whole-path match, longest captures first (as a greedy regex would); [app]
// may hold slashes ("live/sub"), [stream] not; both are at least one byte.
bool match_pieces(const std::vector<MountPiece>& pieces, size_t i, const std::string& path, size_t pos,
                  std::string* app, std::string* stream) {
    if (i == pieces.size()) return pos == path.size();
    const MountPiece& p = pieces[i];
    if (p.kind == MountPiece::kLiteral) {
        return path.compare(pos, p.text.size(), p.text) == 0 &&
               match_pieces(pieces, i + 1, path, pos + p.text.size(), app, stream);
    }
    size_t max_end = path.size();
    if (p.kind == MountPiece::kStream) {
        size_t slash = path.find('/', pos);
        if (slash != std::string::npos) max_end = slash;
    }
    for (size_t end = max_end; end > pos; end--) {
        if (match_pieces(pieces, i + 1, path, end, app, stream)) {
            *(p.kind == MountPiece::kApp ? app : stream) = path.substr(pos, end - pos);
            return true;
        }
    }
    return false;
}

}  // namespace

bool HttpFlvHandler::match_mount(const std::string& mount, const std::string& vhost, const std::string& path,
                                 std::string* app, std::string* stream) {
    std::string tmpl = mount;
    const std::string vh = "[vhost]";
    if (vhost == kDefaultVhost) {
        size_t at = tmpl.find(vh + "/");
        if (at != std::string::npos) tmpl.erase(at, vh.size() + 1);
    }
    if (tmpl.empty() || tmpl[0] != '/') tmpl = "/" + tmpl;
    std::vector<MountPiece> pieces;
    bool has_app = false, has_stream = false;
    auto literal = [&](const std::string& text) {
        if (pieces.empty() || pieces.back().kind != MountPiece::kLiteral) pieces.push_back({MountPiece::kLiteral, ""});
        pieces.back().text += text;
    };
    for (size_t i = 0; i < tmpl.size();) {
        if (tmpl.compare(i, 5, "[app]") == 0) {
            pieces.push_back({MountPiece::kApp, ""});
            has_app = true;
            i += 5;
        } else if (tmpl.compare(i, 8, "[stream]") == 0) {
            pieces.push_back({MountPiece::kStream, ""});
            has_stream = true;
            i += 8;
        } else if (tmpl.compare(i, vh.size(), vh) == 0) {
            literal(vhost);
            i += vh.size();
        } else {
            literal(std::string(1, tmpl[i++]));
        }
    }
    if (!has_app || !has_stream) return false;
    return match_pieces(pieces, 0, path, 0, app, stream);
}

std::string HttpFlvHandler::request_vhost(const HttpRequest& req) const {
    std::string vhost = req.query_param("vhost");
    if (vhost.empty()) {
        const std::string* host = req.header("Host");
        vhost = host ? host_without_port(*host) : "";
    }
    return ctx_->config()->has_vhost(vhost) ? vhost : std::string(kDefaultVhost);
}

bool HttpFlvHandler::match(const HttpRequest& req) const {
    if (req.method != "GET" && req.method != "HEAD") return false;
    RemuxFormat format = remux_format_of(req.path);
    if (format == RemuxFormat::kFlv) return true;  // every .flv is ours (a 404 when not mounted)
    if (format == RemuxFormat::kNone) return false;
    // .ts, .mp3 and .aac are also files of the static server (HLS segments):
    // ours only where the vhost's mount has that extension and names a stream
    // this server has or may pull, as SRS mounts a stream while it is published.
    std::shared_ptr<const Config> config = ctx_->config();
    std::string vhost = request_vhost(req);
    if (!config->get(vhost, keys::vhost_http_remux_enabled)) return false;
    const std::string mount = config->get(vhost, keys::vhost_http_remux_mount);
    std::string app, stream;
    if (remux_format_of(mount) != format || !match_mount(mount, vhost, req.path, &app, &stream)) return false;
    LiveSource* found = ctx_->sources().find(vhost, app, stream);
    return (found && found->publishing()) || ctx_->puller().may_pull(vhost);
}

Error HttpFlvHandler::serve(const HttpRequest& req, HttpResponse* res) {
    std::shared_ptr<const Config> config = ctx_->config();
    std::string vhost = request_vhost(req);
    if (!config->get(vhost, keys::vhost_http_remux_enabled)) return res->send_error(404);
    // One mount per vhost (SRS): its extension is the one format served.
    const std::string mount = config->get(vhost, keys::vhost_http_remux_mount);
    RemuxFormat format = remux_format_of(mount);
    std::string app, stream;
    if (format == RemuxFormat::kNone || remux_format_of(req.path) != format ||
        !match_mount(mount, vhost, req.path, &app, &stream)) {
        return res->send_error(404);
    }
    // The vhost's allow/deny rules, before anything tells whether the stream exists.
    std::string ip = res->socket() ? res->socket()->peer().ip : "";
    if (Error err = check_security(*config, vhost, AccessAction::kPlay, ip); !err.ok()) {
        srs_warn("HTTP-%s %s refused (403): %s", remux_format_name(format), req.path.c_str(), err.summary().c_str());
        err.ignore();
        return res->send_error(403);
    }
    // on_play, after security and before anything tells whether the stream
    // exists (as SRS); a refusal is a 403 like security's (SRS closes the
    // connection without an answer).
    HookRequest hook = hook_request(req, ip, vhost, app, stream);
    if (Error err = ctx_->hooks().call(HookAction::kPlay, hook); !err.ok()) {
        err.ignore();  // the hooks logged the URL and the reason
        srs_warn("HTTP-%s %s refused (403) by the on_play hook", remux_format_name(format), req.path.c_str());
        return res->send_error(403);
    }
    Error err = serve_stream(req, res, vhost, app, stream, format);
    // on_stop follows a passed on_play however the play ends, as SRS.
    ctx_->hooks().notify(HookAction::kStop, hook_request(req, ip, vhost, app, stream));
    return err;
}

Error HttpFlvHandler::serve_stream(const HttpRequest& req, HttpResponse* res, const std::string& vhost,
                                   const std::string& app, const std::string& stream, RemuxFormat format) {
    // Not published here: an edge's stream, or one another origin owns, is
    // created and pulled; otherwise a 404 as SRS (mounted while published).
    LiveSource* found = ctx_->sources().find(vhost, app, stream);
    if ((!found || !found->publishing()) && !ctx_->puller().may_pull(vhost)) return res->send_error(404);
    return serve_source(req, res, ctx_->sources().fetch_or_create(vhost, app, stream),
                        pull_request(req, vhost, app, stream), format);
}

HookRequest HttpFlvHandler::hook_request(const HttpRequest& req, const std::string& ip, const std::string& vhost,
                                         const std::string& app, const std::string& stream) {
    HookRequest r;
    r.client_id = context_id();  // the HTTP connection's
    r.ip = ip;
    r.vhost = vhost;
    r.app = app;
    r.stream = stream;
    size_t q = req.target.find('?');
    if (q != std::string::npos) r.param = req.target.substr(q);
    const std::string* host = req.header("Host");
    r.tc_url = "http://" + (host ? *host : std::string("127.0.0.1")) + "/" + app;
    const std::string* referer = req.header("Referer");
    if (referer) r.page_url = *referer;
    if (LiveSource* s = ctx_->sources().find(vhost, app, stream)) r.stream_id = s->id();
    return r;
}

PullRequest HttpFlvHandler::pull_request(const HttpRequest& req, const std::string& vhost, const std::string& app,
                                         const std::string& stream) {
    PullRequest pull;
    pull.vhost = vhost;
    const std::string asked = req.query_param("vhost");
    const std::string* host = req.header("Host");
    pull.asked_vhost = !asked.empty() ? asked : host ? host_without_port(*host) : vhost;
    pull.app = app;
    pull.stream = stream;
    // The request's query goes to the origin as the stream's params.
    size_t q = req.target.find('?');
    if (q != std::string::npos) pull.param = req.target.substr(q);
    return pull;
}

namespace {

// An HTTP-FLV player as the live pump sees it: batches leave as FLV tags in
// one writev each; the player sends nothing, so a read that returns means it
// left; an unpublish ends the response (the player reconnects).
class FlvPlayWriter : public PlayerWriter {
  public:
    FlvPlayWriter(HttpResponse* res, std::string url) : res_(res), url_(std::move(url)) {}

    Error pull() override { return res_->pull(); }

    Error poll_control(LiveConsumer* consumer, bool* done) override {
        (void)consumer;
        *done = false;
        size_t n = 0;
        return res_->socket()->read_nowait(drain_, sizeof(drain_), &n);
    }

    Error on_unpublish(bool* done) override {
        srs_trace("HTTP-FLV %s: stream unpublished, end the response", url_.c_str());
        *done = true;
        return Error();
    }

    Error on_republish() override { return Error(); }

    Error write(const std::vector<LiveMessagePtr>& msgs) override {
        size_t n = build_flv_iovecs(msgs, &iov_, &glue_);
        Error err = res_->write_body(iov_.data(), static_cast<int>(n));
        // The arrays are the batch's own: a thousand players waiting for
        // their next batch would each hold one (a GOP's, after the first).
        std::vector<struct iovec>().swap(iov_);
        std::vector<FlvGlue>().swap(glue_);
        if (!err.ok()) return SRS_WRAP(err, "HTTP-FLV %s", url_.c_str());
        return Error();
    }

    uint64_t bytes_sent() const override { return res_->socket()->send_bytes(); }

  private:
    HttpResponse* res_;
    std::string url_;
    std::vector<struct iovec> iov_;
    std::vector<FlvGlue> glue_;
    char drain_[512];
};

}  // namespace

Error HttpFlvHandler::serve_source(const HttpRequest& req, HttpResponse* res, LiveSource* source,
                                   const PullRequest& pull, RemuxFormat format) {
    std::shared_ptr<const Config> config = ctx_->config();
    const std::string& vhost = source->vhost();
    const std::string& app = source->app();
    const std::string& stream = source->stream();
    const char* name = remux_format_name(format);

    ConsumerOptions options = consumer_options(*config, vhost);
    FlvTracks tracks = choose_flv_tracks(
        config->get(vhost, keys::vhost_http_remux_has_audio), config->get(vhost, keys::vhost_http_remux_has_video),
        config->get(vhost, keys::vhost_http_remux_guess_has_av),
        config->get(vhost, keys::vhost_http_remux_drop_if_not_match), source->carries_audio(),
        source->carries_video());
    if (remux_audio_only(format)) tracks = FlvTracks{true, false, true};
    if (config->get(vhost, keys::vhost_tcp_nodelay)) res->socket()->set_nodelay(true).ignore();

    // Attach before anything blocks: a consumer keeps the source alive
    // (the manager frees only sources nobody uses).
    std::unique_ptr<LiveConsumer> consumer(source->create_consumer(options));
    // Audio players start from fast_cache seconds of audio, not the GOP
    // (SRS gives them no GOP cache): take what the consumer was primed with
    // now and keep only that audio.
    std::vector<LiveMessagePtr> primed;
    if (remux_audio_only(format)) {
        consumer->dump(&primed, consumer->size());
        double fast_cache_s = config->get(vhost, keys::vhost_http_remux_fast_cache);
        primed = select_fast_cache(primed, static_cast<uint32_t>(fast_cache_s * 1000));
    }
    bool pulled = false;
    if (Error err = ctx_->puller().on_play(source, pull, &pulled); !err.ok()) {
        srs_warn("HTTP-%s %s/%s/%s: %s", name, vhost.c_str(), app.c_str(), stream.c_str(), err.summary().c_str());
        err.ignore();
        return res->send_error(503);
    }
    // Nobody has it elsewhere and nobody publishes it here (a local publisher
    // may have come while the puller asked).
    if (!pulled && !source->publishing()) return res->send_error(404);
    if (Error err = res->start_stream(200, remux_content_type(format)); !err.ok()) {
        return SRS_WRAP(err, "%s head", name);
    }
    if (format == RemuxFormat::kFlv || format == RemuxFormat::kMp3) {
        std::string header;
        if (format == RemuxFormat::kFlv) {
            FlvWriter::write_header(&header, tracks.audio, tracks.video);
        } else {
            header.assign(reinterpret_cast<const char*>(kId3Header), kId3HeaderSize);
        }
        struct iovec iov = {&header[0], header.size()};
        if (Error err = res->write_body(&iov, 1); !err.ok()) return SRS_WRAP(err, "%s header", name);
    }

    std::string url = "/" + app + "/" + stream;
    if (ClientInfo* info = res->client_info()) {
        info->kind = ClientKind::kFlvPlay;  // SRS lists every HTTP stream player as flv-play
        info->vhost = vhost;
        info->app = app;
        info->stream = stream;
        const std::string* host = req.header("Host");
        info->tc_url = "http://" + (host ? *host : std::string("127.0.0.1")) + "/" + app;
    }
    srs_trace("HTTP-%s play %s%s, mw=%d ms/%d msgs, realtime=%d, audio=%d, video=%d, cached=%zu", name,
              vhost.c_str(), req.path.c_str(), (int)(options.mw_latency_us / kUsPerMs), options.mw_msgs,
              options.realtime, tracks.audio, tracks.video, primed.size());
    if (remux_audio_only(format)) {
        AudioPlayWriter writer(res, format, url);
        if (!primed.empty()) {
            if (Error err = writer.write(primed); !err.ok()) return err;
        }
        return play(consumer.get(), &writer, url, tracks, format);
    }
    if (format == RemuxFormat::kTs) {
        TsPlayWriter writer(res, url);
        return play(consumer.get(), &writer, url, tracks, format);
    }
    FlvPlayWriter writer(res, url);
    return play(consumer.get(), &writer, url, tracks, format);
}

FramingSlotId flv_framing_slot() {
    static const FramingSlotId id = register_framing_slot("flv");
    return id;
}

uint8_t flv_tag_type_of(const LiveMessage& msg) {
    switch (msg.kind()) {
        case LiveMessageKind::kAudio:
            return kFlvTagAudio;
        case LiveMessageKind::kVideo:
            return kFlvTagVideo;
        case LiveMessageKind::kData:
        default:
            return kFlvTagScript;
    }
}

// The FLV slot holds the message's 11-byte tag header, then its 4-byte
// PreviousTagSize; FLV framing has no per-player parameter (key 0).
const uint8_t* flv_framing_of(LiveMessage* msg) {
    FramingSlot& slot = msg->framing(flv_framing_slot());
    if (slot.empty()) {
        uint8_t* p = slot.fill(0, kFlvTagHeaderSize + kFlvPreviousTagSize);
        FlvWriter::write_tag_header(p, flv_tag_type_of(*msg), msg->timestamp(), static_cast<uint32_t>(msg->size()));
        FlvWriter::write_previous_tag_size(p + kFlvTagHeaderSize,
                                           static_cast<uint32_t>(kFlvTagHeaderSize + msg->size()));
    }
    return slot.bytes();
}


// Two iovecs per tag, as RTMP's send has: the payload, then 15 bytes copied
// together, its PreviousTagSize and the next tag's header (the first header
// and the last PreviousTagSize stand alone): 2n+1 iovecs, not 3n, so the
// kernel walks fewer tiny segments per writev.
size_t build_flv_iovecs(const std::vector<LiveMessagePtr>& msgs, std::vector<struct iovec>* iov,
                        std::vector<FlvGlue>* glue) {
    if (glue->size() < msgs.size()) glue->resize(msgs.size());  // before iovecs point into it
    iov->clear();
    iov->reserve(2 * msgs.size() + 1);  // one allocation: a tag's payload and the glue after it
    for (size_t i = 0; i < msgs.size(); i++) {
        LiveMessage* m = msgs[i].get();
        const uint8_t* framing = flv_framing_of(m);
        if (i == 0) iov->push_back({const_cast<uint8_t*>(framing), kFlvTagHeaderSize});
        iov->push_back({const_cast<uint8_t*>(m->payload().data()), m->size()});
        if (i + 1 == msgs.size()) {
            iov->push_back({const_cast<uint8_t*>(framing + kFlvTagHeaderSize), kFlvPreviousTagSize});
            break;
        }
        const uint8_t* next = flv_framing_of(msgs[i + 1].get());
        memcpy((*glue)[i].data(), framing + kFlvTagHeaderSize, kFlvPreviousTagSize);
        memcpy((*glue)[i].data() + kFlvPreviousTagSize, next, kFlvTagHeaderSize);
        iov->push_back({(*glue)[i].data(), (*glue)[i].size()});
    }
    return iov->size();
}

Error HttpFlvHandler::play(LiveConsumer* consumer, PlayerWriter* writer, const std::string& url,
                           const FlvTracks& tracks, RemuxFormat format) {
    PlayerPump pump(consumer, writer);
    MessageFilter filter;
    filter.drop_audio = tracks.drop_unannounced && !tracks.audio;
    filter.drop_video = tracks.drop_unannounced && !tracks.video;
    filter.drop_data = format != RemuxFormat::kFlv;
    pump.set_filter(filter);
    pump.set_pithy_print(remux_format_name(format), url + remux_extension(format),
                         ctx_->config()->get(keys::pithy_print_ms) * kUsPerMs);
    return pump.run();
}

}  // namespace srs
