#include "app/registry/registry_origin_locator.hpp"

namespace srs {

Error RegistryOriginLocator::locate(const StreamKey& key, std::vector<std::string>* out) {
    out->clear();
    std::string owner;
    if (Error err = registry_->lookup(stream_registry_key(key.vhost, key.app, key.stream), &owner); err.failed()) {
        return SRS_WRAP(err, "locate %s/%s/%s", key.vhost.c_str(), key.app.c_str(), key.stream.c_str());
    }
    if (!owner.empty() && owner != self_) out->push_back(owner);
    return Error();
}

}  // namespace srs
