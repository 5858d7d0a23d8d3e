// The origins of a vhost's `cluster { origin A B; }` list, as an OriginLocator.
//
// Entries are "HOST[:PORT]" with a numeric host (IPv6 in brackets), port
// 1935 when absent. The list is read through a callback on every locate(),
// so a reload that changes it is seen at the edge's next retry.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/live/origin_locator.hpp"

namespace srs {

// "HOST[:PORT]" -> "rtmp://HOST:PORT". Fails for an empty entry, a name
// (no DNS on the server's thread) or a port outside 1..65535.
Error origin_entry_to_url(const std::string& entry, std::string* url);

class ClusterOriginLocator : public OriginLocator {
  public:
    // The vhost's cluster.origin entries (the running config's).
    using OriginList = std::function<std::vector<std::string>(const std::string& vhost)>;
    explicit ClusterOriginLocator(OriginList origins) : origins_(std::move(origins)) {}

    // The vhost's valid entries in conf order; bad entries are skipped with a
    // warning, and an error only when entries exist and none is valid.
    Error locate(const StreamKey& key, std::vector<std::string>* out) override;

  private:
    OriginList origins_;
};

}  // namespace srs
