// WebRTC sessions still "pending": made by an offer, their peer has not yet
// sent a STUN binding request that verified. Anyone who can reach the API can
// make one with a POST, so they are bounded apart from every other client:
//
//   - at most `total` of them (rtc_server.pending_sessions);
//   - at most `per_address` signalled from one address
//     (rtc_server.pending_sessions_per_ip): the HTTP peer of the offer, an
//     IPv6 peer by its /64, as one host usually holds a whole /64;
//   - each for at most `timeout` (rtc_server.pending_timeout): the server
//     closes what expired() returns.
//
// A pending session counts against neither max_connections nor the API's
// clients; its first verified binding (verify()) makes it an ordinary
// client. An offer past a bound is refused with kErrorExceedConnections
// (SRS's ERROR_EXCEED_CONNECTIONS, HTTP 503).
//
// No sockets and no clock: `now` is passed in, sessions are named by their
// context id. A place is counted from reserve() until cancel(), verify() or
// forget(); reserve() comes before the offer is worked on (which may yield),
// so offers in flight are counted too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "core/error.hpp"

namespace srs {

// The per-address key of an HTTP peer's address text: an IPv4 address as
// is, an IPv4-mapped IPv6 one as its IPv4, another IPv6 one as its /64
// ("2001:db8:1:2::/64"); text that is no address (a test's "") as is.
std::string rtc_pending_address_key(const std::string& ip);

class RtcPendingSessions {
  public:
    struct Limits {
        size_t total = 500;
        size_t per_address = 50;  // 0: no bound per address
        utime_t timeout = 10 * kUsPerSecond;
    };
    // A reload's new limits apply to the offers that come after; sessions
    // already pending keep their deadline.
    void set_limits(const Limits& limits) { limits_ = limits; }
    const Limits& limits() const { return limits_; }

    // A place for one more offer from `address` (a key made by
    // rtc_pending_address_key), or kErrorExceedConnections saying which
    // bound is full; nothing is counted then.
    Error reserve(const std::string& address);
    // The reserved offer was refused: its place is free again.
    void cancel(const std::string& address);
    // The reserved offer became session `cid`, pending until verify(),
    // forget(), or its deadline now + timeout.
    void start(const std::string& cid, const std::string& address, utime_t now);
    // The session's first verified STUN binding: it is no longer pending.
    // False when it was not pending (a later binding, a NAT rebinding) or
    // expired() already returned it.
    bool verify(const std::string& cid);
    // The session ended; a no-op when it was not pending.
    void forget(const std::string& cid);
    // The pending sessions whose deadline is at or before `now`, oldest
    // first, each returned once; they stay counted until forget().
    std::vector<std::string> expired(utime_t now);

    // Places taken: pending sessions and offers in flight.
    size_t size() const { return total_; }
    size_t count(const std::string& address) const;
    // Pending sessions (offers in flight not counted).
    size_t sessions() const { return sessions_.size(); }

    struct Stats {
        uint64_t refused = 0;          // offers refused, either bound
        uint64_t refused_address = 0;  // of them, by the per-address bound
        uint64_t expired = 0;          // sessions that timed out pending
        uint64_t verified = 0;         // sessions that became clients
    };
    const Stats& stats() const { return stats_; }

  private:
    void release(const std::string& address);

    struct Session {
        std::string address;
        utime_t deadline = 0;
        bool expired = false;
    };
    Limits limits_;
    size_t total_ = 0;
    std::unordered_map<std::string, size_t> per_address_;
    std::unordered_map<std::string, Session> sessions_;
    std::set<std::pair<utime_t, std::string>> deadlines_;  // of the sessions not yet returned by expired()
    Stats stats_;
};

}  // namespace srs
