// Sans-IO HTTP/1.1 response building and the small HTTP helpers a server needs
// (status texts, chunk framing, MIME types, dates, ranges, URL decoding, JSONP
// callback checks). Pure functions of their arguments: no IO, no clock, no
// allocation beyond the returned strings.
//
// Guarantees and return values:
// - http_status_text(code): the RFC 9110 reason phrase ("Not Found"), "" for a
//   code it does not know (the status line then ends "599 \r\n", still valid).
// - HttpResponseHead::serialize(): "HTTP/1.<v> <status> <reason>\r\n", then each
//   header "Name: value\r\n" in order, then "\r\n". It adds no header of its own
//   (no Date, Server, Content-Length, Connection): the caller decides them. A
//   CR, LF or NUL inside a name or value is written as a space, so a header value
//   taken from a request can never split the response. version_minor is 0 or 1
//   (anything but 0 writes 1).
// - http_chunk(data, n): one chunk "<hex n>\r\n<data>\r\n"; "" when n == 0 (an
//   empty chunk would end the body: send http_last_chunk() for that).
// - http_chunk_header(n): just "<hex n>\r\n" in a fixed buffer, so a sender can
//   writev {header, payload, kHttpCrlf} without copying the payload. n must be
//   below 2^56 (14 hex digits + CRLF fit the 16 bytes); larger aborts.
// - http_mime_type(path): by the extension of the last path segment, ASCII
//   case-insensitive; "application/octet-stream" when unknown or none. Text
//   types carry "; charset=utf-8".
// - http_date(t): IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT"; "" when t cannot
//   be broken down (out of range).
// - parse_http_range(): true with [*start, *end_inclusive] inside the file for
//   one satisfiable range "bytes=a-b" (b clamped to the last byte), "bytes=a-",
//   "bytes=-n" (the last n bytes, the whole file when n >= size). False for
//   anything else: several ranges, a start at or past the end, a zero suffix, an
//   empty file, or malformed syntax (including another unit); the caller answers
//   416 with "Content-Range: bytes */<size>". Outputs are untouched on false.
// - url_decode(s, plus_as_space): %XX (either case) decoded, '+' a space when
//   asked; a '%' not followed by two hex digits is kept as it is. Never fails.
// - is_valid_js_identifier(s): true only for 1..64 bytes of dot-separated parts,
//   each [A-Za-z_$][A-Za-z0-9_$]* ("jQuery.cb_1"); safe to echo before "(".
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace srs {

inline constexpr char kHttpCrlf[] = "\r\n";

const char* http_status_text(int code);

class HttpResponseHead {
  public:
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;

    // Sets `name` to `value`: the first field with that name (ASCII
    // case-insensitive) gets the value, later ones are removed; appended when
    // there is none.
    void set(std::string_view name, std::string_view value);
    // Appends a field, even when one with that name exists (Set-Cookie, Vary).
    void add(std::string_view name, std::string_view value);
    // The value of the first field named `name`, or nullptr.
    const std::string* get(std::string_view name) const;
    // The status line, the fields and the empty line; see the top of this file.
    std::string serialize(int version_minor = 1) const;
};

// One chunk of a chunked body: "<hex size>\r\n<data>\r\n"; "" for size 0.
std::string http_chunk(const void* data, size_t size);
// The last chunk and the end of an empty trailer section: "0\r\n\r\n".
std::string http_last_chunk();

struct HttpChunkHeader {
    char bytes[16];  // "<hex>\r\n", not NUL-terminated
    size_t size;     // bytes used
};
// The chunk-size line for a payload of `payload` bytes (< 2^56).
HttpChunkHeader http_chunk_header(size_t payload);

// The Content-Type for a file path, from its extension.
std::string http_mime_type(std::string_view path);

// IMF-fixdate for Date / Last-Modified / Expires.
std::string http_date(time_t t);

// One byte range of a file of file_size bytes from a Range header value.
bool parse_http_range(std::string_view header_value, uint64_t file_size, uint64_t* start, uint64_t* end_inclusive);

// Percent-decodes a URL component.
std::string url_decode(std::string_view s, bool plus_as_space);

// A JSONP callback name that is safe to echo.
bool is_valid_js_identifier(std::string_view s);

}  // namespace srs
