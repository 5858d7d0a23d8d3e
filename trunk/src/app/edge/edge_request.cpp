#include "app/edge/edge_request.hpp"

namespace srs {

bool is_edge_vhost(const Config& config, const std::string& vhost) {
    return config.get(vhost, keys::vhost_cluster_mode) == "remote";
}

EdgeOptions read_edge_options(const Config& config, const std::string& vhost) {
    EdgeOptions o;
    o.token_traverse = config.get(vhost, keys::vhost_cluster_token_traverse);
    o.follow_client = config.get(vhost, keys::vhost_cluster_follow_client);
    o.origin_vhost = config.get(vhost, keys::vhost_cluster_vhost);
    o.protocol = config.get(vhost, keys::vhost_cluster_protocol);
    return o;
}

std::string edge_origin_vhost(const EdgeOptions& options, const PullRequest& req) {
    if (options.follow_client && !req.asked_vhost.empty()) return req.asked_vhost;
    if (!options.origin_vhost.empty()) return options.origin_vhost;
    return req.vhost;
}

std::string edge_upstream_param(const std::string& param) {
    std::string out;
    size_t pos = param.empty() || param[0] != '?' ? 0 : 1;
    while (pos < param.size()) {
        size_t amp = param.find('&', pos);
        if (amp == std::string::npos) amp = param.size();
        std::string kv = param.substr(pos, amp - pos);
        pos = amp + 1;
        if (kv.empty() || kv.compare(0, 6, "vhost=") == 0 || kv.compare(0, 7, "domain=") == 0) continue;
        out += (out.empty() ? "?" : "&") + kv;
    }
    return out;
}

std::string edge_upstream_url(const std::string& origin, const PullRequest& req) {
    return origin + "/" + req.app + "/" + req.stream + edge_upstream_param(req.param);
}

std::string edge_upstream_tc_url(const std::string& origin, const std::string& vhost, const std::string& app,
                                 const std::string& param) {
    // origin is "rtmp://HOST:PORT": keep the ":PORT".
    std::string port;
    size_t colon = origin.rfind(':');
    size_t bracket = origin.rfind(']');
    if (colon != std::string::npos && colon > 6 && (bracket == std::string::npos || colon > bracket)) {
        port = origin.substr(colon);
    }
    return "rtmp://" + vhost + port + "/" + app + edge_upstream_param(param);
}

}  // namespace srs
