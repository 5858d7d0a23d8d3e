#include "app/api/heartbeat.hpp"

#include <algorithm>

#include "app/api/api_json.hpp"
#include "app/api/summaries_api.hpp"
#include "app/upstream/http_client.hpp"
#include "core/log.hpp"
#include "io/runtime.hpp"
#include "io/udp_batch.hpp"

namespace srs {

namespace {

// "1935" for a wildcard bind (what a manager adds its own host to), else "ip:port".
std::string endpoint_text(const ListenEndpoint& ep) {
    if (ep.ip.empty() || ep.ip == "0.0.0.0" || ep.ip == "::") return std::to_string(ep.port);
    if (ep.ip.find(':') != std::string::npos) return "[" + ep.ip + "]:" + std::to_string(ep.port);
    return ep.ip + ":" + std::to_string(ep.port);
}

nlohmann::ordered_json endpoints_json(const std::vector<ListenEndpoint>& eps) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& ep : eps) a.push_back(endpoint_text(ep));
    return a;
}

}  // namespace

HeartbeatOptions read_heartbeat_options(const Config& conf) {
    HeartbeatOptions o;
    o.enabled = conf.get(keys::heartbeat_enabled);
    o.interval = static_cast<utime_t>(conf.get(keys::heartbeat_interval) * kUsPerSecond);
    o.url = conf.get(keys::heartbeat_url);
    o.device_id = conf.get(keys::heartbeat_device_id);
    o.summaries = conf.get(keys::heartbeat_summaries);
    o.ports = conf.get(keys::heartbeat_ports);
    return o;
}

std::string heartbeat_local_ip() {
    std::vector<std::string> ips = detect_interface_addresses(true, false);
    for (const std::string& ip : ips) {
        if (ip.compare(0, 4, "127.") != 0) return ip;
    }
    return "127.0.0.1";
}

nlohmann::ordered_json build_heartbeat_json(const HeartbeatOptions& options, const HeartbeatIdentity& id,
                                            const Config& conf, const nlohmann::ordered_json* summaries) {
    nlohmann::ordered_json j;
    j["device_id"] = options.device_id;
    j["ip"] = id.ip;
    for (const char* k : {"server", "service", "pid"}) {
        if (id.envelope.contains(k)) j[k] = id.envelope[k];
    }
    if (options.summaries && summaries) j["summaries"] = {{"data", *summaries}};
    if (options.ports) {
        j["rtmp"] = endpoints_json(conf.get(keys::listen));
        if (conf.get(keys::http_server_enabled)) j["http"] = endpoints_json(conf.get(keys::http_server_listen));
        if (conf.get(keys::http_api_enabled)) j["api"] = endpoints_json(conf.get(keys::http_api_listen));
        if (conf.get(keys::rtc_server_enabled)) {
            j["rtc"] = nlohmann::ordered_json::array({std::to_string(conf.get(keys::rtc_server_listen))});
        }
    }
    return j;
}

Heartbeat::Heartbeat(ServerContext* ctx, const HttpApiHandler* api) : ctx_(ctx), api_(api) {}

Heartbeat::~Heartbeat() { stop(); }

Error Heartbeat::start() {
    // Read once: the heartbeat's directives need a restart, as in SRS.
    options_ = read_heartbeat_options(*ctx_->config());
    const HeartbeatOptions& o = options_;
    if (!o.enabled) return Error();
    if (o.interval <= 0) return SRS_ERR(kErrorConfigInvalid, "heartbeat.interval must be above 0");
    ip_ = heartbeat_local_ip();
    co_.reset(new Coroutine("heartbeat", this));
    if (Error err = co_->start(); !err.ok()) return SRS_WRAP(err, "start heartbeat");
    srs_trace("heartbeat: POST %s every %.3f s as device_id=%s ip=%s", o.url.c_str(),
              o.interval / double(kUsPerSecond), o.device_id.c_str(), ip_.c_str());
    return Error();
}

void Heartbeat::stop() {
    if (co_) co_->stop();
    co_.reset();
}

Error Heartbeat::cycle() {
    while (true) {
        const HeartbeatOptions& o = options_;
        utime_t interval = o.interval;
        if (Error err = sleep_us(interval); !err.ok()) return SRS_WRAP(err, "heartbeat sleep");
        if (Error err = co_->pull(); !err.ok()) return err;
        if (Error err = beat(o); !err.ok()) {
            if (err.code() == kErrorThreadInterrupted) return err;
            ++failed_;
            srs_warn("heartbeat: %s (retry in %.3f s)", err.describe().c_str(), interval / double(kUsPerSecond));
            err.ignore();
        }
    }
}

Error Heartbeat::beat(const HeartbeatOptions& o) {
    std::shared_ptr<const Config> conf = ctx_->config();
    HeartbeatIdentity id;
    id.ip = ip_;
    id.envelope = api_->envelope(0);
    nlohmann::ordered_json summaries;
    if (o.summaries) summaries = build_summaries_data(ctx_);
    std::string body = dump_api_json(build_heartbeat_json(o, id, *conf, o.summaries ? &summaries : nullptr));

    // Never longer than one interval (nor 3 s): a stalled manager must not
    // make the reports pile up or go stale.
    HttpClientOptions http = ctx_->http_client_options();
    http.total_timeout = std::min<utime_t>(o.interval, 3 * kUsPerSecond);
    http.connect_timeout = http.total_timeout;
    http.io_timeout = http.total_timeout;
    http.max_body = 64 * 1024;
    HttpClientResult res;
    if (Error err = http_post(o.url, "application/json", body, http, &res); !err.ok()) {
        return SRS_WRAP(err, "POST %s", o.url.c_str());
    }
    if (res.head.status < 200 || res.head.status > 299) {
        return SRS_ERR(kErrorHttpClientStatus, "POST %s answered %d", o.url.c_str(), res.head.status);
    }
    ++sent_;
    srs_info("heartbeat: POST %s -> %d", o.url.c_str(), res.head.status);
    return Error();
}

}  // namespace srs
