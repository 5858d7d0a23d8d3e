// A vhost's `security` (allow/deny by client address) and `refer` (the RTMP
// pageUrl's domain) as the protocol handlers ask them: before a client
// publishes or plays, with the running config, so a reload (SIGHUP, the
// reload API) applies to the next client. The decisions themselves are the
// pure functions of kernel/access/access_rules.hpp.
#pragma once

#include <string>

#include "app/config/config.hpp"
#include "core/error.hpp"
#include "kernel/access/access_rules.hpp"

namespace srs {

// Ok when `security` is off for the vhost or its rules admit the client.
// Otherwise kErrorSecurityDeny (a deny rule matched; the message names it) or
// kErrorSecurityAllow (no allow rule matched, or there is no rule at all),
// SRS's codes. `client_ip` is the peer address of the socket ("::ffff:1.2.3.4"
// matches IPv4 rules).
Error check_security(const Config& conf, const std::string& vhost, AccessAction action, const std::string& client_ip);

// The three moments SRS checks the pageUrl: `all` at connect, `publish` and
// `play` when the client asks for one.
enum class ReferStage { kConnect, kPublish, kPlay };
const char* refer_stage_name(ReferStage stage);  // "all" | "publish" | "play" (the directive)

// Ok when `refer` is off for the vhost, the stage's list is unset, or the
// pageUrl's host ends with a listed domain; kErrorReferDenied otherwise.
Error check_refer(const Config& conf, const std::string& vhost, ReferStage stage, const std::string& page_url);

}  // namespace srs
