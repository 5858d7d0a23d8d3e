#include "app/api/api_endpoint.hpp"
#include "app/api/diagnostics_api.hpp"
#include "app/api/valgrind_api.hpp"
#include "app/api/tcmalloc_api.hpp"

namespace srs {

std::vector<std::unique_ptr<ApiEndpoint>> make_tool_endpoints(ServerContext* ctx) {
    std::vector<std::unique_ptr<ApiEndpoint>> out;
    out.emplace_back(new DiagnosticsEndpoint(ctx));
    out.emplace_back(new ValgrindEndpoint(ctx));
    out.emplace_back(new TcmallocEndpoint());
    return out;
}

}  // namespace srs
