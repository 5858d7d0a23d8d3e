#include "app/http/http_remux_ts.hpp"

#include "app/http/http_flv.hpp"
#include "core/log.hpp"

namespace srs {

static TsMuxerOptions http_ts_options() {
    TsMuxerOptions o;
    o.psi_interval_ms = kTsPsiIntervalMs;
    return o;
}

TsPlayWriter::TsPlayWriter(HttpResponse* res, std::string url)
    : HttpStreamWriter(res, "HTTP-TS", std::move(url)), muxer_(http_ts_options()) {}

void TsPlayWriter::mux(TsMuxer* muxer, const std::vector<LiveMessagePtr>& msgs, std::string* out,
                       const std::string& url) {
    for (const LiveMessagePtr& m : msgs) {
        if (m->is_data()) continue;  // TS has no place for onMetaData
        Error err = muxer->write_flv_tag(flv_tag_type_of(*m), m->timestamp(), m->payload().data(), m->size(), out);
        if (err.ok()) continue;
        // A broken frame of the publisher's: this player skips it and goes on;
        // the first is logged, the rest only counted (the muxer's stats).
        if (muxer->stats().errors == 1) {
            srs_warn("HTTP-TS %s: frame at %u ms skipped: %s", url.c_str(), m->timestamp(), err.summary().c_str());
        }
        err.ignore();
    }
}

Error TsPlayWriter::write(const std::vector<LiveMessagePtr>& msgs) {
    buf_.clear();
    mux(&muxer_, msgs, &buf_, url_);
    if (buf_.empty()) return Error();
    struct iovec iov = {&buf_[0], buf_.size()};
    if (Error err = res_->write_body(&iov, 1); !err.ok()) return SRS_WRAP(err, "HTTP-TS %s", url_.c_str());
    return Error();
}

}  // namespace srs
