// HTTP-FLV: a live stream as an endless FLV file, for browsers (mpegts.js,
// flv.js) and players (ffplay, VLC). Players get the FLV header, metadata,
// sequence headers and the GOP cache, then live tags batched like RTMP
// players (merged write). The 11-byte tag headers are built once per message
// and shared by every FLV player.
//
// The same handler serves the vhost's other http_remux formats, picked by the
// extension of its one mount as SRS: .ts (http_remux_ts.hpp), .mp3 and .aac
// (http_remux_audio.hpp), with the same security, hooks, clients entry
// ("flv-play" for all of them, as SRS) and player loop.
#pragma once

#include <sys/uio.h>

#include <array>
#include <vector>

#include "app/http/http_conn.hpp"
#include "app/http/http_remux_format.hpp"
#include "app/live/live_message.hpp"
#include "app/conn/live_context.hpp"
#include "app/hooks/http_hooks.hpp"
#include "kernel/flv/flv.hpp"

namespace srs {

class LiveConsumer;
class PlayerWriter;
class LiveSource;

// What an HTTP-FLV response announces in its FLV header and what it sends.
struct FlvTracks {
    bool audio = true;
    bool video = true;
    bool drop_unannounced = true;  // drop tags of a track the header left out
};

// http_remux's has_audio/has_video are the operator's answer; with
// guess_has_av the stream's own answer wins once it has carried any media
// (until then, for a player that joins a stream with nothing yet, the
// configured flags stand). Pure, for tests.
FlvTracks choose_flv_tracks(bool conf_audio, bool conf_video, bool guess, bool drop_if_not_match, bool carries_audio,
                            bool carries_video);

// The FLV slot of every LiveMessage, the FLV tag type of a message, and its
// cached framing: the 11-byte tag header followed by the 4-byte
// PreviousTagSize, built on first use.
FramingSlotId flv_framing_slot();
uint8_t flv_tag_type_of(const LiveMessage& msg);
const uint8_t* flv_framing_of(LiveMessage* msg);

// A tag's PreviousTagSize and the next tag's header, copied together.
using FlvGlue = std::array<uint8_t, kFlvPreviousTagSize + kFlvTagHeaderSize>;
// The iovecs of a batch of FLV tags (2n+1 for n tags); they point into the
// messages, their framing slots and *glue. Returns how many.
size_t build_flv_iovecs(const std::vector<LiveMessagePtr>& msgs, std::vector<struct iovec>* iov,
                        std::vector<FlvGlue>* glue);

class HttpFlvHandler : public HttpHandler {
  public:
    explicit HttpFlvHandler(LiveContext* ctx) : ctx_(ctx) {}
    bool match(const HttpRequest& req) const override;
    Error serve(const HttpRequest& req, HttpResponse* res) override;

    // Matches path against a mount template ("[vhost]/[app]/[stream].flv");
    // [vhost] is left out for __defaultVhost__ as SRS does. Pure, for tests.
    static bool match_mount(const std::string& mount, const std::string& vhost, const std::string& path,
                            std::string* app, std::string* stream);

  private:
    // The vhost a request is for (?vhost=, else Host, else the default).
    std::string request_vhost(const HttpRequest& req) const;
    // What the request asks for, for the puller (an edge names it to its origin).
    static PullRequest pull_request(const HttpRequest& req, const std::string& vhost, const std::string& app,
                                    const std::string& stream);
    // After security and on_play: the stream (404 when nobody has it) until the play ends.
    Error serve_stream(const HttpRequest& req, HttpResponse* res, const std::string& vhost, const std::string& app,
                       const std::string& stream, RemuxFormat format);
    // What on_play and on_stop are told (stream_id when the source exists).
    HookRequest hook_request(const HttpRequest& req, const std::string& ip, const std::string& vhost,
                             const std::string& app, const std::string& stream);
    // Plays `source` once attached; the puller starts (or joins) its pull when
    // it comes from another server; a 404 when nobody has it.
    Error serve_source(const HttpRequest& req, HttpResponse* res, LiveSource* source, const PullRequest& pull,
                       RemuxFormat format);
    Error play(LiveConsumer* consumer, PlayerWriter* writer, const std::string& url, const FlvTracks& tracks,
               RemuxFormat format);
    LiveContext* ctx_;
};

}  // namespace srs
