// Where an edge (or an origin that lacks a stream) pulls a stream from.
//
// The edge asks on every (re)try, so a stream whose owner moved is found at
// its new owner as soon as the registry says so. Two kinds answer:
// the vhost's `cluster { origin A B; }` list (tried in turn) and the stream
// registry (the origin that owns the stream, from Redis or memory).
//
// Contract:
// - locate() may block the calling coroutine (a Redis round trip); it never
//   blocks the process. It fills `out` with candidate upstream URLs, best
//   first, in the form "rtmp://HOST:PORT" (the edge appends /app/stream and
//   the query itself); an empty list with an ok Error means "nobody has it".
// - An error says why nobody could be asked (Redis down, ...): the edge logs
//   it and retries after its retry interval.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"

namespace srs {

struct StreamKey {
    std::string vhost;
    std::string app;
    std::string stream;
};

class OriginLocator {
  public:
    virtual ~OriginLocator() = default;
    virtual Error locate(const StreamKey& key, std::vector<std::string>* out) = 0;
};

}  // namespace srs
