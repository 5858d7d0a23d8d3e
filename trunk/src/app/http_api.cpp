#include "app/http_api.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/version.hpp"
#include "io/runtime.hpp"

namespace srs {

using json = nlohmann::ordered_json;

HttpApiHandler::HttpApiHandler(LiveContext* ctx) : ctx_(ctx), service_id_(new_context_id()) {}

bool HttpApiHandler::match(const HttpRequest& req) const { return req.path.compare(0, 5, "/api/") == 0; }

Error HttpApiHandler::serve(const HttpRequest& req, HttpResponse* res) {
    json j;
    j["code"] = 0;
    j["server"] = ctx_->config().server_id();
    j["service"] = service_id_;
    j["pid"] = std::to_string(getpid());
    int status = 200;
    if (req.path == "/api/v1/versions" || req.path == "/api/v1/versions/") {
        j["data"] = {{"major", SRS_VERSION_MAJOR},
                     {"minor", SRS_VERSION_MINOR},
                     {"revision", SRS_VERSION_REVISION},
                     {"version", SRS_VERSION_STRING}};
    } else {
        status = 404;
        j["code"] = 404;
        j["error"] = "no such endpoint: " + req.path;
    }
    return res->send(status, "application/json", j.dump());
}

}  // namespace srs
