// libFuzzer target for protocol/http_response_parser: the input is what a
// server sends back. It is parsed whole and one byte at a time, then told the
// connection closed; both ways must give the same head, body, error code and
// consumed count. A finished response must keep the parser's promises: a
// status of 100..999 (1xx other than 101 never ends a response), a body no
// longer than Content-Length when that framed it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "protocol/http/http_response_parser.hpp"

using namespace srs;

namespace {

struct Outcome {
    int code = 0;
    size_t consumed = 0;
    bool head_done = false;
    bool done = false;
    int status = 0;
    size_t headers = 0;
    std::string body;
};

Outcome run(const uint8_t* data, size_t size, bool bytewise) {
    HttpResponseParser p;
    Outcome o;
    if (!bytewise) {
        Error err = p.feed(data, size, &o.consumed, &o.body);
        o.code = err.ok() ? 0 : err.code();
        err.ignore();
    } else {
        for (size_t i = 0; i < size && !p.done(); ++i) {
            size_t c = 0;
            Error err = p.feed(data + i, 1, &c, &o.body);
            o.consumed += c;
            if (!err.ok()) {
                o.code = err.code();
                err.ignore();
                break;
            }
        }
    }
    if (o.code == 0) {
        Error err = p.finish_at_eof();
        o.code = err.ok() ? 0 : -err.code();
        err.ignore();
    }
    o.head_done = p.head_done();
    o.done = p.done();
    o.status = p.head().status;
    o.headers = p.head().headers.size();
    if (o.done) {
        if (o.status < 100 || o.status > 999) abort();
        if (o.status < 200 && o.status != 101) abort();
        if (p.head().has_length && o.body.size() != p.head().content_length) abort();
    }
    return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Outcome whole = run(data, size, false);
    Outcome bytewise = run(data, size, true);
    if (whole.code != bytewise.code || whole.consumed != bytewise.consumed || whole.body != bytewise.body ||
        whole.done != bytewise.done || whole.status != bytewise.status || whole.headers != bytewise.headers ||
        whole.head_done != bytewise.head_done) {
        abort();
    }
    return 0;
}
