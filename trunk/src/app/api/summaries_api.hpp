// The `data` of /api/v1/summaries, built from the server's state. The API and
// the heartbeat (summaries on) send the same object.
//
// With a running WebRTC server, the API's also has "rtc" (ours, not SRS's):
//   {"sessions": every session, "pending": those without a verified STUN
//    binding yet, "pending_max", "pending_max_per_ip", "pending_timeout" (s):
//    the bounds, "pending_refused": offers refused with 503 since the start,
//    "pending_expired": pending sessions freed by pending_timeout}.
#pragma once

#include <nlohmann/json.hpp>

#include "app/conn/server_context.hpp"

namespace srs {

class RtcServer;

nlohmann::ordered_json build_summaries_data(ServerContext* ctx, const RtcServer* rtc = nullptr);

}  // namespace srs
