// HLS player sessions (hls_ctx), without I/O.
//
// HLS players are not connections: a player fetches its playlist and
// segments over many short requests, maybe on many connections. SRS names
// each player by a session id carried in the query (hls_ctx=<id>): the first
// playlist request gets a one-entry master playlist whose variant URI holds
// the id, and the media playlist it then fetches has every segment URI
// rewritten to carry it too. A session is a Client of its own ("hls-play" in
// the API) with the bytes of its segments; it ends after 2 x hls_window
// without requests. The clock is passed in, so the table runs on a fake clock
// in tests.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/conn/client.hpp"
#include "app/http/hls_ctx_playlist.hpp"
#include "app/hooks/hook_contract.hpp"

namespace srs {

// One HLS player. Its id is its context id in the clients registry, in the
// API and in the hooks' client_id (as SRS).
class HlsSession : public Client {
  public:
    HlsSession(std::string id, std::string ip, HookRequest hook)
        : id_(std::move(id)), ip_(std::move(ip)), hook_(std::move(hook)) {}

    // Client.
    const std::string& cid() const override { return id_; }
    const std::string& protocol() const override { return protocol_; }
    std::string peer_ip() const override { return ip_; }
    uint64_t send_bytes() const override { return send_bytes_; }
    uint64_t recv_bytes() const override { return 0; }
    // The API's kick: the session answers 404 from now on and leaves the
    // registry at once; it is dropped (with on_stop) when it expires.
    void expire() override;
    // Its bytes went out on HTTP connections, which count them already.
    bool owns_bytes() const override { return false; }

    bool interrupted() const { return interrupted_; }
    void add_send_bytes(uint64_t n) { send_bytes_ += n; }
    // What on_play was told; on_stop is told the same.
    const HookRequest& hook() const { return hook_; }
    utime_t deadline_us() const { return deadline_us_; }

  private:
    friend class HlsSessionTable;
    // Out of the clients registry (once).
    void unregister();
    std::string id_;
    std::string protocol_ = "HTTP";
    std::string ip_;
    HookRequest hook_;
    uint64_t send_bytes_ = 0;
    bool interrupted_ = false;
    utime_t deadline_us_ = 0;
    ClientRegistry* clients_ = nullptr;
    size_t* listed_ = nullptr;  // the table's count of registered sessions
};

// The sessions by id. Sessions in the table are in the clients registry
// until they are kicked or expire.
class HlsSessionTable {
  public:
    // clients: where sessions are listed (may be null in tests); outlives the table.
    explicit HlsSessionTable(ClientRegistry* clients) : clients_(clients) {}
    ~HlsSessionTable() { clear(); }
    HlsSessionTable(const HlsSessionTable&) = delete;
    HlsSessionTable& operator=(const HlsSessionTable&) = delete;

    HlsSession* find(const std::string& id) const;
    // Whether the id is free: no session and no other client has it.
    bool id_free(const std::string& id) const;
    // Adds a session (registered as an hls-play client of info's stream),
    // alive until now + idle_us unless touched. The id must be free.
    HlsSession* create(const std::string& id, const std::string& ip, const ClientInfo& info, HookRequest hook,
                       utime_t now_us, utime_t idle_us);
    // A request of the session: alive until now + idle_us (a kicked session is not revived).
    void touch(HlsSession* s, utime_t now_us, utime_t idle_us);
    // Drops a session at once (its on_play failed): no on_stop is owed.
    void drop(HlsSession* s);
    // The sessions whose time ran out, out of the table and the registry; the
    // caller tells on_stop.
    std::vector<std::unique_ptr<HlsSession>> take_expired(utime_t now_us);
    // Unregisters and frees every session (shutdown: no on_stop).
    void clear();
    size_t size() const { return sessions_.size(); }
    // Sessions in the clients registry (kicked ones are not).
    size_t listed() const { return listed_; }

  private:
    ClientRegistry* clients_;
    size_t listed_ = 0;
    std::map<std::string, std::unique_ptr<HlsSession>> sessions_;
};

}  // namespace srs
