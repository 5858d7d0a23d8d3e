// An HTTP API endpoint that lives in a file of its own (the tooling ones:
// valgrind, tcmalloc, diagnostics), so http_api.cpp only routes to it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/conn/server_context.hpp"
#include "protocol/http/http_request.hpp"

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
    // For an answer that is not JSON (e.g. a tool's text report): returns its
    // HTTP status and fills *content_type and *text, or returns 0 to answer
    // with handle() instead (the default).
    virtual int handle_text(const HttpRequest& req, std::string* content_type, std::string* text) {
        (void)req, (void)content_type, (void)text;
        return 0;
    }
    // Whether /api/v1/ lists it: an endpoint this build lacks (e.g. tcmalloc
    // without --gperf=on) still answers, with a hint, but is not listed.
    virtual bool listed() const { return true; }
};

// The tooling endpoints this build has, in the order the API lists them.
// Defined in api_endpoints.cpp; each endpoint's file adds one line there.
std::vector<std::unique_ptr<ApiEndpoint>> make_tool_endpoints(ServerContext* ctx);

}  // namespace srs
