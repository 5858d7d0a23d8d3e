// The Prometheus exporter: GET /metrics on its own listener
// (`exporter { enabled on; listen 9972; label L; tag T; }`), served by the
// ordinary HTTP connection code. This file gathers the numbers from the
// server; metrics_render.hpp turns them into text.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/exporter/metrics_render.hpp"
#include "app/http/http_conn.hpp"
#include "app/conn/server_context.hpp"

namespace srs {

struct ExporterOptions {
    bool enabled = false;
    std::vector<ListenEndpoint> listen;
    std::string label;
    std::string tag;
    bool operator==(const ExporterOptions& o) const {
        return enabled == o.enabled && listen == o.listen && label == o.label && tag == o.tag;
    }
};

// The exporter block of a config: the only place the exporter reads it.
ExporterOptions read_exporter_options(const Config& config);

// Client counts as the metrics show them: the only place that knows how
// connections map to client types and totals.
struct ClientCounts {
    int64_t clients = 0;
    uint64_t clients_total = 0;
    uint64_t clients_errs_total = 0;
    uint64_t recv_bytes_total = 0;
    uint64_t send_bytes_total = 0;
    // Every known type, 0 when none.
    std::map<std::string, int64_t> by_type;
};
// Clients are connections that published or played (FinishedTotals), so
// srs_clients leaves out RTMP connections still in their handshake or
// connect, which /api/v1/clients already lists.
ClientCounts count_clients(const ClientRegistry& clients);

// Everything render_metrics() needs, read from the server now.
// service_id: the API's "service" (random per process).
MetricsSnapshot collect_metrics(ServerContext* ctx, const ExporterOptions& options, const std::string& service_id);

class ExporterHandler : public HttpHandler {
  public:
    ExporterHandler(ServerContext* ctx, std::string service_id) : ctx_(ctx), service_id_(std::move(service_id)) {}
    // Reload: label and tag show in the next scrape; a disabled exporter
    // answers 404 on connections that were open before it was turned off.
    void set_options(const ExporterOptions& options) { options_ = options; }
    const ExporterOptions& options() const { return options_; }

    // /metrics only: any other path is the connection's 404.
    bool match(const HttpRequest& req) const override;
    Error serve(const HttpRequest& req, HttpResponse* res) override;

  private:
    ServerContext* ctx_;
    std::string service_id_;
    ExporterOptions options_;
};

}  // namespace srs
