#include "app/edge/composite_origin_locator.hpp"

#include <algorithm>

#include "core/log.hpp"

namespace srs {

Error CompositeOriginLocator::locate(const StreamKey& key, std::vector<std::string>* out) {
    out->clear();
    Error last;
    size_t failed = 0;
    for (OriginLocator* part : parts_) {
        std::vector<std::string> urls;
        if (Error err = part->locate(key, &urls); err.failed()) {
            failed++;
            srs_warn("locate %s/%s/%s: %s", key.vhost.c_str(), key.app.c_str(), key.stream.c_str(),
                     err.summary().c_str());
            last.ignore();
            last = std::move(err);
            continue;
        }
        for (const std::string& url : urls) {
            if (std::find(out->begin(), out->end(), url) == out->end()) out->push_back(url);
        }
    }
    // One part answering (even "nobody") is enough: the edge tries what it has.
    if (failed > 0 && failed == parts_.size()) return SRS_WRAP(last, "every locator failed");
    last.ignore();
    return Error();
}

}  // namespace srs
