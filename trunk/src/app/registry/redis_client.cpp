#include "app/registry/redis_client.hpp"

#include "core/log.hpp"

namespace srs {

RedisClient::RedisClient(RedisClientOptions options) : options_(std::move(options)) {}

RedisClient::~RedisClient() = default;

void RedisClient::close() {
    conn_.reset();
    decoder_.reset();
}

void RedisClient::drop(const Error& why) {
    conn_.reset();
    decoder_.reset();
    backoff_us_ = backoff_us_ ? backoff_us_ * 2 : options_.backoff_min_us;
    if (backoff_us_ > options_.backoff_max_us) backoff_us_ = options_.backoff_max_us;
    next_attempt_us_ = monotonic_us() + backoff_us_;
    last_error_ = why.summary();
    srs_error("redis %s: %s; retry in %d ms", options_.address.to_string().c_str(), last_error_.c_str(),
              (int)(backoff_us_ / kUsPerMs));
}

Error RedisClient::connect() {
    const RedisAddress& a = options_.address;
    TcpConn* raw = nullptr;
    if (Error err = TcpConn::connect(a.host, a.port, options_.connect_timeout_us, &raw); err.failed()) {
        return SRS_WRAP(err, "connect %s:%d", a.host.c_str(), a.port);
    }
    conn_.reset(raw);
    conn_->set_recv_timeout(options_.io_timeout_us);
    conn_->set_send_timeout(options_.io_timeout_us);
    conn_->set_nodelay(true).ignore();  // one small command at a time: do not wait for Nagle
    decoder_.reset(new RedisReplyDecoder(options_.limits));
    if (a.db != 0) {
        RedisReply reply;
        if (Error err = roundtrip({"SELECT", std::to_string(a.db)}, &reply); err.failed()) {
            return SRS_WRAP(err, "select %d", a.db);
        }
        if (reply.type != RedisReplyType::kStatus) {
            return SRS_ERR(kErrorRedisReplyError, "SELECT %d answered %s", a.db, reply.describe().c_str());
        }
    }
    return Error();
}

Error RedisClient::ensure_connected() {
    if (Error err = lock(); err.failed()) return err;
    Error err = connect_if_needed();
    unlock();
    return err;
}

Error RedisClient::connect_if_needed() {
    if (conn_) return Error();
    utime_t now = monotonic_us();
    if (now < next_attempt_us_) {
        return SRS_ERR(kErrorRedisUnavailable, "redis %s is unavailable (%s), next connect in %d ms",
                       options_.address.to_string().c_str(), last_error_.c_str(),
                       (int)((next_attempt_us_ - now) / kUsPerMs));
    }
    if (Error err = connect(); err.failed()) {
        drop(err);
        return SRS_WRAP(err, "redis %s", options_.address.to_string().c_str());
    }
    srs_trace("redis %s: connected", options_.address.to_string().c_str());
    connects_++;
    backoff_us_ = 0;
    last_error_.clear();
    return Error();
}

Error RedisClient::lock() {
    utime_t deadline = monotonic_us() + options_.io_timeout_us + options_.connect_timeout_us;
    while (busy_) {
        utime_t left = deadline - monotonic_us();
        if (left <= 0 || (!idle_.wait(left) && busy_)) {
            return SRS_ERR(kErrorSocketTimeout, "redis %s: another command still waits its reply",
                           options_.address.to_string().c_str());
        }
    }
    busy_ = true;
    return Error();
}

void RedisClient::unlock() {
    busy_ = false;
    idle_.signal();
}

Error RedisClient::roundtrip(const std::vector<std::string>& args, RedisReply* reply) {
    std::string out;
    redis_encode_command(args, &out);
    if (Error err = conn_->write(out.data(), out.size()); err.failed()) return SRS_WRAP(err, "send %s", args[0].c_str());
    char buf[4096];
    while (true) {
        bool got = false;
        if (Error err = decoder_->next(reply, &got); err.failed()) return SRS_WRAP(err, "reply to %s", args[0].c_str());
        if (got) return Error();
        size_t n = 0;
        if (Error err = conn_->read(buf, sizeof(buf), &n); err.failed()) {
            return SRS_WRAP(err, "wait reply to %s", args[0].c_str());
        }
        if (Error err = decoder_->feed(buf, n); err.failed()) return SRS_WRAP(err, "reply to %s", args[0].c_str());
    }
}

Error RedisClient::call(const std::vector<std::string>& args, RedisReply* reply) {
    if (Error err = lock(); err.failed()) return err;
    Error err = connect_if_needed();
    if (err.ok()) {
        err = roundtrip(args, reply);
        // Out of step now (a timeout may leave the reply in flight): start afresh.
        // An interrupted caller (its connection closing) says nothing about Redis: no backoff.
        if (err.failed() && err.code() == kErrorThreadInterrupted) {
            close();
        } else if (err.failed()) {
            drop(err);
        }
    }
    unlock();
    return err;
}

Error RedisClient::call_ok(const std::vector<std::string>& args, RedisReply* reply) {
    if (Error err = call(args, reply); err.failed()) return err;
    if (reply->is_error()) {
        return SRS_ERR(kErrorRedisReplyError, "redis %s: %s answered %s", options_.address.to_string().c_str(),
                       args[0].c_str(), reply->describe().c_str());
    }
    return Error();
}

}  // namespace srs
