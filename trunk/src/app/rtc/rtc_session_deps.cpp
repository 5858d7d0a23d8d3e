#include "app/rtc/rtc_session_deps.hpp"

#include "app/rtc/rtc_random.hpp"

namespace srs {

RtcSessionDeps rtc_system_session_deps() {
    RtcSessionDeps d;
    d.random_ssrc = rtc_random_u32;
    d.wall_clock = [](utime_t) { return wall_us(); };
    return d;
}

}  // namespace srs
