// The `data` of /api/v1/summaries, built from the server's state. The API and
// the heartbeat (summaries on) send the same object.
#pragma once

#include <nlohmann/json.hpp>

#include "app/conn/server_context.hpp"

namespace srs {

nlohmann::ordered_json build_summaries_data(ServerContext* ctx);

}  // namespace srs
