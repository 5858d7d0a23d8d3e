// For the unit tests' little HTTP servers: reads one request off an accepted
// connection, whatever pieces it comes in.
#pragma once

#include <cstdint>

#include "core/error.hpp"
#include "io/socket.hpp"
#include "protocol/http/http_request.hpp"

namespace srs::utest {

inline Error read_http_request(TcpConn* conn, HttpRequest* out) {
    HttpRequestParser parser;
    while (!parser.has_request()) {
        uint8_t buf[4096];
        size_t n = 0, used = 0;
        if (Error err = conn->read(buf, sizeof(buf), &n); !err.ok()) return err;
        if (Error err = parser.feed(buf, n, &used); !err.ok()) return err;
    }
    *out = parser.take_request();
    return Error();
}

}  // namespace srs::utest
