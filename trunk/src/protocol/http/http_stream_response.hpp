// Client side of one HTTP/1.1 response whose body is a stream (an HTTP-FLV
// pull): sans-IO, fed whatever the socket gave, in pieces of any size.
//
// feed() consumes all of `data`: head bytes are kept until the empty line
// (at most kMaxHead), then the body is appended to *body, de-chunked when
// "Transfer-Encoding: chunked", cut at Content-Length when there is one, else
// running until the connection closes. Returns an error on a malformed
// status line, header, chunk-size line or chunk end, or a head too large;
// the parser then stays failed. Bytes after the end of the body are ignored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace srs {

class HttpStreamResponse {
  public:
    static constexpr size_t kMaxHead = 16 * 1024;

    Error feed(const uint8_t* data, size_t size, std::string* body);

    bool head_done() const { return state_ != State::kHead; }
    int status() const { return status_; }
    // The first field named `name` (ASCII case-insensitive), or nullptr.
    const std::string* header(const std::string& name) const;
    bool chunked() const { return chunked_; }
    // The body ended (last chunk, or Content-Length reached).
    bool ended() const { return state_ == State::kDone; }

  private:
    enum class State { kHead, kChunkSize, kChunkData, kChunkEnd, kIdentity, kDone };
    Error parse_head();
    Error fail(Error err);

    State state_ = State::kHead;
    bool failed_ = false;
    std::string line_;  // head bytes, or a chunk-size line, being gathered
    int status_ = 0;
    std::vector<std::pair<std::string, std::string>> headers_;
    bool chunked_ = false;
    bool has_length_ = false;
    uint64_t remaining_ = 0;  // of the chunk or of Content-Length
};

}  // namespace srs
