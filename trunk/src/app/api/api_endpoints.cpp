#include "app/api_endpoint.hpp"
#include "app/diagnostics_api.hpp"
#include "app/valgrind_api.hpp"
#include "app/tcmalloc_api.hpp"

namespace srs {

std::vector<std::unique_ptr<ApiEndpoint>> make_tool_endpoints(LiveContext* ctx) {
    std::vector<std::unique_ptr<ApiEndpoint>> out;
    out.emplace_back(new DiagnosticsEndpoint(ctx));
    out.emplace_back(new ValgrindEndpoint(ctx));
    out.emplace_back(new TcmallocEndpoint());
    return out;
}

}  // namespace srs
