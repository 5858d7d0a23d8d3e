// The addresses the stream registry works with: where Redis is (from
// `stream_registry.redis`) and the URL this server advertises as a stream's
// owner (from `stream_registry.advertise` and the first RTMP listen port).
#pragma once

#include <string>

#include "core/error.hpp"

namespace srs {

struct RedisAddress {
    std::string host;  // a numeric IP ("localhost" is taken as 127.0.0.1: no DNS on the main thread)
    int port = 6379;
    int db = 0;  // selected with SELECT after each connect when not 0
    std::string to_string() const;
};

// "redis://HOST[:PORT][/DB]" (also without the scheme). IPv6 as [::1].
Error parse_redis_url(const std::string& url, RedisAddress* out);

// "rtmp://HOST:PORT". advertise "" picks the host's first non-loopback IPv4
// address, else 127.0.0.1.
std::string registry_owner_url(const std::string& advertise, int rtmp_port);

}  // namespace srs
