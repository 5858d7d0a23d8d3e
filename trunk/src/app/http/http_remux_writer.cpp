#include "app/http/http_remux_writer.hpp"

#include <algorithm>

#include "core/log.hpp"

namespace srs {

// Below IOV_MAX (1024 on Linux) so a big batch never fails with EINVAL.
static constexpr size_t kMaxIovPerWrite = 512;

Error HttpStreamWriter::poll_control(LiveConsumer* consumer, bool* done) {
    (void)consumer;
    *done = false;
    size_t n = 0;
    return res_->socket()->read_nowait(drain_, sizeof(drain_), &n);
}

Error HttpStreamWriter::on_unpublish(bool* done) {
    srs_trace("%s %s: stream unpublished, end the response", tag_.c_str(), url_.c_str());
    *done = true;
    return Error();
}

Error HttpStreamWriter::send(const std::vector<struct iovec>& iov) {
    for (size_t at = 0; at < iov.size(); at += kMaxIovPerWrite) {
        int n = static_cast<int>(std::min(kMaxIovPerWrite, iov.size() - at));
        if (Error err = res_->write_body(iov.data() + at, n); !err.ok()) {
            return SRS_WRAP(err, "%s %s", tag_.c_str(), url_.c_str());
        }
    }
    return Error();
}

}  // namespace srs
