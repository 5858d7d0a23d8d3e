#include "app/hooks/hook_contract.hpp"

#include <algorithm>
#include <cstdio>

namespace srs {

using Json = nlohmann::ordered_json;

namespace {

constexpr int kMaxAnswerDepth = 64;
const char* const kDefaultVhostName = "__defaultVhost__";

// The deepest nesting of arrays and objects outside strings: nlohmann's
// parser is iterative, but a value is cheaper refused than built.
int json_depth(const std::string& s) {
    int depth = 0, deepest = 0;
    bool in_string = false;
    for (size_t i = 0; i < s.size(); i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
        else if (c == ']' || c == '}') depth--;
    }
    return deepest;
}

const char* json_type(const Json& j) {
    if (j.is_number_integer()) return "integer";
    if (j.is_number_float()) return "number";
    return j.type_name();
}

}  // namespace

const char* hook_action_name(HookAction action) {
    switch (action) {
        case HookAction::kConnect: return "on_connect";
        case HookAction::kClose: return "on_close";
        case HookAction::kPublish: return "on_publish";
        case HookAction::kUnpublish: return "on_unpublish";
        case HookAction::kPlay: return "on_play";
        case HookAction::kStop: return "on_stop";
        case HookAction::kDvr: return "on_dvr";
        case HookAction::kHls: return "on_hls";
        case HookAction::kForward:
        default: return "on_forward";
    }
}

std::string hook_stream_url(const std::string& vhost, const std::string& app, const std::string& stream) {
    std::string url = vhost.empty() || vhost == kDefaultVhostName ? "" : vhost;
    return url + "/" + app + "/" + stream;
}

std::string hook_param(const std::string& param) {
    if (param.empty() || param[0] == '?') return param;
    return "?" + param;
}

std::string build_hook_body(HookAction action, const HookRequest& r) {
    Json j = Json::object();
    j["server_id"] = r.server_id;
    j["service_id"] = r.service_id;
    j["action"] = hook_action_name(action);
    j["client_id"] = r.client_id;
    j["ip"] = r.ip;
    j["vhost"] = r.vhost;
    j["app"] = r.app;
    std::string param = hook_param(r.param);
    std::string stream_url = hook_stream_url(r.vhost, r.app, r.stream);
    auto tail = [&]() {
        j["stream_url"] = stream_url;
        if (!r.stream_id.empty()) j["stream_id"] = r.stream_id;
    };
    switch (action) {
        case HookAction::kConnect:
            j["stream"] = r.stream;
            j["param"] = param;
            j["tcUrl"] = r.tc_url;
            j["pageUrl"] = r.page_url;
            break;
        case HookAction::kClose:
            j["send_bytes"] = r.send_bytes;
            j["recv_bytes"] = r.recv_bytes;
            break;
        case HookAction::kPublish:
        case HookAction::kUnpublish:
        case HookAction::kStop:
            j["tcUrl"] = r.tc_url;
            j["stream"] = r.stream;
            j["param"] = param;
            tail();
            break;
        case HookAction::kPlay:
            j["stream"] = r.stream;
            j["tcUrl"] = r.tc_url;
            j["param"] = param;
            j["pageUrl"] = r.page_url;
            tail();
            break;
        case HookAction::kDvr:
            j["tcUrl"] = r.tc_url;
            j["stream"] = r.stream;
            j["param"] = param;
            j["cwd"] = r.cwd;
            j["file"] = r.file;
            tail();
            break;
        case HookAction::kHls:
            j["tcUrl"] = r.tc_url;
            j["stream"] = r.stream;
            j["param"] = param;
            j["duration"] = r.duration;
            j["cwd"] = r.cwd;
            j["file"] = r.file;
            j["url"] = r.url;
            j["m3u8"] = r.m3u8;
            j["m3u8_url"] = r.m3u8_url;
            j["seq_no"] = r.seq_no;
            tail();
            break;
        case HookAction::kForward:
            j["tcUrl"] = r.tc_url;
            j["stream"] = r.stream;
            j["param"] = param;
            break;
    }
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Error parse_hook_answer(int status, const std::string& body, Json* out) {
    if (status != 200 && status != 201) {
        return SRS_ERR(kErrorHttpClientStatus, "status %d (200 or 201 expected), body \"%s\"", status,
                       hook_body_excerpt(body).c_str());
    }
    if (body.empty()) return SRS_ERR(kErrorHookAnswerData, "status %d with an empty body", status);
    if (json_depth(body) > kMaxAnswerDepth) {
        return SRS_ERR(kErrorHookAnswerData, "the body nests deeper than %d levels", kMaxAnswerDepth);
    }
    *out = Json::parse(body, nullptr, false);
    if (out->is_discarded()) return SRS_ERR(kErrorHookAnswerData, "the body is not JSON: \"%s\"", hook_body_excerpt(body).c_str());
    return Error();
}

Error check_hook_answer(int status, const std::string& body) {
    Json j;
    if (Error err = parse_hook_answer(status, body, &j); err.failed()) return err;
    if (!j.is_object()) {
        if (j.is_number_integer() && j.get<int64_t>() == 0) return Error();
        return SRS_ERR(kErrorHookAnswerData, "the body is a JSON %s, neither 0 nor an object: \"%s\"", json_type(j),
                       hook_body_excerpt(body).c_str());
    }
    auto it = j.find("code");
    if (it == j.end()) return SRS_ERR(kErrorHookAnswerCode, "the object has no code: \"%s\"", hook_body_excerpt(body).c_str());
    if (!it->is_number_integer()) {
        return SRS_ERR(kErrorHookAnswerCode, "code is a JSON %s, not an integer: \"%s\"", json_type(*it),
                       hook_body_excerpt(body).c_str());
    }
    if (it->get<int64_t>() != 0) {
        return SRS_ERR(kErrorHookAnswerCode, "code %lld (0 expected)", (long long)it->get<int64_t>());
    }
    return Error();
}

int hook_refusal_code(const Error& err) {
    if (err.code() == kErrorHttpClientStatus) return kSrsHookStatusCode;
    return err.code();
}

std::string expand_hls_notify_url(const std::string& tmpl, const std::string& server_id, const std::string& app,
                                  const std::string& stream, const std::string& ts_url, const std::string& param) {
    std::string url = tmpl;
    if (ts_url.compare(0, 7, "http://") == 0 || ts_url.compare(0, 8, "https://") == 0) url = ts_url;
    const std::pair<const char*, const std::string*> vars[] = {
        {"[server_id]", &server_id}, {"[app]", &app}, {"[stream]", &stream}, {"[ts_url]", &ts_url}, {"[param]", &param},
    };
    for (const auto& v : vars) {
        std::string name = v.first;
        // Left to right, never rescanning what was put in.
        for (size_t at = url.find(name); at != std::string::npos; at = url.find(name, at + v.second->size())) {
            url.replace(at, name.size(), *v.second);
        }
    }
    return url;
}

std::string hook_body_excerpt(const std::string& body, size_t max) {
    std::string out;
    for (size_t i = 0; i < body.size() && i < max; i++) {
        unsigned char c = static_cast<unsigned char>(body[i]);
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
            char buf[8];
            snprintf(buf, sizeof(buf), "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    if (body.size() > max) out += "...(" + std::to_string(body.size()) + " bytes)";
    return out;
}

}  // namespace srs
