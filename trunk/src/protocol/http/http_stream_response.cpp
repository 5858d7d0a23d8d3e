#include "protocol/http/http_stream_response.hpp"

#include <strings.h>

#include <cstdlib>
#include <cstring>

namespace srs {

namespace {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

}  // namespace

const std::string* HttpStreamResponse::header(const std::string& name) const {
    for (const auto& kv : headers_) {
        if (strcasecmp(kv.first.c_str(), name.c_str()) == 0) return &kv.second;
    }
    return nullptr;
}

Error HttpStreamResponse::fail(Error err) {
    failed_ = true;
    return err;
}

Error HttpStreamResponse::parse_head() {
    // line_ holds everything up to and including the empty line.
    size_t pos = line_.find("\r\n");
    std::string status_line = line_.substr(0, pos);
    // "HTTP/1.x SP 3DIGIT [SP reason]"
    if (status_line.size() < 12 || status_line.compare(0, 7, "HTTP/1.") != 0 || status_line[8] != ' ' ||
        !isdigit(static_cast<unsigned char>(status_line[9])) || !isdigit(static_cast<unsigned char>(status_line[10])) ||
        !isdigit(static_cast<unsigned char>(status_line[11])) || (status_line.size() > 12 && status_line[12] != ' ')) {
        return SRS_ERR(kErrorHttpBadRequestLine, "bad status line %.64s", status_line.c_str());
    }
    status_ = atoi(status_line.substr(9, 3).c_str());
    pos += 2;
    while (true) {
        size_t end = line_.find("\r\n", pos);
        if (end == pos) break;  // the empty line
        std::string field = line_.substr(pos, end - pos);
        size_t colon = field.find(':');
        if (colon == std::string::npos || colon == 0) {
            return SRS_ERR(kErrorHttpBadHeader, "bad header line %.64s", field.c_str());
        }
        headers_.emplace_back(field.substr(0, colon), trim(field.substr(colon + 1)));
        pos = end + 2;
    }
    const std::string* te = header("Transfer-Encoding");
    chunked_ = te && strcasestr(te->c_str(), "chunked") != nullptr;
    const std::string* cl = header("Content-Length");
    if (!chunked_ && cl) {
        char* endp = nullptr;
        unsigned long long n = strtoull(cl->c_str(), &endp, 10);
        if (cl->empty() || *endp != '\0') return SRS_ERR(kErrorHttpBadContentLength, "Content-Length %s", cl->c_str());
        has_length_ = true;
        remaining_ = n;
    }
    line_.clear();
    state_ = chunked_ ? State::kChunkSize : has_length_ && remaining_ == 0 ? State::kDone : State::kIdentity;
    return Error();
}

Error HttpStreamResponse::feed(const uint8_t* data, size_t size, std::string* body) {
    if (failed_) return SRS_ERR(kErrorHttpParserState, "http response: failed before");
    const char* p = reinterpret_cast<const char*>(data);
    size_t i = 0;
    while (i < size) {
        switch (state_) {
            case State::kHead: {
                // Byte by byte until CRLFCRLF: heads are small and come once.
                line_.push_back(p[i++]);
                size_t n = line_.size();
                if (n >= 4 && memcmp(line_.data() + n - 4, "\r\n\r\n", 4) == 0) {
                    if (Error err = parse_head(); !err.ok()) return fail(std::move(err));
                } else if (n > kMaxHead) {
                    return fail(SRS_ERR(kErrorHttpHeadersTooLarge, "response head over %zu bytes", kMaxHead));
                }
                break;
            }
            case State::kChunkSize: {
                line_.push_back(p[i++]);
                size_t n = line_.size();
                if (n > 64) return fail(SRS_ERR(kErrorHttpBadChunkSize, "chunk-size line too long"));
                if (n < 2 || line_[n - 2] != '\r' || line_[n - 1] != '\n') break;
                std::string hex = line_.substr(0, line_.find_first_of(";\r"));
                char* endp = nullptr;
                unsigned long long v = strtoull(hex.c_str(), &endp, 16);
                if (hex.empty() || *endp != '\0') {
                    return fail(SRS_ERR(kErrorHttpBadChunkSize, "bad chunk size %.16s", hex.c_str()));
                }
                line_.clear();
                remaining_ = v;
                // The last chunk: the trailer is not read (the stream is over).
                state_ = v == 0 ? State::kDone : State::kChunkData;
                break;
            }
            case State::kChunkData:
            case State::kIdentity: {
                size_t take = size - i;
                if (state_ == State::kChunkData || has_length_) {
                    if (take > remaining_) take = static_cast<size_t>(remaining_);
                    remaining_ -= take;
                }
                body->append(p + i, take);
                i += take;
                if (state_ == State::kChunkData && remaining_ == 0) state_ = State::kChunkEnd;
                if (state_ == State::kIdentity && has_length_ && remaining_ == 0) state_ = State::kDone;
                break;
            }
            case State::kChunkEnd: {
                line_.push_back(p[i++]);
                if (line_.size() < 2) break;
                if (line_ != "\r\n") return fail(SRS_ERR(kErrorHttpBadChunkEnd, "chunk data not followed by CRLF"));
                line_.clear();
                state_ = State::kChunkSize;
                break;
            }
            case State::kDone:
                return Error();
        }
    }
    return Error();
}

}  // namespace srs
