#include "app/rtc/rtc_tcp_conn.hpp"

#include <cstring>

#include "core/log.hpp"
#include "io/runtime.hpp"

namespace srs {

namespace {

constexpr utime_t kTcpIdleTimeout = 30 * kUsPerSecond;  // no frame for this long: the peer is gone

}  // namespace

class RtcTcpConn::Reader : public CoroutineHandler {
  public:
    explicit Reader(RtcTcpConn* c) : conn_(c), co_("rtc-tcp-read", this, c->cid_) {}
    Error cycle() override { return conn_->read_cycle(); }
    RtcTcpConn* conn_;
    Coroutine co_;
};

class RtcTcpConn::Writer : public CoroutineHandler {
  public:
    explicit Writer(RtcTcpConn* c) : conn_(c), co_("rtc-tcp-write", this, c->cid_) {}
    Error cycle() override { return conn_->write_cycle(); }
    RtcTcpConn* conn_;
    Coroutine co_;
};

RtcTcpConn::RtcTcpConn(RtcTcpOwner* owner, TcpConn* sock)
    : owner_(owner), sock_(sock), cid_(new_context_id()), decoder_(65535) {}

RtcTcpConn::~RtcTcpConn() { stop(); }

Error RtcTcpConn::start() {
    sock_->set_recv_timeout(kTcpIdleTimeout);
    sock_->set_send_timeout(kTcpIdleTimeout);
    reader_.reset(new Reader(this));
    writer_.reset(new Writer(this));
    if (Error err = reader_->co_.start(); err.failed()) return err;
    return writer_->co_.start();
}

void RtcTcpConn::stop() {
    if (reader_) reader_->co_.stop();
    if (writer_) writer_->co_.stop();
    done_ = true;
}

void RtcTcpConn::commit(size_t len) {
    if (done_ || len == 0 || len > 65535) return;
    if (out_.size() + 2 + len > kMaxPending) {
        dropped_++;
        return;
    }
    uint8_t* frame = scratch_;
    if (Error err = rfc4571_header(len, frame); err.failed()) {
        err.ignore();
        return;
    }
    out_.append(reinterpret_cast<const char*>(frame), 2 + len);
    writable_.signal();
}

Error RtcTcpConn::read_cycle() {
    uint8_t buf[16 * 1024];
    Error result;
    while (true) {
        if (Error err = reader_->co_.pull(); err.failed()) {
            result = std::move(err);
            break;
        }
        size_t n = 0;
        if (Error err = sock_->read(buf, sizeof(buf), &n); err.failed()) {
            result = std::move(err);
            break;
        }
        if (Error err = decoder_.feed(buf, n); err.failed()) {
            srs_warn("RTC: tcp %s: %s, closing", sock_->peer().to_string().c_str(), err.summary().c_str());
            result = std::move(err);
            break;
        }
        uint8_t* frame = nullptr;
        size_t size = 0;
        utime_t now = monotonic_us();
        while (decoder_.next(&frame, &size)) owner_->on_tcp_frame(this, frame, size, now);
    }
    done_ = true;
    writable_.signal();
    return result;
}

Error RtcTcpConn::write_cycle() {
    std::string sending;
    while (!done_) {
        if (out_.empty()) {
            writable_.wait(kUsPerSecond);
            if (Error err = writer_->co_.pull(); err.failed()) return err;
            continue;
        }
        sending.swap(out_);
        out_.clear();
        if (Error err = sock_->write(sending.data(), sending.size()); err.failed()) {
            done_ = true;
            return err;
        }
        sending.clear();
    }
    return Error();
}

}  // namespace srs
