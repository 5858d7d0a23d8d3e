#include "app/rtc/rtc_options.hpp"

#include "app/config/config_keys.hpp"

namespace srs {

RtcServerOptions read_rtc_server_options(const Config& config, const char* (*env)(const char*)) {
    RtcServerOptions o;
    o.enabled = config.get(keys::rtc_server_enabled);
    o.udp_port = static_cast<int>(config.get(keys::rtc_server_listen));
    o.tcp_enabled = config.get(keys::rtc_server_tcp_enabled);
    o.tcp_port = static_cast<int>(config.get(keys::rtc_server_tcp_listen));
    std::string protocol = config.get(keys::rtc_server_protocol);
    o.offer_udp = protocol != "tcp";
    o.offer_tcp = o.tcp_enabled && protocol != "udp";
    if (!o.offer_udp && !o.offer_tcp) o.offer_udp = true;  // protocol tcp without tcp.enabled: keep UDP working
    o.candidate = config.get(keys::rtc_server_candidate);
    // "$CANDIDATE": the variable's value; unset or empty falls back to "*" (detect), as SRS does.
    if (o.candidate.size() > 1 && o.candidate[0] == '$') {
        const char* value = env ? env(o.candidate.c_str() + 1) : nullptr;
        o.candidate = value && *value ? value : "*";
    }
    if (o.candidate.empty()) o.candidate = "*";
    o.auto_detect_ip = config.get(keys::rtc_server_use_auto_detect_network_ip);
    std::string family = config.get(keys::rtc_server_ip_family);
    o.ipv4 = family != "ipv6";
    o.ipv6 = family != "ipv4";
    o.api_as_candidates = config.get(keys::rtc_server_api_as_candidates);
    o.ecdsa = config.get(keys::rtc_server_ecdsa);
    o.encrypt = config.get(keys::rtc_server_encrypt);
    o.reuseport = static_cast<int>(config.get(keys::rtc_server_reuseport));
    o.gso = config.get(keys::rtc_server_gso);
    o.merge_nalus = config.get(keys::rtc_server_merge_nalus);
    return o;
}

RtcPendingSessions::Limits read_rtc_pending_limits(const Config& config) {
    RtcPendingSessions::Limits l;
    l.total = static_cast<size_t>(config.get(keys::rtc_server_pending_sessions));
    l.per_address = static_cast<size_t>(config.get(keys::rtc_server_pending_sessions_per_ip));
    l.timeout = config.get(keys::rtc_server_pending_timeout) * kUsPerSecond;
    return l;
}

RtcVhostOptions read_rtc_vhost_options(const Config& config, const std::string& vhost) {
    RtcVhostOptions o;
    o.enabled = config.get(vhost, keys::vhost_rtc_enabled);
    o.nack = config.get(vhost, keys::vhost_rtc_nack);
    // nack_no_copy is how retransmission always works here (from the shared
    // ring, never a copy per player); read so the directive is accepted.
    (void)config.get(vhost, keys::vhost_rtc_nack_no_copy);
    o.twcc = config.get(vhost, keys::vhost_rtc_twcc);
    o.stun_timeout = config.get(vhost, keys::vhost_rtc_stun_timeout) * kUsPerSecond;
    o.dtls_active = config.get(vhost, keys::vhost_rtc_dtls_role) == "active";
    o.drop_for_pt = static_cast<int>(config.get(vhost, keys::vhost_rtc_drop_for_pt));
    o.rtmp_to_rtc = config.get(vhost, keys::vhost_rtc_rtmp_to_rtc);
    o.rtc_to_rtmp = config.get(vhost, keys::vhost_rtc_rtc_to_rtmp);
    o.keep_bframe = config.get(vhost, keys::vhost_rtc_keep_bframe);
    o.opus_bitrate = static_cast<int>(config.get(vhost, keys::vhost_rtc_opus_bitrate));
    o.aac_bitrate = static_cast<int>(config.get(vhost, keys::vhost_rtc_aac_bitrate));
    o.pli_for_rtmp = static_cast<utime_t>(config.get(vhost, keys::vhost_rtc_pli_for_rtmp) * kUsPerSecond);
    return o;
}

}  // namespace srs
