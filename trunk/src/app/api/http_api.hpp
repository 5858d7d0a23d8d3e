// The HTTP API (/api/v1/...), SRS's paths, methods and JSON field names, so
// SRS's console and scripts work unchanged. Every answer starts with code,
// server, service and pid. JSONP (?callback=) only with a valid JavaScript
// identifier; Basic auth when http_api.auth is on.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/api/api_endpoint.hpp"
#include "app/http/http_conn.hpp"
#include "app/conn/server_context.hpp"

namespace srs {

class LiveSource;
class RtcServer;

class HttpApiHandler : public HttpHandler {
  public:
    explicit HttpApiHandler(ServerContext* ctx);
    // The WebRTC server, whose pending sessions /api/v1/summaries reports (none: not reported).
    void set_rtc(const RtcServer* rtc) { rtc_ = rtc; }
    bool match(const HttpRequest& req) const override;
    Error serve(const HttpRequest& req, HttpResponse* res) override;
    // Random per process: the "service" of every answer.
    const std::string& service_id() const { return service_id_; }
    using Json = nlohmann::ordered_json;
    // {code, server, service, pid}: how every answer starts.
    Json envelope(int code) const;

  private:
    Error reply(const HttpRequest& req, HttpResponse* res, int status, const Json& body);
    bool authorized(const HttpRequest& req) const;
    std::string vhost_id(const std::string& vhost) const;
    Json stream_json(LiveSource* s);
    Json client_json(const Client* c);
    Json vhost_json(const std::string& vhost);

    Error api_streams(const HttpRequest& req, HttpResponse* res, const std::string& id);
    Error api_clients(const HttpRequest& req, HttpResponse* res, const std::string& id);
    Error api_vhosts(const HttpRequest& req, HttpResponse* res, const std::string& id);
    Error api_raw(const HttpRequest& req, HttpResponse* res);

    ServerContext* ctx_;
    const RtcServer* rtc_ = nullptr;
    std::vector<std::unique_ptr<ApiEndpoint>> tool_endpoints_;
    std::string service_id_;                     // random per process, as SRS's "service"
};

}  // namespace srs
