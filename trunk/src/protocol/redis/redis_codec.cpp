#include "protocol/redis/redis_codec.hpp"

#include <hiredis/read.h>

#include <new>

namespace srs {

void redis_encode_command(const std::vector<std::string>& args, std::string* out) {
    out->append("*").append(std::to_string(args.size())).append("\r\n");
    for (const std::string& a : args) {
        out->append("$").append(std::to_string(a.size())).append("\r\n");
        out->append(a).append("\r\n");
    }
}

// hiredis calls these as it parses. A root reply is a heap RedisReply (the
// reader frees it with freeObject if it fails half-way); a child is the slot
// of its parent's elements, sized when the array was created, so children
// need no freeing of their own and no pointer into them ever dangles.
struct RedisReaderCallbacks {
    static RedisReplyDecoder* decoder(const redisReadTask* task) {
        // The reader's privdata is stored on every task (hiredis 0.14 copies it).
        return static_cast<RedisReplyDecoder*>(task->privdata);
    }
    static RedisReply* slot(const redisReadTask* task) {
        if (!task->parent) return new (std::nothrow) RedisReply();
        RedisReply* parent = static_cast<RedisReply*>(task->parent->obj);
        if (!parent || task->idx < 0 || static_cast<size_t>(task->idx) >= parent->elements.size()) return nullptr;
        return &parent->elements[task->idx];
    }
    static void* create_string(const redisReadTask* task, char* str, size_t len) {
        RedisReply* r = slot(task);
        if (!r) return nullptr;
        if (task->type == REDIS_REPLY_STATUS) {
            r->type = RedisReplyType::kStatus;
        } else if (task->type == REDIS_REPLY_ERROR) {
            r->type = RedisReplyType::kError;
        } else {
            r->type = RedisReplyType::kString;
        }
        r->str.assign(str, len);
        return r;
    }
    static void* create_array(const redisReadTask* task, int elements) {
        RedisReplyDecoder* d = decoder(task);
        if (d && elements > d->limits_.max_array_elements) {
            d->over_limit_ = true;
            return nullptr;  // hiredis turns this into an error of its own
        }
        RedisReply* r = slot(task);
        if (!r) return nullptr;
        r->type = RedisReplyType::kArray;
        r->elements.resize(elements > 0 ? elements : 0);
        return r;
    }
    static void* create_integer(const redisReadTask* task, long long value) {
        RedisReply* r = slot(task);
        if (!r) return nullptr;
        r->type = RedisReplyType::kInteger;
        r->integer = value;
        return r;
    }
    static void* create_nil(const redisReadTask* task) {
        RedisReply* r = slot(task);
        if (!r) return nullptr;
        r->type = RedisReplyType::kNil;
        return r;
    }
    // Only ever given a root (hiredis frees nothing else).
    static void free_object(void* obj) { delete static_cast<RedisReply*>(obj); }
};

namespace {

redisReplyObjectFunctions g_functions = {
    RedisReaderCallbacks::create_string, RedisReaderCallbacks::create_array, RedisReaderCallbacks::create_integer,
    RedisReaderCallbacks::create_nil, RedisReaderCallbacks::free_object,
};

redisReader* as_reader(void* p) { return static_cast<redisReader*>(p); }

}  // namespace

RedisReplyDecoder::RedisReplyDecoder(RedisDecoderLimits limits) : limits_(limits) {
    redisReader* r = redisReaderCreateWithFunctions(&g_functions);
    if (r) {
        r->privdata = this;
        reader_ = r;
    } else {
        failed_ = true;
        failure_ = "redisReaderCreateWithFunctions failed (out of memory)";
    }
}

RedisReplyDecoder::~RedisReplyDecoder() {
    if (reader_) redisReaderFree(as_reader(reader_));
}

size_t RedisReplyDecoder::pending_bytes() const {
    if (!reader_) return 0;
    const redisReader* r = as_reader(reader_);
    return r->len > r->pos ? r->len - r->pos : 0;
}

Error RedisReplyDecoder::fail(int code, const char* why) {
    failed_ = true;
    failure_ = why;
    return SRS_ERR(code, "RESP: %s", why);
}

Error RedisReplyDecoder::feed(const void* data, size_t size) {
    if (failed_) return SRS_ERR(kErrorRedisProtocol, "RESP decoder failed before: %s", failure_.c_str());
    if (size == 0) return Error();
    if (redisReaderFeed(as_reader(reader_), static_cast<const char*>(data), size) != REDIS_OK) {
        return fail(kErrorRedisProtocol, "hiredis could not buffer the bytes (out of memory)");
    }
    return Error();
}

Error RedisReplyDecoder::next(RedisReply* out, bool* got) {
    *got = false;
    if (failed_) return SRS_ERR(kErrorRedisProtocol, "RESP decoder failed before: %s", failure_.c_str());
    redisReader* r = as_reader(reader_);
    void* obj = nullptr;
    if (redisReaderGetReply(r, &obj) != REDIS_OK) {
        if (over_limit_) {
            std::string why = "an array over " + std::to_string(limits_.max_array_elements) + " elements";
            return fail(kErrorRedisReplyTooLarge, why.c_str());
        }
        std::string why = std::string("hiredis: ") + r->errstr;
        return fail(kErrorRedisProtocol, why.c_str());
    }
    if (!obj) {
        if (pending_bytes() > limits_.max_pending_bytes) {
            std::string why = "an unfinished reply holds " + std::to_string(pending_bytes()) + " bytes, over " +
                              std::to_string(limits_.max_pending_bytes);
            return fail(kErrorRedisReplyTooLarge, why.c_str());
        }
        return Error();
    }
    RedisReply* reply = static_cast<RedisReply*>(obj);
    *out = std::move(*reply);
    delete reply;
    *got = true;
    return Error();
}

}  // namespace srs
