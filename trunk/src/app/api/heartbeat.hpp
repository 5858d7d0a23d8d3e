// The heartbeat (SRS's `heartbeat { }`): a coroutine that POSTs a JSON report
// to a management server every `interval` seconds, so it can list the servers
// (SRS 7's proxy registers backends this way).
//
// Body: {"device_id", "ip", "server", "service", "pid"} always; with
// `summaries on`, "summaries": {"data": <the data of /api/v1/summaries>};
// with `ports on`, "rtmp", "http", "api", "rtc" arrays of the listen
// endpoints as strings ("1935", or "ip:port" when bound to one address), each
// present only when its listener is enabled.
//
// A failed POST (refused, timeout, garbage, non-2xx) is logged as a warning
// and the next one goes out at the next interval; only this coroutine waits
// on it (each POST is bounded by min(interval, 3 s)).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "app/api/http_api.hpp"
#include "app/config/config.hpp"
#include "app/conn/server_context.hpp"
#include "core/clock.hpp"
#include "io/coroutine.hpp"

namespace srs {

struct HeartbeatOptions {
    bool enabled = false;
    utime_t interval = 0;
    std::string url;
    std::string device_id;
    bool summaries = false;
    bool ports = false;
};

HeartbeatOptions read_heartbeat_options(const Config& conf);

// What the report says about this process besides the options.
struct HeartbeatIdentity {
    std::string ip;  // first non-loopback IPv4, else 127.0.0.1
    // {"server", "service", "pid"} as every API answer has them (HttpApiHandler::envelope).
    nlohmann::ordered_json envelope;
};

// The report (pure: no IO). summaries is null when off.
nlohmann::ordered_json build_heartbeat_json(const HeartbeatOptions& options, const HeartbeatIdentity& id,
                                            const Config& conf, const nlohmann::ordered_json* summaries);

// The machine's first non-loopback IPv4 address, else "127.0.0.1".
std::string heartbeat_local_ip();

class Heartbeat : public CoroutineHandler {
  public:
    // api: gives the server/service/pid every API answer carries.
    Heartbeat(ServerContext* ctx, const HttpApiHandler* api);
    ~Heartbeat() override;
    // Starts the coroutine when the conf enables it (read at start: not reloadable, as SRS).
    Error start();
    void stop();
    Error cycle() override;
    uint64_t sent() const { return sent_; }
    uint64_t failed() const { return failed_; }

  private:
    Error beat(const HeartbeatOptions& options);

    ServerContext* ctx_;
    const HttpApiHandler* api_;
    HeartbeatOptions options_;
    std::string ip_;
    std::unique_ptr<Coroutine> co_;
    uint64_t sent_ = 0;
    uint64_t failed_ = 0;
};

}  // namespace srs
