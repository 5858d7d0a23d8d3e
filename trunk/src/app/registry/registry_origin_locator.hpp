// OriginLocator backed by the stream registry: the origin that owns a
// stream is where an edge (or an origin without it) pulls it from. Our own
// URL is never answered: pulling from ourselves would loop.
#pragma once

#include <string>
#include <vector>

#include "app/live/origin_locator.hpp"
#include "app/registry/stream_registry.hpp"

namespace srs {

class RegistryOriginLocator : public OriginLocator {
  public:
    // self: the URL this server registers as an owner ("" for an edge that owns nothing).
    RegistryOriginLocator(StreamRegistry* registry, std::string self)
        : registry_(registry), self_(std::move(self)) {}
    Error locate(const StreamKey& key, std::vector<std::string>* out) override;

  private:
    StreamRegistry* registry_;
    std::string self_;
};

}  // namespace srs
