// Connections and their owner.
//
// A Connection is one accepted client served by its own coroutine. The
// ConnectionManager owns every connection: it starts them, counts them for
// max_connections, kicks them (API, shutdown), and frees them after their
// coroutine ended. A coroutine cannot free its own stack, so a finished
// connection is handed to the manager's disposer coroutine, which joins and
// deletes it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/coroutine.hpp"
#include "app/stats/kbps.hpp"
#include "io/socket.hpp"

namespace srs {

class ConnectionManager;

// What a connection is doing, for the API's clients list.
struct ClientInfo {
    std::string type;  // "rtmp-play", "fmle-publish", "flash-publish", "flv-play"; "" until known
    std::string vhost, app, stream, tc_url, page_url, swf_url;
    bool publishing() const { return type.find("publish") != std::string::npos; }
};

class Connection : public CoroutineHandler {
  public:
    // Takes ownership of sock.
    Connection(ConnectionManager* manager, TcpConn* sock, std::string kind);
    ~Connection() override;

    Error start();
    // Asks the connection to end (kick); its coroutine ends at its next wait.
    void expire();
    const std::string& cid() const { return coroutine_.cid(); }
    const std::string& kind() const { return kind_; }
    const Endpoint& peer() const { return sock_->peer(); }
    TcpConn* socket() { return sock_.get(); }
    utime_t start_time_us() const { return start_us_; }
    ClientInfo& info() { return info_; }
    const ClientInfo& info() const { return info_; }
    // A publisher or player, as SRS counts clients: RTMP connections from
    // their first byte, HTTP ones once they play a stream (API calls, static
    // files and metrics scrapes are not clients).
    bool is_stream_client() const { return kind_ == "RTMP" || !info_.type.empty(); }
    // Whether serve() ended with an error other than the peer closing or a kick.
    bool failed() const { return failed_; }
    void sample_kbps(utime_t now_us) {
        send_kbps_.sample(now_us, sock_->send_bytes());
        recv_kbps_.sample(now_us, sock_->recv_bytes());
    }
    int send_kbps() const { return send_kbps_.kbps(); }
    int recv_kbps() const { return recv_kbps_.kbps(); }

    // Fails once the connection was asked to end (kick, shutdown): loops
    // that never block for long check it between steps.
    Error pull() const { return coroutine_.pull(); }

  protected:
    // The protocol loop. Returning ends the connection; an error is logged
    // once by the manager's side (a closed peer is logged as a plain close).
    virtual Error serve() = 0;

  private:
    Error cycle() final;
    ClientInfo info_;
    Kbps30s send_kbps_, recv_kbps_;
    ConnectionManager* manager_;
    std::unique_ptr<TcpConn> sock_;
    std::string kind_;
    Coroutine coroutine_;
    utime_t start_us_;
    bool failed_ = false;
};

// What connections that already ended leave behind, so server-wide totals
// stay monotonic (the live connections' part is summed at read time).
// Clients count as SRS counts them: once they published or played (their
// ClientInfo has a type), so a port probe is not a client; errors count
// every stream connection that failed, a broken RTMP handshake included.
struct FinishedTotals {
    uint64_t clients = 0;        // connections that had published or played
    uint64_t client_errors = 0;  // stream connections (is_stream_client) that failed
    uint64_t recv_bytes = 0;     // every connection's bytes
    uint64_t send_bytes = 0;
};

class ConnectionManager : public CoroutineHandler {
  public:
    ConnectionManager();
    ~ConnectionManager() override;

    Error start();
    // Stops and frees every connection, then the disposer.
    void stop();
    // Takes ownership and starts the connection; on failure it is freed.
    Error add(Connection* conn);
    size_t size() const { return live_.size(); }
    Connection* find(const std::string& cid) const;
    std::vector<Connection*> connections() const;
    // Asks every connection to end.
    void expire_all();
    // Called by a connection's coroutine as its last act.
    void on_finished(Connection* conn);
    uint64_t total_accepted() const { return total_; }
    const FinishedTotals& finished() const { return finished_; }

  private:
    Error cycle() override;
    void dispose_zombies();
    std::map<std::string, Connection*> live_;
    std::vector<Connection*> zombies_;
    CoCond zombie_cond_;
    Coroutine disposer_;
    uint64_t total_ = 0;
    FinishedTotals finished_;
};

}  // namespace srs
