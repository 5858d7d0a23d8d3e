// The edge's pull of one stream: a coroutine that plays the stream from an
// origin and publishes it into the local LiveSource, which every player of
// the stream on this server shares (GOP cache included).
//
// Lifecycle (the EdgeManager drives it):
// - start() publishes the source at once (so players wait on a published
//   source, HTTP-FLV included) and starts the coroutine;
// - the coroutine asks the locator for origins on every try and takes them
//   in turn: connect (following RTMP 302s), play, relay messages. A try that
//   fails waits kEdgeRetryUs before the next origin; an upstream that
//   delivered media and then died is replaced at once by the next origin.
// - The source stays published across upstream switches, so players are not
//   told "unpublished": the GOP cache is dropped, video waits for a keyframe,
//   and the source's full time jitter keeps timestamps monotonic.
// - stop() interrupts and joins the coroutine, then unpublishes the source.
//
// It is a Client: /api/v1/clients lists it as type "edge-ingest", publishing
// the local stream, with the upstream's tcUrl and byte counters.
#pragma once

#include <memory>
#include <string>

#include "app/edge/edge_keyframe_gate.hpp"
#include "app/edge/edge_request.hpp"
#include "app/live/origin_locator.hpp"
#include "app/live/live_source.hpp"
#include "app/conn/client.hpp"
#include "io/coroutine.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

class HttpClient;
class RtmpClient;

// Wait between two failed tries (SRS's edge waits the same).
constexpr utime_t kEdgeRetryUs = 3 * kUsPerSecond;
// TCP connect, handshake and each answer of the upstream.
constexpr utime_t kEdgeConnectTimeoutUs = 5 * kUsPerSecond;
// An upstream silent this long is dead: the next origin is tried.
constexpr utime_t kEdgeRecvTimeoutUs = 10 * kUsPerSecond;

class EdgeIngester : public Client, public CoroutineHandler {
  public:
    // None is owned; source, locator and clients outlive the ingester.
    EdgeIngester(LiveSource* source, OriginLocator* locator, ClientRegistry* clients, PullRequest req,
                 EdgeOptions options, SourceOptions source_options);
    ~EdgeIngester() override;

    Error start();
    // Idempotent. Never called from the ingester's own coroutine.
    void stop();
    bool running() const { return co_.running(); }
    LiveSource* source() const { return source_; }
    // The upstream now pulled from ("" between tries) and the last one.
    const std::string& upstream_url() const { return upstream_url_; }
    const std::string& last_upstream_url() const { return last_upstream_url_; }
    uint64_t switches() const { return switches_; }

    // Client.
    const std::string& cid() const override { return co_.cid(); }
    const std::string& protocol() const override { return protocol_; }
    std::string peer_ip() const override { return peer_ip_; }
    uint64_t send_bytes() const override;
    uint64_t recv_bytes() const override;
    void expire() override { co_.interrupt(); }

  private:
    Error cycle() override;
    // One try: the origin at index turn_ of the located list. *got_media:
    // the upstream delivered media before it ended.
    Error pull_once(bool* got_media);
    Error pull_rtmp(const std::string& origin, bool* got_media);
    Error pull_flv(const std::string& origin, bool* got_media);
    // A new upstream is about to feed the source.
    void on_new_upstream(const std::string& url);
    Error on_rtmp_message(RtmpMessage& msg, bool* got_media);
    // Shared by both protocols: one audio/video/metadata message.
    Error on_media(uint8_t type, uint32_t timestamp, SharedBytes payload, bool* got_media);
    Error on_flv_script(SharedBytes body);
    // Closes the upstream of the last try, keeping its byte counts.
    void close_upstream();

    LiveSource* source_;
    OriginLocator* locator_;
    ClientRegistry* clients_;
    PullRequest req_;
    EdgeOptions options_;
    SourceOptions source_options_;
    std::string protocol_ = "RTMP";
    std::string peer_ip_;
    std::string upstream_url_, last_upstream_url_;
    EdgeKeyframeGate gate_;
    bool published_ = false;
    bool registered_ = false;
    uint64_t switches_ = 0;
    size_t turn_ = 0;   // tries since the best candidate last changed
    std::string best_;  // the located list's first entry at the last try
    uint64_t upstreams_ = 0;
    // Bytes of upstreams already closed, plus the current one's.
    uint64_t closed_recv_ = 0, closed_send_ = 0;
    std::unique_ptr<RtmpClient> rtmp_;
    std::unique_ptr<HttpClient> flv_;  // the HTTP-FLV upstream (cluster.protocol flv)
    Coroutine co_;  // last: stopped before the members it uses go
};

}  // namespace srs
