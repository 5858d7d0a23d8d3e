#include "app/forward/forward_contract.hpp"

#include <cctype>
#include <cstdlib>

namespace srs {

namespace {

void append_json_string(std::string* out, const std::string& s) {
    static const char* kHex = "0123456789abcdef";
    out->push_back('"');
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out->push_back('\\');
            out->push_back(static_cast<char>(c));
        } else if (c < 0x20) {
            out->append("\\u00");
            out->push_back(kHex[c >> 4]);
            out->push_back(kHex[c & 15]);
        } else {
            out->push_back(static_cast<char>(c));
        }
    }
    out->push_back('"');
}

void skip_space(const std::string& s, size_t* i) {
    while (*i < s.size() && isspace(static_cast<unsigned char>(s[*i]))) (*i)++;
}

// A JSON string at s[*i] (which must be '"'); escapes other than \uXXXX
// are decoded, \uXXXX is kept as written (URLs do not need it).
bool read_json_string(const std::string& s, size_t* i, std::string* out) {
    if (*i >= s.size() || s[*i] != '"') return false;
    out->clear();
    for (size_t k = *i + 1; k < s.size(); k++) {
        char c = s[k];
        if (c == '"') {
            *i = k + 1;
            return true;
        }
        if (c != '\\') {
            out->push_back(c);
            continue;
        }
        if (++k >= s.size()) return false;
        switch (s[k]) {
            case 'n': out->push_back('\n'); break;
            case 't': out->push_back('\t'); break;
            case 'r': out->push_back('\r'); break;
            case 'b': out->push_back('\b'); break;
            case 'f': out->push_back('\f'); break;
            case 'u': out->append("\\u"); break;
            default: out->push_back(s[k]); break;
        }
    }
    return false;
}

// The position just after `"key"` and its ':' (npos when absent).
size_t find_key(const std::string& s, const char* key) {
    std::string quoted = std::string("\"") + key + "\"";
    for (size_t at = s.find(quoted); at != std::string::npos; at = s.find(quoted, at + 1)) {
        size_t i = at + quoted.size();
        skip_space(s, &i);
        if (i < s.size() && s[i] == ':') {
            i++;
            skip_space(s, &i);
            return i;
        }
    }
    return std::string::npos;
}

}  // namespace

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
    const std::pair<const char*, const std::string*> fields[] = {
        {"server_id", &req.server_id}, {"service_id", &req.service_id}, {"action", nullptr},
        {"client_id", &req.client_id}, {"ip", &req.ip},                 {"vhost", &req.vhost},
        {"app", &req.app},             {"tcUrl", &req.tc_url},          {"stream", &req.stream},
        {"param", &req.param},
    };
    static const std::string kAction = "on_forward";
    std::string out = "{";
    for (const auto& f : fields) {
        if (out.size() > 1) out += ",";
        append_json_string(&out, f.first);
        out += ":";
        append_json_string(&out, f.second ? *f.second : kAction);
    }
    out += "}";
    return out;
}

Error parse_on_forward_reply(int status, const std::string& body, std::vector<std::string>* urls) {
    urls->clear();
    if (status != 200 && status != 201) return SRS_ERR(kErrorHttpClientStatus, "on_forward: status %d", status);
    size_t i = 0;
    skip_space(body, &i);
    if (i >= body.size() || body[i] != '{') return SRS_ERR(kErrorHttpClientStatus, "on_forward: not a JSON object");
    size_t at = find_key(body, "code");
    if (at == std::string::npos) return SRS_ERR(kErrorHttpClientStatus, "on_forward: no code");
    char* end = nullptr;
    long code = strtol(body.c_str() + at, &end, 10);
    if (end == body.c_str() + at) return SRS_ERR(kErrorHttpClientStatus, "on_forward: code is not an integer");
    if (code != 0) return SRS_ERR(kErrorHttpClientStatus, "on_forward: code %ld", code);
    at = find_key(body, "urls");
    if (at == std::string::npos) return Error();
    if (body[at] != '[') return SRS_ERR(kErrorHttpClientStatus, "on_forward: urls is not an array");
    i = at + 1;
    for (;;) {
        skip_space(body, &i);
        if (i < body.size() && body[i] == ']') return Error();
        std::string url;
        if (!read_json_string(body, &i, &url)) {
            urls->clear();
            return SRS_ERR(kErrorHttpClientStatus, "on_forward: urls holds a non-string");
        }
        if (!url.empty()) urls->push_back(url);
        skip_space(body, &i);
        if (i < body.size() && body[i] == ',') {
            i++;
            continue;
        }
        if (i < body.size() && body[i] == ']') return Error();
        urls->clear();
        return SRS_ERR(kErrorHttpClientStatus, "on_forward: bad urls array");
    }
}

}  // namespace srs
