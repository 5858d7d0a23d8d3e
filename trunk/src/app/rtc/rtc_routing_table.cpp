#include "app/rtc/rtc_routing_table.hpp"

#include <cstring>

#include "app/rtc/rtc_session.hpp"
#include "kernel/demux.hpp"
#include "protocol/rtc/rtc_peer.hpp"

namespace srs {

RtcAddressKey rtc_address_key(const StunAddress& a) {
    RtcAddressKey k;
    k.family = a.family;
    k.port = a.port;
    memcpy(k.ip, a.ip, sizeof(k.ip));
    return k;
}

void RtcRoutingTable::add(RtcSession* session) { by_ufrag_[session->username()] = session; }

RtcSession* RtcRoutingTable::find_by_ufrag(const std::string& ufrag) const {
    auto it = by_ufrag_.find(ufrag);
    return it == by_ufrag_.end() ? nullptr : it->second;
}

RtcSession* RtcRoutingTable::find_by_address(const StunAddress& addr) const {
    return by_addr_.find(rtc_address_key(addr));
}

Error RtcRoutingTable::find(const uint8_t* data, size_t size, const StunAddress& from, RtcSession** session) const {
    *session = nullptr;
    if (size == 0) return Error();
    RtcSession* found = find_by_address(from);
    if (classify_datagram(data[0]) == DatagramKind::kStun) {
        StunMessage m;
        if (Error err = m.decode(data, size); err.failed()) return err;
        std::string_view ufrag;
        if (m.is_binding_request() && stun_local_ufrag(m, &ufrag)) {
            auto u = by_ufrag_.find(std::string(ufrag));
            found = u == by_ufrag_.end() ? nullptr : u->second;
        }
    }
    if (found && !found->dead()) *session = found;
    return Error();
}

void RtcRoutingTable::unbind(RtcSession* session) {
    auto old = addr_of_.find(session);
    if (old == addr_of_.end()) return;
    by_addr_.erase(rtc_address_key(old->second));
    addr_of_.erase(old);
}

void RtcRoutingTable::bind(RtcSession* session, const StunAddress& addr) {
    unbind(session);
    // A session that had addr loses it (unbind() above took session's own).
    if (RtcSession* taken = by_addr_.put(rtc_address_key(addr), session)) addr_of_.erase(taken);
    addr_of_[session] = addr;
}

bool RtcRoutingTable::address_of(const RtcSession* session, StunAddress* addr) const {
    auto it = addr_of_.find(session);
    if (it == addr_of_.end()) return false;
    *addr = it->second;
    return true;
}

void RtcRoutingTable::remove(RtcSession* session, utime_t now) {
    unbind(session);
    auto u = by_ufrag_.find(session->username());
    if (u != by_ufrag_.end() && u->second == session) by_ufrag_.erase(u);
    if (ended_.size() < kMaxEnded) ended_[session->username()] = Ended{session->params().token, now};
}

bool RtcRoutingTable::ended_recently(const std::string& ufrag, const std::string& token, utime_t now) const {
    auto e = ended_.find(ufrag);
    return e != ended_.end() && e->second.token == token && now - e->second.at <= kEndedKeep;
}

void RtcRoutingTable::forget_ended(utime_t now) {
    for (auto it = ended_.begin(); it != ended_.end();) {
        it = now - it->second.at > kEndedKeep ? ended_.erase(it) : std::next(it);
    }
}

}  // namespace srs
