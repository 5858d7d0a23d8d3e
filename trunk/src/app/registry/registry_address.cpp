#include "app/registry/registry_address.hpp"

#include <cstdlib>

#include "io/udp_batch.hpp"

namespace srs {

std::string RedisAddress::to_string() const {
    std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return "redis://" + h + ":" + std::to_string(port) + "/" + std::to_string(db);
}

namespace {

bool parse_int(const std::string& s, int min, int max, int* out) {
    if (s.empty() || s.size() > 9) return false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
    }
    int v = atoi(s.c_str());
    if (v < min || v > max) return false;
    *out = v;
    return true;
}

}  // namespace

Error parse_redis_url(const std::string& url, RedisAddress* out) {
    RedisAddress a;
    std::string rest = url;
    const std::string scheme = "redis://";
    if (rest.compare(0, scheme.size(), scheme) == 0) rest = rest.substr(scheme.size());
    if (rest.find('@') != std::string::npos) {
        return SRS_ERR(kErrorRegistryConfig, "redis URL %s: credentials are not supported", url.c_str());
    }
    size_t slash = rest.find('/');
    std::string hostport = rest.substr(0, slash);
    if (slash != std::string::npos) {
        std::string db = rest.substr(slash + 1);
        if (!db.empty() && !parse_int(db, 0, 65535, &a.db)) {
            return SRS_ERR(kErrorRegistryConfig, "redis URL %s: database '%s' is not a number", url.c_str(),
                           db.c_str());
        }
    }
    std::string port;
    if (!hostport.empty() && hostport[0] == '[') {
        size_t close = hostport.find(']');
        if (close == std::string::npos) return SRS_ERR(kErrorRegistryConfig, "redis URL %s: unclosed [", url.c_str());
        a.host = hostport.substr(1, close - 1);
        if (close + 1 < hostport.size()) {
            if (hostport[close + 1] != ':') return SRS_ERR(kErrorRegistryConfig, "redis URL %s: bad host", url.c_str());
            port = hostport.substr(close + 2);
        }
    } else {
        size_t colon = hostport.find(':');
        a.host = hostport.substr(0, colon);
        if (colon != std::string::npos) port = hostport.substr(colon + 1);
    }
    if (a.host.empty()) return SRS_ERR(kErrorRegistryConfig, "redis URL %s: no host", url.c_str());
    if (a.host == "localhost") a.host = "127.0.0.1";
    if (!port.empty() && !parse_int(port, 1, 65535, &a.port)) {
        return SRS_ERR(kErrorRegistryConfig, "redis URL %s: port '%s' is not in 1..65535", url.c_str(), port.c_str());
    }
    *out = a;
    return Error();
}

std::string registry_owner_url(const std::string& advertise, int rtmp_port) {
    std::string host = advertise;
    if (host.empty()) {
        // detect_interface_addresses falls back to loopback only when nothing else is up.
        std::vector<std::string> found = detect_interface_addresses(true, false);
        host = found.empty() ? "127.0.0.1" : found[0];
    }
    if (host.find(':') != std::string::npos && host[0] != '[') host = "[" + host + "]";
    return "rtmp://" + host + ":" + std::to_string(rtmp_port);
}

}  // namespace srs
