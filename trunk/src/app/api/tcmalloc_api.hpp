// tcmalloc in a --gperf=on build: the release rate from the config and
// GET /api/v1/tcmalloc, as SRS answers it:
//
//   ?page=summary   tcmalloc's own text report (MallocExtension::GetStats),
//                   as text/plain
//   anything else   JSON: data.query {page, help}, data.release_rate, and
//                   numeric properties under data.generic and data.tcmalloc
//
// A build without tcmalloc answers 404 with a hint, and /api/v1/ does not
// list the endpoint.
#pragma once

#include <string>

#include "app/api/api_endpoint.hpp"
#include "app/config/config.hpp"

namespace srs {

// Whether this build links tcmalloc (--gperf=on).
bool tcmalloc_linked();

// Gives tcmalloc the config's tcmalloc_release_rate (at start and on every
// reload); nothing without tcmalloc.
void apply_tcmalloc_release_rate(const Config& config);

class TcmallocEndpoint : public ApiEndpoint {
  public:
    const char* path() const override { return "/api/v1/tcmalloc"; }
    const char* description() const override { return "the tcmalloc stats, ?page=summary|api"; }
    int handle_text(const HttpRequest& req, std::string* content_type, std::string* text) override;
    int handle(const HttpRequest& req, Json* body) override;
    bool listed() const override { return tcmalloc_linked(); }
};

}  // namespace srs
