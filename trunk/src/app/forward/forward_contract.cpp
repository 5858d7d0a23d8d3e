#include "app/forward/forward_contract.hpp"

#include "app/hooks/hook_contract.hpp"

namespace srs {

std::string forward_destination_url(const std::string& destination, const std::string& vhost,
                                    const std::string& app, const std::string& stream, const std::string& param) {
    std::string host = destination;
    bool bracketed = !host.empty() && host[0] == '[';
    bool has_port = bracketed ? host.find("]:") != std::string::npos : host.find(':') != std::string::npos;
    if (!has_port) host += ":1935";
    std::string query = param;
    if (!query.empty() && query[0] != '?') query = "?" + query;
    bool names_vhost = query.find("vhost=") != std::string::npos || query.find("domain=") != std::string::npos;
    if (!vhost.empty() && vhost != "__defaultVhost__" && !names_vhost) {
        query += (query.empty() ? "?" : "&") + std::string("vhost=") + vhost;
    }
    return "rtmp://" + host + "/" + app + "/" + stream + query;
}

std::string build_on_forward_body(const OnForwardRequest& req) {
    HookRequest r;
    r.server_id = req.server_id;
    r.service_id = req.service_id;
    r.client_id = req.client_id;
    r.ip = req.ip;
    r.vhost = req.vhost;
    r.app = req.app;
    r.tc_url = req.tc_url;
    r.stream = req.stream;
    r.param = req.param;
    return build_hook_body(HookAction::kForward, r);
}

Error parse_on_forward_reply(int status, const std::string& body, std::vector<std::string>* urls) {
    urls->clear();
    nlohmann::ordered_json j;
    if (Error err = parse_hook_answer(status, body, &j); err.failed()) return SRS_WRAP(err, "on_forward");
    // The backend answers an object (a bare 0 carries no destination).
    if (!j.is_object()) return SRS_ERR(kErrorHookAnswerData, "on_forward: not a JSON object");
    if (Error err = check_hook_answer(status, body); err.failed()) return SRS_WRAP(err, "on_forward");
    auto data = j.find("data");
    if (data == j.end() || !data->is_object()) return Error();
    auto list = data->find("urls");
    if (list == data->end()) return Error();
    if (!list->is_array()) return SRS_ERR(kErrorHookAnswerData, "on_forward: urls is not an array");
    for (const auto& u : *list) {
        if (!u.is_string()) {
            urls->clear();
            return SRS_ERR(kErrorHookAnswerData, "on_forward: urls holds a %s, not a string", u.type_name());
        }
        if (!u.get_ref<const std::string&>().empty()) urls->push_back(u.get<std::string>());
    }
    return Error();
}

}  // namespace srs
