// libavcodec's messages (the bridge's audio transcoders) go to the server's
// log instead of stderr, which a daemon has closed: warnings and errors only,
// and at most a few lines per 10 s (a corrupt stream would otherwise log one
// per frame).
#pragma once

namespace srs {

void install_libav_log();

}  // namespace srs
