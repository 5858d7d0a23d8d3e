#include "app/registry/stream_registry.hpp"

namespace srs {

std::string stream_registry_key(const std::string& vhost, const std::string& app, const std::string& stream) {
    return "srs:stream:" + vhost + "/" + app + "/" + stream;
}

}  // namespace srs
