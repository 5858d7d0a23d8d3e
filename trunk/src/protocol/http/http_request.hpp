// A resumable, sans-IO HTTP/1.1 request parser (RFC 9112), server side.
//
// Guarantees of HttpRequestParser::feed(data, size, &consumed):
// - Returns success when every byte it looked at was valid. *consumed says how
//   many bytes of data it used; they belong to the current request. It stops
//   right after the last byte of a complete request (has_request() is then true
//   and the rest of data, a pipelined request, is left for the next feed() after
//   take_request()). When the request is not complete yet, *consumed == size:
//   the bytes are kept in the parser's state ("need more").
// - Returns an error (one of the kErrorHttp* codes, http_status_for() gives the
//   status to answer) as soon as the first byte that makes the request invalid
//   or over a limit arrives; *consumed then counts the bytes before that byte.
//   Checks that need a whole line or section (version number, target, Host,
//   framing, Content-Length over max_body) fail on the LF that ends it.
//   The error is sticky: every later feed() returns it again (a copy) and
//   consumes nothing, until reset().
// - feed() while has_request() is true fails with kErrorHttpParserState and
//   consumes nothing (call take_request() first).
// - Never reads outside [data, data + size); reads nothing when size is 0.
// - Each byte is looked at once; the state (position in the grammar, partial
//   token, counters) lives in the parser, so feeding one byte at a time gives
//   the same request, error code and *consumed total as feeding it whole.
// - Memory stays bounded by the limits: at most max_request_line bytes of
//   request line, max_header_bytes of header fields, max_body bytes of body,
//   whatever the input.
//
// Accepted grammar and choices:
// - Line ends are CRLF; a bare LF is accepted as a line end too (as nginx, Go
//   and most servers do: some hand-written clients send it). A CR that is not
//   followed by LF is an error (kErrorHttpBadLineEnding), so a lone CR can never
//   be read differently by a proxy in front of us.
// - Empty lines before the request line are skipped (RFC 9112 §2.2), at most
//   max_request_line bytes of them.
// - Request line: method token (tchar, 1..32 bytes) SP request-target SP
//   "HTTP/1.0" or "HTTP/1.1", exactly one SP between parts. Over
//   max_request_line bytes (without the line end): 414. "HTTP/2.0", "HTTP/0.9",
//   "HTTP/1.2": 505; anything not shaped like "HTTP/d.d": 400.
// - request-target: origin-form ("/p?q") or absolute-form ("http://h/p?q", whose
//   path and query are used). Bytes 0x00-0x20, 0x7F and '#' are rejected
//   (0x80-0xFF pass, as nginx lets raw UTF-8 through);
//   asterisk-form ("OPTIONS *") and authority-form (CONNECT) are rejected (400):
//   this server is neither a proxy nor answers server-wide OPTIONS.
// - path is the target's path percent-decoded then normalised (see
//   normalize_http_path): "%2F" decodes to '/' and is a separator like any '/'
//   (so "/a%2Fb" is "/a/b" and "/a%2f..%2f..%2fx" escapes the root: 400).
// - Header fields: token ":" OWS value OWS. No space before ':', no obs-fold
//   (a line starting with SP/HTAB): 400. Values may hold HTAB, SP, VCHAR and
//   0x80-0xFF; NUL and other control bytes: 400. Values are stored trimmed.
// - Framing: Transfer-Encoding (all its lines as one list) must end with
//   "chunked" and name it once, else 400; another coding before it ("gzip,
//   chunked") is 501; any Transfer-Encoding in HTTP/1.0 is 400. Else
//   Content-Length: digits only, a list of equal values counts as one value,
//   different values are 400. Else there is no body. Content-Length together
//   with Transfer-Encoding: 400 (request smuggling).
// - HTTP/1.1 requires exactly one Host line; HTTP/1.0 allows none, not two.
// - keep_alive: HTTP/1.1 unless Connection lists "close"; HTTP/1.0 only when
//   Connection lists "keep-alive" (and not "close").
// - Chunked body: chunk-size in hex, optional BWS and ";ext" (ignored), CRLF,
//   data, CRLF; trailers after the last chunk are checked like header fields and
//   dropped. The size line may hold at most kHttpMaxChunkLine bytes. Header and
//   trailer fields share the max_header_bytes / max_headers budget.
// - The body counts against max_body (decoded size for chunked): 413 as soon as
//   a Content-Length or chunk size announces more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace srs {

constexpr size_t kHttpMaxMethodLength = 32;
constexpr size_t kHttpMaxChunkLine = 4096;

struct HttpLimits {
    size_t max_request_line = 8192;       // request line, without its line end
    size_t max_header_bytes = 32 * 1024;  // header + trailer field lines, line ends included
    size_t max_headers = 64;              // header + trailer field lines
    size_t max_body = 1024 * 1024;        // body bytes (decoded for chunked)
};

struct HttpRequest {
    std::string method;  // as sent, case kept: "GET"
    std::string target;  // raw request-target: "/live/a.flv?x=1"
    std::string path;    // decoded and normalised, starts with '/': "/live/a.flv"
    std::string query;   // raw, without '?': "x=1"; "" when none
    int version_minor = 1;  // HTTP/1.<version_minor>, 0 or 1
    std::vector<std::pair<std::string, std::string>> headers;  // in order, names as sent
    std::string body;    // decoded (chunks joined)
    bool keep_alive = true;
    bool chunked = false;  // the body came with Transfer-Encoding: chunked

    // The value of the first header field named `name` (ASCII case-insensitive),
    // or nullptr.
    const std::string* header(std::string_view name) const;
    // The decoded value of the first query parameter whose decoded name is `key`
    // ('+' is a space), "" when absent. "a&b=" gives "" for both a and b.
    std::string query_param(std::string_view key) const;
    // Whether the query has a parameter named `key` (with or without '=').
    bool has_query_param(std::string_view key) const;
};

class HttpRequestParser {
  public:
    explicit HttpRequestParser(HttpLimits limits = {});

    // Parses the next bytes of the current request; see the top of this file.
    Error feed(const uint8_t* data, size_t size, size_t* consumed);
    // A complete request is ready for take_request().
    bool has_request() const { return state_ == State::kDone; }
    // The complete request (moved out); the parser is then ready for the next
    // request on the same connection. An empty HttpRequest when none is ready.
    HttpRequest take_request();
    // The same into *out, whose old contents become the parser's storage for
    // the next request (a connection keeps one HttpRequest and reuses it);
    // false, and *out emptied, when none is ready.
    bool take_request(HttpRequest* out);
    // Forgets everything (partial request, request ready, error); keeps limits.
    void reset();

    // True once the header section of a request with "Expect: 100-continue"
    // (HTTP/1.1) is parsed and its body has not fully arrived: the server may
    // send "HTTP/1.1 100 Continue\r\n\r\n" (once) so the client sends the body.
    bool wants_continue() const;

  private:
    enum class State : uint8_t {
        kLeadingEmpty,  // skipping empty lines before the request line
        kMethod,
        kTarget,
        kVersion,
        kLineFeed,      // a CR ended a line (line_end_ says which): expecting LF
        kFieldStart,    // first byte of a field line or of the empty line
        kFieldName,
        kFieldValue,
        kBodyFixed,     // Content-Length body
        kChunkSize,     // hex digits
        kChunkExt,      // after the digits: BWS, ';' and extensions
        kChunkData,
        kChunkDataEnd,  // expecting CRLF (or LF) after chunk data
        kDone,
        kFailed,
    };
    enum class LineEnd : uint8_t { kLeading, kRequestLine, kField, kSection, kChunkSize, kChunkData };

    Error fail(Error err);
    Error count_line_byte();
    Error count_field_byte();
    Error start_line_end(LineEnd which);
    Error end_line(LineEnd which);
    Error finish_request_line();
    Error finish_header_section();
    Error chunk_size_byte(uint8_t c);
    void start_chunk_size_line();

    HttpLimits limits_;
    State state_ = State::kLeadingEmpty;
    Error error_;             // the sticky failure, when state_ is kFailed
    HttpRequest req_;
    std::string version_;     // "HTTP/1.1" as it arrives
    std::string name_;        // the field name being read
    std::string value_;       // the field value being read
    LineEnd line_end_ = LineEnd::kLeading;
    size_t line_bytes_ = 0;   // bytes of the request line / chunk-size line so far
    size_t field_bytes_ = 0;  // header + trailer bytes so far
    size_t field_count_ = 0;  // header + trailer lines so far
    bool in_trailer_ = false;
    bool expect_continue_ = false;  // set when the header section is complete
    bool chunk_has_digits_ = false;
    bool chunk_ext_started_ = false;  // ';' seen: extension bytes follow
    uint64_t remaining_ = 0;  // body bytes left (fixed) or chunk bytes left
};

// The status to answer for an error from HttpRequestParser::feed(): 400, 413,
// 414, 431, 501, 505, or 500 for kErrorHttpParserState and for any code not
// from the parser.
int http_status_for(const Error& err);

// Percent-decodes `raw_path` (a target's path: starts with '/', no query) and
// normalises it: "." segments dropped, ".." removes the previous segment, empty
// segments ("//") collapsed; a trailing '/' (or a last "." / ".." segment) leaves
// a trailing '/'. "%2F" is a separator. Fails with kErrorHttpBadPath for a
// malformed escape, a decoded NUL or other control byte (0x00-0x1F, 0x7F), or a
// ".." above the root; *out is then unchanged.
Error normalize_http_path(std::string_view raw_path, std::string* out);

}  // namespace srs
