#include "app/edge/edge_ingester.hpp"

#include <cstdlib>

#include "app/edge/rtmp_redirect.hpp"
#include "app/upstream/http_client.hpp"
#include "app/upstream/rtmp_client.hpp"
#include "core/log.hpp"
#include "kernel/flv/flv.hpp"
#include "io/runtime.hpp"
#include "protocol/rtmp/rtmp_command.hpp"

namespace srs {

namespace {

// "rtmp://HOST:PORT/..." -> HOST (brackets of IPv6 removed).
std::string url_host(const std::string& url) {
    size_t start = url.find("://");
    start = start == std::string::npos ? 0 : start + 3;
    if (start < url.size() && url[start] == '[') {
        size_t close = url.find(']', start);
        return url.substr(start + 1, close == std::string::npos ? std::string::npos : close - start - 1);
    }
    size_t end = url.find_first_of(":/", start);
    return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

EdgeIngester::EdgeIngester(LiveSource* source, OriginLocator* locator, ClientRegistry* clients, PullRequest req,
                           EdgeOptions options, SourceOptions source_options)
    : source_(source),
      locator_(locator),
      clients_(clients),
      req_(std::move(req)),
      options_(std::move(options)),
      source_options_(source_options),
      co_("edge-ingest", this) {
    ClientInfo& i = info();
    i.kind = ClientKind::kEdgeIngest;
    i.vhost = req_.vhost;
    i.app = req_.app;
    i.stream = req_.stream;
}

EdgeIngester::~EdgeIngester() { stop(); }

Error EdgeIngester::start() {
    if (Error err = source_->on_publish(cid(), source_options_); !err.ok()) {
        return SRS_WRAP(err, "edge pull %s/%s/%s", req_.vhost.c_str(), req_.app.c_str(), req_.stream.c_str());
    }
    published_ = true;
    clients_->add(this);
    registered_ = true;
    if (Error err = co_.start(); !err.ok()) {
        stop();
        return SRS_WRAP(err, "edge ingester coroutine");
    }
    srs_trace("edge: pull %s/%s/%s%s started by cid=%s, protocol=%s", req_.vhost.c_str(), req_.app.c_str(),
              req_.stream.c_str(), req_.param.c_str(), cid().c_str(), options_.protocol.c_str());
    return Error();
}

void EdgeIngester::stop() {
    co_.stop();
    close_upstream();
    upstream_url_.clear();
    if (published_) {
        published_ = false;
        source_->on_unpublish();
        srs_trace("edge: pull %s/%s/%s stopped, upstreams=%llu, switches=%llu", req_.vhost.c_str(), req_.app.c_str(),
                  req_.stream.c_str(), (unsigned long long)upstreams_, (unsigned long long)switches_);
    }
    if (registered_) {
        registered_ = false;
        clients_->remove(this, false);
    }
}

uint64_t EdgeIngester::recv_bytes() const {
    return closed_recv_ + (rtmp_ ? rtmp_->bytes_in() : 0) + (flv_ ? flv_->recv_bytes() : 0);
}
uint64_t EdgeIngester::send_bytes() const {
    return closed_send_ + (rtmp_ ? rtmp_->bytes_out() : 0) + (flv_ ? flv_->send_bytes() : 0);
}

Error EdgeIngester::cycle() {
    // Bounded by the interrupt: every pass blocks in a socket call or a sleep.
    for (turn_ = 0;; turn_++) {
        if (Error err = co_.pull(); !err.ok()) {
            err.ignore();
            return Error();
        }
        bool got_media = false;
        Error err = pull_once(&got_media);
        close_upstream();
        if (!upstream_url_.empty()) last_upstream_url_ = upstream_url_;
        upstream_url_.clear();
        if (Error alive = co_.pull(); !alive.ok()) {
            alive.ignore();
            err.ignore();
            return Error();
        }
        srs_warn("edge: pull %s/%s/%s ended: %s", req_.vhost.c_str(), req_.app.c_str(), req_.stream.c_str(),
                 err.ok() ? "upstream closed" : err.summary().c_str());
        err.ignore();
        // A working upstream that died: the next origin at once. A try that
        // got nothing: wait, so a dead cluster is not hammered.
        if (Error slept = sleep_us(got_media ? 100 * kUsPerMs : kEdgeRetryUs); !slept.ok()) {
            slept.ignore();
            return Error();
        }
    }
}

Error EdgeIngester::pull_once(bool* got_media) {
    StreamKey key{req_.vhost, req_.app, req_.stream};
    std::vector<std::string> origins;
    if (Error err = locator_->locate(key, &origins); !err.ok()) return SRS_WRAP(err, "locate origin");
    if (origins.empty()) return SRS_ERR(kErrorEdgeNoOrigin, "no origin for %s/%s/%s", key.vhost.c_str(),
                                        key.app.c_str(), key.stream.c_str());
    // A new best candidate (the registry names a new owner) is tried first.
    if (origins[0] != best_) {
        best_ = origins[0];
        turn_ = 0;
    }
    const std::string& origin = origins[turn_ % origins.size()];
    peer_ip_ = url_host(origin);
    if (options_.protocol == "flv") return pull_flv(origin, got_media);
    return pull_rtmp(origin, got_media);
}

void EdgeIngester::on_new_upstream(const std::string& url) {
    if (upstreams_++ > 0) {
        switches_++;
        source_->on_upstream_switch();
    }
    gate_.reset();
    upstream_url_ = url;
}

Error EdgeIngester::pull_rtmp(const std::string& origin, bool* got_media) {
    std::string url = edge_upstream_url(origin, req_);
    std::string vhost = edge_origin_vhost(options_, req_);
    rtmp_.reset(new RtmpClient());
    rtmp_->set_tc_url(edge_upstream_tc_url(origin, vhost, req_.app));
    std::string final_url;
    if (Error err = rtmp_connect_following_redirects(rtmp_.get(), url, kEdgeConnectTimeoutUs, kMaxRtmpRedirects,
                                                     &final_url);
        !err.ok()) {
        return SRS_WRAP(err, "edge connect %s", url.c_str());
    }
    if (Error err = rtmp_->play(); !err.ok()) return SRS_WRAP(err, "edge play %s", final_url.c_str());
    rtmp_->set_recv_timeout(kEdgeRecvTimeoutUs);
    info().tc_url = rtmp_->request().tc_url();
    peer_ip_ = rtmp_->request().host;
    on_new_upstream(final_url);
    srs_trace("edge: pulling %s/%s/%s from %s (vhost %s)", req_.vhost.c_str(), req_.app.c_str(), req_.stream.c_str(),
              final_url.c_str(), vhost.c_str());

    RtmpMessage msg;
    while (true) {
        if (Error err = co_.pull(); !err.ok()) return err;
        if (Error err = rtmp_->recv_message(&msg); !err.ok()) return SRS_WRAP(err, "edge recv %s", final_url.c_str());
        if (Error err = on_rtmp_message(msg, got_media); !err.ok()) return SRS_WRAP(err, "edge %s", final_url.c_str());
    }
}

// HTTP-FLV: GET http://HOST:PORT/app/stream.flv, with HOST:PORT the origin
// entry's (so an origin's entry names its HTTP server's port with protocol
// flv) and the origin vhost in the Host header; the body is read as FLV tags.
Error EdgeIngester::pull_flv(const std::string& origin, bool* got_media) {
    std::string host = url_host(origin);
    int port = atoi(origin.substr(origin.rfind(':') + 1).c_str());
    const std::string vhost = edge_origin_vhost(options_, req_);
    const std::string path = "/" + req_.app + "/" + req_.stream + ".flv" + edge_upstream_param(req_.param);
    const std::string url = "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                            std::to_string(port) + path;
    HttpClientOptions opts;
    opts.connect_timeout = kEdgeConnectTimeoutUs;
    // Connect, then the answer's head: each bounded like an RTMP handshake,
    // so a peer trickling head bytes cannot hold the try.
    opts.total_timeout = 2 * kEdgeConnectTimeoutUs;
    // The body is streamed with only this per-read timeout: a silent upstream is dead.
    opts.io_timeout = kEdgeRecvTimeoutUs;
    opts.host_header = vhost;
    flv_.reset(new HttpClient(opts));
    if (Error err = flv_->start("GET", url); !err.ok()) return SRS_WRAP(err, "edge GET %s", url.c_str());
    if (flv_->head().status != 200) {
        return SRS_ERR(kErrorRtmpClientRejected, "edge GET %s: status %d", url.c_str(), flv_->head().status);
    }
    info().tc_url = "http://" + host + ":" + std::to_string(port) + "/" + req_.app;
    on_new_upstream(url);
    srs_trace("edge: pulling %s/%s/%s from %s (vhost %s)", req_.vhost.c_str(), req_.app.c_str(), req_.stream.c_str(),
              url.c_str(), vhost.c_str());

    FlvReader reader;
    std::string body;  // FLV bytes not yet a whole tag
    std::vector<FlvTag> tags;
    while (true) {
        if (Error err = co_.pull(); !err.ok()) return err;
        bool eof = false;
        if (Error err = flv_->read_body_some(&body, &eof); !err.ok()) {
            return SRS_WRAP(err, "edge recv %s", url.c_str());
        }
        size_t used = 0;
        tags.clear();
        if (Error err = reader.feed(reinterpret_cast<const uint8_t*>(body.data()), body.size(), &used, &tags);
            !err.ok()) {
            return SRS_WRAP(err, "edge FLV of %s", url.c_str());
        }
        body.erase(0, used);
        for (FlvTag& tag : tags) {
            Error err = tag.type == kFlvTagScript ? on_flv_script(std::move(tag.data))
                                                  : on_media(tag.type, tag.timestamp, std::move(tag.data), got_media);
            if (!err.ok()) return SRS_WRAP(err, "edge %s", url.c_str());
        }
        if (eof) return SRS_ERR(kErrorSocketClosed, "edge %s: the response ended", url.c_str());
    }
}

// An FLV script tag is an AMF0 data body ("onMetaData", {...}).
Error EdgeIngester::on_flv_script(SharedBytes body) {
    RtmpData data, meta;
    if (Error err = decode_rtmp_data_body(body.data(), body.size(), &data); !err.ok()) {
        srs_warn("edge: ignore undecodable script tag from upstream: %s", err.summary().c_str());
        err.ignore();
        return Error();
    }
    if (rtmp_metadata_for_players(data, &meta)) return source_->on_metadata(encode_rtmp_data(meta));
    return Error();
}

Error EdgeIngester::on_rtmp_message(RtmpMessage& msg, bool* got_media) {
    if (msg.type == kRtmpAudio || msg.type == kRtmpVideo) {
        return on_media(msg.type, msg.timestamp, std::move(msg.payload), got_media);
    }
    if (msg.is_data()) {
        RtmpData data, meta;
        if (Error err = decode_rtmp_data(msg, &data); !err.ok()) {
            srs_warn("edge: ignore undecodable data from upstream: %s", err.summary().c_str());
            err.ignore();
            return Error();
        }
        if (rtmp_metadata_for_players(data, &meta)) return source_->on_metadata(encode_rtmp_data(meta));
        return Error();
    }
    if (!msg.is_command()) return Error();
    RtmpCommand cmd;
    if (Error err = decode_rtmp_command(msg, &cmd); !err.ok()) {
        srs_warn("edge: ignore undecodable command from upstream: %s", err.summary().c_str());
        err.ignore();
        return Error();
    }
    RtmpStatus status;
    if (classify_rtmp_command(cmd.name) == RtmpCommandKind::kOnStatus) {
        Error parsed = parse_rtmp_status(cmd, &status);
        if (parsed.ok() && status.code == kRtmpStatusPlayUnpublishNotify) {
            // The origin's publisher left; its next one starts a new GOP.
            // Players stay on this source and wait.
            srs_trace("edge: upstream %s unpublished, wait for its republish", upstream_url_.c_str());
            source_->on_upstream_switch();
            gate_.reset();
        }
        parsed.ignore();
    }
    return Error();
}

Error EdgeIngester::on_media(uint8_t type, uint32_t timestamp, SharedBytes payload, bool* got_media) {
    *got_media = true;
    if (type == kRtmpAudio) return source_->on_audio(timestamp, std::move(payload));
    if (!gate_.pass_video(payload.data(), payload.size())) return Error();
    return source_->on_video(timestamp, std::move(payload));
}

void EdgeIngester::close_upstream() {
    if (rtmp_) {
        closed_recv_ += rtmp_->bytes_in();
        closed_send_ += rtmp_->bytes_out();
        rtmp_->close().ignore();
        rtmp_.reset();
    }
    if (flv_) {
        closed_recv_ += flv_->recv_bytes();
        closed_send_ += flv_->send_bytes();
        flv_.reset();
    }
}

}  // namespace srs
