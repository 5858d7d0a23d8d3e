// The edge's push of one published stream to an origin (SRS's edge publish):
// the publisher talks to the edge, the edge publishes the same stream to an
// origin and relays every message. The edge's own LiveSource is not
// published by it: players on the edge pull the stream back from the origin
// like any other, so the origin stays the one place a stream lives.
//
// The publisher's connection drives it (no coroutine of its own): start()
// before the publisher is told "publish start", forward() per message,
// stop() when the publish ends. An upstream failure ends the publish (the
// encoder reconnects and gets the next origin).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/edge/edge_request.hpp"
#include "app/live/origin_locator.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

class RtmpClient;

// token_traverse: connect (only) to the origin as the client would, with
// its tcUrl params, so the origin's checks decide. Origins are tried in
// turn until one answers; an answer that refuses is the error (code
// kErrorRtmpClientRejected); no origin answering is an error too.
Error edge_token_traverse(OriginLocator* locator, const PullRequest& req, const EdgeOptions& options);

class EdgeForwarder : public PublishRelay {
  public:
    EdgeForwarder(OriginLocator* locator, PullRequest req, EdgeOptions options);
    ~EdgeForwarder() override;

    // Connects and publishes to the first origin that accepts, in turn.
    Error start();
    // Audio, video or data; other messages are not relayed.
    Error forward(const RtmpMessage& msg) override;
    void stop();
    const std::string& upstream_url() const override { return upstream_url_; }
    uint64_t forwarded() const { return forwarded_; }

  private:
    Error publish_to(const std::string& origin);

    OriginLocator* locator_;
    PullRequest req_;
    EdgeOptions options_;
    std::unique_ptr<RtmpClient> client_;
    std::string upstream_url_;
    uint64_t forwarded_ = 0;
    std::vector<RtmpMessage> drained_;  // what the origin sent back (acks, status): read and dropped
};

}  // namespace srs
