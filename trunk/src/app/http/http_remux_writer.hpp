// What every HTTP live-stream player writer shares (HTTP-TS, HTTP-MP3,
// HTTP-AAC): the player sends nothing after its request, so a read that
// returns means it left; an unpublish ends the response (players reconnect);
// a kick or server stop ends it at the next round.
#pragma once

#include <sys/uio.h>

#include <string>
#include <vector>

#include "app/http/http_conn.hpp"
#include "app/live/player_pump.hpp"

namespace srs {

class HttpStreamWriter : public PlayerWriter {
  public:
    HttpStreamWriter(HttpResponse* res, std::string tag, std::string url)
        : res_(res), tag_(std::move(tag)), url_(std::move(url)) {}

    Error pull() override { return res_->pull(); }
    Error poll_control(LiveConsumer* consumer, bool* done) override;
    Error on_unpublish(bool* done) override;
    Error on_republish() override { return Error(); }
    uint64_t bytes_sent() const override { return res_->socket()->send_bytes(); }

  protected:
    // Writes iovecs in runs the kernel takes in one writev each.
    Error send(const std::vector<struct iovec>& iov);

    HttpResponse* res_;
    std::string tag_;  // "HTTP-TS", for logs
    std::string url_;

  private:
    char drain_[512];
};

}  // namespace srs
