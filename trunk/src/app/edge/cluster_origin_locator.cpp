#include "app/edge/cluster_origin_locator.hpp"

#include <cstdlib>

#include "core/log.hpp"
#include "protocol/rtmp/rtmp_url.hpp"

namespace srs {

Error origin_entry_to_url(const std::string& entry, std::string* url) {
    std::string host, port_text;
    if (!entry.empty() && entry[0] == '[') {
        // "[::1]:1935" or "[::1]"
        size_t close = entry.find(']');
        if (close == std::string::npos) return SRS_ERR(kErrorEdgeOriginInvalid, "origin %s: no ]", entry.c_str());
        host = entry.substr(1, close - 1);
        if (close + 1 < entry.size()) {
            if (entry[close + 1] != ':') return SRS_ERR(kErrorEdgeOriginInvalid, "origin %s", entry.c_str());
            port_text = entry.substr(close + 2);
            if (port_text.empty()) return SRS_ERR(kErrorEdgeOriginInvalid, "origin %s: empty port", entry.c_str());
        }
    } else {
        size_t colon = entry.find(':');
        // More than one colon without brackets: a bare IPv6 address.
        if (colon != std::string::npos && entry.find(':', colon + 1) == std::string::npos) {
            host = entry.substr(0, colon);
            port_text = entry.substr(colon + 1);
            if (port_text.empty()) return SRS_ERR(kErrorEdgeOriginInvalid, "origin %s: empty port", entry.c_str());
        } else {
            host = entry;
        }
    }
    if (host.empty()) return SRS_ERR(kErrorEdgeOriginInvalid, "origin %s: empty host", entry.c_str());
    if (!is_ip_literal(host)) {
        return SRS_ERR(kErrorEdgeOriginInvalid, "origin %s: host is not an IP address (no DNS)", entry.c_str());
    }
    long port = kRtmpDefaultPort;
    if (!port_text.empty()) {
        char* end = nullptr;
        port = strtol(port_text.c_str(), &end, 10);
        if (*end != '\0' || port < 1 || port > 65535) {
            return SRS_ERR(kErrorEdgeOriginInvalid, "origin %s: bad port", entry.c_str());
        }
    }
    bool v6 = host.find(':') != std::string::npos;
    *url = "rtmp://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
    return Error();
}

Error ClusterOriginLocator::locate(const StreamKey& key, std::vector<std::string>* out) {
    out->clear();
    std::vector<std::string> entries = origins_(key.vhost);
    for (const std::string& e : entries) {
        std::string url;
        if (Error err = origin_entry_to_url(e, &url); !err.ok()) {
            srs_warn("edge %s: skip origin: %s", key.vhost.c_str(), err.summary().c_str());
            err.ignore();
            continue;
        }
        out->push_back(url);
    }
    if (out->empty() && !entries.empty()) {
        return SRS_ERR(kErrorEdgeOriginInvalid, "vhost %s: no usable cluster.origin among %zu", key.vhost.c_str(),
                       entries.size());
    }
    return Error();
}

}  // namespace srs
