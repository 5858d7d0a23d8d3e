// HTTP response building and helpers; see http_response.hpp for the contract.
#include "protocol/http/http_response.hpp"

#include "core/strings.hpp"
#include "protocol/http/http_request.hpp"

#include <cstdio>
#include <cstdlib>

namespace srs {

namespace {

// Appends s with CR, LF and NUL written as spaces (no response splitting).
void append_field_text(std::string* out, std::string_view s) {
    for (char c : s) out->push_back((c == '\r' || c == '\n' || c == '\0') ? ' ' : c);
}

}  // namespace

const char* http_status_text(int code) {
    switch (code) {
        case 100: return "Continue";
        case 101: return "Switching Protocols";
        case 200: return "OK";
        case 201: return "Created";
        case 202: return "Accepted";
        case 204: return "No Content";
        case 206: return "Partial Content";
        case 301: return "Moved Permanently";
        case 302: return "Found";
        case 303: return "See Other";
        case 304: return "Not Modified";
        case 307: return "Temporary Redirect";
        case 308: return "Permanent Redirect";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 406: return "Not Acceptable";
        case 408: return "Request Timeout";
        case 409: return "Conflict";
        case 410: return "Gone";
        case 411: return "Length Required";
        case 412: return "Precondition Failed";
        case 413: return "Content Too Large";
        case 414: return "URI Too Long";
        case 415: return "Unsupported Media Type";
        case 416: return "Range Not Satisfiable";
        case 417: return "Expectation Failed";
        case 426: return "Upgrade Required";
        case 429: return "Too Many Requests";
        case 431: return "Request Header Fields Too Large";
        case 500: return "Internal Server Error";
        case 501: return "Not Implemented";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        case 504: return "Gateway Timeout";
        case 505: return "HTTP Version Not Supported";
        default: return "";
    }
}

// ---- HttpResponseHead ----

void HttpResponseHead::set(std::string_view name, std::string_view value) {
    bool found = false;
    for (size_t i = 0; i < headers.size();) {
        if (!iequals(headers[i].first, name)) {
            ++i;
        } else if (!found) {
            headers[i].second.assign(value);
            found = true;
            ++i;
        } else {
            headers.erase(headers.begin() + static_cast<std::ptrdiff_t>(i));
        }
    }
    if (!found) add(name, value);
}

void HttpResponseHead::add(std::string_view name, std::string_view value) {
    headers.emplace_back(std::string(name), std::string(value));
}

const std::string* HttpResponseHead::get(std::string_view name) const {
    for (const auto& h : headers) {
        if (iequals(h.first, name)) return &h.second;
    }
    return nullptr;
}

std::string HttpResponseHead::serialize(int version_minor) const {
    char line[64];
    int code = status;
    if (code < 0) code = 0;
    if (code > 999) code = 999;
    snprintf(line, sizeof(line), "HTTP/1.%d %03d ", version_minor == 0 ? 0 : 1, code);
    std::string out = line;
    out += http_status_text(code);
    out += kHttpCrlf;
    for (const auto& [name, value] : headers) {
        append_field_text(&out, name);
        out += ": ";
        append_field_text(&out, value);
        out += kHttpCrlf;
    }
    out += kHttpCrlf;
    return out;
}

// ---- chunked framing ----

HttpChunkHeader http_chunk_header(size_t payload) {
    static const char kHex[] = "0123456789abcdef";
    if (static_cast<uint64_t>(payload) >> 56) abort();  // cannot happen: 64 PiB in one chunk
    HttpChunkHeader h;
    char digits[16];
    size_t n = 0;
    do {
        digits[n++] = kHex[payload & 0xf];
        payload >>= 4;
    } while (payload);
    for (size_t i = 0; i < n; ++i) h.bytes[i] = digits[n - 1 - i];
    h.bytes[n] = '\r';
    h.bytes[n + 1] = '\n';
    h.size = n + 2;
    return h;
}

std::string http_chunk(const void* data, size_t size) {
    if (size == 0) return std::string();
    HttpChunkHeader h = http_chunk_header(size);
    std::string out;
    out.reserve(h.size + size + 2);
    out.append(h.bytes, h.size);
    out.append(static_cast<const char*>(data), size);
    out += kHttpCrlf;
    return out;
}

std::string http_last_chunk() { return "0\r\n\r\n"; }

// ---- MIME types ----

std::string http_mime_type(std::string_view path) {
    static const struct {
        const char* ext;
        const char* type;
    } kTypes[] = {
        {"html", "text/html; charset=utf-8"},
        {"htm", "text/html; charset=utf-8"},
        {"js", "text/javascript; charset=utf-8"},
        {"mjs", "text/javascript; charset=utf-8"},
        {"css", "text/css; charset=utf-8"},
        {"json", "application/json"},
        {"txt", "text/plain; charset=utf-8"},
        {"xml", "application/xml"},
        {"svg", "image/svg+xml"},
        {"png", "image/png"},
        {"jpg", "image/jpeg"},
        {"jpeg", "image/jpeg"},
        {"gif", "image/gif"},
        {"ico", "image/x-icon"},
        {"mp4", "video/mp4"},
        {"flv", "video/x-flv"},
        {"ts", "video/MP2T"},
        {"m3u8", "application/vnd.apple.mpegurl"},
        {"mpd", "application/dash+xml"},
        {"m4s", "video/iso.segment"},
        {"mp3", "audio/mpeg"},
        {"aac", "audio/aac"},
        {"wasm", "application/wasm"},
        {"woff", "font/woff"},
        {"woff2", "font/woff2"},
        {"map", "application/json"},
    };
    std::string_view name = path.substr(path.find_last_of('/') + 1);  // npos + 1 == 0
    size_t dot = name.find_last_of('.');
    if (dot != std::string_view::npos) {
        std::string_view ext = name.substr(dot + 1);
        for (const auto& t : kTypes) {
            if (iequals(ext, t.ext)) return t.type;
        }
    }
    return "application/octet-stream";
}

// ---- dates ----

std::string http_date(time_t t) {
    static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    struct tm tm;
    if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999) return std::string();
    char buf[40];
    snprintf(buf, sizeof(buf), "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday], tm.tm_mday,
             kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

// ---- ranges ----

bool parse_http_range(std::string_view header_value, uint64_t file_size, uint64_t* start,
                      uint64_t* end_inclusive) {
    std::string_view v = trim_ows(header_value);
    size_t eq = v.find('=');
    if (eq == std::string_view::npos || !iequals(v.substr(0, eq), "bytes")) return false;
    v.remove_prefix(eq + 1);

    // The range-set is a list; exactly one non-empty element is accepted.
    std::string_view spec;
    size_t specs = 0;
    while (true) {
        size_t comma = v.find(',');
        std::string_view element = trim_ows(v.substr(0, comma));
        if (!element.empty()) {
            spec = element;
            ++specs;
        }
        if (comma == std::string_view::npos) break;
        v.remove_prefix(comma + 1);
    }
    if (specs != 1 || file_size == 0) return false;

    size_t dash = spec.find('-');
    if (dash == std::string_view::npos) return false;
    std::string_view first = spec.substr(0, dash), last = spec.substr(dash + 1);
    uint64_t a = 0, b = 0;
    if (first.empty()) {
        // suffix-range: the last n bytes.
        if (!parse_digits_saturating(last, &b) || b == 0) return false;
        a = b >= file_size ? 0 : file_size - b;
        b = file_size - 1;
    } else {
        if (!parse_digits_saturating(first, &a)) return false;
        if (last.empty()) {
            b = file_size - 1;
        } else if (!parse_digits_saturating(last, &b) || b < a) {
            return false;
        }
        if (a >= file_size) return false;
        if (b >= file_size) b = file_size - 1;
    }
    *start = a;
    *end_inclusive = b;
    return true;
}

// ---- URL decoding ----

std::string url_decode(std::string_view s, bool plus_as_space) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '%' && s.size() - i >= 3) {
            int h = hex_digit_value(s[i + 1]), l = hex_digit_value(s[i + 2]);
            if (h >= 0 && l >= 0) {
                out.push_back(static_cast<char>(h << 4 | l));
                i += 2;
                continue;
            }
        }
        out.push_back(plus_as_space && c == '+' ? ' ' : c);
    }
    return out;
}

// ---- JSONP ----

bool is_valid_js_identifier(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    bool part_start = true;
    for (char c : s) {
        bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$';
        bool digit = c >= '0' && c <= '9';
        if (c == '.') {
            if (part_start) return false;  // empty part: ".a", "a..b"
            part_start = true;
        } else if (letter || (digit && !part_start)) {
            part_start = false;
        } else {
            return false;
        }
    }
    return !part_start;  // "a." ends with an empty part
}

}  // namespace srs
