#include "app/conn/tcp_acceptor.hpp"

#include "core/log.hpp"
#include "io/reuseport_balance.hpp"
#include "io/runtime.hpp"

namespace srs {

TcpAcceptor::TcpAcceptor(std::string kind, std::string ip, int port, TcpClientHandler* handler)
    : kind_(std::move(kind)), listener_(std::move(ip), port), handler_(handler), coroutine_("accept-" + kind_, this) {}

TcpAcceptor::~TcpAcceptor() { close(); }

Error TcpAcceptor::listen() {
    if (Error err = listener_.listen(); !err.ok()) return SRS_WRAP(err, "%s listener", kind_.c_str());
    if (balance_ > 0) {
        // Without the program the port still works (the kernel's hash): warn, go on.
        if (Error err = attach_reuseport_balance(listener_.fd(), balance_); !err.ok()) {
            srs_warn("%s reuseport_balance %d not applied, the kernel's hash spreads connections: %s", kind_.c_str(),
                     balance_, err.describe().c_str());
            err.ignore();
        } else {
            srs_trace("%s reuseport_balance: connections in turn over %d sockets", kind_.c_str(), balance_);
        }
    }
    if (Error err = coroutine_.start(); !err.ok()) return SRS_WRAP(err, "%s listener", kind_.c_str());
    srs_trace("%s listen at tcp://%s, fd=%d", kind_.c_str(), endpoint().to_string().c_str(), listener_.fd());
    return Error();
}

void TcpAcceptor::close() {
    coroutine_.stop();
    listener_.close();
}

Error TcpAcceptor::cycle() {
    while (true) {
        if (Error err = coroutine_.pull(); !err.ok()) {
            err.ignore();
            return Error();
        }
        TcpConn* conn = nullptr;
        Error err = listener_.accept(&conn);
        if (err.ok()) {
            handler_->on_tcp_client(this, conn);
            continue;
        }
        if (err.code() == kErrorThreadInterrupted) return Error();
        // EMFILE and friends: say so, back off, keep serving.
        srs_warn("%s accept: %s", kind_.c_str(), err.summary().c_str());
        if (Error serr = sleep_us(100 * kUsPerMs); !serr.ok()) {
            serr.ignore();
            return Error();
        }
    }
}

}  // namespace srs
