#include "app/registry/stream_claims.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"

namespace srs {

Error StreamClaims::claim(const std::string& vhost, const std::string& app, const std::string& stream) {
    std::string key = stream_registry_key(vhost, app, stream);
    utime_t start = monotonic_us();
    Error err = registry_->acquire(key, self_);
    utime_t took = monotonic_us() - start;
    if (err.failed()) {
        if (err.code() == kErrorStreamBusy) {
            srs_warn("stream registry %s: publish %s refused: %s", registry_->describe().c_str(), key.c_str(),
                     err.message().c_str());
        } else {
            srs_error("stream registry %s: cannot claim %s, publish refused: %s", registry_->describe().c_str(),
                      key.c_str(), err.summary().c_str());
        }
        return SRS_WRAP(err, "claim %s", key.c_str());
    }
    srs_trace("stream registry %s: %s owned by %s (%d us)", registry_->describe().c_str(), key.c_str(), self_.c_str(),
              (int)took);
    return Error();
}

void StreamClaims::unclaim(const std::string& vhost, const std::string& app, const std::string& stream) {
    LiveSource* source = sources_ ? sources_->find(vhost, app, stream) : nullptr;
    if (source && source->publishing()) return;  // another publisher of ours holds the claim
    registry_->release(stream_registry_key(vhost, app, stream), self_);
}

void StreamClaims::on_source_unpublished(LiveSource* source) {
    unclaim(source->vhost(), source->app(), source->stream());
}

}  // namespace srs
