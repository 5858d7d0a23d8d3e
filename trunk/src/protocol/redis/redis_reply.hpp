// A Redis reply as a plain value: what the RESP decoder gives out, owning its
// bytes and children, so nothing of the parser (hiredis) outlives a decode.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace srs {

enum class RedisReplyType { kNil, kInteger, kStatus, kError, kString, kArray };

struct RedisReply {
    RedisReplyType type = RedisReplyType::kNil;
    int64_t integer = 0;             // kInteger
    std::string str;                 // kStatus, kError, kString (binary-safe)
    std::vector<RedisReply> elements;  // kArray

    bool is_nil() const { return type == RedisReplyType::kNil; }
    bool is_error() const { return type == RedisReplyType::kError; }
    // One line for logs and test failures: `"OK"`, `(integer) 1`, `(error) ERR x`, `[a, b]`.
    std::string describe() const;
};

const char* redis_reply_type_name(RedisReplyType type);

}  // namespace srs
