// Who owns (publishes) each live stream across an origin cluster.
//
// An owner is the URL other servers pull the stream from ("rtmp://HOST:PORT").
// A stream's key is stream_registry_key(): "srs:stream:VHOST/APP/STREAM".
//
// Contract:
// - acquire() claims a key for an owner. Ok: the owner holds it now (also
//   when it already did). kErrorStreamBusy: another owner holds it (the
//   message names it). Any other error: the registry could not be asked
//   (Redis down): the caller refuses the publish rather than risk two owners.
// - While acquired, the registry keeps the claim alive by itself (Redis:
//   a refresh every few seconds); a claim that cannot be refreshed is never
//   taken back from the publisher, it only expires in Redis.
// - release() gives a key up if the owner still holds it. It never blocks:
//   a Redis registry does it from its own coroutine right after.
// - lookup() answers the owner of a key, "" when nobody holds it.
// acquire() and lookup() may block the calling coroutine (one round trip).
#pragma once

#include <string>

#include "core/error.hpp"

namespace srs {

class StreamRegistry {
  public:
    virtual ~StreamRegistry() = default;
    virtual Error acquire(const std::string& key, const std::string& owner) = 0;
    virtual void release(const std::string& key, const std::string& owner) = 0;
    virtual Error lookup(const std::string& key, std::string* owner) = 0;
    // "memory" or "redis://HOST:PORT/DB", for logs.
    virtual std::string describe() const = 0;
};

// "srs:stream:" + vhost + "/" + app + "/" + stream. The prefix keeps the
// registry's keys apart in a Redis shared with other uses.
std::string stream_registry_key(const std::string& vhost, const std::string& app, const std::string& stream);

}  // namespace srs
