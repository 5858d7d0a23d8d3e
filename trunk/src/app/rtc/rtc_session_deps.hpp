// What a WebRTC session would otherwise take from the system, given to it so
// that a session reads no clock and draws no random number itself (tests
// give fixed ones).
#pragma once

#include <cstdint>
#include <functional>

#include "core/clock.hpp"

namespace srs {

struct RtcSessionDeps {
    // A non-zero SSRC (the one a publisher session's RTCP is sent from).
    std::function<uint32_t()> random_ssrc;
    // The wall clock (Unix us) at the monotonic instant `now`: the NTP time of
    // sender reports and the RTT from receiver reports.
    std::function<int64_t(utime_t now)> wall_clock;
};

// OpenSSL's generator (rtc_random_u32) and the system's wall clock: what the
// server gives its sessions.
RtcSessionDeps rtc_system_session_deps();

}  // namespace srs
