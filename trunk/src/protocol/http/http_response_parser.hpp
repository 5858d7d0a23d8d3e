// A resumable, sans-IO HTTP/1.1 response parser (RFC 9112), client side.
//
// Guarantees of HttpResponseParser::feed(data, size, &consumed, body):
// - Decoded body bytes (chunk framing removed) are appended to *body as they
//   arrive (body may be nullptr to drop them), so a caller can stream a long
//   or endless body (HTTP-FLV) piece by piece and never hold all of it.
// - Returns success when every byte it looked at was valid; *consumed is the
//   number of bytes used. It stops right after the last byte of a complete
//   response (done() is then true, the rest of data is not looked at);
//   otherwise *consumed == size ("need more").
// - head_done() turns true once the status line and header fields are parsed;
//   head() is then valid. Interim 1xx responses (100 Continue) are skipped.
// - Returns an error (kErrorHttpClient*) at the first byte that makes the
//   response invalid or crosses a limit; the error is sticky until reset().
// - Never reads outside [data, data + size); feeding one byte at a time gives
//   the same head, body and error as feeding it whole.
// - A close-delimited body (no Content-Length, no chunked) ends with the
//   connection: the caller calls finish_at_eof(), which fails with
//   kErrorHttpClientTruncated when the framing said more was due.
//
// Choices: CRLF or a bare LF end a line; a CR not followed by LF is an error.
// Transfer-Encoding whose last coding is chunked wins over Content-Length (RFC
// 9112 §6.3); another last coding makes the body close-delimited. Responses to
// HEAD (set_head_request), 204 and 304 have no body. Trailers are dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace srs {

struct HttpParsedResponse {
    int version_minor = 1;
    int status = 0;
    std::string reason;
    std::vector<std::pair<std::string, std::string>> headers;  // in order, names as sent, values trimmed
    bool chunked = false;
    bool has_length = false;      // Content-Length framing
    uint64_t content_length = 0;
    bool keep_alive = true;       // HTTP/1.1 without "Connection: close", and not close-delimited

    // The first header field named `name` (ASCII case-insensitive), or nullptr.
    const std::string* header(std::string_view name) const;
};

struct HttpResponseLimits {
    size_t max_line = 8192;               // status line, field line, chunk-size line
    size_t max_header_bytes = 64 * 1024;  // header + trailer lines together
    size_t max_headers = 100;
};

class HttpResponseParser {
  public:
    explicit HttpResponseParser(HttpResponseLimits limits = {});

    // The response answers a HEAD request: no body whatever the headers say.
    void set_head_request(bool head) { head_request_ = head; }
    // Parses the next bytes; see the top of this file.
    Error feed(const uint8_t* data, size_t size, size_t* consumed, std::string* body);
    // The peer closed the connection: success when that completes the response.
    Error finish_at_eof();
    bool head_done() const { return head_done_; }
    bool done() const { return state_ == State::kDone; }
    const HttpParsedResponse& head() const { return head_; }
    // Forgets everything but the limits and the HEAD flag.
    void reset();

  private:
    enum class State : uint8_t {
        kStatusLine,
        kField,       // a header field line (or the empty line ending the section)
        kBodyFixed,   // Content-Length body
        kBodyEof,     // close-delimited body
        kChunkSize,
        kChunkData,
        kChunkEnd,    // the line end after chunk data
        kTrailer,
        kDone,
        kFailed,
    };

    Error fail(Error err);
    Error line_byte(uint8_t c, bool* complete);
    Error on_line();
    Error parse_status_line();
    Error parse_field_line(bool trailer);
    Error finish_head();
    Error parse_chunk_size();

    HttpResponseLimits limits_;
    bool head_request_ = false;
    State state_ = State::kStatusLine;
    Error error_;
    HttpParsedResponse head_;
    bool head_done_ = false;
    std::string line_;          // the line being read, without its line end
    bool saw_cr_ = false;       // the last byte was a CR: an LF must follow
    size_t header_bytes_ = 0;
    size_t header_count_ = 0;
    uint64_t remaining_ = 0;    // body bytes left (fixed) or chunk bytes left
};

}  // namespace srs
