// HTTP/1.1 request parser: a byte-driven state machine (see http_request.hpp for
// the guarantees). The request line and field lines are checked byte by byte as
// they arrive, so a bad byte or a crossed limit fails on that byte; the parts
// that need the whole line (version number, target, framing headers) are checked
// once when their line or section ends.
#include "protocol/http/http_request.hpp"

#include <array>
#include <cstring>

#include "core/strings.hpp"
#include "protocol/http/http_response.hpp"

namespace srs {

namespace {

enum CharClass : uint8_t {
    kTchar = 1,       // token character (RFC 9110 §5.6.2)
    kTargetChar = 2,  // allowed in a request-target as we accept it
    kValueChar = 4,   // field-vchar, SP or HTAB (RFC 9110 §5.5)
};

constexpr std::array<uint8_t, 256> make_char_classes() {
    std::array<uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
        uint8_t bits = 0;
        bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        const char* extra = "!#$%&'*+-.^_`|~";
        bool tch = alnum;
        for (const char* p = extra; *p; ++p) tch = tch || c == *p;
        if (tch) bits |= kTchar;
        if ((c > 0x20 && c < 0x7f && c != '#') || c >= 0x80) bits |= kTargetChar;
        if (c == '\t' || (c >= 0x20 && c != 0x7f)) bits |= kValueChar;
        t[c] = bits;
    }
    return t;
}

constexpr std::array<uint8_t, 256> kCharClasses = make_char_classes();

inline bool is_tchar(uint8_t c) { return kCharClasses[c] & kTchar; }
inline bool is_target_char(uint8_t c) { return kCharClasses[c] & kTargetChar; }
inline bool is_value_char(uint8_t c) { return kCharClasses[c] & kValueChar; }

// Calls fn(element) for each comma-separated element of a list-valued field,
// trimmed, empty elements skipped (RFC 9110 §5.6.1).
template <typename Fn>
void for_each_list_element(std::string_view value, Fn fn) {
    while (true) {
        size_t comma = value.find(',');
        std::string_view element = trim_ows(value.substr(0, comma));
        if (!element.empty()) fn(element);
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
}

// Parses one Content-Length value ("5", "5, 5"): every element 1*DIGIT and all
// equal. Values past UINT64_MAX saturate (they are over any body limit anyway).
Error parse_content_length(std::string_view value, bool* seen, uint64_t* length) {
    size_t elements = 0;
    while (true) {
        size_t comma = value.find(',');
        std::string_view element = trim_ows(value.substr(0, comma));
        ++elements;
        uint64_t n = 0;
        if (!parse_digits_saturating(element, &n)) return SRS_ERR(kErrorHttpBadContentLength, "bad Content-Length element %zu", elements);
        if (*seen && n != *length) {
            return SRS_ERR(kErrorHttpSmuggling, "two different Content-Length values");
        }
        *seen = true;
        *length = n;
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    return Error();
}

// Decodes %XX escapes strictly: a malformed escape or a decoded control byte
// fails. Other bytes are copied.
Error decode_path_strict(std::string_view raw, std::string* out) {
    out->reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        uint8_t c = static_cast<uint8_t>(raw[i]);
        if (c == '%') {
            if (raw.size() - i < 3) return SRS_ERR(kErrorHttpBadPath, "truncated %%-escape at %zu", i);
            int h = hex_digit_value(raw[i + 1]);
            int l = hex_digit_value(raw[i + 2]);
            if (h < 0 || l < 0) return SRS_ERR(kErrorHttpBadPath, "bad %%-escape at %zu", i);
            c = static_cast<uint8_t>(h << 4 | l);
            i += 2;
        }
        if (c < 0x20 || c == 0x7f) return SRS_ERR(kErrorHttpBadPath, "control byte 0x%02x in path", c);
        out->push_back(static_cast<char>(c));
    }
    return Error();
}

}  // namespace


// ---- HttpRequest ----

const std::string* HttpRequest::header(std::string_view name) const {
    for (const auto& h : headers) {
        if (iequals(h.first, name)) return &h.second;
    }
    return nullptr;
}

// Finds the first parameter of `query` whose decoded name is `key`; its
// decoded value goes to *value ("" without '='). False when there is none.
// Whether url_decode would change `s` (an escape or a '+').
static bool has_escapes(std::string_view s) { return s.find_first_of("%+") != std::string_view::npos; }

// Query names and values are mostly plain: those are compared and copied as
// they are, without a decoded copy (a player's every request asks for a few).
static bool decoded_equals(std::string_view raw, std::string_view key) {
    return has_escapes(raw) ? url_decode(raw, true) == key : raw == key;
}

static bool find_query_param(std::string_view query, std::string_view key, std::string* value) {
    while (!query.empty()) {
        size_t amp = query.find('&');
        std::string_view pair = query.substr(0, amp);
        size_t eq = pair.find('=');
        if (!pair.empty() && decoded_equals(pair.substr(0, eq), key)) {
            if (value && eq != std::string_view::npos) {
                std::string_view raw = pair.substr(eq + 1);
                if (has_escapes(raw)) {
                    *value = url_decode(raw, true);
                } else {
                    value->assign(raw.data(), raw.size());
                }
            }
            return true;
        }
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return false;
}

std::string HttpRequest::query_param(std::string_view key) const {
    std::string value;
    find_query_param(query, key, &value);
    return value;
}

bool HttpRequest::has_query_param(std::string_view key) const { return find_query_param(query, key, nullptr); }

// ---- path normalisation ----

// A path normalisation would leave as it is: no escape, no control byte, no
// empty segment but a trailing one, no "." or ".." segment.
static bool is_plain_path(std::string_view p) {
    size_t seg_start = 1;  // p[0] is '/'
    for (size_t i = 1; i <= p.size(); i++) {
        if (i < p.size()) {
            uint8_t c = static_cast<uint8_t>(p[i]);
            if (c == '%' || c < 0x20 || c == 0x7f) return false;
            if (c != '/') continue;
        }
        std::string_view seg = p.substr(seg_start, i - seg_start);
        if (seg == "." || seg == "..") return false;
        if (seg.empty() && i < p.size()) return false;  // "//"
        seg_start = i + 1;
    }
    return true;
}

Error normalize_http_path(std::string_view raw_path, std::string* out) {
    if (raw_path.empty() || raw_path[0] != '/') return SRS_ERR(kErrorHttpBadPath, "path must start with /");
    // Most paths are already normal: one copy into *out's own storage.
    if (is_plain_path(raw_path)) {
        out->assign(raw_path.data(), raw_path.size());
        return Error();
    }
    std::string decoded;
    if (Error err = decode_path_strict(raw_path, &decoded); err.failed()) return err;

    // Walk the segments between '/'; `result` holds "/seg/seg" (no trailing '/').
    std::string result;
    result.reserve(decoded.size() + 1);
    bool trailing_slash = false;
    std::string_view rest = decoded;
    while (!rest.empty()) {
        rest.remove_prefix(1);  // the '/'
        size_t slash = rest.find('/');
        std::string_view seg = rest.substr(0, slash);
        rest.remove_prefix(seg.size());
        if (seg.empty() || seg == ".") {
            trailing_slash = true;
        } else if (seg == "..") {
            if (result.empty()) return SRS_ERR(kErrorHttpBadPath, "path escapes the root");
            result.resize(result.rfind('/'));
            trailing_slash = true;
        } else {
            result += '/';
            result.append(seg.data(), seg.size());
            trailing_slash = false;
        }
    }
    if (result.empty() || trailing_slash) result += '/';
    *out = std::move(result);
    return Error();
}

// ---- parser ----

HttpRequestParser::HttpRequestParser(HttpLimits limits) : limits_(limits) {}

namespace {

// A body's storage is kept for the connection's next request only up to this
// size; a large upload's buffer is given back.
constexpr size_t kKeptBodyCapacity = 64 * 1024;

// Empties `req` as a default HttpRequest, keeping its strings' storage.
void clear_keeping_storage(HttpRequest* req) {
    req->method.clear();
    req->target.clear();
    req->path.clear();
    req->query.clear();
    req->version_minor = 1;
    req->headers.clear();
    if (req->body.capacity() > kKeptBodyCapacity) {
        std::string().swap(req->body);
    } else {
        req->body.clear();
    }
    req->keep_alive = true;
    req->chunked = false;
}

}  // namespace

// Field by field rather than assigning a fresh parser, so the request's and
// the partial tokens' storage survives for the connection's next request
// (a keep-alive player asking every 200 ms allocates nothing here). Every
// member but limits_ must be set back here.
void HttpRequestParser::reset() {
    state_ = State::kLeadingEmpty;
    error_.ignore();
    error_ = Error();
    clear_keeping_storage(&req_);
    version_.clear();
    name_.clear();
    value_.clear();
    line_end_ = LineEnd::kLeading;
    line_bytes_ = 0;
    field_bytes_ = 0;
    field_count_ = 0;
    in_trailer_ = false;
    expect_continue_ = false;
    chunk_has_digits_ = false;
    chunk_ext_started_ = false;
    remaining_ = 0;
}

HttpRequest HttpRequestParser::take_request() {
    HttpRequest out;
    take_request(&out);
    return out;
}

bool HttpRequestParser::take_request(HttpRequest* out) {
    if (state_ != State::kDone) {
        clear_keeping_storage(out);
        return false;
    }
    // The caller's previous request lends its storage to the next one.
    std::swap(*out, req_);
    reset();
    return true;
}

bool HttpRequestParser::wants_continue() const {
    // expect_continue_ is only set once the header section has been accepted.
    return expect_continue_ && state_ != State::kDone && state_ != State::kFailed;
}

Error HttpRequestParser::fail(Error err) {
    error_ = err.copy();
    error_.ignore();
    state_ = State::kFailed;
    return err;
}

// Counts one byte of the request line against max_request_line.
Error HttpRequestParser::count_line_byte() {
    if (++line_bytes_ > limits_.max_request_line) {
        return SRS_ERR(kErrorHttpRequestLineTooLong, "request line over %zu bytes", limits_.max_request_line);
    }
    return Error();
}

// Counts one byte of the header or trailer section against max_header_bytes.
Error HttpRequestParser::count_field_byte() {
    if (++field_bytes_ > limits_.max_header_bytes) {
        return SRS_ERR(kErrorHttpHeadersTooLarge, "header fields over %zu bytes", limits_.max_header_bytes);
    }
    return Error();
}

// A CR (byte consumed by the caller) ends the line `which`: expect its LF next.
Error HttpRequestParser::start_line_end(LineEnd which) {
    if (which == LineEnd::kField || which == LineEnd::kSection) {
        if (Error err = count_field_byte(); err.failed()) return err;
    }
    line_end_ = which;
    state_ = State::kLineFeed;
    return Error();
}

// The LF (after a CR, or bare) ending the line `which` arrived: act on the line.
Error HttpRequestParser::end_line(LineEnd which) {
    switch (which) {
        case LineEnd::kLeading:
            state_ = State::kLeadingEmpty;
            return Error();
        case LineEnd::kRequestLine:
            return finish_request_line();
        case LineEnd::kField:
            if (Error err = count_field_byte(); err.failed()) return err;
            while (!value_.empty() && (value_.back() == ' ' || value_.back() == '\t')) value_.pop_back();
            if (!in_trailer_) req_.headers.emplace_back(std::move(name_), std::move(value_));
            name_.clear();
            value_.clear();
            state_ = State::kFieldStart;
            return Error();
        case LineEnd::kSection:
            if (Error err = count_field_byte(); err.failed()) return err;
            if (in_trailer_) {
                state_ = State::kDone;
                return Error();
            }
            return finish_header_section();
        case LineEnd::kChunkSize:
            if (!chunk_has_digits_) return SRS_ERR(kErrorHttpBadChunkSize, "chunk-size line without a size");
            in_trailer_ = remaining_ == 0;  // the last chunk: trailers follow
            state_ = in_trailer_ ? State::kFieldStart : State::kChunkData;
            return Error();
        case LineEnd::kChunkData:
            start_chunk_size_line();
            return Error();
    }
    return Error();
}

void HttpRequestParser::start_chunk_size_line() {
    line_bytes_ = 0;
    remaining_ = 0;
    chunk_has_digits_ = false;
    chunk_ext_started_ = false;
    state_ = State::kChunkSize;
}

// Checks the version ("HTTP/1.0" or "HTTP/1.1", its shape checked while it
// arrived) and splits the target into path and query.
Error HttpRequestParser::finish_request_line() {
    if (version_.size() != 8) return SRS_ERR(kErrorHttpBadVersion, "truncated HTTP version");
    if (version_[5] != '1' || version_[7] > '1') {
        return SRS_ERR(kErrorHttpVersionNotSupported, "HTTP version %s", version_.c_str());
    }
    req_.version_minor = version_[7] - '0';

    std::string_view target = req_.target;
    if (target[0] != '/') {
        // absolute-form: scheme "://" authority [path-abempty] ["?" query]
        size_t scheme_end = target.find("://");
        std::string_view scheme = target.substr(0, scheme_end);
        if (scheme_end == std::string_view::npos || !(iequals(scheme, "http") || iequals(scheme, "https"))) {
            return SRS_ERR(kErrorHttpBadTarget, "request-target is neither origin- nor absolute-form");
        }
        std::string_view after = target.substr(scheme_end + 3);
        size_t path_start = after.find_first_of("/?");
        if (path_start == 0 || after.empty()) return SRS_ERR(kErrorHttpBadTarget, "absolute-form without host");
        target = path_start == std::string_view::npos ? std::string_view() : after.substr(path_start);
    }
    size_t qmark = target.find('?');
    std::string_view raw_path = target.substr(0, qmark);
    if (qmark != std::string_view::npos) req_.query.assign(target.substr(qmark + 1));
    if (raw_path.empty()) raw_path = "/";
    if (Error err = normalize_http_path(raw_path, &req_.path); err.failed()) {
        return SRS_WRAP(err, "request-target");
    }
    state_ = State::kFieldStart;
    return Error();
}

// The empty line after the headers: decide framing, keep-alive and Host, then
// go to the body (or finish).
Error HttpRequestParser::finish_header_section() {
    bool has_length = false, has_te = false, te_chunked_last = false, te_unknown = false;
    bool conn_close = false, conn_keep_alive = false;
    int chunked_count = 0;
    size_t hosts = 0;
    uint64_t length = 0;
    for (const auto& [name, value] : req_.headers) {
        if (iequals(name, "content-length")) {
            if (Error err = parse_content_length(value, &has_length, &length); err.failed()) return err;
        } else if (iequals(name, "transfer-encoding")) {
            has_te = true;
            for_each_list_element(value, [&](std::string_view coding) {
                te_chunked_last = iequals(coding, "chunked");
                chunked_count += te_chunked_last ? 1 : 0;
                te_unknown = te_unknown || !te_chunked_last;
            });
        } else if (iequals(name, "connection")) {
            for_each_list_element(value, [&](std::string_view option) {
                conn_close = conn_close || iequals(option, "close");
                conn_keep_alive = conn_keep_alive || iequals(option, "keep-alive");
            });
        } else if (iequals(name, "host")) {
            ++hosts;
        } else if (iequals(name, "expect")) {
            expect_continue_ = iequals(value, "100-continue");
        }
    }
    int minor = req_.version_minor;
    if (hosts > 1 || (minor == 1 && hosts == 0)) {
        return SRS_ERR(kErrorHttpBadHost, "%zu Host fields in an HTTP/1.%d request", hosts, minor);
    }
    if (has_te && has_length) return SRS_ERR(kErrorHttpSmuggling, "both Content-Length and Transfer-Encoding");
    if (has_te) {
        if (minor == 0) return SRS_ERR(kErrorHttpBadTransferEncoding, "Transfer-Encoding in HTTP/1.0");
        if (!te_chunked_last || chunked_count != 1) {
            return SRS_ERR(kErrorHttpBadTransferEncoding, "chunked is not the last coding, once");
        }
        if (te_unknown) return SRS_ERR(kErrorHttpUnsupportedTransferEncoding, "transfer coding besides chunked");
    }
    if (length > limits_.max_body) {
        return SRS_ERR(kErrorHttpBodyTooLarge, "Content-Length %llu over %zu",
                       static_cast<unsigned long long>(length), limits_.max_body);
    }
    req_.keep_alive = minor == 1 ? !conn_close : (conn_keep_alive && !conn_close);
    req_.chunked = has_te;
    expect_continue_ = expect_continue_ && minor == 1;
    if (has_te) {
        start_chunk_size_line();
    } else {
        remaining_ = length;
        state_ = length > 0 ? State::kBodyFixed : State::kDone;
    }
    return Error();
}

// One byte of a chunk-size line (not CR/LF): hex digits, then BWS and ";ext".
Error HttpRequestParser::chunk_size_byte(uint8_t c) {
    if (line_bytes_ >= kHttpMaxChunkLine) {
        return SRS_ERR(kErrorHttpBadChunkSize, "chunk-size line over %zu bytes", kHttpMaxChunkLine);
    }
    int digit = hex_digit_value(static_cast<char>(c));
    if (state_ == State::kChunkSize && digit >= 0) {
        uint64_t budget = limits_.max_body - req_.body.size();
        uint64_t d = static_cast<uint64_t>(digit);
        if (d > budget || remaining_ > (budget - d) / 16) {
            return SRS_ERR(kErrorHttpBodyTooLarge, "chunked body over %zu", limits_.max_body);
        }
        remaining_ = remaining_ * 16 + d;
        chunk_has_digits_ = true;
    } else if (chunk_has_digits_ && !chunk_ext_started_ && (c == ' ' || c == '\t' || c == ';')) {
        chunk_ext_started_ = c == ';';
        state_ = State::kChunkExt;
    } else if (!chunk_ext_started_ || !is_value_char(c)) {
        return SRS_ERR(kErrorHttpBadChunkSize, "byte 0x%02x in chunk-size line", c);
    }
    ++line_bytes_;
    return Error();
}

// Copies a run of bytes that `accept` allows, starting at data[*i], into `out`
// (skipping leading SP/HTAB when skip_ows and out is empty), at most `room`
// bytes. Returns how many bytes it passed.
template <typename Accept>
static size_t take_run(const uint8_t* data, size_t size, size_t* i, size_t room, Accept accept, std::string* out,
                       bool skip_ows) {
    size_t start = *i;
    while (*i < size && *i - start < room && accept(data[*i])) ++*i;
    size_t keep = start;
    if (skip_ows && out->empty()) {
        while (keep < *i && (data[keep] == ' ' || data[keep] == '\t')) ++keep;
    }
    out->append(reinterpret_cast<const char*>(data + keep), *i - keep);
    return *i - start;
}

Error HttpRequestParser::feed(const uint8_t* data, size_t size, size_t* consumed) {
    *consumed = 0;
    if (state_ == State::kFailed) return error_.copy();
    if (state_ == State::kDone) {
        return SRS_ERR(kErrorHttpParserState, "feed() before take_request() of the parsed request");
    }
    size_t i = 0;
    Error err;
    // On failure byte i (the offending one) is not consumed.
#define HTTP_TRY(expr)                     \
    do {                                   \
        if ((err = (expr)).failed()) {     \
            *consumed = i;                 \
            return fail(std::move(err));   \
        }                                  \
    } while (0)
#define HTTP_FAIL(code, ...) HTTP_TRY(SRS_ERR(code, __VA_ARGS__))

    while (i < size && state_ != State::kDone) {
        uint8_t c = data[i];
        bool cr = c == '\r', lf = c == '\n';
        switch (state_) {
            case State::kLeadingEmpty:
                if (!cr && !lf) {
                    line_bytes_ = 0;
                    state_ = State::kMethod;
                    continue;
                }
                if (++line_bytes_ > limits_.max_request_line) {
                    HTTP_FAIL(kErrorHttpBadRequestLine, "too many empty lines before the request line");
                }
                if (cr) HTTP_TRY(start_line_end(LineEnd::kLeading));
                break;

            case State::kMethod:
                if (is_tchar(c) && req_.method.size() < kHttpMaxMethodLength) {
                    HTTP_TRY(count_line_byte());
                    req_.method.push_back(static_cast<char>(c));
                } else if (c == ' ' && !req_.method.empty()) {
                    HTTP_TRY(count_line_byte());
                    state_ = State::kTarget;
                } else {
                    HTTP_FAIL(kErrorHttpBadMethod, "byte 0x%02x in method (or longer than %zu)", c,
                              kHttpMaxMethodLength);
                }
                break;

            case State::kTarget:
                if (is_target_char(c)) {
                    line_bytes_ += take_run(data, size, &i, limits_.max_request_line - line_bytes_, is_target_char,
                                            &req_.target, false);
                    if (i < size && is_target_char(data[i])) HTTP_TRY(count_line_byte());
                    continue;
                }
                if (c == ' ' && !req_.target.empty()) {
                    HTTP_TRY(count_line_byte());
                    state_ = State::kVersion;
                } else if (c == ' ' || cr || lf) {
                    HTTP_FAIL(kErrorHttpBadRequestLine, "request line is not METHOD SP target SP version");
                } else {
                    HTTP_FAIL(kErrorHttpBadTarget, "byte 0x%02x in request-target", c);
                }
                break;

            case State::kVersion:
                if (cr) {
                    HTTP_TRY(start_line_end(LineEnd::kRequestLine));
                } else if (lf) {
                    HTTP_TRY(end_line(LineEnd::kRequestLine));
                } else {
                    static const char kShape[] = "HTTP/d.d";
                    size_t at = version_.size();
                    bool fits = at < 8 && (kShape[at] == 'd' ? (c >= '0' && c <= '9') : c == uint8_t(kShape[at]));
                    if (!fits) HTTP_FAIL(kErrorHttpBadVersion, "byte 0x%02x in HTTP version", c);
                    HTTP_TRY(count_line_byte());
                    version_.push_back(static_cast<char>(c));
                }
                break;

            case State::kLineFeed:
                if (!lf) {
                    HTTP_FAIL(line_end_ == LineEnd::kChunkData ? kErrorHttpBadChunkEnd : kErrorHttpBadLineEnding,
                              "CR not followed by LF");
                }
                HTTP_TRY(end_line(line_end_));
                break;

            case State::kFieldStart:
                if (cr) {
                    HTTP_TRY(start_line_end(LineEnd::kSection));
                } else if (lf) {
                    HTTP_TRY(end_line(LineEnd::kSection));
                } else if (c == ' ' || c == '\t') {
                    HTTP_FAIL(kErrorHttpBadHeader, "obsolete line folding");
                } else if (field_count_ >= limits_.max_headers) {
                    HTTP_FAIL(kErrorHttpTooManyHeaders, "more than %zu header fields", limits_.max_headers);
                } else {
                    ++field_count_;
                    state_ = State::kFieldName;
                    continue;
                }
                break;

            case State::kFieldName:
                if (is_tchar(c)) {
                    field_bytes_ += take_run(data, size, &i, limits_.max_header_bytes - field_bytes_, is_tchar,
                                             &name_, false);
                    if (i < size && is_tchar(data[i])) HTTP_TRY(count_field_byte());
                    continue;
                }
                if (c != ':' || name_.empty()) HTTP_FAIL(kErrorHttpBadHeader, "byte 0x%02x in field name", c);
                HTTP_TRY(count_field_byte());
                state_ = State::kFieldValue;
                break;

            case State::kFieldValue:
                if (is_value_char(c)) {
                    field_bytes_ += take_run(data, size, &i, limits_.max_header_bytes - field_bytes_,
                                             is_value_char, &value_, true);
                    if (i < size && is_value_char(data[i])) HTTP_TRY(count_field_byte());
                    continue;
                }
                if (cr) {
                    HTTP_TRY(start_line_end(LineEnd::kField));
                } else if (lf) {
                    HTTP_TRY(end_line(LineEnd::kField));
                } else {
                    HTTP_FAIL(kErrorHttpBadHeader, "control byte 0x%02x in field %s", c, name_.c_str());
                }
                break;

            case State::kBodyFixed:
            case State::kChunkData: {
                size_t n = size - i;
                if (n > remaining_) n = static_cast<size_t>(remaining_);
                req_.body.append(reinterpret_cast<const char*>(data + i), n);
                i += n;
                remaining_ -= n;
                if (remaining_ == 0) state_ = state_ == State::kBodyFixed ? State::kDone : State::kChunkDataEnd;
                continue;
            }

            case State::kChunkSize:
            case State::kChunkExt:
                if (cr) {
                    if (!chunk_has_digits_) HTTP_FAIL(kErrorHttpBadChunkSize, "chunk-size line without a size");
                    HTTP_TRY(start_line_end(LineEnd::kChunkSize));
                } else if (lf) {
                    HTTP_TRY(end_line(LineEnd::kChunkSize));
                } else {
                    HTTP_TRY(chunk_size_byte(c));
                }
                break;

            case State::kChunkDataEnd:
                if (cr) {
                    HTTP_TRY(start_line_end(LineEnd::kChunkData));
                } else if (lf) {
                    HTTP_TRY(end_line(LineEnd::kChunkData));
                } else {
                    HTTP_FAIL(kErrorHttpBadChunkEnd, "chunk data not followed by CRLF");
                }
                break;

            case State::kDone:
            case State::kFailed:  // cannot happen: the loop stops at kDone, failures return
                *consumed = i;
                return Error();
        }
        ++i;  // byte c was consumed
    }
#undef HTTP_FAIL
#undef HTTP_TRY
    *consumed = i;
    return Error();
}

int http_status_for(const Error& err) {
    switch (err.code()) {
        case kErrorHttpRequestLineTooLong: return 414;
        case kErrorHttpHeadersTooLarge: return 431;
        case kErrorHttpTooManyHeaders: return 431;
        case kErrorHttpBodyTooLarge: return 413;
        case kErrorHttpUnsupportedTransferEncoding: return 501;
        case kErrorHttpVersionNotSupported: return 505;
        case kErrorHttpBadMethod: return 400;
        case kErrorHttpBadRequestLine: return 400;
        case kErrorHttpBadVersion: return 400;
        case kErrorHttpBadTarget: return 400;
        case kErrorHttpBadPath: return 400;
        case kErrorHttpBadHeader: return 400;
        case kErrorHttpBadHost: return 400;
        case kErrorHttpBadContentLength: return 400;
        case kErrorHttpSmuggling: return 400;
        case kErrorHttpBadTransferEncoding: return 400;
        case kErrorHttpBadChunkSize: return 400;
        case kErrorHttpBadChunkEnd: return 400;
        case kErrorHttpBadLineEnding: return 400;
        default: return 500;  // kErrorHttpParserState, or not a parser error
    }
}

}  // namespace srs
