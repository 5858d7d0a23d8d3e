// SRS's http_hooks contract as pure functions: the JSON body of each action
// (field order and types as SRS sends them), the answer rule, and the
// on_hls_notify URL template. No sockets here: the unit tests cover every
// branch with real bodies and broken answers. The forward backend's
// on_forward body and answer (app/forward) use the same JSON path.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace srs {

// SRS's codes for a failed answer (srs_kernel_error.hpp), the JSON API's
// "code" when a hook refuses a WebRTC client. Kept here, beside the rule.
constexpr int kErrorHookAnswerData = 3008;  // empty, not JSON, neither 0 nor an object (ERROR_HTTP_DATA_INVALID)
constexpr int kErrorHookAnswerCode = 3064;  // "code" missing, not an integer, or not 0 (ERROR_RESPONSE_CODE)
constexpr int kSrsHookStatusCode = 4005;    // a status other than 200/201 (ERROR_HTTP_STATUS_INVALID)

enum class HookAction { kConnect, kClose, kPublish, kUnpublish, kPlay, kStop, kDvr, kHls, kForward };
const char* hook_action_name(HookAction action);  // "on_connect", ...

// Everything any body carries; each action takes the fields SRS sends for it.
struct HookRequest {
    // Common to every action.
    std::string server_id, service_id, client_id, ip, vhost, app;
    // Stream actions.
    std::string stream, param, tc_url, page_url;
    std::string stream_id;  // the source's id; "" when no source exists: the field is left out
    // on_close.
    int64_t send_bytes = 0, recv_bytes = 0;
    // on_dvr and on_hls.
    std::string cwd, file;
    // on_hls.
    double duration = 0;  // seconds
    std::string url, m3u8, m3u8_url;
    int64_t seq_no = 0;
};

// "/app/stream" for __defaultVhost__, "vhost/app/stream" otherwise (SRS's stream URL).
std::string hook_stream_url(const std::string& vhost, const std::string& app, const std::string& stream);

// The param as a hook shows it: "" or with its leading '?'.
std::string hook_param(const std::string& param);

// The body: server_id, service_id, action, client_id, ip, vhost, app, then
//   on_connect                stream, param, tcUrl, pageUrl
//   on_close                  send_bytes, recv_bytes (integers)
//   on_publish, on_unpublish,
//   on_stop                   tcUrl, stream, param, stream_url, [stream_id]
//   on_play                   stream, tcUrl, param, pageUrl, stream_url, [stream_id]
//   on_dvr                    tcUrl, stream, param, cwd, file, stream_url, [stream_id]
//   on_hls                    tcUrl, stream, param, duration (number), cwd, file, url, m3u8,
//                             m3u8_url, seq_no (integer), stream_url, [stream_id]
//   on_forward                tcUrl, stream, param
// Bytes that are not UTF-8 become U+FFFD (the text is always valid JSON).
std::string build_hook_body(HookAction action, const HookRequest& req);

// Status, non-empty body, JSON: the part of the answer rule every hook
// answer shares. On success *out holds the parsed value. A body nested
// deeper than 64 levels is refused before it is parsed.
Error parse_hook_answer(int status, const std::string& body, nlohmann::ordered_json* out);

// SRS's rule: status 200 or 201 and a body that is the JSON number 0 or an
// object with an integer "code" of 0. Every other answer fails with the
// reason (status, empty, not JSON, no code, code not an integer, code N).
Error check_hook_answer(int status, const std::string& body);

// The code the JSON API answers a client refused by a hook with: SRS's
// code for the failure (4005 status, 3008 data, 3064 code), else the error's.
int hook_refusal_code(const Error& err);

// on_hls_notify: [server_id] [app] [stream] [ts_url] [param] replaced in
// the template; a ts_url that is already an http(s):// URL is the URL itself.
std::string expand_hls_notify_url(const std::string& tmpl, const std::string& server_id, const std::string& app,
                                  const std::string& stream, const std::string& ts_url, const std::string& param);

// Up to `max` bytes of an answer for a log line, with control bytes escaped.
std::string hook_body_excerpt(const std::string& body, size_t max = 128);

}  // namespace srs
