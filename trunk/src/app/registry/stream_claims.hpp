// The server's use of the stream registry: a publisher (RTMP or WebRTC)
// claims its stream for this server before it publishes, and the claim is
// given up when the live source is unpublished, however that happens.
//
// The live source stays the judge between publishers of one process: a
// claim answers "ok" when this server already owns the stream, and the
// caller checks the source again after the claim (which may have yielded).
#pragma once

#include <memory>
#include <string>

#include "app/live/source_manager.hpp"
#include "app/registry/stream_registry.hpp"

namespace srs {

class StreamClaims : public LivePublishObserver {
  public:
    // self: our owner URL ("rtmp://HOST:PORT"). sources: where unclaim() checks
    // that nobody of this process publishes the stream any more.
    StreamClaims(StreamRegistry* registry, std::string self, SourceManager* sources)
        : registry_(registry), self_(std::move(self)), sources_(sources) {}

    // kErrorStreamBusy when another server owns the stream; another error
    // when the registry cannot say (a publish is refused either way).
    Error claim(const std::string& vhost, const std::string& app, const std::string& stream);
    // Gives the stream up unless a publisher of this process holds it.
    void unclaim(const std::string& vhost, const std::string& app, const std::string& stream);
    void on_source_unpublished(LiveSource* source) override;

    StreamRegistry& registry() { return *registry_; }
    const std::string& self() const { return self_; }

  private:
    StreamRegistry* registry_;
    std::string self_;
    SourceManager* sources_;
};

}  // namespace srs
