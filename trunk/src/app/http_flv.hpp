// HTTP-FLV: a live stream as an endless FLV file, for browsers (mpegts.js,
// flv.js) and players (ffplay, VLC). Players get the FLV header, metadata,
// sequence headers and the GOP cache, then live tags batched like RTMP
// players (merged write). The 11-byte tag headers are built once per message
// and shared by every FLV player.
#pragma once

#include "app/http_conn.hpp"
#include "app/live_context.hpp"

namespace srs {

class LiveConsumer;

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
    Error play(LiveConsumer* consumer, HttpResponse* res, const std::string& url);
    LiveContext* ctx_;
};

}  // namespace srs
