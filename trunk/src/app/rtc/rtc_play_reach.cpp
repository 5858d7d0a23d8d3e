#include "app/rtc/rtc_play_reach.hpp"

namespace srs {

RtcPlayReach rtc_play_reach(const RtcPlayFacts& f) {
    RtcPlayReach r;
    const std::string in_vhost = " in vhost " + f.vhost;
    if (!f.server_enabled) {
        r.reason = "rtc_server is off";
        r.hint = "turn rtc_server.enabled on";
        return r;
    }
    if (!f.vhost_enabled) {
        r.reason = "rtc is off" + in_vhost;
        r.hint = "turn rtc.enabled on" + in_vhost;
        return r;
    }
    if (f.rtc_publisher) {
        r.play = true;
        r.reason = f.bridged ? (f.how.empty() ? "published" : f.how) + ", bridged to WebRTC (rtmp_to_rtc on" +
                                   in_vhost + ")"
                             : "published over WebRTC";
        return r;
    }
    const std::string how = f.how.empty() ? "published, not over WebRTC," : f.how;
    if (f.published) {
        if (f.rtmp_to_rtc) {
            // The bridge is made as a stream is published: a conf reloaded since does not make one.
            r.reason = how + " before rtmp_to_rtc was on" + in_vhost;
            r.hint = "publish it again to bridge it";
        } else {
            r.reason = how + " and rtmp_to_rtc is off" + in_vhost;
            r.hint = "turn rtc.rtmp_to_rtc on" + in_vhost + " and publish again, or publish over WebRTC (WHIP)";
        }
        return r;
    }
    r.play = true;
    r.waiting = true;
    r.reason = f.rtmp_to_rtc ? "no publisher yet"
                             : "no publisher yet; rtmp_to_rtc is off" + in_vhost +
                                   ": only a WebRTC (WHIP) publisher would reach WebRTC players";
    return r;
}

}  // namespace srs
