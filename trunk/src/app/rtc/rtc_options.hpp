// What the WebRTC server reads from the config: rtc_server {} once at start,
// vhost.rtc {} per session (a reload changes the sessions that start after it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/rtc/rtc_pending.hpp"
#include "core/clock.hpp"

namespace srs {

struct RtcServerOptions {
    bool enabled = false;
    int udp_port = 8000;
    bool tcp_enabled = false;
    int tcp_port = 8000;
    bool offer_udp = true;  // rtc_server.protocol udp|all
    bool offer_tcp = false;  // rtc_server.protocol tcp|all (needs tcp.enabled)
    // rtc_server.candidate after $ENV expansion: an address, a name, or "*".
    std::string candidate;
    bool auto_detect_ip = true;
    bool ipv4 = true, ipv6 = false;  // ip_family
    bool api_as_candidates = true;
    bool ecdsa = true;
    bool encrypt = true;
    int reuseport = 1;
    bool gso = true;  // UDP GSO for a player's run of equal-sized packets (ours, not SRS's)
    bool merge_nalus = false;  // STAP-A for the small NALUs of a frame (RTMP -> WebRTC)
};

// env: how $NAME in rtc_server.candidate is looked up (getenv in the server).
RtcServerOptions read_rtc_server_options(const Config& config, const char* (*env)(const char*));

// rtc_server.pending_sessions, pending_sessions_per_ip and pending_timeout:
// read for every offer, so a reload applies to the offers after it.
RtcPendingSessions::Limits read_rtc_pending_limits(const Config& config);

struct RtcVhostOptions {
    bool enabled = false;
    bool nack = true;
    bool twcc = true;
    utime_t stun_timeout = 30 * kUsPerSecond;
    bool dtls_active = false;  // dtls_role active: we are the DTLS client when the offer allows it
    int drop_for_pt = 0;       // 0: none
    // The bridges (app/rtc/rtc_bridge_*): RTMP/HTTP-FLV in -> WebRTC out and back.
    bool rtmp_to_rtc = false;
    bool rtc_to_rtmp = false;
    bool keep_bframe = false;  // every player gets B-frames (off: the players whose profile has them)
    int opus_bitrate = 48000;
    int aac_bitrate = 48000;
    utime_t pli_for_rtmp = 6 * kUsPerSecond;  // 0: no periodic keyframe request
};

RtcVhostOptions read_rtc_vhost_options(const Config& config, const std::string& vhost);

}  // namespace srs
