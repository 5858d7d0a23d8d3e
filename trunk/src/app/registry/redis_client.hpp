// One connection to Redis over the coroutine runtime, shared by the
// coroutines of the process: call() sends a command and waits its reply,
// one caller at a time (the others queue, up to the I/O timeout).
//
// Failure handling, so a Redis that is down, stalls or answers garbage
// costs a logged error and a retry, never a hang:
// - every connect, send and receive has a timeout;
// - any I/O or RESP error drops the connection; the next call connects again,
//   but not before the backoff (100 ms doubling up to backoff_max) has
//   passed: until then calls fail at once with kErrorRedisUnavailable;
// - a -ERR reply is a reply, not a connection failure (call_ok() turns it
//   into kErrorRedisReplyError for callers that want that).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/registry/registry_address.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "io/coroutine.hpp"
#include "io/socket.hpp"
#include "protocol/redis/redis_codec.hpp"

namespace srs {

struct RedisClientOptions {
    RedisAddress address;
    utime_t connect_timeout_us = 1 * kUsPerSecond;
    utime_t io_timeout_us = 1 * kUsPerSecond;
    utime_t backoff_min_us = 100 * kUsPerMs;
    utime_t backoff_max_us = 2 * kUsPerSecond;
    RedisDecoderLimits limits;
};

class RedisClient {
  public:
    explicit RedisClient(RedisClientOptions options);
    ~RedisClient();
    RedisClient(const RedisClient&) = delete;
    RedisClient& operator=(const RedisClient&) = delete;

    Error call(const std::vector<std::string>& args, RedisReply* reply);
    // call(), and a -ERR reply becomes an error.
    Error call_ok(const std::vector<std::string>& args, RedisReply* reply);
    // Connects unless connected or still backing off.
    Error ensure_connected();
    bool connected() const { return conn_ != nullptr; }
    // When the next connect may be tried (0: now).
    utime_t next_attempt_us() const { return next_attempt_us_; }
    // Successful connects so far: a change tells the registry Redis may
    // have lost its keys (a restart) and they must be written again.
    uint64_t connects() const { return connects_; }
    const RedisClientOptions& options() const { return options_; }
    // Closes the connection; the next call connects again (no backoff).
    void close();

  private:
    Error connect();
    Error connect_if_needed();
    // One user of the connection at a time (a connect or a command and its reply).
    Error lock();
    void unlock();
    Error roundtrip(const std::vector<std::string>& args, RedisReply* reply);
    void drop(const Error& why);
    RedisClientOptions options_;
    std::unique_ptr<TcpConn> conn_;
    std::unique_ptr<RedisReplyDecoder> decoder_;
    utime_t backoff_us_ = 0;
    utime_t next_attempt_us_ = 0;
    uint64_t connects_ = 0;
    std::string last_error_;
    // One command in flight: RESP replies come in order, so the reply read
    // belongs to whoever sent last only if nobody else is between.
    bool busy_ = false;
    CoCond idle_;
};

}  // namespace srs
