// An HTTP API endpoint that lives in a file of its own (the tooling ones:
// valgrind, tcmalloc, diagnostics), so http_api.cpp only routes to it.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/live_context.hpp"
#include "protocol/http_request.hpp"

namespace srs {

class ApiEndpoint {
  public:
    using Json = nlohmann::ordered_json;
    virtual ~ApiEndpoint() = default;
    // The exact path it answers, e.g. "/api/v1/diagnostics".
    virtual const char* path() const = 0;
    // One line for the /api/v1/ index.
    virtual const char* description() const = 0;
    // Fills *body (which already holds code/server/service/pid) and returns
    // the HTTP status. A non-200 status should also set body["code"].
    virtual int handle(const HttpRequest& req, Json* body) = 0;
};

// The tooling endpoints this build has, in the order the API lists them.
// Defined in api_endpoints.cpp; each endpoint's file adds one line there.
std::vector<std::unique_ptr<ApiEndpoint>> make_tool_endpoints(LiveContext* ctx);

}  // namespace srs
