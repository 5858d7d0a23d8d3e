// The HTTP API (/api/v1/...), SRS's paths and JSON field names. Every
// answer starts with code, server, service and pid.
#pragma once

#include <string>

#include "app/http_conn.hpp"
#include "app/live_context.hpp"

namespace srs {

class HttpApiHandler : public HttpHandler {
  public:
    explicit HttpApiHandler(LiveContext* ctx);
    bool match(const HttpRequest& req) const override;
    Error serve(const HttpRequest& req, HttpResponse* res) override;

  private:
    LiveContext* ctx_;
    std::string service_id_;  // random per process, as SRS's "service"
};

}  // namespace srs
