// What connections need from the server: the running config (replaced on
// reload, so never hold it across a blocking call) and the live sources.
#pragma once

#include "app/config.hpp"
#include "app/source_manager.hpp"

namespace srs {

class LiveContext {
  public:
    virtual ~LiveContext() = default;
    virtual const Config& config() const = 0;
    virtual SourceManager& sources() = 0;
};

}  // namespace srs
