#include "app/edge/edge_forwarder.hpp"

#include "app/edge/edge_ingester.hpp"
#include "app/edge/rtmp_redirect.hpp"
#include "app/upstream/rtmp_client.hpp"
#include "core/log.hpp"

namespace srs {

namespace {

// Read the origin's answers (acks, pings, status) every this many messages,
// so its writes never fill our receive buffer.
constexpr uint64_t kDrainEvery = 64;

Error locate_origins(OriginLocator* locator, const PullRequest& req, std::vector<std::string>* out) {
    StreamKey key{req.vhost, req.app, req.stream};
    if (Error err = locator->locate(key, out); !err.ok()) return SRS_WRAP(err, "locate origin");
    if (out->empty()) {
        return SRS_ERR(kErrorEdgeNoOrigin, "no origin for %s/%s/%s", req.vhost.c_str(), req.app.c_str(),
                       req.stream.c_str());
    }
    return Error();
}

}  // namespace

Error edge_token_traverse(OriginLocator* locator, const PullRequest& req, const EdgeOptions& options) {
    std::vector<std::string> origins;
    if (Error err = locate_origins(locator, req, &origins); !err.ok()) return SRS_WRAP(err, "token traverse");
    std::string vhost = edge_origin_vhost(options, req);
    Error last;
    for (const std::string& origin : origins) {
        RtmpClient client;
        client.set_tc_url(edge_upstream_tc_url(origin, vhost, req.app, req.param));
        std::string url = edge_upstream_url(origin, req), final_url;
        Error err = rtmp_connect_following_redirects(&client, url, kEdgeConnectTimeoutUs, kMaxRtmpRedirects,
                                                     &final_url);
        if (err.ok()) {
            client.close().ignore();
            last.ignore();
            srs_trace("edge: token traverse of %s ok at %s", url.c_str(), final_url.c_str());
            return Error();
        }
        if (err.code() == kErrorRtmpClientRejected) {
            last.ignore();
            return SRS_WRAP(err, "token traverse: origin %s refused", origin.c_str());
        }
        srs_warn("edge: token traverse: origin %s: %s", origin.c_str(), err.summary().c_str());
        last.ignore();
        last = std::move(err);
    }
    return SRS_WRAP(last, "token traverse: no origin answered");
}

EdgeForwarder::EdgeForwarder(OriginLocator* locator, PullRequest req, EdgeOptions options)
    : locator_(locator), req_(std::move(req)), options_(std::move(options)) {}

EdgeForwarder::~EdgeForwarder() { stop(); }

Error EdgeForwarder::start() {
    std::vector<std::string> origins;
    if (Error err = locate_origins(locator_, req_, &origins); !err.ok()) return SRS_WRAP(err, "edge publish");
    Error last;
    for (const std::string& origin : origins) {
        Error err = publish_to(origin);
        if (err.ok()) {
            last.ignore();
            return Error();
        }
        srs_warn("edge: publish to origin %s: %s", origin.c_str(), err.summary().c_str());
        client_.reset();
        last.ignore();
        last = std::move(err);
    }
    return SRS_WRAP(last, "edge publish %s/%s: no origin took it", req_.app.c_str(), req_.stream.c_str());
}

Error EdgeForwarder::publish_to(const std::string& origin) {
    std::string url = edge_upstream_url(origin, req_), final_url;
    client_.reset(new RtmpClient());
    client_->set_tc_url(edge_upstream_tc_url(origin, edge_origin_vhost(options_, req_), req_.app));
    if (Error err = rtmp_connect_following_redirects(client_.get(), url, kEdgeConnectTimeoutUs, kMaxRtmpRedirects,
                                                     &final_url);
        !err.ok()) {
        return SRS_WRAP(err, "connect %s", url.c_str());
    }
    if (Error err = client_->publish(); !err.ok()) return SRS_WRAP(err, "publish %s", final_url.c_str());
    // Fewer, larger chunks to the origin (it parses what any encoder sends).
    if (Error err = client_->set_chunk_size(60000); !err.ok()) return SRS_WRAP(err, "chunk size");
    upstream_url_ = final_url;
    srs_trace("edge: publishing %s/%s/%s to %s", req_.vhost.c_str(), req_.app.c_str(), req_.stream.c_str(),
              final_url.c_str());
    return Error();
}

Error EdgeForwarder::forward(const RtmpMessage& msg) {
    if (!client_) return SRS_ERR(kErrorRtmpClientState, "edge forward: not started");
    if (msg.type != kRtmpAudio && msg.type != kRtmpVideo && msg.type != kRtmpAmf0Data) return Error();
    if (Error err = client_->send_messages(&msg, 1); !err.ok()) {
        return SRS_WRAP(err, "edge forward to %s", upstream_url_.c_str());
    }
    if (++forwarded_ % kDrainEvery == 0) {
        drained_.clear();
        if (Error err = client_->poll_messages(&drained_); !err.ok()) {
            return SRS_WRAP(err, "edge forward: origin %s", upstream_url_.c_str());
        }
    }
    return Error();
}

void EdgeForwarder::stop() {
    if (!client_) return;
    client_->close().ignore();
    client_.reset();
    srs_trace("edge: stopped publishing %s/%s/%s to %s, msgs=%llu", req_.vhost.c_str(), req_.app.c_str(),
              req_.stream.c_str(), upstream_url_.c_str(), (unsigned long long)forwarded_);
}

}  // namespace srs
