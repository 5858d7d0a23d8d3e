// GET /api/v1/diagnostics: the guide's by-hand checks as one JSON answer
// (see app/diagnostics.hpp for the rules).
#pragma once

#include <vector>

#include "app/api/api_endpoint.hpp"
#include "app/stats/proc_sampler.hpp"

namespace srs {

class DiagnosticsEndpoint : public ApiEndpoint {
  public:
    explicit DiagnosticsEndpoint(ServerContext* ctx);
    const char* path() const override { return "/api/v1/diagnostics"; }
    const char* description() const override {
        return "fd limit, UDP buffers and drops, softirq, nice, affinity and instrumentation checks";
    }
    int handle(const HttpRequest& req, Json* body) override;

  private:
    ServerContext* ctx_;
    SnmpStat udp_at_start_;
    // CPU split at the previous answer (at start before the first): the
    // softirq shares cover the time between two answers.
    ProcSystemStat cpu_prev_;
    std::vector<ProcSystemStat> cpus_prev_;
};

}  // namespace srs
