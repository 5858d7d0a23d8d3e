// A listening socket with a coroutine that accepts clients and hands each
// to a handler.
#pragma once

#include <memory>
#include <string>

#include "io/coroutine.hpp"
#include "io/socket.hpp"

namespace srs {

class TcpAcceptor;

class TcpClientHandler {
  public:
    virtual ~TcpClientHandler() = default;
    // Takes ownership of conn.
    virtual void on_tcp_client(TcpAcceptor* acceptor, TcpConn* conn) = 0;
};

class TcpAcceptor : public CoroutineHandler {
  public:
    TcpAcceptor(std::string kind, std::string ip, int port, TcpClientHandler* handler);
    ~TcpAcceptor() override;
    // group_size > 0: attach the balanced reuseport program (io/reuseport_balance.hpp)
    // when listening.
    void set_reuseport_balance(int group_size) { balance_ = group_size; }
    Error listen();
    void close();
    const std::string& kind() const { return kind_; }
    Endpoint endpoint() const { return Endpoint{listener_.ip(), listener_.port()}; }

  private:
    Error cycle() override;
    std::string kind_;
    TcpListener listener_;
    TcpClientHandler* handler_;
    int balance_ = 0;
    Coroutine coroutine_;
};

}  // namespace srs
