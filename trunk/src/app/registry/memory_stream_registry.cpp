#include "app/registry/memory_stream_registry.hpp"

namespace srs {

Error MemoryStreamRegistry::acquire(const std::string& key, const std::string& owner) {
    auto it = owners_.find(key);
    if (it != owners_.end() && it->second != owner) {
        return SRS_ERR(kErrorStreamBusy, "stream %s is owned by %s", key.c_str(), it->second.c_str());
    }
    owners_[key] = owner;
    return Error();
}

void MemoryStreamRegistry::release(const std::string& key, const std::string& owner) {
    auto it = owners_.find(key);
    if (it != owners_.end() && it->second == owner) owners_.erase(it);
}

Error MemoryStreamRegistry::lookup(const std::string& key, std::string* owner) {
    auto it = owners_.find(key);
    *owner = it == owners_.end() ? "" : it->second;
    return Error();
}

}  // namespace srs
