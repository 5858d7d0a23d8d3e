#include "app/drain_connection.hpp"

namespace srs {

// As SRS's RTMP timeout: a client silent this long is gone.
static const utime_t kIdleTimeoutUs = 30 * kUsPerSecond;

Error DrainConnection::serve() {
    socket()->set_recv_timeout(kIdleTimeoutUs);
    char buf[4096];
    while (true) {
        if (Error err = pull(); !err.ok()) return err;
        size_t n = 0;
        if (Error err = socket()->read(buf, sizeof(buf), &n); !err.ok()) return err;
    }
}

}  // namespace srs
