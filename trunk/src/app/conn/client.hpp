// Clients of the server, whatever carries them.
//
// A Client is what the API and the server need of any client: its context
// id, what it is doing (ClientInfo), its byte counters and bit rates, and a
// way to kick it. A TCP connection (RTMP, HTTP) is one; a WebRTC session on
// a shared UDP socket is another. The ClientRegistry lists every client the
// server has, counts them for max_connections and the API, and keeps the
// totals an exporter reports.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/stats/kbps.hpp"
#include "core/clock.hpp"

namespace srs {

enum class ClientKind : uint8_t {
    kUnknown,  // not playing or publishing (yet)
    kRtmpPlay,
    kFmlePublish,   // RTMP publish the FMLE/ffmpeg/OBS way (releaseStream, FCPublish)
    kFlashPublish,  // RTMP publish the Flash way
    kFlvPlay,       // HTTP-FLV
    kRtcPlay,
    kRtcPublish,
    kEdgeIngest,  // an edge's pull of a stream from its origin ("edge-ingest")
    kHlsPlay,     // an HLS player's session (hls_ctx)
};

// The names SRS's API uses ("rtmp-play", "fmle-publish", ...); "" for kUnknown.
const char* client_kind_name(ClientKind kind);
bool client_kind_publishes(ClientKind kind);

// What a client is doing, for the API's clients list.
struct ClientInfo {
    ClientKind kind = ClientKind::kUnknown;
    std::string vhost, app, stream, tc_url, page_url, swf_url;
    bool publishing() const { return client_kind_publishes(kind); }
};

class Client {
  public:
    virtual ~Client() = default;
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    virtual const std::string& cid() const = 0;
    // The transport as the API names a client that is not playing or
    // publishing: "RTMP", "HTTP", "API", "RTC".
    virtual const std::string& protocol() const = 0;
    virtual std::string peer_ip() const = 0;
    virtual uint64_t send_bytes() const = 0;
    virtual uint64_t recv_bytes() const = 0;
    // Asks the client to end (kick, shutdown); it leaves at its next wait.
    virtual void expire() = 0;
    // Whether the API lists it: a stream client (playing or publishing);
    // a protocol that only carries streams may list its clients at once.
    virtual bool listed() const { return info_.kind != ClientKind::kUnknown; }
    // The media transport when it is not the connection itself ("udp" or
    // "tcp" for a WebRTC session); "" for the others.
    virtual const char* transport() const { return ""; }
    // Whether the server's byte totals add its bytes: false for a client
    // whose bytes another one carries (an HLS session's are its HTTP
    // connections').
    virtual bool owns_bytes() const { return true; }

    ClientInfo& info() { return info_; }
    const ClientInfo& info() const { return info_; }
    utime_t start_time_us() const { return start_us_; }
    // The 30 s bit rates, sampled by the registry's owner (not on the API's path).
    void sample_kbps(utime_t now_us) {
        send_kbps_.sample(now_us, send_bytes());
        recv_kbps_.sample(now_us, recv_bytes());
    }
    int send_kbps() const { return send_kbps_.kbps(); }
    int recv_kbps() const { return recv_kbps_.kbps(); }

  protected:
    Client() : start_us_(monotonic_us()) {}

  private:
    ClientInfo info_;
    Kbps30s send_kbps_, recv_kbps_;
    utime_t start_us_;
};

// Server-wide counters that never go down while the server runs, as an
// exporter reports them (srs_clients_total, srs_clients_errs_total,
// srs_receive_bytes_total, srs_send_bytes_total).
struct ClientTotals {
    // Stream clients, as SRS counts them: once they published or played
    // (ClientInfo::kind set), so a port probe or an API call is not one.
    uint64_t clients = 0;
    // Listed clients (RTMP from the first byte, others once they play or
    // publish) that ended with an error other than a closed peer or a kick:
    // a broken RTMP handshake counts.
    uint64_t errors = 0;
    uint64_t recv_bytes = 0;  // every client's bytes
    uint64_t send_bytes = 0;
};

// Every client of the server, by context id. Does not own them: whoever
// runs a client (the ConnectionManager, the WebRTC server) adds it when it
// starts and removes it when it ends.
class ClientRegistry {
  public:
    void add(Client* client);
    // failed: the client ended with an error. What it leaves behind is kept
    // in the totals. Removing a client that is not registered does nothing.
    void remove(Client* client, bool failed);
    Client* find(const std::string& cid) const;
    // In context-id order.
    std::vector<Client*> clients() const;
    size_t size() const { return clients_.size(); }
    void expire_all();
    void sample_kbps(utime_t now_us);

    // The clients that ended plus the ones running now (one pass over them).
    ClientTotals totals() const;

  private:
    std::map<std::string, Client*> clients_;
    ClientTotals finished_;
};

}  // namespace srs
