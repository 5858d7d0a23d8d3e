// Several OriginLocators asked in turn, their answers joined: an edge with
// the stream registry asks the registry (the stream's owner) first and its
// cluster.origin list after, so the owner is tried first and the list still
// answers when the registry is down or names nobody.
#pragma once

#include <vector>

#include "app/live/origin_locator.hpp"

namespace srs {

class CompositeOriginLocator : public OriginLocator {
  public:
    // None owned; asked in this order on every locate().
    explicit CompositeOriginLocator(std::vector<OriginLocator*> parts) : parts_(std::move(parts)) {}

    // The parts' URLs in order, each URL once. A part that fails is logged
    // and skipped; the error is returned only when every part failed.
    Error locate(const StreamKey& key, std::vector<std::string>* out) override;

  private:
    std::vector<OriginLocator*> parts_;
};

}  // namespace srs
