#include "app/forward/forwarder.hpp"

#include "app/config/config.hpp"
#include "app/config/config_keys.hpp"
#include "app/live/consumer_options.hpp"
#include "app/live/live_source.hpp"
#include "app/upstream/http_client.hpp"
#include "app/upstream/rtmp_client.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"
#include "protocol/rtmp/rtmp_message.hpp"

namespace srs {

namespace {

constexpr utime_t kForwardConnectTimeoutUs = 3 * kUsPerSecond;
constexpr utime_t kForwardSendTimeoutUs = 10 * kUsPerSecond;
// From the TCP connect to NetStream.Publish.Start: a few round trips for a
// server that answers; a destination slower than this is treated as dead.
constexpr utime_t kForwardSetupTimeoutUs = 8 * kUsPerSecond;
// Read what the destination sends back (acks, pings, status) every this
// many sends, so its writes never fill our receive buffer.
constexpr uint64_t kDrainEvery = 16;

uint8_t rtmp_type_of(const LiveMessage& m) {
    if (m.is_audio()) return kRtmpAudio;
    if (m.is_video()) return kRtmpVideo;
    return kRtmpAmf0Data;
}

}  // namespace

// ---- StreamForwarder ----

// The coroutine of one connection to the destination; tells the forwarder
// when it ends.
class StreamForwarder::Connection : public CoroutineHandler {
  public:
    explicit Connection(StreamForwarder* owner) : owner_(owner), co_("forward-conn", this, owner->co_.cid()) {}
    Coroutine& co() { return co_; }

  private:
    Error cycle() override {
        Error err = owner_->forward_once(co_);
        owner_->connection_ended_.signal();
        return err;
    }

    StreamForwarder* owner_;
    Coroutine co_;
};

StreamForwarder::StreamForwarder(LiveSource* source, std::string url, ConsumerOptions options,
                                 HostResolver* resolver)
    : source_(source), url_(std::move(url)), options_(options), resolver_(resolver), co_("forward", this) {}

StreamForwarder::~StreamForwarder() { stop(); }

Error StreamForwarder::start() { return co_.start(); }

void StreamForwarder::stop() { co_.stop(); }

Error StreamForwarder::cycle() {
    while (co_.pull().ok()) {
        Error err = attempt();
        if (co_.pull().failed()) {
            err.ignore();
            break;
        }
        srs_warn("forward %s%s to %s: %s; again in %ds", source_->vhost().c_str(), source_->url().c_str(),
                 url_.c_str(), err.summary().c_str(), static_cast<int>(kForwardRetryUs / kUsPerSecond));
        err.ignore();
        if (Error e = sleep_us(kForwardRetryUs); e.failed()) {
            e.ignore();
            break;
        }
    }
    srs_trace("forward %s%s to %s stopped, msgs=%llu", source_->vhost().c_str(), source_->url().c_str(),
              url_.c_str(), static_cast<unsigned long long>(sent_));
    return Error();
}

Error StreamForwarder::attempt() {
    published_ = false;
    Connection conn(this);
    if (Error err = conn.co().start(); !err.ok()) return SRS_WRAP(err, "start connection");
    const utime_t deadline = monotonic_us() + kForwardSetupTimeoutUs;
    while (conn.co().running()) {
        utime_t wait = -1;
        if (!published_) {
            wait = deadline - monotonic_us();
            if (wait <= 0) {
                conn.co().stop();  // interrupts its blocked read or write
                conn.co().take_error().ignore();
                return SRS_ERR(kErrorSocketTimeout, "no answer within %ds (connect, handshake, publish)",
                               static_cast<int>(kForwardSetupTimeoutUs / kUsPerSecond));
            }
        }
        connection_ended_.wait(wait);
        if (co_.pull().failed()) break;  // stopped: the unpublish
    }
    conn.co().stop();
    return conn.co().take_error();
}

Error StreamForwarder::forward_once(const Coroutine& conn) {
    attempts_++;
    RtmpClient client;
    client.set_resolver(resolver_);  // a destination may be named by DNS
    if (Error err = client.connect(url_, kForwardConnectTimeoutUs); !err.ok()) return SRS_WRAP(err, "connect");
    if (Error err = client.publish(); !err.ok()) return SRS_WRAP(err, "publish");
    if (Error err = client.set_chunk_size(60000); !err.ok()) return SRS_WRAP(err, "chunk size");
    client.set_send_timeout(kForwardSendTimeoutUs);
    published_ = true;
    // Taken once the destination said yes: it starts with the headers and
    // the GOP, and a dead destination holds no queue.
    std::unique_ptr<LiveConsumer> consumer(source_->create_consumer(options_));
    consumer->deliver_primed_now();
    srs_trace("forward %s%s to %s started (attempt %d)", source_->vhost().c_str(), source_->url().c_str(),
              url_.c_str(), attempts_);
    std::vector<LiveMessagePtr> batch;
    std::vector<RtmpMessage> out;
    std::vector<RtmpMessage> drained;
    uint64_t sends = 0;
    while (conn.pull().ok()) {
        consumer->wait(player_wait_us(options_));
        if (conn.pull().failed()) break;
        batch.clear();
        consumer->dump(&batch, kPlayerMaxMessagesPerSend);
        if (batch.empty()) continue;
        out.resize(batch.size());
        for (size_t i = 0; i < batch.size(); i++) {
            out[i].type = rtmp_type_of(*batch[i]);
            out[i].timestamp = batch[i]->timestamp();
            out[i].payload = batch[i]->payload();
        }
        if (Error err = client.send_messages(out.data(), out.size()); !err.ok()) return SRS_WRAP(err, "send");
        sent_ += out.size();
        uint64_t bytes = 0;
        for (const RtmpMessage& m : out) bytes += m.payload.size();
        source_->add_send_bytes(bytes);
        if (++sends % kDrainEvery == 0) {
            drained.clear();
            if (Error err = client.poll_messages(&drained); !err.ok()) return SRS_WRAP(err, "read");
        }
    }
    // Stopped (the unpublish): the socket closes without the goodbye
    // commands, which could wait on a destination that does not read.
    return Error();
}

// ---- SourceForwarders ----

SourceForwarders::SourceForwarders(LiveSource* source, ForwardPlan plan, HttpClientOptions http)
    : source_(source), plan_(std::move(plan)), http_(std::move(http)), co_("forward-plan", this) {}

SourceForwarders::~SourceForwarders() {
    co_.stop();
    forwarders_.clear();  // each stops its coroutine, then its consumer goes
}

Error SourceForwarders::start() { return co_.start(); }

Error SourceForwarders::cycle() {
    std::vector<std::string> urls;
    if (plan_.backend.empty()) {
        for (const std::string& d : plan_.destinations) {
            urls.push_back(forward_destination_url(d, source_->vhost(), source_->app(), source_->stream(),
                                                   plan_.hook.param));
        }
        start_forwarders(urls);
        return Error();
    }
    while (co_.pull().ok()) {
        Error err = ask_backend(&urls);
        if (err.ok()) {
            if (urls.empty()) {
                srs_trace("forward %s%s: backend %s gave no url, nothing forwarded", source_->vhost().c_str(),
                          source_->url().c_str(), plan_.backend.c_str());
            }
            start_forwarders(urls);
            return Error();
        }
        if (co_.pull().failed()) {
            err.ignore();
            break;
        }
        srs_warn("forward %s%s: backend %s: %s; asked again in %ds", source_->vhost().c_str(),
                 source_->url().c_str(), plan_.backend.c_str(), err.summary().c_str(),
                 static_cast<int>(kForwardRetryUs / kUsPerSecond));
        err.ignore();
        if (Error e = sleep_us(kForwardRetryUs); e.failed()) {
            e.ignore();
            break;
        }
    }
    return Error();
}

Error SourceForwarders::ask_backend(std::vector<std::string>* urls) {
    HttpClientResult res;
    std::string body = build_on_forward_body(plan_.hook);
    if (Error err = http_post(plan_.backend, "application/json", body, http_, &res); !err.ok()) {
        return SRS_WRAP(err, "on_forward %s", plan_.backend.c_str());
    }
    if (Error err = parse_on_forward_reply(res.head.status, res.body, urls); !err.ok()) {
        return SRS_WRAP(err, "on_forward %s", plan_.backend.c_str());
    }
    return Error();
}

void SourceForwarders::start_forwarders(const std::vector<std::string>& urls) {
    for (const std::string& url : urls) {
        std::unique_ptr<StreamForwarder> f(new StreamForwarder(source_, url, plan_.consumer, http_.resolver));
        if (Error err = f->start(); !err.ok()) {
            srs_warn("forward %s%s to %s: %s", source_->vhost().c_str(), source_->url().c_str(), url.c_str(),
                     err.summary().c_str());
            err.ignore();
            continue;
        }
        forwarders_.push_back(std::move(f));
    }
}

// ---- ForwardManager ----

ForwardManager::ForwardManager(std::function<std::shared_ptr<const Config>()> config) : config_(std::move(config)) {}

std::unique_ptr<LiveSourceBridge> ForwardManager::create_bridge(LiveSource* source) {
    std::shared_ptr<const Config> config = config_();
    const std::string& vhost = source->vhost();
    if (!config->get(vhost, keys::vhost_forward_enabled)) return nullptr;
    ForwardPlan plan;
    plan.destinations = config->get(vhost, keys::vhost_forward_destination);
    plan.backend = config->get(vhost, keys::vhost_forward_backend);
    if (plan.destinations.empty() && plan.backend.empty()) return nullptr;
    plan.consumer = consumer_options(*config, vhost);
    const SourceOptions& o = source->publish_options();
    std::string server_id = config->get(keys::server_id);
    plan.hook.server_id = server_id.empty() ? "vid-" + service_id_.substr(0, 7) : server_id;
    plan.hook.service_id = service_id_;
    plan.hook.client_id = source->publisher_cid();
    plan.hook.ip = o.client_ip;
    plan.hook.vhost = vhost;
    plan.hook.app = source->app();
    plan.hook.tc_url = o.tc_url;
    plan.hook.stream = source->stream();
    plan.hook.param = o.param;
    std::unique_ptr<SourceForwarders> f(new SourceForwarders(source, std::move(plan), http_));
    if (Error err = f->start(); !err.ok()) {
        srs_warn("forward %s%s: %s", vhost.c_str(), source->url().c_str(), err.summary().c_str());
        err.ignore();
        return nullptr;
    }
    return f;
}

}  // namespace srs
