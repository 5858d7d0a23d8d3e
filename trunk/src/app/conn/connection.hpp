// TCP connections and their owner.
//
// A Connection is one accepted TCP client served by its own coroutine; as a
// Client it is listed, counted and kicked through the ClientRegistry like
// any other. The ConnectionManager owns every connection: it starts them,
// registers them, kicks them (shutdown), and frees them after their
// coroutine ended. A coroutine cannot free its own stack, so a finished
// connection is handed to the manager's disposer coroutine, which joins and
// deletes it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/conn/client.hpp"
#include "core/error.hpp"
#include "io/coroutine.hpp"
#include "io/socket.hpp"

namespace srs {

class ConnectionManager;

class Connection : public Client, public CoroutineHandler {
  public:
    // Takes ownership of sock. protocol: "RTMP", "HTTP", "API".
    Connection(ConnectionManager* manager, TcpConn* sock, std::string protocol);
    ~Connection() override;

    Error start();

    // Client.
    const std::string& cid() const override { return coroutine_.cid(); }
    const std::string& protocol() const override { return protocol_; }
    std::string peer_ip() const override { return sock_->peer().ip; }
    uint64_t send_bytes() const override { return sock_->send_bytes(); }
    uint64_t recv_bytes() const override { return sock_->recv_bytes(); }
    // Kick: the coroutine ends at its next wait.
    void expire() override;

    const Endpoint& peer() const { return sock_->peer(); }
    TcpConn* socket() { return sock_.get(); }

    // Fails once the connection was asked to end (kick, shutdown): loops
    // that never block for long check it between steps.
    Error pull() const { return coroutine_.pull(); }

  protected:
    // The protocol loop. Returning ends the connection; an error is logged
    // once by the manager's side (a closed peer is logged as a plain close).
    virtual Error serve() = 0;
    // A derived class calls it first in its destructor: at shutdown the
    // coroutine still runs (interrupted) and may use the derived members on
    // its way out (an on_stop hook reads the request), so it must end first.
    void stop_coroutine() { coroutine_.stop(); }

  private:
    Error cycle() final;
    ConnectionManager* manager_;
    std::unique_ptr<TcpConn> sock_;
    std::string protocol_;
    Coroutine coroutine_;
};

class ConnectionManager : public CoroutineHandler {
  public:
    // Connections are registered with clients while they run.
    explicit ConnectionManager(ClientRegistry* clients);
    ~ConnectionManager() override;

    Error start();
    // Stops and frees every connection, then the disposer.
    void stop();
    // Takes ownership, registers and starts the connection; on failure it is freed.
    Error add(Connection* conn);
    // Connections running (TCP clients only).
    size_t size() const { return live_.size(); }
    // Asks every connection to end.
    void expire_all();
    // Called by a connection's coroutine as its last act; failed: it ended
    // with an error.
    void on_finished(Connection* conn, bool failed);

  private:
    Error cycle() override;
    void dispose_zombies();
    ClientRegistry* clients_;
    std::map<std::string, Connection*> live_;
    std::vector<Connection*> zombies_;
    CoCond zombie_cond_;
    Coroutine disposer_;
};

}  // namespace srs
