// Helpers shared by the unit tests of the tool endpoints (tcmalloc,
// valgrind): a GET request as the HTTP parser would hand it over, and the
// envelope the API wraps every answer in.
//
// Header-only; include it as "utest/api_test_util.hpp".
#pragma once

#include <string>

#include "app/api/api_endpoint.hpp"

namespace srs::utest {

inline HttpRequest api_get(const std::string& path, const std::string& query) {
    HttpRequest req;
    req.method = "GET";
    req.path = path;
    req.target = req.path + (query.empty() ? "" : "?" + query);
    req.query = query;
    return req;
}

inline ApiEndpoint::Json api_envelope() {
    ApiEndpoint::Json j;
    j["code"] = 0;
    j["server"] = "vid-test";
    j["service"] = "testsrvc";
    j["pid"] = "1";
    return j;
}

}  // namespace srs::utest
