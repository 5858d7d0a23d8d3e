// RESP (REdis Serialization Protocol, version 2) for a client, sans-IO:
// commands go out as bytes, reply bytes come in and replies come out.
//
//   command:  *<argc>\r\n  then per argument  $<len>\r\n<bytes>\r\n
//   replies:  +status\r\n  -error\r\n  :integer\r\n  $<len>\r\n<bytes>\r\n
//             $-1\r\n (nil)  *<n>\r\n<n replies>  *-1\r\n (nil)
//
// Decoding is done by hiredis's reply reader (<hiredis/read.h>), given our
// own object functions so each reply is built straight into a RedisReply and
// the reader's limits are ours (element counts are checked before anything
// is allocated for them). No socket here: the caller reads bytes and feeds.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "protocol/redis/redis_reply.hpp"

namespace srs {

// Appends the command (args[0] is its name) to *out; binary-safe.
void redis_encode_command(const std::vector<std::string>& args, std::string* out);

struct RedisDecoderLimits {
    // Bytes buffered for an unfinished reply: a "$4000000000\r\n" header
    // must not make us hold gigabytes before we notice.
    size_t max_pending_bytes = 64 * 1024 * 1024;
    // Elements of one array (hiredis allocates them up front).
    int max_array_elements = 1024 * 1024;
};

class RedisReplyDecoder {
  public:
    explicit RedisReplyDecoder(RedisDecoderLimits limits = RedisDecoderLimits());
    ~RedisReplyDecoder();
    RedisReplyDecoder(const RedisReplyDecoder&) = delete;
    RedisReplyDecoder& operator=(const RedisReplyDecoder&) = delete;

    // Buffers bytes. Fails when the decoder failed before (the stream is
    // out of step: drop the connection and make a new decoder).
    Error feed(const void* data, size_t size);
    // Takes the next complete reply into *out and sets *got; *got is false
    // when more bytes are needed. A RESP violation or a limit is an error,
    // and every later call fails too.
    Error next(RedisReply* out, bool* got);
    // Bytes fed but not yet turned into replies.
    size_t pending_bytes() const;
    bool failed() const { return failed_; }

  private:
    Error fail(int code, const char* why);
    void* reader_ = nullptr;  // redisReader
    RedisDecoderLimits limits_;
    bool failed_ = false;
    bool over_limit_ = false;  // set by the object functions when they refuse
    std::string failure_;
    friend struct RedisReaderCallbacks;
};

}  // namespace srs
