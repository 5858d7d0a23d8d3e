// RTMP URL discovery. See rtmp_url.hpp for the forms accepted.
#include "protocol/rtmp/rtmp_url.hpp"

#include <arpa/inet.h>

#include <vector>

#include "core/strings.hpp"

namespace srs {

namespace {

void replace_all(std::string* s, const std::string& from, const std::string& to) {
    size_t pos = 0;
    while ((pos = s->find(from, pos)) != std::string::npos) {
        s->replace(pos, from.size(), to);
        pos += to.size();
    }
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    size_t begin = 0;
    for (;;) {
        size_t end = s.find(sep, begin);
        parts.push_back(s.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
        if (end == std::string::npos) return parts;
        begin = end + 1;
    }
}

Error parse_port(const std::string& text, int* port) {
    int value = 0;
    if (text.size() > 5 || !parse_integer(text, &value) || value < 0) {
        return SRS_ERR(kErrorRtmpUrlInvalid, "bad port \"%.16s\"", text.c_str());
    }
    if (value < 1 || value > 65535) return SRS_ERR(kErrorRtmpUrlInvalid, "port %d out of range", value);
    *port = value;
    return Error();
}

// "host", "host:port", "[v6]", "[v6]:port".
Error parse_authority(const std::string& authority, std::string* host, int* port) {
    *port = kRtmpDefaultPort;
    std::string port_text;
    bool has_port = false;
    if (!authority.empty() && authority[0] == '[') {
        size_t close = authority.find(']');
        if (close == std::string::npos) return SRS_ERR(kErrorRtmpUrlInvalid, "unclosed [ in host");
        *host = authority.substr(1, close - 1);
        std::string after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') return SRS_ERR(kErrorRtmpUrlInvalid, "junk after ] in host");
            port_text = after.substr(1);
            has_port = true;
        }
    } else {
        size_t colon = authority.find(':');
        *host = authority.substr(0, colon);
        if (colon != std::string::npos) {
            port_text = authority.substr(colon + 1);
            has_port = true;
        }
    }
    if (host->empty()) return SRS_ERR(kErrorRtmpUrlInvalid, "no host");
    if (has_port) return parse_port(port_text, port);
    return Error();
}

// The value of `key` in "k=v&k2=v2", or "".
std::string query_value(const std::vector<std::string>& params, const std::string& key) {
    for (const std::string& p : params) {
        size_t eq = p.find('=');
        if (eq != std::string::npos && p.compare(0, eq, key) == 0 && eq == key.size()) return p.substr(eq + 1);
    }
    return "";
}

Error parse_full_url(std::string url, RtmpRequestInfo* out) {
    // Legacy form: app...vhost...v means app?vhost=v.
    replace_all(&url, "...vhost...", "?vhost=");

    size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos || scheme_end == 0) {
        return SRS_ERR(kErrorRtmpUrlInvalid, "no schema in \"%.128s\"", url.c_str());
    }
    RtmpRequestInfo info;
    info.schema = url.substr(0, scheme_end);
    std::string rest = url.substr(scheme_end + 3);

    size_t authority_end = rest.find_first_of("/?");
    std::string remainder = authority_end == std::string::npos ? "" : rest.substr(authority_end);
    if (Error err = parse_authority(rest.substr(0, authority_end), &info.host, &info.port); !err.ok()) {
        return SRS_WRAP(err, "url \"%.128s\"", url.c_str());
    }

    // FMLE form: params on the app (app?k=v/stream) move after the stream.
    size_t first_query = remainder.find('?');
    size_t last_slash = remainder.rfind('/');
    if (first_query != std::string::npos && last_slash != std::string::npos && first_query < last_slash) {
        remainder = remainder.substr(0, first_query) + remainder.substr(last_slash) +
                    remainder.substr(first_query, last_slash - first_query);
    }

    first_query = remainder.find('?');
    std::string path = remainder.substr(0, first_query);
    std::string query = first_query == std::string::npos ? "" : remainder.substr(first_query + 1);
    // Params from the tcUrl and from the stream name join into one list.
    replace_all(&query, "?", "&");
    std::vector<std::string> params;
    for (std::string& p : split(query, '&')) {
        if (!p.empty()) params.push_back(std::move(p));
    }

    // The last segment is the stream; the others (without _definst_) the app.
    std::vector<std::string> segments = split(path.empty() ? std::string() : path.substr(1), '/');
    info.stream = segments.back();
    segments.pop_back();
    for (const std::string& s : segments) {
        if (s.empty() || s == "_definst_") continue;
        if (!info.app.empty()) info.app += "/";
        info.app += s;
    }
    if (info.app.empty()) info.app = kRtmpDefaultApp;

    std::string vhost = query_value(params, "vhost");
    if (vhost.empty()) vhost = query_value(params, "domain");
    info.vhost = (vhost.empty() || vhost == kRtmpDefaultVhost) ? info.host : vhost;

    // One param naming the default vhost says nothing: drop it.
    if (!(params.size() == 1 && vhost == kRtmpDefaultVhost)) {
        for (const std::string& p : params) info.param += (info.param.empty() ? "?" : "&") + p;
    }
    *out = std::move(info);
    return Error();
}

}  // namespace

std::string RtmpRequestInfo::stream_url() const { return "/" + app + "/" + stream; }

std::string RtmpRequestInfo::tc_url() const {
    std::string url = schema + "://";
    url += host.find(':') != std::string::npos ? "[" + host + "]" : host;
    if (port != kRtmpDefaultPort) url += ":" + std::to_string(port);
    return url + "/" + app;
}

std::string RtmpRequestInfo::stream_with_param() const { return stream + param; }

Error discover_rtmp_request(const std::string& tc_url, const std::string& stream, RtmpRequestInfo* out) {
    std::string url = tc_url;
    while (!url.empty() && url.back() == '/') url.pop_back();
    url += stream.empty() || stream[0] != '/' ? "/" + stream : stream;
    if (Error err = parse_full_url(url, out); !err.ok()) {
        return SRS_WRAP(err, "tcUrl \"%.128s\" stream \"%.128s\"", tc_url.c_str(), stream.c_str());
    }
    return Error();
}

Error parse_rtmp_url(const std::string& url, RtmpRequestInfo* out) { return parse_full_url(url, out); }

bool is_ip_literal(const std::string& host) {
    unsigned char buf[16];
    return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace srs
