#include "protocol/redis/redis_reply.hpp"

#include <cinttypes>
#include <cstdio>

namespace srs {

const char* redis_reply_type_name(RedisReplyType type) {
    switch (type) {
        case RedisReplyType::kNil: return "nil";
        case RedisReplyType::kInteger: return "integer";
        case RedisReplyType::kStatus: return "status";
        case RedisReplyType::kError: return "error";
        case RedisReplyType::kString: return "string";
        case RedisReplyType::kArray: return "array";
    }
    return "unknown";
}

namespace {

// Printable ASCII as is, the rest as \xNN, cut after 64 bytes: a log line
// must stay one short line whatever Redis sent.
std::string quoted(const std::string& s) {
    std::string out = "\"";
    size_t n = s.size() < 64 ? s.size() : 64;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            out += static_cast<char>(c);
        } else {
            char hex[8];
            snprintf(hex, sizeof(hex), "\\x%02x", c);
            out += hex;
        }
    }
    if (n < s.size()) out += "...";
    return out + "\"";
}

}  // namespace

std::string RedisReply::describe() const {
    switch (type) {
        case RedisReplyType::kNil: return "(nil)";
        case RedisReplyType::kInteger: {
            char buf[32];
            snprintf(buf, sizeof(buf), "(integer) %" PRId64, integer);
            return buf;
        }
        case RedisReplyType::kStatus: return str;
        case RedisReplyType::kError: return "(error) " + str;
        case RedisReplyType::kString: return quoted(str);
        case RedisReplyType::kArray: {
            std::string out = "[";
            for (size_t i = 0; i < elements.size(); i++) {
                if (i) out += ", ";
                if (i == 8) {
                    out += "...";
                    break;
                }
                out += elements[i].describe();
            }
            return out + "]";
        }
    }
    return "(unknown)";
}

}  // namespace srs
