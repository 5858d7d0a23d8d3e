// The registry of a single process (the default): a map, no expiry, nothing
// to connect to. A second publisher of a stream is refused by the live source
// anyway; this answers the same questions as the Redis registry, so the
// publish path and the origin locator have one code path.
#pragma once

#include <map>
#include <string>

#include "app/registry/stream_registry.hpp"

namespace srs {

class MemoryStreamRegistry : public StreamRegistry {
  public:
    Error acquire(const std::string& key, const std::string& owner) override;
    void release(const std::string& key, const std::string& owner) override;
    Error lookup(const std::string& key, std::string* owner) override;
    std::string describe() const override { return "memory"; }
    size_t size() const { return owners_.size(); }

  private:
    std::map<std::string, std::string> owners_;
};

}  // namespace srs
