// Which WebRTC session a datagram belongs to: sessions by local ufrag (from
// the signalling) and by the transport address their peer verified, plus the
// sessions that ended lately, so a DELETE racing a session's own close still
// succeeds.
//
// No socket and no coroutine: the IO hands in a datagram's bytes and sender
// and gets the session back; the clock is the caller's `now`. An address is
// bound only when a session's peer verified a STUN request from it (the
// datagram hand-off calls bind() then); two sessions never share one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "app/rtc/rtc_address_table.hpp"

#include "core/error.hpp"
#include "core/clock.hpp"
#include "kernel/stun/stun.hpp"

namespace srs {

class RtcSession;

// The key of a STUN address in the table.
RtcAddressKey rtc_address_key(const StunAddress& a);

class RtcRoutingTable {
  public:
    // Ended sessions remembered for a late DELETE: at most this many, this long.
    static constexpr size_t kMaxEnded = 4096;
    static constexpr utime_t kEndedKeep = 60 * kUsPerSecond;

    // A new session, found by its local ufrag (RtcSession::username()) until removed.
    void add(RtcSession* session);
    bool has_ufrag(const std::string& ufrag) const { return by_ufrag_.count(ufrag) != 0; }
    RtcSession* find_by_ufrag(const std::string& ufrag) const;
    RtcSession* find_by_address(const StunAddress& addr) const;

    // The live session a datagram from `from` goes to, or nullptr (drop it):
    // a STUN binding request names its session by the ufrag of its USERNAME
    // (a new peer, or a NAT rebinding: a known ufrag from a new address),
    // anything else goes to the session bound to `from`. A dead session gets
    // nothing. An error for a STUN datagram that does not decode.
    Error find(const uint8_t* data, size_t size, const StunAddress& from, RtcSession** session) const;

    // The session's peer verified a STUN request from `addr`: `addr` routes to
    // it, its previous address no longer does, and a session that had `addr`
    // loses it.
    void bind(RtcSession* session, const StunAddress& addr);
    // Whether the session has an address bound, and which.
    bool address_of(const RtcSession* session, StunAddress* addr) const;

    // The session is reaped: it leaves both maps, and its ufrag and DELETE
    // token are remembered from `now` (while fewer than kMaxEnded are).
    void remove(RtcSession* session, utime_t now);
    // Whether a session of this ufrag and token ended at most kEndedKeep before `now`.
    bool ended_recently(const std::string& ufrag, const std::string& token, utime_t now) const;
    // Forgets the sessions that ended more than kEndedKeep before `now`.
    void forget_ended(utime_t now);

    size_t session_count() const { return by_ufrag_.size(); }
    size_t address_count() const { return by_addr_.size(); }
    size_t ended_count() const { return ended_.size(); }

  private:
    void unbind(RtcSession* session);

    std::map<std::string, RtcSession*> by_ufrag_;
    RtcAddressTable by_addr_;
    // The other way: each bound session's one address.
    std::unordered_map<const RtcSession*, StunAddress> addr_of_;
    struct Ended {
        std::string token;
        utime_t at = 0;
    };
    std::map<std::string, Ended> ended_;
};

}  // namespace srs
