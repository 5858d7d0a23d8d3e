#include "app/edge/rtmp_redirect.hpp"

#include "core/log.hpp"
#include "protocol/rtmp/rtmp_url.hpp"

namespace srs {

namespace {

// "rtmp://HOST[:PORT]/path?q" -> "/path" (without the query).
std::string url_path(const std::string& url) {
    size_t scheme = url.find("://");
    size_t start = scheme == std::string::npos ? 0 : scheme + 3;
    size_t slash = url.find('/', start);
    if (slash == std::string::npos) return "";
    size_t q = url.find('?', slash);
    std::string path = url.substr(slash, q == std::string::npos ? std::string::npos : q - slash);
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return path;
}

}  // namespace

bool rtmp_redirect_target(const Amf0Value& info, const std::string& asked_url, std::string* target) {
    if (!info.has_properties() || info.get_string("code") != "NetConnection.Connect.Rejected") return false;
    const Amf0Value* ex = info.get("ex");
    if (!ex || !ex->has_properties() || ex->get_number("code") != 302) return false;
    std::string full = ex->get_string("redirect2");
    if (!full.empty()) {
        *target = full;
        return true;
    }
    std::string tc_url = ex->get_string("redirect");
    if (tc_url.empty()) return false;
    RtmpRequestInfo asked;
    if (Error err = parse_rtmp_url(asked_url, &asked); !err.ok()) {
        err.ignore();
        return false;
    }
    // A tcUrl ends at the app: add the stream. A URL that names more than
    // the asked app already carries its stream.
    std::string path = url_path(tc_url);
    if (!path.empty() && path != "/" + asked.app) {
        *target = tc_url;
        return true;
    }
    std::string base = tc_url.substr(0, tc_url.find('?'));
    while (!base.empty() && base.back() == '/') base.pop_back();
    if (path.empty()) base += "/" + asked.app;
    *target = base + "/" + asked.stream_with_param();
    return true;
}

Error rtmp_connect_following_redirects(RtmpClient* client, const std::string& url, utime_t timeout_us,
                                       int max_hops, std::string* final_url) {
    std::string current = url;
    for (int hop = 0;; hop++) {
        Error err = client->connect(current, timeout_us);
        if (err.ok()) {
            *final_url = current;
            return Error();
        }
        std::string next;
        if (err.code() != kErrorRtmpClientRejected || !rtmp_redirect_target(client->rejection_info(), current, &next)) {
            return err;
        }
        err.ignore();
        if (hop >= max_hops) {
            return SRS_ERR(kErrorEdgeRedirectLoop, "more than %d RTMP 302 hops, last %s -> %s", max_hops,
                           current.c_str(), next.c_str());
        }
        srs_trace("edge: RTMP 302 from %s to %s", current.c_str(), next.c_str());
        client->set_tc_url("");
        current = next;
    }
}

}  // namespace srs
