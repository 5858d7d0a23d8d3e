#include "app/api_endpoint.hpp"

namespace srs {

std::vector<std::unique_ptr<ApiEndpoint>> make_tool_endpoints(LiveContext* ctx) {
    std::vector<std::unique_ptr<ApiEndpoint>> out;
    (void)ctx;
    return out;
}

}  // namespace srs
