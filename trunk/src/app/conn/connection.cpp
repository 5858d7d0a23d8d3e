#include "app/conn/connection.hpp"

#include "core/log.hpp"

namespace srs {

Connection::Connection(ConnectionManager* manager, TcpConn* sock, std::string protocol)
    : manager_(manager), sock_(sock), protocol_(std::move(protocol)), coroutine_(protocol_, this) {}

Connection::~Connection() { coroutine_.stop(); }

Error Connection::start() { return coroutine_.start(); }

void Connection::expire() { coroutine_.interrupt(); }

Error Connection::cycle() {
    srs_trace("%s client %s accepted, fd=%d", protocol_.c_str(), peer().to_string().c_str(), sock_->fd());
    Error err = serve();
    int code = err.code();
    bool failed = false;
    if (err.ok()) {
        srs_trace("%s client %s done", protocol_.c_str(), peer().to_string().c_str());
    } else if (code == kErrorSocketClosed || code == kErrorThreadInterrupted) {
        // Expected ends: the peer left, or we were asked to stop.
        srs_trace("%s client %s closed: %s", protocol_.c_str(), peer().to_string().c_str(), err.summary().c_str());
    } else {
        failed = true;
        srs_warn("%s client %s failed: %s", protocol_.c_str(), peer().to_string().c_str(), err.describe().c_str());
    }
    // Release the socket now; the object itself is freed by the disposer.
    sock_->close();
    manager_->on_finished(this, failed);
    return Error();
}

ConnectionManager::ConnectionManager(ClientRegistry* clients) : clients_(clients), disposer_("disposer", this) {}

ConnectionManager::~ConnectionManager() { stop(); }

Error ConnectionManager::start() { return disposer_.start(); }

void ConnectionManager::stop() {
    // Interrupt all, then join each; on_finished() moves them to zombies.
    expire_all();
    while (!live_.empty()) {
        Connection* conn = live_.begin()->second;
        live_.erase(live_.begin());
        clients_->remove(conn, false);
        delete conn;  // joins its coroutine
    }
    disposer_.stop();
    dispose_zombies();
}

Error ConnectionManager::add(Connection* conn) {
    live_[conn->cid()] = conn;
    clients_->add(conn);
    if (Error err = conn->start(); !err.ok()) {
        live_.erase(conn->cid());
        clients_->remove(conn, true);
        delete conn;
        return SRS_WRAP(err, "start connection");
    }
    return Error();
}

void ConnectionManager::expire_all() {
    for (auto& kv : live_) kv.second->expire();
}

void ConnectionManager::on_finished(Connection* conn, bool failed) {
    clients_->remove(conn, failed);
    auto it = live_.find(conn->cid());
    // stop() may already have taken it out and is deleting it.
    if (it == live_.end() || it->second != conn) return;
    live_.erase(it);
    zombies_.push_back(conn);
    zombie_cond_.signal();
}

Error ConnectionManager::cycle() {
    while (true) {
        if (Error err = disposer_.pull(); !err.ok()) {
            err.ignore();
            return Error();
        }
        zombie_cond_.wait();
        dispose_zombies();
    }
}

void ConnectionManager::dispose_zombies() {
    std::vector<Connection*> zombies;
    zombies.swap(zombies_);
    for (Connection* conn : zombies) delete conn;
}

}  // namespace srs
