// HTTP/1.1 response parser: lines (status, fields, chunk sizes, trailers) are
// gathered byte by byte into line_ and acted on at their LF; body bytes are
// copied in runs. See http_response_parser.hpp for the guarantees.
#include "protocol/http/http_response_parser.hpp"

#include <algorithm>

#include "core/strings.hpp"

namespace srs {

namespace {

bool is_tchar(char c) {
    if (is_ascii_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    for (const char* p = "!#$%&'*+-.^_`|~"; *p; ++p) {
        if (c == *p) return true;
    }
    return false;
}

// Calls fn(element) for each trimmed, non-empty element of a comma list.
template <typename Fn>
void for_each_element(std::string_view value, Fn fn) {
    while (true) {
        size_t comma = value.find(',');
        std::string_view element = trim_ows(value.substr(0, comma));
        if (!element.empty()) fn(element);
        if (comma == std::string_view::npos) return;
        value.remove_prefix(comma + 1);
    }
}

}  // namespace

const std::string* HttpParsedResponse::header(std::string_view name) const {
    for (const auto& h : headers) {
        if (iequals(h.first, name)) return &h.second;
    }
    return nullptr;
}

HttpResponseParser::HttpResponseParser(HttpResponseLimits limits) : limits_(limits) {}

void HttpResponseParser::reset() {
    error_.ignore();
    HttpResponseParser fresh(limits_);
    fresh.head_request_ = head_request_;
    *this = std::move(fresh);
}

Error HttpResponseParser::fail(Error err) {
    error_ = err.copy();
    error_.ignore();
    state_ = State::kFailed;
    return err;
}

// Adds one byte to the current line; *complete turns true on its LF.
Error HttpResponseParser::line_byte(uint8_t c, bool* complete) {
    *complete = false;
    if (saw_cr_) {
        if (c != '\n') return SRS_ERR(kErrorHttpClientBadHeader, "CR not followed by LF");
        saw_cr_ = false;
        *complete = true;
        return Error();
    }
    if (c == '\n') {
        *complete = true;
        return Error();
    }
    if (c == '\r') {
        saw_cr_ = true;
        return Error();
    }
    if (line_.size() >= limits_.max_line) return SRS_ERR(kErrorHttpClientBadHeader, "line over %zu bytes", limits_.max_line);
    if (state_ == State::kField || state_ == State::kTrailer) {
        if (++header_bytes_ > limits_.max_header_bytes) {
            return SRS_ERR(kErrorHttpClientBadHeader, "header fields over %zu bytes", limits_.max_header_bytes);
        }
    }
    line_.push_back(static_cast<char>(c));
    return Error();
}

// "HTTP/1.1 200 OK": version, one SP, three digits, then SP and a reason (optional).
Error HttpResponseParser::parse_status_line() {
    std::string_view l = line_;
    if (l.size() < 12 || l.substr(0, 7) != "HTTP/1." || !is_ascii_digit(l[7]) || l[8] != ' ' ||
        !is_ascii_digit(l[9]) || !is_ascii_digit(l[10]) || !is_ascii_digit(l[11]) || (l.size() > 12 && l[12] != ' ')) {
        return SRS_ERR(kErrorHttpClientBadStatusLine, "bad status line \"%.64s\"", line_.c_str());
    }
    head_.version_minor = l[7] - '0';
    head_.status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
    if (head_.status < 100) return SRS_ERR(kErrorHttpClientBadStatusLine, "status %d", head_.status);
    head_.reason.assign(l.size() > 13 ? l.substr(13) : std::string_view());
    state_ = State::kField;
    return Error();
}

Error HttpResponseParser::parse_field_line(bool trailer) {
    if (++header_count_ > limits_.max_headers) {
        return SRS_ERR(kErrorHttpClientBadHeader, "more than %zu field lines", limits_.max_headers);
    }
    size_t colon = line_.find(':');
    if (colon == 0 || colon == std::string::npos) return SRS_ERR(kErrorHttpClientBadHeader, "field line without a name");
    for (size_t i = 0; i < colon; ++i) {
        if (!is_tchar(line_[i])) return SRS_ERR(kErrorHttpClientBadHeader, "byte 0x%02x in a field name", (uint8_t)line_[i]);
    }
    std::string_view value = trim_ows(std::string_view(line_).substr(colon + 1));
    for (char c : value) {
        uint8_t u = static_cast<uint8_t>(c);
        if ((u < 0x20 && c != '\t') || u == 0x7f) return SRS_ERR(kErrorHttpClientBadHeader, "control byte in a field value");
    }
    if (!trailer) head_.headers.emplace_back(line_.substr(0, colon), std::string(value));
    return Error();
}

// The empty line after the fields: decide the framing (RFC 9112 §6.3).
Error HttpResponseParser::finish_head() {
    int status = head_.status;
    if (status >= 100 && status < 200 && status != 101) {
        // An interim response: the real one follows.
        HttpResponseParser fresh(limits_);
        fresh.head_request_ = head_request_;
        *this = std::move(fresh);
        return Error();
    }
    bool conn_close = false, conn_keep_alive = false, te_chunked_last = false, has_te = false;
    for (const auto& [name, value] : head_.headers) {
        if (iequals(name, "content-length")) {
            bool seen = head_.has_length;
            uint64_t previous = head_.content_length;
            bool bad = false;
            for_each_element(value, [&](std::string_view element) {
                uint64_t n = 0;
                if (!parse_digits_saturating(element, &n) || (seen && n != previous)) bad = true;
                seen = true;
                previous = n;
            });
            if (bad || !seen) return SRS_ERR(kErrorHttpClientBadFraming, "bad Content-Length \"%.32s\"", value.c_str());
            head_.has_length = true;
            head_.content_length = previous;
        } else if (iequals(name, "transfer-encoding")) {
            has_te = true;
            for_each_element(value, [&](std::string_view coding) { te_chunked_last = iequals(coding, "chunked"); });
        } else if (iequals(name, "connection")) {
            for_each_element(value, [&](std::string_view option) {
                conn_close = conn_close || iequals(option, "close");
                conn_keep_alive = conn_keep_alive || iequals(option, "keep-alive");
            });
        }
    }
    head_.keep_alive = head_.version_minor >= 1 ? !conn_close : (conn_keep_alive && !conn_close);
    head_done_ = true;
    line_.clear();
    if (head_request_ || status == 204 || status == 304) {
        head_.has_length = false;
        state_ = State::kDone;
    } else if (has_te && te_chunked_last) {
        head_.chunked = true;
        head_.has_length = false;
        state_ = State::kChunkSize;
    } else if (has_te) {
        head_.has_length = false;
        head_.keep_alive = false;
        state_ = State::kBodyEof;
    } else if (head_.has_length) {
        remaining_ = head_.content_length;
        state_ = remaining_ > 0 ? State::kBodyFixed : State::kDone;
    } else {
        head_.keep_alive = false;
        state_ = State::kBodyEof;
    }
    return Error();
}

// "1a;ext=x": hex digits, optional BWS and extensions (ignored).
Error HttpResponseParser::parse_chunk_size() {
    std::string_view l = line_;
    size_t digits = 0;
    uint64_t size = 0;
    while (digits < l.size() && hex_digit_value(l[digits]) >= 0) {
        if (size >> 60) return SRS_ERR(kErrorHttpClientBadFraming, "chunk size overflows");
        size = size * 16 + static_cast<uint64_t>(hex_digit_value(l[digits]));
        ++digits;
    }
    std::string_view rest = trim_ows(l.substr(digits));
    if (digits == 0 || (!rest.empty() && rest[0] != ';')) {
        return SRS_ERR(kErrorHttpClientBadFraming, "bad chunk-size line \"%.32s\"", line_.c_str());
    }
    remaining_ = size;
    state_ = size > 0 ? State::kChunkData : State::kTrailer;
    return Error();
}

Error HttpResponseParser::on_line() {
    Error err;
    switch (state_) {
        case State::kStatusLine:
            // Tolerate empty lines before the status line (a stray CRLF after a body).
            if (!line_.empty()) err = parse_status_line();
            break;
        case State::kField:
            if (line_.empty()) {
                err = finish_head();
            } else {
                err = parse_field_line(false);
            }
            break;
        case State::kChunkSize:
            err = parse_chunk_size();
            break;
        case State::kChunkEnd:
            if (!line_.empty()) err = SRS_ERR(kErrorHttpClientBadFraming, "chunk data not followed by a line end");
            state_ = State::kChunkSize;
            break;
        case State::kTrailer:
            if (line_.empty()) {
                state_ = State::kDone;
            } else {
                err = parse_field_line(true);
            }
            break;
        default:
            break;
    }
    line_.clear();
    return err;
}

Error HttpResponseParser::feed(const uint8_t* data, size_t size, size_t* consumed, std::string* body) {
    *consumed = 0;
    if (state_ == State::kFailed) return error_.copy();
    size_t i = 0;
    while (i < size && state_ != State::kDone) {
        if (state_ == State::kBodyEof || state_ == State::kBodyFixed || state_ == State::kChunkData) {
            size_t n = size - i;
            if (state_ != State::kBodyEof) n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
            if (body) body->append(reinterpret_cast<const char*>(data + i), n);
            i += n;
            if (state_ != State::kBodyEof) {
                remaining_ -= n;
                if (remaining_ == 0) state_ = state_ == State::kBodyFixed ? State::kDone : State::kChunkEnd;
            }
            continue;
        }
        bool complete = false;
        Error err = line_byte(data[i], &complete);
        if (err.ok() && complete) err = on_line();
        if (!err.ok()) {
            *consumed = i;
            return fail(std::move(err));
        }
        ++i;
    }
    *consumed = i;
    return Error();
}

Error HttpResponseParser::finish_at_eof() {
    if (state_ == State::kFailed) return error_.copy();
    if (state_ == State::kDone) return Error();
    if (state_ == State::kBodyEof) {
        state_ = State::kDone;
        return Error();
    }
    return fail(SRS_ERR(kErrorHttpClientTruncated, "connection closed %s", head_done_ ? "inside the body" : "before the header ended"));
}

}  // namespace srs
