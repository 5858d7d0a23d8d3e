// While a WebRTC session works, logs and errors carry its context id, as a
// connection's coroutine does for RTMP (one UDP coroutine serves them all).
#pragma once

#include <string>

#include "io/runtime.hpp"

namespace srs {

class RtcSessionContext {
  public:
    explicit RtcSessionContext(const std::string& cid) : saved_(context_id()) { set_context_id(cid); }
    ~RtcSessionContext() { set_context_id(saved_); }
    RtcSessionContext(const RtcSessionContext&) = delete;
    RtcSessionContext& operator=(const RtcSessionContext&) = delete;

  private:
    std::string saved_;
};

}  // namespace srs
