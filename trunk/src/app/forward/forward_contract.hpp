// SRS's forward contract as pure functions: the destination URL of a
// forwarded stream, and the on_forward hook's request body and answer.
// No sockets here, so the unit tests cover every branch.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"

namespace srs {

// Every this long a dead destination is tried again, and a failing backend
// asked again (SRS_FORWARDER_CIMS: 3 s).
constexpr int64_t kForwardRetryUs = 3 * 1000 * 1000;

// "HOST:PORT" (or "HOST", port 1935) -> rtmp://HOST:PORT/app/stream + query.
// The query is the publisher's param (leading "?" kept) plus vhost=VHOST
// when the vhost is not __defaultVhost__ and the param names no vhost, so
// the destination files the stream under the same vhost.
std::string forward_destination_url(const std::string& destination, const std::string& vhost,
                                    const std::string& app, const std::string& stream, const std::string& param);

// What the on_forward hook is told about a publish.
struct OnForwardRequest {
    std::string server_id, service_id, client_id, ip, vhost, app, tc_url, stream, param;
};

// The JSON body: the common hook fields (server_id, service_id, action,
// client_id, ip, vhost, app) then tcUrl, stream, param.
std::string build_on_forward_body(const OnForwardRequest& req);

// The backend's answer: status 200 or 201 and a JSON object with integer
// "code" 0; its data.urls (strings) are the destinations, full RTMP URLs.
// An answer without data.urls, or an empty list, gives no destination.
// The answer is read by the hooks' JSON path (app/hooks/hook_contract.hpp).
Error parse_on_forward_reply(int status, const std::string& body, std::vector<std::string>* urls);

}  // namespace srs
